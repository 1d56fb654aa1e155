#!/usr/bin/env python3
"""Medians of pairs.sh's lines per (MPI, bytes, path): express off and on, the library's MPI-IO and
pwrite + MPI_Allreduce in the same runs, and the ratios issue 23's targets name (time / library's time)."""
import collections, statistics, sys
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    x, mpi, b, pre, eng, _, w, _, r = line.split()
    path = "interposer" if pre == "preload=1" else "API"
    name = "colio" if pre == "preload=1" else eng
    rows[(mpi, int(b), path, name, x)].append((float(w), float(r)))
med = {k: (statistics.median(v[0] for v in vs), statistics.median(v[1] for v in vs), len(vs)) for k, vs in rows.items()}
lib = {"mpich": "ROMIO", "openmpi": "OMPIO"}
print("| MPI | bytes | path | runs | steps (w / r us) | express | express / steps | %s or %s (same runs) | express / library | pwrite+allreduce |" % ("ROMIO", "OMPIO"))
print("|---|---|---|---|---|---|---|---|---|---|")
for mpi in ("mpich", "openmpi"):
    for b in (64, 4096):
        mi = [med[k] for k in ((mpi, b, "API", "mpiio", "false"), (mpi, b, "API", "mpiio", "true")) if k in med]
        ag = [med[k] for k in ((mpi, b, "API", "agreed", "false"), (mpi, b, "API", "agreed", "true")) if k in med]
        if not mi:
            continue
        lw, lr = statistics.median(m[0] for m in mi), statistics.median(m[1] for m in mi)
        aw, ar = statistics.median(a[0] for a in ag), statistics.median(a[1] for a in ag)
        for path in ("API", "interposer"):
            off, on = med.get((mpi, b, path, "colio", "false")), med.get((mpi, b, path, "colio", "true"))
            if not (off and on):
                continue
            print("| %s | %d | %s | %d | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f | %s %.2f / %.2f | %.2f / %.2f | %.2f / %.2f |" % (
                mpi, b, path, on[2], off[0], off[1], on[0], on[1], on[0] / off[0], on[1] / off[1], lib[mpi], lw, lr,
                on[0] / lw, on[1] / lr, aw, ar))
