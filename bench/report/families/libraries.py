"""colio against the MPI-IO of every MPI library of scripts/mpi/versions.sh (bench/mpi-suite.sh)."""
from common import library_sections, load, made_by

TITLE = "Four MPI libraries"
FILES = ["libs-*.json"]
PRODUCER = "bench/mpi-suite.sh medium 9"


def body(ctx, paths):
    docs = [load(p) for p in paths]
    out = ["    bench/mpi-suite.sh medium 9    # and: bench/mpi-suite.sh quick 5", made_by(docs)]
    for size in sorted({d["_path"].rsplit("/", 1)[-1].split("-")[1] for d in docs}):
        ds = [d for d in docs if d["_path"].rsplit("/", 1)[-1].split("-")[1] == size]
        out += [f"Size {size}:", library_sections(ds, lambda k: (k[0],), ["workload"], extras=())]
    return "\n\n".join(out)
