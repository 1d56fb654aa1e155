#!/usr/bin/python3
"""The simulator's compute model, calibrated (docs/SCALE.md, "Computation").

Under SMPI colio charges its own work as modelled time (src/base/charge.c):
a cost per operation, per record its code walked, per piece of a round and
per byte it copied in memory, the units colio_op_stats counts as work_runs,
work_pieces and work_bytes (medians over the operations in the table). 
This script measures the four costs on the machine it runs on:
native colio-bench runs (build/mpich by default, 2 ranks bound, the null
backend so storage plays no part, collective buffering forced as in the
simulations) of the simulations' workloads and more piece sizes, every
operation of every rank recorded (colio_stats), and a least-squares fit of

    time.compute = op + run * work_runs + piece * work_pieces + byte * work_bytes

over all of them. It prints the fit, its residuals and the C initialiser
for src/base/charge.c, and writes docs/results/sim/calibrate.json.

    sim/experiments/calibrate.py [--mpi mpich] [--repeat 5]
"""
import argparse
import json
import os
import subprocess
import tempfile

import common

# (workload arguments, label): the simulations' two workloads (kernels.py) and interleaved blocks of more sizes
CASES = [(["--workload", "e3sm", "--size", "small"], "e3sm"),
         *[(["--workload", "interleaved", "--size", "small", "--block", str(b)], f"interleaved {b} B")
           for b in (16, 64, 512, 4096, 65536)],
         (["--workload", "interleaved", "--size", "medium", "--block", "64"], "interleaved 64 B medium")]
HINTS = "colio_backend=null;romio_cb_write=enable;romio_cb_read=enable;cb_buffer_size=262144"


def run_case(mpi, args, repeat, tmp):
    stats = os.path.join(tmp, "stats.jsonl")
    if os.path.exists(stats):
        os.unlink(stats)
    bench = os.path.join(common.ROOT, "build", mpi, "bench", "colio-bench")
    cmd = (f'source "{common.ROOT}/scripts/env.sh" && colio_mpi_env {mpi} && '
           f'"$COLIO_MPIEXEC" $COLIO_MPIEXEC_FLAGS $COLIO_MPIEXEC_BIND -n 2 "{bench}" {" ".join(args)} '
           f'--engine colio --repeat {repeat} --dir {tmp} --quiet --hints "{HINTS};colio_stats={stats}"')
    subprocess.run(["bash", "-c", cmd], check=True, stdout=subprocess.DEVNULL)
    rows = []
    with open(stats) as f:
        for line in f:
            s = json.loads(line)
            if s.get("strategy") == "two-phase":
                rows.append((s["compute"], s["work_runs"], s["work_pieces"], s["work_bytes"], s["op"]))
    return rows, cmd


def lstsq(rows):
    """Least squares of compute = op + run * runs + piece * pieces + byte * bytes (normal equations, no numpy)."""
    x = [(1.0, float(r), float(p), float(b)) for _, r, p, b, _ in rows]
    y = [row[0] for row in rows]
    n = len(x[0])
    a = [[sum(xi[i] * xi[j] for xi in x) for j in range(n)] for i in range(n)]
    v = [sum(xi[i] * yi for xi, yi in zip(x, y)) for i in range(n)]
    for i in range(n):  # Gauss-Jordan with partial pivoting
        p = max(range(i, n), key=lambda k: abs(a[k][i]))
        a[i], a[p], v[i], v[p] = a[p], a[i], v[p], v[i]
        for k in range(n):
            if k != i:
                f = a[k][i] / a[i][i]
                a[k] = [ak - f * ai for ak, ai in zip(a[k], a[i])]
                v[k] -= f * v[i]
    return [v[i] / a[i][i] for i in range(n)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mpi", default="mpich")
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="colio-calibrate-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    cases, allrows = [], []
    try:
        for args, label in CASES:
            rows, cmd = run_case(a.mpi, args, a.repeat, tmp)
            cases.append({"case": label, "command": cmd, "ops": rows})
            allrows += rows
    finally:
        subprocess.run(["rm", "-rf", tmp])
    fit = lstsq(allrows)
    op, run, piece, byte = fit
    out = []
    for c in cases:
        rows = c["ops"]
        meas = sorted(r[0] for r in rows)[len(rows) // 2]
        model = sorted(op + run * r[1] + piece * r[2] + byte * r[3] for r in rows)[len(rows) // 2]
        med = [sorted(r[k] for r in rows)[len(rows) // 2] for k in (1, 2, 3)]
        out.append([c["case"], len(rows), *med, f"{meas * 1e3:.3f}", f"{model * 1e3:.3f}",
                    f"{(model - meas) / meas * 100:+.0f}%" if meas > 0 else "-"])
    print(common.table(["case", "operations x ranks", "work_runs", "work_pieces", "work_bytes",
                        "compute ms (median)", "model ms (median)", "model - measured"], out))
    print(f"\nop {op:.3g} s, run {run:.3g} s, piece {piece:.3g} s, byte {byte:.3g} s")
    print(f"src/base/charge.c: {{{op:.3g}, {run:.3g}, {piece:.3g}, {byte:.3g}}}")
    common.save("calibrate", {"mpi": a.mpi, "hints": HINTS, "fit": {"op": op, "run": run, "piece": piece, "byte": byte},
                              "cases": cases})


if __name__ == "__main__":
    main()
