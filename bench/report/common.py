"""What every family of the report shares: reading colio-bench's JSON, comparing engines, writing tables.

colio-bench writes one document per run (bench/report.c): the library's version string, the options
(repeat, warmup, interleave, steps, dir, hints) and one entry per workload, size, operation and engine
with the median, min, max and coefficient of variation of its repeats and (in all but the oldest files)
every repeat's time in repeat order (times_s). With --interleave every repeat runs each engine
once, so repeat k of two engines is a pair measured side by side: a ratio is the median of the pairs'
ratios, and its range is theirs.
"""
import json
import os
import re
import statistics

PEERS = {"MPICH": "ROMIO", "Open MPI": "OMPIO"}


def library(doc):
    """'MPICH 4.0.2' or 'Open MPI 4.1.4' from the library's version string."""
    lib = doc.get("library", "")
    m = re.search(r"(MPICH|Open MPI)[^0-9]*([0-9]+\.[0-9]+(\.[0-9]+)?)", lib)
    if m:
        return f"{m.group(1)} {m.group(2)}"
    return "MPICH" if "MPICH" in lib else ("Open MPI" if "Open MPI" in lib else lib.split("\n")[0][:30])


def peer(label):
    """The MPI library's own collective I/O: ROMIO in MPICH, OMPIO in Open MPI."""
    for family, name in PEERS.items():
        if label.startswith(family):
            return name
    return "MPI-IO"


def library_order(label):
    """MPICH before Open MPI, older versions first."""
    family = 0 if label.startswith("MPICH") else 1 if label.startswith("Open MPI") else 2
    version = tuple(int(x) for x in re.findall(r"[0-9]+", label)) or (0,)
    return (family, version, label)


def load(path):
    with open(path) as f:
        doc = json.load(f)
    doc["_path"] = path
    doc["_label"] = library(doc)
    doc["_runs"] = {}
    for r in doc.get("runs", []):
        if r.get("verified") and r.get("repeats", 0) > 0:
            doc["_runs"][(r["workload"], r["size"], r["op"], r["engine"])] = r
    return doc


def by_library(docs):
    """[(label, [docs])] in library order."""
    groups = {}
    for d in docs:
        groups.setdefault(d["_label"], []).append(d)
    return sorted(groups.items(), key=lambda kv: library_order(kv[0]))


class Ratio:
    """How many times faster run a is than run b (b's time over a's): the median of the repeats' ratios
    when both were measured side by side in each repeat, else the ratio of the medians (no range)."""

    def __init__(self, a, b, paired):
        ta, tb = a.get("times_s") or [], b.get("times_s") or []
        if paired and ta and tb and len(ta) == len(tb):
            xs = [y / x for x, y in zip(ta, tb) if x > 0]
            self.x, self.lo, self.hi, self.paired = statistics.median(xs), min(xs), max(xs), True
        else:
            self.x = b["median_s"] / a["median_s"] if a["median_s"] > 0 else float("nan")
            self.lo = self.hi = None
            self.paired = False

    def cell(self):
        if self.lo is None:
            return f"{self.x:.2f}"
        return f"{self.x:.2f} ({self.lo:.2f}-{self.hi:.2f})"

    def short(self):
        return f"{self.x:.2f}"


def ratio(doc, key, engine, peer_engine):
    """Ratio of peer_engine's time over engine's for key (workload, size, op) in one document, or None."""
    a = doc["_runs"].get(key + (engine,))
    b = doc["_runs"].get(key + (peer_engine,))
    if not a or not b:
        return None
    return Ratio(a, b, bool(doc.get("interleave")))


def ms(seconds):
    """Milliseconds, three significant digits."""
    v = seconds * 1e3
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    if v >= 1:
        return f"{v:.2f}"
    return f"{v:.3g}"


def cov(run):
    return f"{100 * run.get('cov', 0):.0f}%"


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def size_name(nbytes):
    for unit, name in ((1 << 20, "MiB"), (1 << 10, "KiB")):
        if nbytes >= unit and nbytes % unit == 0:
            return f"{nbytes // unit} {name}"
    return f"{nbytes} B"


def block_of(workload):
    _, _, block = workload.partition("/")
    return int(block) if block.isdigit() else 0


OPS = {"write": 0, "read": 1}


def cells(docs, engine="colio"):
    """Every (workload, size, op) with a verified run of engine, in the order the documents list them
    (colio-bench's own: workloads as given, write before read)."""
    seen = {}
    for d in docs:
        for r in d.get("runs", []):
            k = (r["workload"], r["size"], r["op"])
            if r["engine"] == engine and (k + (engine,)) in d["_runs"]:
                seen.setdefault(k, None)
    return list(seen)


def recorded(docs, dir_name=lambda d: d, pattern=None):
    """One line: how the files were made, from what they record (dir_name may merge run-specific
    folders; pattern names many files at once)."""
    parts = []
    reps = sorted({d.get("repeat") for d in docs if d.get("repeat")})
    warm = sorted({d.get("warmup") for d in docs if d.get("warmup") is not None})
    if reps:
        parts.append(f"{'/'.join(str(r) for r in reps)} repeats" +
                     (f" after {'/'.join(str(w) for w in warm)} warm-up" if warm else ""))
    inter = {bool(d.get("interleave")) for d in docs}
    parts.append("engines interleaved" if inter == {True} else
                 "engines one after the other" if inter == {False} else "engines interleaved in some files")
    steps = sorted({d.get("steps", 1) or 1 for d in docs})
    if steps != [1]:
        parts.append("--steps " + "/".join(str(s) for s in steps) + " (times per call)")
    nprocs = sorted({d.get("nprocs") for d in docs if d.get("nprocs")})
    if nprocs:
        parts.append(f"{'/'.join(str(n) for n in nprocs)} ranks")
    dirs = sorted({dir_name(d.get("dir", "")) for d in docs})
    parts.append("files in " + ", ".join(f"`{x}`" for x in dirs))
    hints = sorted({d.get("hints", "") for d in docs})
    parts.append("default hints" if hints == [""] else "hints " + ", ".join(f"`{h}`" for h in hints))
    names = pattern or ", ".join(os.path.basename(d["_path"]) for d in docs)
    return f"Files: {names}; " + ", ".join(parts) + "."


def unpaired_note(docs):
    """A line for files made before --interleave: ratios there are of medians."""
    old = [os.path.basename(d["_path"]) for d in docs if not d.get("interleave")]
    if not old:
        return ""
    return (f"{', '.join(old)}: made by the same arguments without `--interleave`, ranks not bound; "
            "their ratios are of medians and have no per-repeat range.")


def made_by(docs):
    """The line under a family's commands: what its files record, and which of them ran unpaired."""
    return " ".join(filter(None, [recorded(docs), unpaired_note(docs)]))


def summary(ratios, what):
    """'colio at or above ROMIO in 17 of 18 cells (1.01-29.9x); below: cube write 0.99'."""
    xs = [(r.x, name) for name, r in ratios if r is not None]
    if not xs:
        return ""
    below = sorted((x, n) for x, n in xs if x < 1.0)
    lo, hi = min(x for x, _ in xs), max(x for x, _ in xs)
    line = f"colio at or above {what} in {len(xs) - len(below)} of {len(xs)} cells ({lo:.2f}-{hi:.2f}x)"
    if below:
        shown = ", ".join(f"{n} {x:.2f}" for x, n in below[:4])
        line += f"; below: {shown}" + (f" and {len(below) - 4} more" if len(below) > 4 else "")
    return line + "."


def first_with(docs, key, *engines):
    """The first document holding verified runs of every engine for key."""
    for d in docs:
        if all(key + (e,) in d["_runs"] for e in engines):
            return d
    return None


def blockify(doc):
    """colio-bench names a block-sized workload WORKLOAD/BLOCK when --block lists several sizes and
    plain WORKLOAD when it lists one: name it by its block always (from its description)."""
    runs = {}
    for (w, size, op, e), r in doc["_runs"].items():
        m = re.match(r"([0-9]+)-byte blocks", r.get("desc", ""))
        if "/" not in w and m:
            w = f"{w}/{m.group(1)}"
            r = dict(r, workload=w)
        runs[(w, size, op, e)] = r
    doc["_runs"] = runs
    doc["runs"] = [r for r in runs.values()]
    return doc


def compare(docs, name, extras=("posix", "alltoallv")):
    """One library's cells: for every (workload, size, op) colio ran, keyed by name(key): colio's median ms
    and CoV, how many times faster than the MPI library's MPI-IO colio is (with the repeats' range), and
    the same ratio against each extra engine. A cell's figures come from the largest file holding them
    (a library may spread a family over several runs); a ratio always pairs runs of one file.
    Returns ({name: {op: [figures]}}, [(cell, Ratio)])."""
    docs = sorted(docs, key=lambda d: (-len(d["_runs"]), d["_path"]))
    groups, ratios = {}, []
    for key in cells(docs):
        cd = first_with(docs, key, "colio")
        c = cd["_runs"][key + ("colio",)]
        md = first_with(docs, key, "colio", "mpiio")
        m = ratio(md, key, "colio", "mpiio") if md else None
        figures = [ms(c["median_s"]), cov(c), m.cell() if m else "-"]
        for e in extras:
            ed = first_with(docs, key, "colio", e)
            figures.append(ratio(ed, key, "colio", e).short() if ed else "-")
        groups.setdefault(name(key), {})[key[2]] = figures
        ratios.append((" ".join(name(key) + (key[2],)), m))
    return groups, ratios


def compare_table(label, groups, name_header, extras=("posix", "alltoallv")):
    """compare()'s cells as one table for library label: a row per name, the writes' columns, then the
    reads'; an extra engine's column is left out where nobody ran it."""
    p = peer(label)
    ops = [op for op in OPS if any(op in g for g in groups.values())]
    width = 3 + len(extras)
    header = [f"{name_header[0]} ({label})", *name_header[1:]]
    cols = []
    for op in ops:
        names = [f"{op} ms", "CoV", f"x {p} (min-max)"] + [f"x {e}" for e in extras]
        keep = [i for i in range(width) if i < 3 or any(g.get(op, ["-"] * width)[i] != "-" for g in groups.values())]
        header += [names[i] for i in keep]
        cols.append((op, keep))
    rows = []
    for nm, g in groups.items():
        row = list(nm)
        for op, keep in cols:
            f = g.get(op, ["-"] * width)
            row += [f[i] for i in keep]
        rows.append(row)
    return table(header, rows)


def library_sections(docs, name, name_header, extras=("posix", "alltoallv")):
    """compare() and compare_table() for every library of docs, each table with its summary line."""
    out = []
    for label, ds in by_library(docs):
        groups, ratios = compare(ds, name, extras)
        if not groups:
            continue
        out.append(compare_table(label, groups, name_header, extras))
        s = summary(ratios, peer(label))
        if s:
            out.append(f"{label}: {s}")
    return "\n\n".join(out)


def block_family(ctx, paths, family, extras):
    """A family of colio-bench --block runs, a row per block size: its commands, files, prose and one
    table per library."""
    docs = [blockify(load(p)) for p in paths]
    return "\n\n".join([
        ctx.suite(family),
        made_by(docs),
        ctx.prose(family),
        library_sections(docs, lambda k: (size_name(block_of(k[0])),), ["block"], extras=extras),
    ])
