"""One shared file against subfiles, on one node (bench/suite.sh subfiling)."""
import os

from common import Ratio, by_library, cov, load, made_by, ms, peer, table

TITLE = "Subfiling: one shared file against subfiles"
FILES = ["subfiling-*.json"]
PRODUCER = "bench/suite.sh subfiling"
ENGINES = [("colio", "colio"), ("colio:cb_nodes=2", "cb_nodes=2"), ("colio:colio_subfiles=1", "1 subfile"),
           ("colio:colio_subfiles=2", "2 subfiles")]


def x(doc, key, engine):
    a, b = doc["_runs"].get(key + (engine,)), doc["_runs"].get(key + ("mpiio",))
    return Ratio(a, b, bool(doc.get("interleave"))).cell() if a and b else "-"


def body(ctx, paths):
    docs = [load(p) for p in paths]
    out = [ctx.suite("subfiling"), made_by(docs), ctx.prose("subfiling")]
    for label, ds in by_library(docs):
        p = peer(label)
        rows = []
        for d in sorted((d for d in ds if "samestripes" not in d["_path"]), key=lambda d: -len(d["_path"])):
            for w, size, op, e in d["_runs"]:
                c = d["_runs"].get((w, size, op, "colio"))
                m = d["_runs"].get((w, size, op, "mpiio"))
                if e != "colio" or not m:
                    continue
                rows.append([w, size, op, ms(m["median_s"]), ms(c["median_s"]), cov(c)] +
                            [x(d, (w, size, op), eng) for eng, _ in ENGINES])
        if rows:
            out.append(table([f"workload ({label})", "size", "op", f"{p} ms", "colio ms", "CoV"] +
                             [f"{n} x {p}" for _, n in ENGINES], rows))
        for d in (d for d in ds if "samestripes" in d["_path"]):
            rows = []
            for (w, size, op, e), r in d["_runs"].items():
                if e == "mpiio":
                    continue
                name = {"colio:colio_subfiles=2": "2 subfiles of 1 MiB stripes, 1 aggregator each"}.get(
                    e, "one file, 1 MiB stripes to 2 aggregators")
                rows.append([name, f"{w} {size} {op}", ms(r["median_s"]), cov(r), x(d, (w, size, op), e)])
            out += [f"{label}, the same 1 MiB stripes dealt to the same two aggregators, into one file and into "
                    f"two ({os.path.basename(d['_path'])}):",
                    table(["engine", "workload", "ms", "CoV", f"x {p}"], rows)]
    return "\n\n".join(out)
