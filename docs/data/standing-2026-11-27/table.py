#!/usr/bin/env python3
"""The standing table: per library, workload and op, colio's median seconds per call, the other engines' and
colio's ratios to them (their time over colio's). --engines a,b,... names the other engines (colio-bench's
names, e.g. colio:colio_express=false); the default is the standing table's mpiio,posix,alltoallv.
usage: table.py [--engines LIST] RESULT.json ..."""
import json, sys

args = sys.argv[1:]
engines = ['mpiio', 'posix', 'alltoallv']
if args[:1] == ['--engines']:
    engines, args = args[1].split(','), args[2:]
label = lambda e: {'mpiio': 'MPI-IO'}.get(e, e)
print('| library | workload | op | colio | ' + ' | '.join(label(e) for e in engines) + ' | ' +
      ' | '.join('x ' + label(e) for e in engines) + ' |')
print('|---' * (4 + 2 * len(engines)) + '|')
for path in args:
    d = json.load(open(path))
    lib = 'MPICH' if 'MPICH' in d['library'] else 'Open MPI'
    by = {(r['workload'], r['op'], r['engine']): r['median_s'] for r in d['runs'] if r.get('verified')}
    for (w, op, e), t in by.items():
        if e != 'colio':
            continue
        others = [by.get((w, op, x)) for x in engines]
        f = lambda v: '%.4f' % v if v else '-'
        x = lambda v: '%.2f' % (v / t) if v else '-'
        print(f'| {lib} | {w} | {op} | {f(t)} | ' + ' | '.join(f(v) for v in others) + ' | ' +
              ' | '.join(x(v) for v in others) + ' |')
