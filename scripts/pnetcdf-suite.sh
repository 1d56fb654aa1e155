#!/usr/bin/env bash
# PnetCDF's own test suite through colio: PnetCDF 1.15's C tests (make check,
# each program at one rank, and make ptest, at several) run twice against the
# tree scripts/peers.sh built, stock (its default GIO driver) and with
# libcolio_mpiio preloaded into every test program (which asks for its MPI-IO
# driver), and the two pass lists side by side.
#   scripts/pnetcdf-suite.sh [--subset] [--np N] [--large] [--out DIR] [MPI...]   (default: mpich openmpi)
# --subset: the test folders .ci/run takes (testcases, nonblocking, cdf_format), make check only.
# --np: ranks of make ptest's runs (default: PnetCDF's 4, or the cores where fewer: busy-polling ranks
# past the cores make a run minutes long; PnetCDF's own log still says 4).
# --large: make ptest in test/largefile too (variables and files past 4 GiB: on 2 cores a single one of
# them ran over ten minutes); without it that folder runs under make check only.
# Prints DIR/MPI.tsv (test, stock, colio) and a summary line per MPI library; exits 1 when a test
# passes stock and fails through colio. colio's build/MPI must exist (scripts/build.sh MPI).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
subset=0 large=0 out= np=$(( $(nproc) < 4 ? $(nproc) : 4 ))
while [ $# -gt 0 ]; do
  case $1 in
  --subset) subset=1; shift ;;
  --np) np=$2; shift 2 ;;
  --large) large=1; shift ;;
  --out) out=$2; shift 2 ;;
  *) break ;;
  esac
done
mpis=("${@:-mpich}")
[ $# -eq 0 ] && mpis=(mpich openmpi)
out=${out:-$(mktemp -d /tmp/pnetcdf-suite.XXXXXX)}
mkdir -p "$out"
source "$root/scripts/env.sh"
dirs=(test)
[ "$subset" = 1 ] && dirs=(test/testcases test/nonblocking test/cdf_format)

# Results of one run: "name<TAB>PASS|FAIL|SKIP" per test, from automake's .trs files and ptest's lines.
collect() { # TREE PTEST_LOG
  local t
  for d in "${dirs[@]}"; do
    find "$1/$d" -name '*.trs' 2>/dev/null | while read -r t; do
      printf '%s\t%s\n' "${t#$1/}" "$(sed -n 's/^:test-result: //p' "$t" | head -1)"
    done
  done
  # ptest's lines: "*** TESTING C   NAME - what   -- pass (0.1s)", "-- skip", else an error message;
  # NAME repeats across folders and runs (adios' open), so each is numbered by its turn
  [ -f "$2" ] && awk '/^\*\*\* TESTING C / {
      name = $4; n[name]++; if (n[name] > 1) name = name "#" n[name]
      st = / -+ pass/ ? "PASS" : / -+ skip/ ? "SKIP" : "FAIL"
      printf "ptest:%s\t%s\n", name, st }' "$2"
  return 0
}

run_suite() { # TREE MPI LABEL [PRELOAD]
  local tree=$1 mpi=$2 label=$3 lib=${4:-} seq= par
  colio_mpi_env "$mpi"
  par="$COLIO_MPIEXEC $COLIO_MPIEXEC_FLAGS -n NP"
  if [ -n "$lib" ]; then seq="env LD_PRELOAD=$lib" par="$par env LD_PRELOAD=$lib"; fi
  : >"$out/$mpi-$label-check.txt"
  for d in "${dirs[@]}"; do
    find "$tree/$d" \( -name '*.trs' -o -name '*.log' \) -delete 2>/dev/null || true
    make -C "$tree/$d" -k check TESTSEQRUN="$seq" TESTMPIRUN="$par" >>"$out/$mpi-$label-check.txt" 2>&1 || true
  done
  : >"$out/$mpi-$label-ptest.txt"
  if [ "$subset" = 0 ]; then
    # PnetCDF's loop over the folders stops at the first that fails: each folder on its own
    local sub
    for sub in "$tree"/test/*/; do
      grep -q '^ptest' "$sub/Makefile" 2>/dev/null || continue
      [ "$large" = 1 ] || [ "$(basename "$sub")" != largefile ] || continue
      make -C "$sub" -k ptest TESTMPIRUN="${par/-n NP/-n $np}" >>"$out/$mpi-$label-ptest.txt" 2>&1 || true
    done
  fi
  collect "$tree" "$out/$mpi-$label-ptest.txt" | sort >"$out/$mpi-$label.tsv"
}

status=0
for mpi in "${mpis[@]}"; do
  prefix=$("$root/scripts/peers.sh" --prefix "$mpi" pnetcdf) || { echo "$mpi: no PnetCDF 1.15 (scripts/peers.sh)"; continue; }
  lib="$root/build/$mpi/libcolio_mpiio.so"
  [ -f "$lib" ] || { echo "$mpi: no $lib (scripts/build.sh $mpi)"; status=1; continue; }
  run_suite "$prefix/source" "$mpi" stock
  run_suite "$prefix/source" "$mpi" colio "$lib"
  join -t $'\t' -a 1 -a 2 -e MISSING -o 0,1.2,2.2 "$out/$mpi-stock.tsv" "$out/$mpi-colio.tsv" >"$out/$mpi.tsv"
  pass_stock=$(awk -F'\t' '$2=="PASS"' "$out/$mpi.tsv" | wc -l)
  pass_colio=$(awk -F'\t' '$3=="PASS"' "$out/$mpi.tsv" | wc -l)
  lost=$(awk -F'\t' '$2=="PASS" && $3!="PASS" {print $1}' "$out/$mpi.tsv")
  echo "$mpi: $(wc -l <"$out/$mpi.tsv") tests; pass stock $pass_stock, through colio $pass_colio; $out/$mpi.tsv"
  if [ -n "$lost" ]; then
    echo "$mpi: pass stock, fail through colio:"; echo "$lost" | sed 's/^/  /'
    status=1
  fi
done
exit $status
