"""Nonblocking I/O beside computation (bench/nbbench-suite.sh: colio-nbbench's overlap and outstanding
experiments, one line each, prefixed with the library and the configuration)."""

from common import table

TITLE = "Nonblocking I/O: overlap with computation"
FILES = ["nbbench*.txt"]
PRODUCER = "bench/nbbench-suite.sh"

def body(ctx, paths):
    overlap, outstanding = {}, {}
    for p in paths:
        for line in open(p):
            t = line.split()
            if "overlap" in t[1:]:
                i = t.index("overlap")
                f = dict(zip(t[i + 2::2], t[i + 3::2]))
                slower = float(f["nb_compute"]) / float(f["t_compute"]) - 1 if "nb_compute" in f else None
                overlap.setdefault(t[0], []).append([" ".join(t[1:i]), t[i + 1], f"{float(f['t_io']) * 1e3:.1f}",
                                                     f"{float(f['t_compute']) * 1e3:.1f}", f["hidden"], f["saved"],
                                                     "-" if slower is None else f"{slower * 100:+.0f}%"])
            elif "outstanding" in t[1:]:
                i = t.index("outstanding")
                f = dict(zip(t[i + 2::2], t[i + 3::2]))
                outstanding.setdefault((t[0], " ".join(t[1:i]), t[i + 1]), {})[int(f["k"])] = f["normalised"]
    cmds = ["    bench/nbbench-suite.sh 5"] + (["    bench/nbbench-suite.sh --disk 5"]
                                        if any(p.endswith("nbbench-disk.txt") for p in paths) else [])
    out = ["\n".join(cmds)] + ([ctx.prose("nbbench")] if ctx.prose("nbbench") else [])
    for mpi, rows in sorted(overlap.items()):
        out += [f"{mpi}, overlap (hidden: the share of the I/O time hidden behind computation; compute: how much "
                "longer the computation took beside the I/O than alone):",
                table(["configuration", "op", "I/O ms", "compute ms", "hidden", "saved", "compute"], rows)]
    if outstanding:
        ks = sorted({k for v in outstanding.values() for k in v})
        out += ["Several outstanding operations: time with k posted at once over k = 1:",
                table(["library", "configuration", "op"] + [f"k = {k}" for k in ks],
                      [[m, c, op] + [v.get(k, "-") for k in ks] for (m, c, op), v in sorted(outstanding.items())])]
    return "\n\n".join(out)
