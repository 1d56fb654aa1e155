#!/usr/bin/env bash
# Build against build in one run: the same colio-bench command under two builds of colio, in turn,
# ROUNDS times, which build goes first alternating from round to round, so the machine's drift over
# the run falls on both alike. Then, per workload, size, operation and engine: each build's median
# (over the rounds' medians, with their range) and B's time over A's (the median of the rounds'
# ratios, with their range; below 1: B is faster).
#   bench/ab.sh [--rounds N] [--out DIR] [--mpi NAME] [--np N] [--lib-only] BUILD_A BUILD_B -- ARGS...
#   bench/ab.sh --summary DIR
# BUILD_A and BUILD_B are build folders (scripts/build.sh's build/NAME), for instance of a worktree at
# the base commit and of this tree:
#   git worktree add /tmp/base BASE && (cd /tmp/base && scripts/build.sh mpich)
#   bench/ab.sh --rounds 6 /tmp/base/build/mpich build/mpich -- --workload interleaved --block 64,4096 \
#       --size medium --engine colio,mpiio --op write,read --repeat 7 --interleave
# ARGS are colio-bench's (not --json: each run writes DIR/A-ROUND.json and DIR/B-ROUND.json, its table in
# a .txt beside). Each build runs its own bench/colio-bench, which finds its own libcolio; --lib-only runs
# BUILD_B's colio-bench for both, BUILD_A's libcolio through LD_LIBRARY_PATH (a change to the library
# alone, the benchmark held the same). NAME is the MPI library both were built against (default:
# BUILD_A's folder name), whose mpiexec, flags and core binding come from scripts/env.sh; N ranks
# (default 2), bound to cores. DIR defaults to a new folder under /tmp.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=3 out= mpi= np=2 lib_only=0 summary=
while [ $# -gt 0 ]; do
  case $1 in
  --rounds) rounds=$2; shift 2 ;;
  --out) out=$2; shift 2 ;;
  --mpi) mpi=$2; shift 2 ;;
  --np) np=$2; shift 2 ;;
  --lib-only) lib_only=1; shift ;;
  --summary) summary=$2; shift 2 ;;
  -h | --help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  --) shift; break ;;
  -*) echo "ab.sh: unknown option $1 (--help)" >&2; exit 2 ;;
  *) break ;;
  esac
done

summarise() { # DIR
  python3 - "$1" <<'PY'
import glob, json, os, statistics, sys

d = sys.argv[1]
med = {}  # (workload, size, op, engine) -> {build: {round: median_s}}
for path in glob.glob(os.path.join(d, "[AB]-*.json")):
    build, rnd = os.path.basename(path)[:-5].split("-")
    for r in json.load(open(path))["runs"]:
        if r.get("verified") and r.get("repeats", 0) > 0:
            key = (r["workload"], r["size"], r["op"], r["engine"])
            med.setdefault(key, {}).setdefault(build, {})[int(rnd)] = r["median_s"]
if not med:
    sys.exit(f"ab.sh: no verified runs in {d}")


def cell(xs, fmt):
    return fmt(statistics.median(xs)) + f" ({fmt(min(xs))}-{fmt(max(xs))})"


def ms(s):
    v = s * 1e3
    return f"{v:.0f}" if v >= 100 else f"{v:.1f}" if v >= 10 else f"{v:.2f}" if v >= 1 else f"{v:.3g}"


print("| workload | size | op | engine | A ms (rounds' range) | B ms | B / A (range) | rounds |")
print("|---|---|---|---|---|---|---|---|")
for key, by in med.items():
    a, b = by.get("A", {}), by.get("B", {})
    both = sorted(set(a) & set(b))
    if not both:
        continue
    ratios = [b[k] / a[k] for k in both if a[k] > 0]
    print(f"| {' | '.join(key)} | {cell([a[k] for k in both], ms)} | {cell([b[k] for k in both], ms)} | "
          f"{cell(ratios, lambda x: f'{x:.3f}')} | {len(both)} |")
PY
}

if [ -n "$summary" ]; then
  summarise "$summary"
  exit 0
fi
[ $# -ge 2 ] || { echo "ab.sh: need BUILD_A BUILD_B -- ARGS (--help)" >&2; exit 2; }
a=$(cd "$1" && pwd) b=$(cd "$2" && pwd)
shift 2
[ "${1:-}" = -- ] && shift
for arg in "$@"; do
  [ "$arg" = --json ] && { echo "ab.sh: ARGS may not name --json (each run writes its own)" >&2; exit 2; }
done
for build in "$a" "$b"; do
  [ -x "$build/bench/colio-bench" ] || { echo "ab.sh: no $build/bench/colio-bench (build it first)" >&2; exit 2; }
done
mpi=${mpi:-$(basename "$a")}
out=${out:-$(mktemp -d /tmp/colio-ab.XXXXXX)}
mkdir -p "$out"
source "$root/scripts/env.sh"
colio_mpi_env "$mpi"

run() { # TAG BUILD ROUND
  local tag=$1 build=$2 k=$3 bench=$2/bench/colio-bench env=()
  shift 3
  if [ $lib_only = 1 ]; then
    bench=$b/bench/colio-bench
    [ "$tag" = A ] && env=(env "LD_LIBRARY_PATH=$a${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
  fi
  echo "ab.sh: round $k, $tag ($build)" >&2
  "$COLIO_MPIEXEC" $COLIO_MPIEXEC_FLAGS $COLIO_MPIEXEC_BIND -n "$np" "${env[@]}" "$bench" "$@" \
    --json "$out/$tag-$k.json" >"$out/$tag-$k.txt"
}

printf 'A %s\nB %s\nmpi %s, %s ranks, %s rounds%s\nargs %s\n' "$a" "$b" "$mpi" "$np" "$rounds" \
  "$([ $lib_only = 1 ] && echo ", B's colio-bench for both")" "$*" >"$out/ab.txt"
for k in $(seq 1 "$rounds"); do
  if [ $((k % 2)) = 1 ]; then
    run A "$a" "$k" "$@"; run B "$b" "$k" "$@"
  else
    run B "$b" "$k" "$@"; run A "$a" "$k" "$@"
  fi
done
echo "ab.sh: runs in $out" >&2
summarise "$out"
