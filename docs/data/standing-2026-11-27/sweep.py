#!/usr/bin/env python3
"""The interleaved sweep: colio under each MPI, each library's MPI-IO, the better posix; x = the better library's time over colio's."""
import json, sys

runs = {}
for path, lib in zip(sys.argv[1:3], ('mpich', 'openmpi')):
    for r in json.load(open(path))['runs']:
        if r.get('verified'):
            runs[(lib, r['workload'].split('/')[1], r['op'], r['engine'])] = r['median_s']
print('| block | op | colio MPICH | ROMIO | colio Open MPI | OMPIO | x ROMIO / x OMPIO | x better library | posix (better) | x posix |')
print('|---|---|---|---|---|---|---|---|---|---|')
blocks = sorted({k[1] for k in runs}, key=int)
for b in blocks:
    for op in ('write', 'read'):
        g = lambda lib, e: runs.get((lib, b, op, e))
        cm, rm, co, oo = g('mpich', 'colio'), g('mpich', 'mpiio'), g('openmpi', 'colio'), g('openmpi', 'mpiio')
        px = min(x for x in (g('mpich', 'posix'), g('openmpi', 'posix')) if x)
        best_colio, best_lib = min(cm, co), min(rm, oo)
        name = f'{int(b) // 1048576} MiB' if int(b) >= 1048576 else (f'{int(b) // 1024} KiB' if int(b) >= 1024 else f'{b} B')
        print(f'| {name} | {op} | {cm:.4f} | {rm:.4f} | {co:.4f} | {oo:.4f} | {rm / cm:.2f} / {oo / co:.2f} | '
              f'{best_lib / best_colio:.2f} | {px:.4f} | {px / best_colio:.2f} |')
