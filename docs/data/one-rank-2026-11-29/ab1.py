#!/usr/bin/env python3
"""ab1.sh's lines: per tree, MPI and engine, the median (and range) of the rounds' write and read us per call."""
import collections, statistics as st, sys

rows = collections.defaultdict(lambda: ([], []))
for line in open(sys.argv[1]):
    k, tree, mpi, eng, _, w, _, r = line.split()
    rows[(mpi, eng, tree)][0].append(float(w))
    rows[(mpi, eng, tree)][1].append(float(r))
print('| MPI | engine | tree | write us (median, range) | read us (median, range) |')
print('|---|---|---|---|---|')
for (mpi, eng, tree), (w, r) in sorted(rows.items()):
    f = lambda v: '%.2f (%.2f-%.2f)' % (st.median(v), min(v), max(v))
    print(f'| {mpi} | {eng} | {tree} | {f(w)} | {f(r)} |')
