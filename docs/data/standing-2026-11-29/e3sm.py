#!/usr/bin/env python3
"""Table of e3sm.sh OUT: colio's median seconds per case, MPI and op, and per other engine the median of the
repeats' ratios (its time over colio's in the same repeat: above 1, colio faster)."""
import json
import os
import statistics
import sys


def row(path):
    by = {}
    for r in json.load(open(path))["runs"]:
        by.setdefault(r["op"], {})[r["engine"]] = r
    return by


def ratio(c, o):
    return "%.2f" % statistics.median(t / u for t, u in zip(o["times_s"], c["times_s"]))


def main(out):
    print("| case | MPI | op | colio s | x MPI-IO | x alltoallv |")
    print("|---|---|---|---|---|---|")
    for case in "fg":
        for mpi, name in (("mpich", "MPICH"), ("openmpi", "Open MPI")):
            path = os.path.join(out, "%s-%s.json" % (case, mpi))
            if not os.path.exists(path):
                continue
            for op, e in row(path).items():
                c = e["colio"]
                print("| %s | %s | %s | %.4f | %s | %s |" % (case.upper(), name, op, c["median_s"],
                      ratio(c, e["mpiio"]), ratio(c, e["alltoallv"])))


if __name__ == "__main__":
    main(sys.argv[1])
