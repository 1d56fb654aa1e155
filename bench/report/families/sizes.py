"""Four workloads at small, medium and large size (bench/suite.sh sizes: colio-bench --sweep)."""
from common import library_sections, load, made_by

TITLE = "Small, medium and large sizes"
FILES = ["sweep-*.json"]
PRODUCER = "bench/suite.sh sizes"


def body(ctx, paths):
    docs = [load(p) for p in paths]
    return "\n\n".join([
        ctx.suite("sizes"),
        made_by(docs),
        ctx.prose("sizes"),
        library_sections(docs, lambda k: (k[0], k[1]), ["workload", "size"], extras=("ceiling",)),
        ctx.figures(paths, "sweep", ["bandwidth"], ["bandwidth against size"]),
    ])
