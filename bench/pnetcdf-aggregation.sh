#!/usr/bin/env bash
# PnetCDF 1.15's own benchmark, benchmarks/C/aggregation.c (four 2D partitionings, block-block, *-cyclic,
# block-* and *-block, written then read back with nonblocking calls aggregated by wait_all), run three
# ways in the same run: on PnetCDF's default GIO driver ("gio"), on its MPI-IO driver over the MPI
# library's own MPI-IO ("mpiio"), and with libcolio_mpiio preloaded, which turns the driver to MPI-IO
# and takes its calls ("colio"). Each repeat runs the three in an order shuffled anew; the time of a
# run is the benchmark's own "Max open-to-close time", write and read apart.
#   bench/pnetcdf-aggregation.sh MPI OUT.json [--repeat N] [--dir DIR] [--args "AGGREGATION OPTIONS"]
#                                [--build DIR]   (colio's build, default build/MPI)
# Writes OUT.json in colio-bench's format (bench/report.c) and prints a table. Default: 7 repeats after
# one warm-up each, --dir /dev/shm, --args "-l 512 -n 4 -t 2". Bytes: every written file must equal
# the stock MPI-IO run's, byte for byte (three implementations agreeing), and colio's statistics
# (colio_stats) must show its calls; a run that fails either is reported unverified. The benchmark
# itself does not check what it reads back. Needs PnetCDF 1.15 (scripts/peers.sh) and build/MPI.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 2 ] || { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
mpi=$1 json=$2; shift 2
repeat=7 dir=/dev/shm args="-l 512 -n 4 -t 2" build=$root/build/$mpi
while [ $# -gt 0 ]; do
  case $1 in
  --repeat) repeat=$2; shift ;;
  --dir) dir=$2; shift ;;
  --args) args=$2; shift ;;
  --build) build=$2; shift ;;
  *) echo "pnetcdf-aggregation.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
prefix=$("$root/scripts/peers.sh" --prefix "$mpi" pnetcdf) || { echo "$mpi: no PnetCDF 1.15 (scripts/peers.sh)" >&2; exit 1; }
lib=$build/libcolio_mpiio.so
[ -f "$lib" ] || { echo "no $lib (scripts/build.sh $mpi)" >&2; exit 1; }
source "$root/scripts/env.sh"
colio_mpi_env "$mpi"
work=$(mktemp -d "$dir/pnetcdf-aggregation.XXXXXX")
trap '[ -n "${COLIO_KEEP:-}" ] || rm -rf "$work"' EXIT
exe=$build/bench/pnetcdf-aggregation
if [ ! -x "$exe" ] || [ "$prefix/source/benchmarks/C/aggregation.c" -nt "$exe" ]; then
  "$COLIO_MPICC" -O2 -o "$exe" "$prefix/source/benchmarks/C/aggregation.c" -I"$prefix/include" \
    "$prefix/lib/libpnetcdf.a" -lm
fi

# one run of ENGINE: "write_s read_s ok" on stdout
run() { # ENGINE FILE
  local engine=$1 file=$2 log=$work/log stats=$work/stats.jsonl
  local -a env=(env -u PNETCDF_HINTS)
  case $engine in
  mpiio) env+=(PNETCDF_HINTS=nc_driver=mpiio) ;;
  colio) rm -f "$stats"; env+=(LD_PRELOAD="$lib" COLIO_HINTS="colio_stats=$stats") ;;
  esac
  rm -f "$file"
  # shellcheck disable=SC2086
  "$COLIO_MPIEXEC" $COLIO_MPIEXEC_FLAGS $COLIO_MPIEXEC_BIND -n 2 "${env[@]}" "$exe" $args "$file" >"$log" 2>&1 || {
    sed 's/^/  /' "$log" >&2; echo "0 0 0"; return; }
  local ok=1
  [ "$engine" = colio ] && ! grep -q . "$stats" 2>/dev/null && ok=0 # the calls did not come through colio
  [ -f "$work/expect.nc" ] && ! cmp -s "$file" "$work/expect.nc" && ok=0
  awk -v ok=$ok '/open-to-close/ { t[n++] = $(NF-1) } END { print t[0], t[1], ok }' "$log"
}

# the expectation: the stock MPI-IO driver's file
read -r _ _ ok < <(run mpiio "$work/expect.nc.tmp")
mv "$work/expect.nc.tmp" "$work/expect.nc"
engines=(colio gio mpiio)
for e in "${engines[@]}"; do run "$e" "$work/out.nc" >/dev/null; done # warm-up
: >"$work/times"
for ((k = 0; k < repeat; k++)); do
  for e in $(printf '%s\n' "${engines[@]}" | shuf); do
    echo "$e $(run "$e" "$work/out.nc")" >>"$work/times"
  done
done
# the library's own version string, as colio-bench records it
"$COLIO_MPIEXEC" $COLIO_MPIEXEC_FLAGS -n 1 "$build/bench/colio-bench" --workload ior --block 64 --size small \
  --engine posix --op write --repeat 1 --dir "$work" --json "$work/version.json" >/dev/null 2>&1
python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["library"])' "$work/version.json" >"$work/version"
python3 - "$work/times" "$work/version" "$json" "$repeat" "$dir" "$args" <<'EOF'
import datetime, json, statistics, sys
date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
times, version, out, repeat, where, args = sys.argv[1:]
rows = [l.split() for l in open(times)]
runs = []
for op, col in (("write", 1), ("read", 2)):
    for engine in ("colio", "gio", "mpiio"):
        mine = [r for r in rows if r[0] == engine]
        ts = [float(r[col]) for r in mine]
        ok = all(r[3] == "1" for r in mine) and all(t > 0 for t in ts)
        runs.append({"workload": "pnetcdf-aggregation", "size": "medium", "op": op, "engine": engine,
                     "desc": f"PnetCDF 1.15 benchmarks/C/aggregation.c {args}",
                     "nprocs": 2, "repeats": len(ts), "verified": ok, "times_s": ts,
                     "median_s": statistics.median(ts), "min_s": min(ts), "max_s": max(ts),
                     "cov": statistics.pstdev(ts) / statistics.mean(ts) if ts and statistics.mean(ts) else 0})
doc = {"tool": "bench/pnetcdf-aggregation.sh", "date": date, "nprocs": 2, "library": open(version).read().strip(),
       "dir": where, "hints": "", "repeat": int(repeat), "warmup": 1, "interleave": True, "steps": 1,
       "args": args, "runs": runs}
json.dump(doc, open(out, "w"), indent=1)
print(f"PnetCDF 1.15 benchmarks/C/aggregation.c {args}, 2 ranks, {where}, median of {repeat} (min-max), seconds")
for r in runs:
    print(f"{r['op']:5} {r['engine']:6} {r['median_s']:.4f} ({r['min_s']:.4f}-{r['max_s']:.4f})"
          f" {'verified' if r['verified'] else 'NOT VERIFIED'}")
EOF
