"""colio against GIO, PnetCDF 1.15's default I/O driver, fed the same lists (bench/suite.sh gio)."""
from common import blockify, by_library, cells, first_with, load, made_by, ratio

TITLE = "Against GIO"
FILES = ["gio-*.json"]
PRODUCER = "bench/suite.sh gio"


def gio_ratios(ds):
    """{(workload, size, op): Ratio} of GIO's time over colio's, each from one file's paired repeats."""
    out = {}
    for key in cells(ds):
        d = first_with(ds, key, "colio", "gio")
        if d:
            out[key] = ratio(d, key, "colio", "gio")
    return out


def name(key):
    """The E3SM F map runs at the map's own size ("small"): named after the map, the rest by workload."""
    if key[0] == "pnetcdf-aggregation":
        return "PnetCDF aggregation.c"
    return "E3SM F map" if key[0] == "e3sm" and key[1] != "medium" else key[0]


def on_disk(doc):
    """Files written outside memory (/dev/shm): the disk's own line."""
    return not doc.get("dir", "").startswith("/dev/shm")


NAMED = ("E3SM F map", "PnetCDF aggregation.c")


def line(label, ds):
    """One library's cells in one place: how many at or above GIO, those below, the named workloads'."""
    r = gio_ratios(ds)
    if not r:
        return None
    xs = sorted((x.x, f"{name(k)} {k[2]}") for k, x in r.items())
    below = [f"{n} {x:.2f}" for x, n in xs if x < 1.0]
    named = [f"{name(k)} {k[2]} {x.cell()}" for k, x in r.items() if name(k) in NAMED]
    where = "on the disk (ext4)" if on_disk(ds[0]) else "in /dev/shm"
    return (f"- {label}, {where}: colio at or above GIO in {len(xs) - len(below)} of {len(xs)} cells "
            f"({xs[0][0]:.2f}-{xs[-1][0]:.2f}x)" + ("; below: " + ", ".join(below) if below else "")
            + ("; " + ", ".join(named) if named else "") + ".")


def body(ctx, paths):
    docs = [blockify(load(p)) for p in paths]
    lines = []
    for label, ds in by_library(docs):
        for place in (False, True):
            lines.append(line(label, [d for d in ds if on_disk(d) == place]))
    return "\n\n".join(filter(None, [ctx.suite("gio"), made_by(docs), ctx.prose("gio"), "\n".join(filter(None, lines))]))
