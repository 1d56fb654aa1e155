#!/usr/bin/python3
"""Experiment 4, nonblocking collective I/O overlapping computation (Seo et
al., seeds/002, Fig. 6/7) at 1,024 ranks: colio-nbbench's overlap
experiment (a collective write, then a read, paired with computation as
long as the I/O) on the small Summit-like fat-tree with 8 ranks per node
(Seo et al. ran 8 per node on a QDR InfiniBand fat-tree). SMPI gives
MPI_THREAD_SINGLE, so progress comes from colio_test calls between
computation slices (the paper's Small_Computation loop). The computation is
simulated (smpi_execute); the file is real (/dev/shm, read back and checked).

    sim/experiments/nonblocking.py [--ranks 1024] [--bytes 65536] [--slices 20]

Writes docs/results/sim/nonblocking.json and docs/img/sim-nonblocking.png."""
import argparse
import os

import common

SEO = {"write": 0.84, "read": 0.83}  # share of the I/O hidden at 64 ranks (Seo et al. sec. IV-C)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ranks", type=int, default=1024)
    ap.add_argument("--bytes", type=int, default=65536, help="per rank per operation")
    ap.add_argument("--slices", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--machine", default="summit-small")
    ap.add_argument("--per-node", type=int, default=8)
    ap.add_argument("--out", default="nonblocking")
    a = ap.parse_args()
    path = f"/dev/shm/colio-sim-nb.{os.getpid()}.dat"
    argv = [common.program("colio-nbbench"), "--path", path, "--bytes", str(a.bytes), "--repeat", str(a.repeat),
            "--slices", str(a.slices), "--test-calls", "--hints", "colio_progress=none", "overlap"]
    common.log(f"overlap at {a.ranks} ranks")
    try:
        out, wall, rss, cmd = common.smpirun(a.machine, a.ranks, argv, per_node=a.per_node)
    finally:
        if os.path.exists(path):
            os.unlink(path)
    rows, results = [], {"experiment": "nonblocking", "machine": a.machine, "ranks": a.ranks, "bytes": a.bytes,
                         "wall_s": round(wall, 1), "rss_mib": round(rss), "command": cmd, "runs": []}
    for line in out.splitlines():
        if line.startswith("verify"):
            results["verify"] = line.split()[1]
        if not line.startswith("overlap "):
            continue
        f = line.split()
        kv = {f[i]: f[i + 1] for i in range(2, len(f) - 1, 2)}
        r = {"op": f[1], **{k: float(v) for k, v in kv.items()}}
        results["runs"].append(r)
        rows.append((r["op"], f"{r['t_io']:.4f}", f"{r['t_compute']:.4f}", f"{r['t_blocking_step']:.4f}",
                     f"{r['t_nonblocking_step']:.4f}", f"{100 * r['hidden']:.0f}%", f"{100 * SEO[r['op']]:.0f}%"))
    if results.get("verify") != "ok" or not results["runs"]:
        raise SystemExit(f"colio-nbbench did not verify its bytes:\n{out}")
    common.save(a.out, results)
    print(common.table(["op", "t_io s", "t_compute s", "blocking step s", "nonblocking step s", "hidden (colio)",
                        "hidden (Seo, 64 ranks)"], rows))

    runs = results["runs"]
    draw = common.bar_pair([r["op"] for r in runs], [r["t_blocking_step"] for r in runs],
                           [r["t_nonblocking_step"] for r in runs], ("blocking step", "nonblocking step"),
                           "simulated s (slowest rank)", f"I/O + equal computation, {a.ranks} ranks, {a.machine}")
    common.plot(f"sim-{a.out}", draw)


if __name__ == "__main__":
    main()
