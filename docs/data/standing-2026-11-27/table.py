#!/usr/bin/env python3
"""The standing table: per library, workload and op, colio's median seconds per call, the other engines' and
colio's ratios to them (their time over colio's). --engines a,b,... names the other engines (colio-bench's
names, e.g. colio:colio_express=false); the default is the standing table's mpiio,posix,alltoallv.
Runs made with colio-bench --interleave carry each repeat's time: the ratios are then the medians of the
repeats' ratios (each repeat ran every engine in turn), not the ratios of the medians.
usage: table.py [--engines LIST] RESULT.json ..."""
import json, statistics, sys

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
    paired = d.get('interleave', False)
    by = {(r['workload'], r['op'], r['engine']): r for r in d['runs'] if r.get('verified')}
    def ratio(o, c):
        if o is None:
            return None
        if paired and o.get('times_s') and c.get('times_s'):
            return statistics.median(a / b for a, b in zip(o['times_s'], c['times_s']) if b > 0)
        return o['median_s'] / c['median_s']
    for (w, op, e), c in by.items():
        if e != 'colio':
            continue
        others = [by.get((w, op, x)) for x in engines]
        f = lambda r: '%.4f' % r['median_s'] if r else '-'
        x = lambda r: '%.2f' % ratio(r, c) if r else '-'
        print(f'| {lib} | {w} | {op} | {f(c)} | ' + ' | '.join(f(r) for r in others) + ' | ' +
              ' | '.join(x(r) for r in others) + ' |')
