"""Unmodified MPI-IO calls through libcolio_mpiio (bench/interpose-suite.sh): the MPI library's MPI-IO engine
of colio-bench as the library ships and with the interposer preloaded, beside colio's own API."""
from common import by_library, load, ms, peer, recorded, table

TITLE = "Unmodified MPI-IO programs (libcolio_mpiio)"
FILES = ["interpose-*-plain.json", "interpose-*-preloaded.json"]
PRODUCER = "bench/interpose-suite.sh"


def body(ctx, paths):
    docs = [load(p) for p in paths]
    out = ["    bench/interpose-suite.sh 9 medium", recorded(docs),
           "The two runs are separate processes: ratios are of medians."]
    for label, ds in by_library(docs):
        plain = next((d for d in ds if d["_path"].endswith("-plain.json")), None)
        pre = next((d for d in ds if d["_path"].endswith("-preloaded.json")), None)
        if not plain or not pre:
            continue
        p, rows = peer(label), []
        for (w, size, op, e), m in plain["_runs"].items():
            c, i = plain["_runs"].get((w, size, op, "colio")), pre["_runs"].get((w, size, op, "mpiio"))
            if e != "mpiio" or not c or not i:
                continue
            rows.append([w, op, ms(m["median_s"]), ms(c["median_s"]), ms(i["median_s"]),
                         f"{m['median_s'] / i['median_s']:.2f}", f"{i['median_s'] / c['median_s']:.2f}"])
        out += [f"{label}:", table(["workload", "op", f"{p} ms", "colio API ms", "preloaded ms",
                                    f"x {p} (preloaded)", "preloaded / API"], rows)]
    return "\n\n".join(out)
