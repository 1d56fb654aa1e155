#!/usr/bin/env bash
# ctest: bench/report.sh on the small raw results of tests/report/sample/, so the report cannot rot.
# It must print nothing, write at most 400 lines with every family's section (and a line for each
# family without files), compute a known cell from the sample, make the same file twice, and
# --check must pass on that file and fail once the file differs.
#   tests/report/run.sh [SOURCE_DIR] [WORK_DIR]
set -euo pipefail
src=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
work=${2:-$(mktemp -d /tmp/colio-report.XXXXXX)}
rm -rf "$work"
mkdir -p "$work"
sample=$src/tests/report/sample
report=$src/bench/report.sh
fail() { echo "report test: $*" >&2; exit 1; }

# figures need the plotting tool's interpreter with matplotlib; without it the tables alone
figures=()
plot_python=$(sed -n '1s/^#!//p' "$src/tools/colio-bench-plot")
$plot_python -c 'import matplotlib' 2>/dev/null || { figures=(--no-figures); echo "report test: no matplotlib, no figures"; }

out=$("$report" --results "$sample" --out "$work/PERFORMANCE.md" "${figures[@]}" 2>&1) || fail "bench/report.sh failed: $out"
[ -z "$out" ] || fail "bench/report.sh printed: $out"
doc=$work/PERFORMANCE.md
lines=$(wc -l <"$doc")
[ "$lines" -le 400 ] || fail "$lines lines, more than 400"

for section in "# colio performance" "## Machine and method" "## Every workload at medium size" \
  "## Interleaved blocks, 64 B to 4 MiB" "## The real E3SM maps" "## Behind slow storage" \
  "## Small, medium and large sizes" "## Across nodes" "## Subfiling: one shared file against subfiles" \
  "## Nonblocking I/O: overlap with computation" "## Families without results here"; do
  grep -qxF "$section" "$doc" || fail "no section '$section'"
done
for line in "- Unmodified MPI-IO programs (libcolio_mpiio): no " "- Four MPI libraries: no "; do
  grep -qF -- "$line" "$doc" || fail "no line for a family without files: '$line'"
done
# one table per library and family, the commands that made each family, the prose
for text in "| workload (MPICH 4.0.2) |" "| workload (Open MPI 4.1.4) |" "| block (Open MPI 4.1.4) |" \
  "| map (MPICH 4.0.2) |" "| workload (MPICH 4.0.2, unshaped, memory) |" "bench/suite.sh medium" \
  "bench/suite.sh slow" "bench/cross-node.sh --out docs/results/cross-node" "What the tables say:" \
  "made by the same arguments without \`--interleave\`"; do
  grep -qF -- "$text" "$doc" || fail "no '$text'"
done
# medium-mpich.json's interleaved row, computed here from the sample's repeats without the generator's
# code: colio's median in ms, then ROMIO's time over colio's in each repeat (the engines ran side by side),
# the median of those ratios with their min and max, for the write and for the read
python3 - "$sample/medium-mpich.json" "$doc" <<'PY' || fail "medium interleaved row not as computed from the sample"
import json, statistics, sys
runs = {(r["workload"], r["op"], r["engine"]): r for r in json.load(open(sys.argv[1]))["runs"]}
doc = open(sys.argv[2]).read().split("\n")
table = doc.index(next(ln for ln in doc if ln.startswith("| workload (MPICH 4.0.2) |")))
row = next(ln for ln in doc[table:] if ln.startswith("| interleaved |"))
cells = [c.strip() for c in row.strip("|").split("|")]
for op, col in (("write", 1), ("read", 6)):
    colio, romio = runs[("interleaved", op, "colio")]["times_s"], runs[("interleaved", op, "mpiio")]["times_s"]
    xs = [m / c for c, m in zip(colio, romio)]
    want = f"{statistics.median(xs):.2f} ({min(xs):.2f}-{max(xs):.2f})"
    ms = statistics.median(colio) * 1e3
    if cells[col + 2] != want or abs(float(cells[col]) - ms) > 0.005 * ms:
        sys.exit(f"{op}: the row says {cells[col]} ms, x {cells[col + 2]}; the sample gives {ms:.3g} ms, x {want}")
PY
# Open MPI's slow cells come from two runs: colio's time from the larger, the ratio from OMPIO's own run
grep -qF "| 64 KiB | 28.7 | 3% | 19.73 (18.01-20.03) | 1.14 |" "$doc" || fail "slow 64 KiB row not merged"
if [ ${#figures[@]} = 0 ]; then
  for png in medium-phases medium-speedup sweep-bandwidth; do
    [ -s "$work/img/$png.png" ] || fail "no figure $png.png"
    grep -qF "(img/$png.png)" "$doc" || fail "no reference to $png.png"
  done
fi

"$report" --results "$sample" --out "$work/again.md" --no-figures
cmp -s "$doc" "$work/again.md" || fail "two runs made different files"
"$report" --results "$sample" --out "$doc" --check || fail "--check fails on the file it just wrote"
echo "stale" >>"$doc"
if "$report" --results "$sample" --out "$doc" --check 2>/dev/null; then
  fail "--check passes on a file that differs"
fi
rm -rf "$work"
echo "report test: $lines lines, every section"
