"""The interleaved blocks behind storage whose every call waits 1 ms (bench/suite.sh slow)."""
from common import blockify, library_sections, load, recorded, size_name, unpaired_note, block_of

TITLE = "Behind slow storage"
FILES = ["slow-*.json"]
PRODUCER = "bench/suite.sh slow"


def body(ctx, paths):
    docs = [blockify(load(p)) for p in paths]
    return "\n\n".join([
        ctx.suite("slow"),
        " ".join(filter(None, [recorded(docs), unpaired_note(docs)])),
        ctx.prose("slow"),
        library_sections(docs, lambda k: (size_name(block_of(k[0])),), ["block"], extras=("alltoallv",)),
    ])
