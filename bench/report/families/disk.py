"""On the disk: the flush timed, reads after the page cache was dropped, colio buffered and direct (bench/suite.sh disk)."""
import os

from common import blockify, by_library, cells, cov, load, made_by, ms, peer, ratio, size_name, block_of, table

TITLE = "On the disk: flush included, page cache dropped"
FILES = ["disk-*.json"]
PRODUCER = "bench/suite.sh disk"
DIRECT = "colio:direct_write=true+direct_read=true"


def name(doc, key):
    """interleaved/4096 -> interleaved 4 KiB; the E3SM maps after their file (disk-e3sm-f-mpich.json -> E3SM F)."""
    base = os.path.basename(doc["_path"])
    if key[0] == "e3sm":
        return "E3SM " + base.split("-")[2].upper()
    w, _, b = key[0].partition("/")
    return f"{w} {size_name(block_of(key[0]))}" if b else w


def cell(doc, key):
    """colio's ms and CoV, x MPI-IO (range), colio direct's ms, ceiling's time over direct's, x posix."""
    c = doc["_runs"][key + ("colio",)]
    d = doc["_runs"].get(key + (DIRECT,))
    m = ratio(doc, key, "colio", "mpiio")
    ceil = ratio(doc, key, DIRECT, "ceiling")
    px = ratio(doc, key, "colio", "posix")
    return [ms(c["median_s"]), cov(c), m.cell() if m else "-", ms(d["median_s"]) if d else "-",
            ceil.short() if ceil else "-", px.short() if px else "-"], m, ceil


def body(ctx, paths):
    docs = [blockify(load(p)) for p in paths]
    out = [ctx.suite("disk"), made_by(docs), ctx.prose("disk")]
    for label, ds in by_library(docs):
        rows, vs_peer, vs_ceiling = {}, [], []
        for d in sorted(ds, key=lambda d: d["_path"]):
            for key in cells([d]):
                figures, m, ceil = cell(d, key)
                n = name(d, key)
                rows.setdefault(n, {})[key[2]] = figures
                if m:
                    vs_peer.append((m.x, f"{n} {key[2]}"))
                if ceil:
                    vs_ceiling.append((ceil.x, f"{n} {key[2]}"))
        if not rows:
            continue
        p = peer(label)
        head = [f"workload ({label})"]
        for op in ("write", "read"):
            head += [f"{op} ms", "CoV", f"x {p} (min-max)", "direct ms", "direct / ceiling", "x posix"]
        body_rows = [[n] + r.get("write", ["-"] * 6) + r.get("read", ["-"] * 6) for n, r in rows.items()]
        out.append(table(head, body_rows))
        below = [f"{n} {x:.2f}" for x, n in sorted(vs_peer) if x < 1.0]
        line = (f"{label}: colio at or above {p} in {len(vs_peer) - len(below)} of {len(vs_peer)} cells"
                + ("; below: " + ", ".join(below) if below else ""))
        if vs_ceiling:
            xs = sorted(vs_ceiling)
            line += f"; colio direct at {xs[0][0]:.2f}-{xs[-1][0]:.2f} of the ceiling"
        out.append(line + ".")
    return "\n\n".join(filter(None, out))
