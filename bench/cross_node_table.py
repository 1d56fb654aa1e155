#!/usr/bin/env python3
"""The cross-node tables from bench/cross-node.sh's JSON files.

    bench/cross_node_table.py DIR [--detail]

1. colio's speed-up over the MPI library's MPI-IO, every workload and
   operation against every network, library and directory (the median of the
   repeats' ratios; the repeats ran engines in turn).
2. The path colio chose on the unshaped network with files in memory, what
   its cost model predicted for both paths, both paths measured forced, and
   the chosen one against the better of them.
3. The targets' summary. --detail prints table 2 for every configuration.
"""
import glob
import json
import os
import statistics
import sys

TWO_PHASE = "colio:romio_cb_write=enable+romio_cb_read=enable"
DIRECT = "colio:romio_cb_write=disable+romio_cb_read=disable"
LIBS = {"mpich": "MPICH 4.0.2", "openmpi": "Open MPI 4.1.4", "mpich5": "MPICH 5", "openmpi5": "Open MPI 5"}


def ratios(a, b):
    return [y / x for x, y in zip(a["times_s"], b["times_s"]) if x > 0]


def load(path):
    doc = json.load(open(path))
    runs = {}
    for r in doc["runs"]:
        if r.get("verified") and r.get("repeats", 0) > 0:
            runs[(r["workload"], r["op"], r["engine"])] = r
    label = os.path.basename(path).split(".")[3]
    cells = {}
    for (w, op, e), c in runs.items():
        m, tp, dr = runs.get((w, op, "mpiio")), runs.get((w, op, TWO_PHASE)), runs.get((w, op, DIRECT))
        if e != "colio" or not (m and tp and dr):
            continue
        name = {"e3sm_f": "E3SM F", "e3sm_g": "E3SM G"}.get(label, w)
        x = ratios(c, m)
        cells[(name, op)] = dict(colio=c, tp=tp, dr=dr, x=statistics.median(x), xmin=min(x), xmax=max(x),
                                 vs_best=min(tp["median_s"], dr["median_s"]) / c["median_s"])
    return cells


def order(key):
    w, op = key
    rank = ["interleaved/64", "interleaved/4096", "interleaved/65536", "interleaved/1048576", "E3SM F", "E3SM G",
            "ior/64", "ior/4096", "ior/1048576", "lattice"]
    return (rank.index(w) if w in rank else len(rank), op != "write")


def ms(s):
    return f"{s * 1e3:.3g}"


def net_name(n):
    return "unshaped" if n == "plain" else n.replace("gbit", " Gbit/s").replace("-", ", ")


def main():
    root = sys.argv[1]
    data = {}
    for f in sorted(glob.glob(os.path.join(root, "*.json"))):
        net, mpi, where = os.path.basename(f).split(".")[:3]
        data.setdefault((net, mpi, where), {}).update(load(f))
    if not data:
        print("no results in", root)
        return 1
    nets = sorted({k[0] for k in data}, key=lambda n: (n != "plain", -float(n.split("gbit")[0]) if n != "plain" else 0))
    mpis = sorted({k[1] for k in data})
    wheres = [w for w in ("mem", "disk") if any(k[2] == w for k in data)]
    keys = sorted({k for cells in data.values() for k in cells}, key=order)
    for w in wheres:
        cols = [(n, m, w) for m in mpis for n in nets]
        print(f"\nFiles {'in memory' if w == 'mem' else 'on the disk'}, colio / MPI-IO:\n")
        print("| workload | op | " + " | ".join(f"{LIBS.get(m, m)}, {net_name(n)}" for n, m, _ in cols) + " |")
        print("|---|---|" + "---|" * len(cols))
        for k in keys:
            vals = [data.get(c, {}).get(k) for c in cols]
            print(f"| {k[0]} | {k[1]} | " + " | ".join(f"{v['x']:.2f}" if v else "-" for v in vals) + " |")
    detail = [c for c in data if "--detail" in sys.argv or (c[0] == "plain" and c[2] == "mem")]
    for net, mpi, where in sorted(detail):
        print(f"\n{LIBS.get(mpi, mpi)}, {net_name(net)} network, files in {'memory' if where == 'mem' else 'the disk'}:\n")
        print("| workload | op | colio ms (min-max) | x MPI-IO (min-max) | path | model two-phase / direct ms | "
              "forced two-phase / direct ms | chosen / better forced |")
        print("|---|---|---|---|---|---|---|---|")
        for k in keys:
            r = data[(net, mpi, where)].get(k)
            if not r:
                continue
            c = r["colio"]
            print(f"| {k[0]} | {k[1]} | {ms(c['median_s'])} ({ms(c['min_s'])}-{ms(c['max_s'])}) | "
                  f"{r['x']:.2f} ({r['xmin']:.2f}-{r['xmax']:.2f}) | {c.get('strategy', '-')} | "
                  f"{ms(c.get('predicted_two_phase_s', 0))} / {ms(c.get('predicted_direct_s', 0))} | "
                  f"{ms(r['tp']['median_s'])} / {ms(r['dr']['median_s'])} | {r['vs_best']:.2f} |")
    cells = [(v, k, c) for c, cs in data.items() for k, v in cs.items()]
    below = sorted((v["x"], k, c) for v, k, c in cells if v["x"] < 1.0)
    fw = [v["x"] for v, k, c in cells if k == ("E3SM F", "write")]
    low = sorted((v["vs_best"], k, c) for v, k, c in cells if v["vs_best"] < 0.9)
    print(f"\n- colio / MPI-IO below 1.0 in {len(below)} of {len(cells)} cells; lowest {below[0][0]:.2f}" if below else
          f"\n- colio / MPI-IO at least 1.0 in all {len(cells)} cells")
    if fw:
        print(f"- E3SM F writes: {min(fw):.1f}x to {max(fw):.1f}x")
    print(f"- the chosen path below 0.9 of the better forced one in {len(low)} of {len(cells)} cells" +
          (f"; lowest {low[0][0]:.2f}" if low else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
