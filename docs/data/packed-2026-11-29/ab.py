#!/usr/bin/env python3
"""Table of ab.sh OUT: per MPI, build and run, colio's median seconds and the transposition's over colio's
(ratio of the medians; and the median of the repeats' ratios), writes and reads."""
import glob
import json
import os
import statistics
import sys


def cell(runs, op):
    c = runs[("colio", op)]
    a = runs[("alltoallv", op)]
    paired = statistics.median(t / u for t, u in zip(a["times_s"], c["times_s"]))
    return "%.4f | %.2f | %.2f" % (c["median_s"], a["median_s"] / c["median_s"], paired)


def main(out):
    print("| MPI | build | run | write colio s | x alltoallv | paired | read colio s | x alltoallv | paired |")
    print("|---|---|---|---|---|---|---|---|---|")
    for path in sorted(glob.glob(os.path.join(out, "f-*.json"))):
        mpi, tag, i = os.path.basename(path)[2:-5].split("-")
        runs = {(r["engine"], r["op"]): r for r in json.load(open(path))["runs"]}
        print("| %s | %s | %s | %s | %s |" % (mpi, tag, i, cell(runs, "write"), cell(runs, "read")))


if __name__ == "__main__":
    main(sys.argv[1])
