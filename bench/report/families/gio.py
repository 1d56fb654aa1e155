"""colio against GIO, PnetCDF 1.15's default I/O driver, fed the same lists (bench/suite.sh gio)."""
from common import blockify, by_library, cells, first_with, library_sections, load, made_by, ratio

TITLE = "Against GIO"
FILES = ["gio-*.json"]
PRODUCER = "bench/suite.sh gio"


def name(key):
    return (key[0],)


def gio_summary(docs):
    """Per library: colio's ratio over GIO, lowest and highest, and the cells below 1.0."""
    lines = []
    for label, ds in by_library(docs):
        xs = []
        for key in cells(ds):
            d = first_with(ds, key, "colio", "gio")
            r = ratio(d, key, "colio", "gio") if d else None
            if r is not None:
                xs.append((r.x, f"{key[0]} {key[2]}"))
        if not xs:
            continue
        below = sorted(x for x in xs if x[0] < 1.0)
        line = (f"{label}: colio at or above GIO in {len(xs) - len(below)} of {len(xs)} cells "
                f"({min(xs)[0]:.2f}-{max(xs)[0]:.2f}x)")
        if below:
            line += "; below: " + ", ".join(f"{n} {x:.2f}" for x, n in below)
        lines.append(line + ".")
    return "\n\n".join(lines)


def body(ctx, paths):
    docs = [blockify(load(p)) for p in paths]
    return "\n\n".join(filter(None, [
        ctx.suite("gio"),
        made_by(docs),
        ctx.prose("gio"),
        library_sections(docs, name, ["workload"], extras=("gio",)),
        gio_summary(docs),
    ]))
