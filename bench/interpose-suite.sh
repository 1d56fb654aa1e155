#!/usr/bin/env bash
# Unmodified MPI-IO calls through libcolio_mpiio: colio-bench's MPI-IO engine (plain MPI_File_set_view +
# MPI_File_write_all / read_all calls) run twice under each MPI library, as the library ships and with
# libcolio_mpiio preloaded, beside colio's own API; every run's bytes are verified by colio-bench.
# 2 ranks bound to cores, files on /dev/shm, engines interleaved in the plain run.
# Writes OUT/interpose-<mpi>-{plain,preloaded}.json (OUT: docs/results, where bench/report.sh finds them)
# and prints a table of medians with the speed-ups.
# usage: bench/interpose-suite.sh [repeat] [size] [OUT]  (after scripts/build.sh mpich and openmpi)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
repeat=${1:-9}
size=${2:-medium}
out=${3:-docs/results}
e3sm=(--decomp bench/data/e3sm/map_f_case_16p.nc --header bench/data/e3sm/f_case_h0.txt)
common=(--workload e3sm,btio,flash,interleaved --size "$size" --repeat "$repeat" --quiet "${e3sm[@]}")
mkdir -p "$out"
for mpi in mpich openmpi; do
  (colio_mpi_env "$mpi"
   lib=$PWD/build/$mpi/libcolio_mpiio.so
   bench=build/$mpi/bench/colio-bench
   "$COLIO_MPIEXEC" $COLIO_MPIEXEC_BIND -n 2 "$bench" "${common[@]}" --engine colio,mpiio --interleave \
     --json "$out/interpose-$mpi-plain.json" >/dev/null
   "$COLIO_MPIEXEC" $COLIO_MPIEXEC_BIND -n 2 env LD_PRELOAD="$lib" "$bench" "${common[@]}" --engine mpiio \
     --json "$out/interpose-$mpi-preloaded.json" >/dev/null)
done
python3 - "$out" <<'EOF'
import json, sys
out = sys.argv[1]
print(f"{'mpi':8} {'workload':11} {'op':5} {'MPI-IO s':>9} {'colio API s':>11} {'preloaded s':>11} "
      f"{'x MPI-IO':>8} {'vs API':>6} bytes")
for mpi in ("mpich", "openmpi"):
    plain = json.load(open(f"{out}/interpose-{mpi}-plain.json"))["runs"]
    pre = json.load(open(f"{out}/interpose-{mpi}-preloaded.json"))["runs"]
    def get(runs, w, e, op):
        return next(r for r in runs if r["workload"] == w and r["engine"] == e and r["op"] == op)
    for p in pre:
        w, op = p["workload"], p["op"]
        lib, api = get(plain, w, "mpiio", op), get(plain, w, "colio", op)
        ok = "verified" if p["verified"] and lib["verified"] and api["verified"] else "MISMATCH"
        print(f"{mpi:8} {w:11} {op:5} {lib['median_s']:9.4f} {api['median_s']:11.4f} {p['median_s']:11.4f} "
              f"{lib['median_s'] / p['median_s']:8.2f} {api['median_s'] / p['median_s']:6.2f} {ok}")
EOF
