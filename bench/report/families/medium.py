"""Every colio-bench workload at medium size, against every engine (bench/suite.sh medium)."""
from common import library_sections, load, made_by

TITLE = "Every workload at medium size"
FILES = ["medium-*.json"]
PRODUCER = "bench/suite.sh medium"


def body(ctx, paths):
    docs = [load(p) for p in paths]
    desc = {}
    for d in docs:
        for r in d["runs"]:
            if r["engine"] == "colio":
                desc.setdefault(r["workload"], r["desc"])
    return "\n\n".join([
        ctx.suite("medium"),
        made_by(docs),
        ctx.prose("medium"),
        "Workloads: " + "; ".join(f"{w}: {t}" for w, t in desc.items()) + ".",
        library_sections(docs, lambda k: (k[0],), ["workload"]),
        ctx.figures(paths, "medium", ["phases", "speedup"],
                    ["colio's time against MPI-IO's, phases stacked", "colio's speed-up over MPI-IO"]),
    ])
