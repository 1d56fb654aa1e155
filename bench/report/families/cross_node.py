#!/usr/bin/env python3
"""colio against the MPI library's MPI-IO across emulated nodes (bench/cross-node.sh's JSON files).

    python3 bench/report/families/cross_node.py DIR [--detail]

prints this family's tables for any folder of bench/cross-node.sh's output (NET.MPI.WHERE.WORKLOAD.json):
1. colio's speed-up over the MPI library's MPI-IO, every workload and operation against every network,
   library and directory (the median of the repeats' ratios; the repeats ran the engines in turn);
2. per library, on the unshaped network with files in memory (--detail: every configuration): colio's
   time and CoV, the speed-up with its range, the path colio chose, what its cost model predicted for
   both paths, both paths measured forced, and the chosen one against the better of them;
3. a summary.
"""
import glob
import os
import re
import statistics
import subprocess
import sys

if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from common import cov, library_order, load, ms, recorded, table  # noqa: E402

TITLE = "Across nodes"
FILES = ["cross-node/*.json"]
PRODUCER = "bench/cross-node.sh --out docs/results/cross-node"

TWO_PHASE = "colio:romio_cb_write=enable+romio_cb_read=enable"
DIRECT = "colio:romio_cb_write=disable+romio_cb_read=disable"
ORDER = ["interleaved/64", "interleaved/4096", "interleaved/65536", "interleaved/1048576", "E3SM F", "E3SM G",
         "ior/64", "ior/4096", "ior/1048576", "lattice"]


def ratios(a, b):
    return [y / x for x, y in zip(a["times_s"], b["times_s"]) if x > 0]


def cells_of(doc):
    """{(workload, op): figures} of one file: colio against MPI-IO and against both paths forced."""
    label = os.path.basename(doc["_path"]).split(".")[3]
    runs = {(w, op, e): r for (w, _, op, e), r in doc["_runs"].items()}
    cells = {}
    for (w, op, e), c in runs.items():
        m, tp, dr = runs.get((w, op, "mpiio")), runs.get((w, op, TWO_PHASE)), runs.get((w, op, DIRECT))
        if e != "colio" or not (m and tp and dr):
            continue
        x = ratios(c, m)
        cells[({"e3sm_f": "E3SM F", "e3sm_g": "E3SM G"}.get(label, w), op)] = dict(
            colio=c, tp=tp, dr=dr, x=statistics.median(x), xmin=min(x), xmax=max(x),
            vs_best=min(tp["median_s"], dr["median_s"]) / c["median_s"])
    return cells


def order(key):
    w, op = key
    return (ORDER.index(w) if w in ORDER else len(ORDER), w, op != "write")


def net_name(n):
    return "unshaped" if n == "plain" else n.replace("gbit", " Gbit/s").replace("-", ", ")


def net_order(n):
    return (n != "plain", -float(n.split("gbit")[0]) if n != "plain" else 0)


def gather(paths):
    data, docs, labels = {}, [], {}
    for f in sorted(paths):
        net, mpi, where = os.path.basename(f).split(".")[:3]
        doc = load(f)
        docs.append(doc)
        labels[mpi] = doc["_label"]
        data.setdefault((net, mpi, where), {}).update(cells_of(doc))
    return data, docs, labels


def tables(data, labels, detail=False):
    out = []
    nets = sorted({k[0] for k in data}, key=net_order)
    mpis = sorted({k[1] for k in data}, key=lambda m: library_order(labels[m]))
    wheres = [w for w in ("mem", "disk") if any(k[2] == w for k in data)]
    keys = sorted({k for cells in data.values() for k in cells}, key=order)
    names = sorted({k[0] for k in keys}, key=lambda w: order((w, "write")))
    for w in wheres:
        cols = [(n, m, w) for m in mpis for n in nets]
        out.append(f"Files {'in memory' if w == 'mem' else 'on the disk'}, colio's speed-up over MPI-IO, "
                   "write / read:")
        out.append(table(["workload"] + [f"{labels[m]}, {net_name(n)}" for n, m, _ in cols],
                         [[name] + [" / ".join(f"{data[c][(name, op)]['x']:.2f}" if (name, op) in data.get(c, {})
                                               else "-" for op in ("write", "read")) for c in cols]
                          for name in names]))
    shown = [c for c in data if detail or (c[0] == "plain" and c[2] == "mem")]
    for net, mpi, where in sorted(shown, key=lambda c: (library_order(labels[c[1]]), net_order(c[0]), c[2])):
        rows = []
        for name in names:
            row = [name]
            for op in ("write", "read"):
                r = data[(net, mpi, where)].get((name, op))
                if not r:
                    row += ["-"] * 6
                    continue
                c = r["colio"]
                row += [ms(c["median_s"]), cov(c), f"{r['x']:.2f} ({r['xmin']:.2f}-{r['xmax']:.2f})",
                        c.get("strategy", "-"), f"{ms(r['tp']['median_s'])} / {ms(r['dr']['median_s'])}",
                        f"{r['vs_best']:.2f}"]
            rows.append(row)
        where_name = "memory" if where == "mem" else "the disk"
        out.append(table([f"workload ({labels[mpi]}, {net_name(net)}, {where_name})"] +
                         [f"{op} {h}" if i == 0 else h for op in ("write", "read") for i, h in enumerate(
                             ["ms", "CoV", "x MPI-IO (min-max)", "path", "forced two-phase / direct ms",
                              "chosen / better forced"])], rows))
    cells = [(v, k, c) for c, cs in data.items() for k, v in cs.items()]
    below = sorted((v["x"], k, c) for v, k, c in cells if v["x"] < 1.0)
    fw = [v["x"] for v, k, c in cells if k == ("E3SM F", "write")]
    low = sorted((v["vs_best"], k, c) for v, k, c in cells if v["vs_best"] < 0.9)
    lines = [f"- colio's speed-up below 1.0 in {len(below)} of {len(cells)} cells; lowest {below[0][0]:.2f}" if below
             else f"- colio's speed-up at least 1.0 in all {len(cells)} cells"]
    if fw:
        lines.append(f"- E3SM F writes: {min(fw):.1f}x to {max(fw):.1f}x")
    lines.append(f"- the chosen path below 0.9 of the better forced one in {len(low)} of {len(cells)} cells" +
                 (f"; lowest {low[0][0]:.2f}" if low else ""))
    out.append("\n".join(lines))
    return "\n\n".join(out)


def body(ctx, paths):
    data, docs, labels = gather(paths)
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "cross-node.sh")
    args = subprocess.run(["bash", script, "--print"], check=True, capture_output=True, text=True).stdout
    cmd = ctx.commands("bench/cross-node.sh --out docs/results/cross-node --repeat 5   # as root, about 15 minutes; "
                       "for each NET, MPI and WHERE:", [("", args.splitlines())])
    rec = recorded(docs, dir_name=lambda d: re.sub(r"^/run/colio-cluster/[^/]+/", "/run/colio-cluster/NAME/", d),
                   pattern=f"{len(docs)} files NET.MPI.WHERE.WORKLOAD.json in {ctx.shown(os.path.dirname(paths[0]))}/")
    return "\n\n".join([cmd, rec, ctx.prose("cross_node"), tables(data, labels), ctx.prose("cross_node_notes")])


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    data, _, labels = gather(glob.glob(os.path.join(sys.argv[1], "*.json")))
    if not data:
        print("no results in", sys.argv[1])
        return 1
    print(tables(data, labels, detail="--detail" in sys.argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
