#!/usr/bin/env python3
"""Per-round ratios (colio's time over the library's) of percall.sh files, split by the VM's phase: a round is in
the fast phase when its Open MPI 64-byte `slots` read (a pread and one cache-line rendezvous) took under 0.6 us.
usage: phases.py FILE...   (lines: round mpi bytes preload=0|1 engine w <us> r <us>)"""
import sys
from collections import defaultdict

ratios = {True: defaultdict(list), False: defaultdict(list)}
for name in sys.argv[1:]:
    rounds = defaultdict(dict)
    for line in open(name):
        k, mpi, size, pre, engine, _, w, _, r = line.split()
        rounds[(k, mpi, size)][(pre, engine)] = (float(w), float(r))
    for (k, mpi, size), cells in rounds.items():
        fast = rounds[(k, "openmpi", "64")][("preload=0", "slots")][1] < 0.6
        lib = cells[("preload=0", "mpiio")]
        for path, key in (("API", ("preload=0", "colio")), ("interposer", ("preload=1", "mpiio"))):
            ratios[fast][(mpi, size, path)].append((cells[key][0] / lib[0], cells[key][1] / lib[1]))

print("| phase | MPI | bytes | path | rounds | write | read | rounds above 1.5x |")
print("|---|---|---|---|---|---|---|---|")
for fast in (True, False):
    for (mpi, size, path), v in sorted(ratios[fast].items()):
        w = [x[0] for x in v]
        r = [x[1] for x in v]
        above = sum(1 for x in v if max(x) > 1.5)
        print(f"| {'fast' if fast else 'slow'} | {mpi} | {size} | {path} | {len(v)} | {min(w):.2f}-{max(w):.2f} "
              f"| {min(r):.2f}-{max(r):.2f} | {above} |")
