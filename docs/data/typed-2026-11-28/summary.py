#!/usr/bin/env python3
"""ab.sh's runs as one table: per MPI, workload and op, packed (the default) and typed (colio_typed_min=2048)
seconds per call, the data exchange of each, and typed over packed as the median of the repeats' ratios.
usage: summary.py OUT"""
import json, statistics, sys

print('| MPI | path | workload | op | packed s | typed s | packed exchange s | typed exchange s | typed / packed |')
print('|---|---|---|---|---|---|---|---|---|')
for mpi in ('mpich', 'openmpi'):
    for path in ('forced', 'default'):
        d = json.load(open(f'{sys.argv[1]}/{path}-{mpi}.json'))
        runs = {(r['workload'], r['op'], 'typed' if 'typed_min' in r['engine'] else r['engine']): r
                for r in d['runs'] if r.get('verified')}
        for (w, op, e), p in runs.items():
            if e == 'typed' or not e.startswith('colio'):
                continue
            t = runs.get((w, op, 'typed'))
            ratio = statistics.median(a / b for a, b in zip(t['times_s'], p['times_s']))
            lib = 'MPICH' if mpi == 'mpich' else 'Open MPI'
            print(f"| {lib} | {path} | {w} | {op} | {p['median_s']:.4f} | {t['median_s']:.4f} | "
                  f"{p['phases']['data_exchange']:.4f} | {t['phases']['data_exchange']:.4f} | {ratio:.2f} |")
