#!/usr/bin/env python3
"""Medians of percall.sh's rounds: us per call, write / read, and colio's time over the library's (API and interposer),
per round then the median of those ratios (each round's library run pairs with that round's colio runs).
Lines without a round (the first run's file, docs/data/final-2026-11-29/percall.txt) count in file order."""
import statistics as st, sys
from collections import defaultdict
rows = defaultdict(dict)  # (mpi, bytes, preload, engine) -> {round: (w, r)}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 8:  # no round: the n-th line of a kind is round n
        f.insert(0, None)
    k, mpi, b, pre, eng, _, w, _, r = f
    d = rows[(mpi, b, pre, eng)]
    d[k if k is not None else len(d)] = (float(w), float(r))
med = lambda xs: st.median(xs)
print('| MPI | bytes | colio API | interposer | library | agreed floor | slots floor | API / library | interposer / library |')
print('|---|---|---|---|---|---|---|---|---|')
for mpi in ('mpich', 'openmpi'):
    for b in ('64', '4096'):
        api, lib = rows[(mpi, b, 'preload=0', 'colio')], rows[(mpi, b, 'preload=0', 'mpiio')]
        itp, ag, sl = rows[(mpi, b, 'preload=1', 'mpiio')], rows[(mpi, b, 'preload=0', 'agreed')], rows[(mpi, b, 'preload=0', 'slots')]
        if not api:
            continue
        f = lambda v: '%.2f / %.2f' % (med([x[0] for x in v.values()]), med([x[1] for x in v.values()])) if v else '-'
        def ratio(a, l):
            both = [k for k in a if k in l]
            return '%.2f / %.2f' % (med([a[k][0] / l[k][0] for k in both]), med([a[k][1] / l[k][1] for k in both]))
        print(f'| {mpi} | {b} | {f(api)} | {f(itp)} | {f(lib)} | {f(ag)} | {f(sl)} | {ratio(api, lib)} | {ratio(itp, lib)} |')
