#!/usr/bin/env python3
"""Medians of percall.sh's rounds: us per call, write / read, and colio's time over the library's (API and interposer)
and over the floors, per round then the median of those ratios (the rounds' library runs pair with colio's)."""
import statistics as st, sys
from collections import defaultdict
rows = defaultdict(list)  # (mpi, bytes, preload, engine) -> [(w, r)] in round order
for line in open(sys.argv[1]):
    mpi, b, pre, eng, _, w, _, r = line.split()
    rows[(mpi, b, pre, eng)].append((float(w), float(r)))
med = lambda xs: st.median(xs)
print('| MPI | bytes | colio API | interposer | library | agreed floor | slots floor | API / library | interposer / library |')
print('|---|---|---|---|---|---|---|---|---|')
for mpi in ('mpich', 'openmpi'):
    for b in ('64', '4096'):
        api, lib = rows[(mpi, b, 'preload=0', 'colio')], rows[(mpi, b, 'preload=0', 'mpiio')]
        itp, ag, sl = rows[(mpi, b, 'preload=1', 'mpiio')], rows[(mpi, b, 'preload=0', 'agreed')], rows[(mpi, b, 'preload=0', 'slots')]
        if not api:
            continue
        f = lambda v: '%.2f / %.2f' % (med([x[0] for x in v]), med([x[1] for x in v]))
        ratio = lambda a, l: '%.2f / %.2f' % (med([x[0] / y[0] for x, y in zip(a, l)]), med([x[1] / y[1] for x, y in zip(a, l)]))
        print(f'| {mpi} | {b} | {f(api)} | {f(itp)} | {f(lib)} | {f(ag)} | {f(sl)} | {ratio(api, lib)} | {ratio(itp, lib)} |')
