#!/usr/bin/env python3
"""Table of the slow-storage sweep (sweep.sh OUT): colio's median seconds per MPI and, per other engine, the median
of the repeats' ratios (its time over colio's in the same repeat: above 1, colio faster)."""
import json
import os
import statistics
import sys


def runs(path):
    if not os.path.exists(path):
        return {}
    out = {}
    for r in json.load(open(path))["runs"]:
        block = int(r["desc"].split("-")[0])  # "4096-byte blocks ..." (the workload is named without it alone)
        out[(block, r["op"], r["engine"])] = r
    return out


def paired(res, block, op, engine):
    c, o = res.get((block, op, "colio")), res.get((block, op, engine))
    if not c or not o:
        return "-"
    ratios = [t / u for t, u in zip(o["times_s"], c["times_s"])]
    return "%.2f" % statistics.median(ratios)


def size(b):
    return "%d MiB" % (b >> 20) if b >= 1 << 20 else "%d KiB" % (b >> 10) if b >= 1024 else "%d B" % b


def main(out):
    m = runs(os.path.join(out, "mpich.json"))
    o = runs(os.path.join(out, "openmpi.json"))
    om = {**runs(os.path.join(out, "openmpi-ompio-4k.json")), **runs(os.path.join(out, "openmpi-ompio.json"))}
    print("| block | op | colio (MPICH) s | x ROMIO | x alltoallv (MPICH) | colio (Open MPI) s | x OMPIO "
          "| x alltoallv (Open MPI) |")
    print("|---|---|---|---|---|---|---|---|")
    for block, op in sorted({(b, p) for (b, p, e) in m}, key=lambda k: (k[0], k[1] != "write")):
        cm, co = m.get((block, op, "colio")), o.get((block, op, "colio"))
        print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            size(block), op, "%.4f" % cm["median_s"] if cm else "-", paired(m, block, op, "mpiio"),
            paired(m, block, op, "alltoallv"), "%.4f" % co["median_s"] if co else "-",
            paired(om, block, op, "mpiio"), paired(o, block, op, "alltoallv")))


if __name__ == "__main__":
    main(sys.argv[1])
