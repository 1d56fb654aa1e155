"""Interleaved blocks of 64 B to 4 MiB, 64 MiB in all (bench/suite.sh blocks)."""
from common import block_family

TITLE = "Interleaved blocks, 64 B to 4 MiB"
FILES = ["blocks-*.json"]
PRODUCER = "bench/suite.sh blocks"


def body(ctx, paths):
    return block_family(ctx, paths, "blocks", ("posix", "alltoallv"))
