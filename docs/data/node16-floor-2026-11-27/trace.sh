#!/bin/bash
# Needs the temporary per-phase timer of trace.patch (git apply it, build both MPIs, pack; not part of colio):
# per rank and phase, milliseconds of steps' own work / wall time from entering the phase to leaving it.
out=${1:?}; run=${2:-bash .device16/run.sh}; mkdir -p "$out"
E3=bench/data/e3sm
export COLIO_TRACE=1
t() { local lim=$1; shift; echo "### $(date +%T) $*"; timeout "$lim" "$@" 2>&1 | grep -v '^#' | grep -E "TRACE|^e3sm|^interleaved|^lattice" | cut -c1-400; echo "### rc=${PIPESTATUS[0]}"; }
t 40 $run mpich 16 colio-bench --workload e3sm --decomp $E3/map_f_case_16p.nc --header $E3/f_case_h0.txt --engine colio --op write --repeat 7 --quiet
t 40 $run mpich 16 colio-bench --workload e3sm --decomp $E3/map_f_case_16p.nc --header $E3/f_case_h0.txt --engine alltoallv --op write --repeat 7 --quiet
t 40 $run mpich 16 colio-bench --workload interleaved --block 4096 --size medium --engine colio --op write --repeat 7 --quiet
t 40 $run mpich 16 colio-bench --workload interleaved --block 4096 --size medium --engine alltoallv --op write --repeat 7 --quiet
t 40 $run mpich 16 colio-bench --workload e3sm --decomp $E3/map_g_case_16p.nc --header $E3/g_case_hist.txt --engine colio --op write --steps 5 --repeat 9 --quiet
t 40 $run openmpi 16 colio-bench --workload e3sm --decomp $E3/map_f_case_16p.nc --header $E3/f_case_h0.txt --engine colio --op write --repeat 7 --quiet
echo "### done $(date +%T)"
