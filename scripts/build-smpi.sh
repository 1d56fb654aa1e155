#!/usr/bin/env bash
# Build colio, colio-bench and colio-nbbench for SimGrid SMPI into build/smpi
# (the simulations of sim/experiments, docs/SCALE.md). Release: smpirun copies
# the program once per simulated rank, so small binaries matter.
set -euo pipefail
cd "$(dirname "$0")/.."
exec scripts/build.sh smpi -DCOLIO_SMPI=ON -DCMAKE_BUILD_TYPE=Release "$@"
