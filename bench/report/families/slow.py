"""The interleaved blocks behind storage whose every call waits 1 ms (bench/suite.sh slow)."""
from common import block_family

TITLE = "Behind slow storage"
FILES = ["slow-*.json"]
PRODUCER = "bench/suite.sh slow"


def body(ctx, paths):
    return block_family(ctx, paths, "slow", ("alltoallv",))
