#!/usr/bin/env bash
# Rewrite docs/PERFORMANCE.md (and its figures in docs/img/) from the raw results in docs/results/:
# hand-written prose (bench/report/prose/) around one table per MPI library and workload family
# (bench/report/families/). Prints nothing on success.
#   bench/report.sh [--results DIR] [--out FILE] [--img DIR] [--no-figures] [--check]
# --check writes nothing and exits 1 when FILE is not what the results make.
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1 # no __pycache__ in the source tree
exec python3 "$(dirname "$0")/report/report.py" "$@"
