#!/usr/bin/env python3
"""The standing table: per library, workload and op, every engine's median seconds per call and colio's ratios."""
import json, sys

print('| library | workload | op | colio | MPI-IO | posix | alltoallv | x MPI-IO | x posix | x alltoallv |')
print('|---|---|---|---|---|---|---|---|---|---|')
for path in sys.argv[1:]:
    d = json.load(open(path))
    lib = 'MPICH' if 'MPICH' in d['library'] else 'Open MPI'
    by = {(r['workload'], r['op'], r['engine']): r['median_s'] for r in d['runs'] if r.get('verified')}
    for (w, op, e), t in by.items():
        if e != 'colio':
            continue
        m, p, a = (by.get((w, op, x)) for x in ('mpiio', 'posix', 'alltoallv'))
        f = lambda v: '%.4f' % v if v else '-'
        x = lambda v: '%.2f' % (v / t) if v else '-'
        print(f'| {lib} | {w} | {op} | {f(t)} | {f(m)} | {f(p)} | {f(a)} | {x(m)} | {x(p)} | {x(a)} |')
