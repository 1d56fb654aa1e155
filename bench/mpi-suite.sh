#!/usr/bin/env bash
# colio-bench at one size under each MPI library of scripts/mpi/versions.sh (Debian's MPICH 4 and Open MPI
# 4, PyPI's MPICH 5 and Open MPI 5), colio against that library's own MPI-IO (ROMIO, OMPIO) in the same
# run, engines interleaved, 2 ranks bound to cores, files in /dev/shm, every byte verified, E3SM-IO on
# the real F-case map. Writes OUT/libs-SIZE-NAME.json (OUT: docs/results, where bench/report.sh finds
# them) and prints one table: colio's speed over each library's MPI-IO per workload and operation
# (below 1.00: colio is slower).
# usage: bench/mpi-suite.sh [quick|medium] [repeat] [OUT]   (after scripts/build.sh for each)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
size=${1:-quick}
repeat=${2:-5}
out=${3:-docs/results}
args=(--repeat "$repeat" --interleave --quiet --decomp bench/data/e3sm/map_f_case_16p.nc --header bench/data/e3sm/f_case_h0.txt)
if [ "$size" = quick ]; then args+=(--quick); else args+=(--size "$size" --engine colio,mpiio); fi
mkdir -p "$out"
for mpi in "${COLIO_MPIS[@]}"; do
  (colio_mpi_env "$mpi"
   "$COLIO_MPIEXEC" $COLIO_MPIEXEC_FLAGS $COLIO_MPIEXEC_BIND -n 2 "build/$mpi/bench/colio-bench" "${args[@]}" \
     --json "$out/libs-$size-$mpi.json" >/dev/null)
done
python3 - "$out" "$size" "${COLIO_MPIS[@]}" <<'PY'
import json, sys
out, size, mpis = sys.argv[1], sys.argv[2], sys.argv[3:]
docs = {m: json.load(open(f"{out}/libs-{size}-{m}.json")) for m in mpis}
def ratios(doc):
    runs = [r for r in doc["runs"] if r.get("verified") and r.get("repeats", 0) > 0]
    out = {}
    for r in runs:
        if r["engine"] != "colio":
            continue
        m = [x for x in runs if x["engine"] == "mpiio" and (x["workload"], x["op"]) == (r["workload"], r["op"])]
        if m:
            out[(r["workload"], r["op"])] = m[0]["median_s"] / r["median_s"]
    return out
table = {m: ratios(d) for m, d in docs.items()}
keys = sorted({k for t in table.values() for k in t})
print("| workload | op | " + " | ".join(mpis) + " |")
print("|---|---|" + "---|" * len(mpis))
for k in keys:
    cells = []
    for m in mpis:
        v = table[m].get(k)
        cells.append("-" if v is None else (f"**{v:.2f}x**" if v < 1 else f"{v:.2f}x"))
    print(f"| {k[0]} | {k[1]} | " + " | ".join(cells) + " |")
PY
