"""E3SM-IO's real F and G decomposition maps (bench/suite.sh e3sm-maps)."""
import os

from common import by_library, compare, compare_table, load, made_by, peer, summary

TITLE = "The real E3SM maps"
FILES = ["e3sm-*.json"]
PRODUCER = "bench/suite.sh e3sm-maps"


def case(doc):
    """e3sm-f-mpich.json -> F"""
    return os.path.basename(doc["_path"]).split("-")[1].upper()


def body(ctx, paths):
    docs = [load(p) for p in paths]
    out = [ctx.suite("e3sm-maps"), made_by(docs), ctx.prose("e3sm_maps")]
    for label, ds in by_library(docs):
        groups, ratios = {}, []
        for d in sorted(ds, key=case):
            g, x = compare([d], lambda k, c=case(d): (c,), extras=("alltoallv",))
            groups.update(g)
            ratios += x
        out += [compare_table(label, groups, ["map"], extras=("alltoallv",)), f"{label}: {summary(ratios, peer(label))}"]
    return "\n\n".join(out)
