#!/usr/bin/env python3
"""bench.sh's medium runs: per library, workload and op, colio's median seconds per call with express calls
on and off, the library's MPI-IO, and the ratios (time over colio's: above 1, colio faster)."""
import json, sys

print('| library | workload | op | colio | express off | MPI-IO | x express off | x MPI-IO |')
print('|---|---|---|---|---|---|---|---|')
for path in sys.argv[1:]:
    d = json.load(open(path))
    lib = 'MPICH' if 'MPICH' in d['library'] else 'Open MPI'
    by = {(r['workload'], r['op'], r['engine']): r['median_s'] for r in d['runs'] if r.get('verified')}
    for (w, op, e), t in by.items():
        if e != 'colio':
            continue
        off, m = by.get((w, op, 'colio:colio_express=false')), by.get((w, op, 'mpiio'))
        f = lambda v: '%.4f' % v if v else '-'
        x = lambda v: '%.2f' % (v / t) if v else '-'
        print(f'| {lib} | {w} | {op} | {f(t)} | {f(off)} | {f(m)} | {x(off)} | {x(m)} |')
