#!/usr/bin/env python3
"""Medians of ab.txt per (MPI, bytes, path, engine, tree), and the ratios the issue's targets name."""
import collections, statistics, sys
rows = collections.defaultdict(list)
for line in open(sys.argv[1] if len(sys.argv) > 1 else "docs/data/percall-2026-11-27/ab.txt"):
    tree, mpi, b, pre, eng, _, w, _, r = line.split()
    path = "interposer" if pre == "preload=1" else "API"
    name = "colio" if pre == "preload=1" else eng
    rows[(mpi, int(b), path, name, tree)].append((float(w), float(r)))
med = {k: (statistics.median(x[0] for x in v), statistics.median(x[1] for x in v), len(v)) for k, v in rows.items()}
print("| MPI | bytes | path | colio base (w / r us) | colio new | library's MPI-IO (new runs) | new / library | pwrite+allreduce |")
print("|---|---|---|---|---|---|---|---|")
for mpi in ("mpich", "openmpi"):
    for b in (64, 4096):
        lib = med.get((mpi, b, "API", "mpiio", "new"))
        agr = med.get((mpi, b, "API", "agreed", "new"))
        for path in ("API", "interposer"):
            bs, nw = med.get((mpi, b, path, "colio", "base")), med.get((mpi, b, path, "colio", "new"))
            if not (bs and nw and lib):
                continue
            print("| %s | %d | %s | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f |" % (
                mpi, b, path, bs[0], bs[1], nw[0], nw[1], lib[0], lib[1], nw[0] / lib[0], nw[1] / lib[1],
                agr[0], agr[1]))
