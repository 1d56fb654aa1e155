"""Interleaved blocks of 64 B to 4 MiB, 64 MiB in all (bench/suite.sh blocks)."""
from common import blockify, library_sections, load, recorded, size_name, unpaired_note, block_of

TITLE = "Interleaved blocks, 64 B to 4 MiB"
FILES = ["blocks-*.json"]
PRODUCER = "bench/suite.sh blocks"


def body(ctx, paths):
    docs = [blockify(load(p)) for p in paths]
    return "\n\n".join([
        ctx.suite("blocks"),
        " ".join(filter(None, [recorded(docs), unpaired_note(docs)])),
        ctx.prose("blocks"),
        library_sections(docs, lambda k: (size_name(block_of(k[0])),), ["block"]),
    ])
