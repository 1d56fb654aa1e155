#!/bin/bash
# Aligned reads: the tree before (built in a worktree, BEFORE) and this one in turn, 2 ranks bound, /dev/shm.
# usage: bash inturn.sh OUTDIR BEFORE_TREE [ROUNDS]
out=${1:?}; before=${2:?}; rounds=${3:-2}; mkdir -p "$out"
E3=bench/data/e3sm
for r in $(seq 1 $rounds); do
  for t in before after; do
    tree=$([ $t = before ] && echo "$before" || echo .)
    for m in mpich openmpi; do
      if [ $m = mpich ]; then run="mpiexec.mpich -n 2 -bind-to core"; else
        run="env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpiexec.openmpi -n 2 --bind-to core"; fi
      b=$tree/build/$m/bench/colio-bench
      $run $b --workload interleaved --block 64,256,1024,4096,65536,1048576,4194304 --size medium \
        --engine colio,mpiio,posix --op read --repeat 7 --quiet --json $out/sweep-$m-$t-$r.json > /dev/null 2>&1
      $run $b --workload e3sm --decomp $E3/map_f_case_16p.nc --header $E3/f_case_h0.txt \
        --engine colio,mpiio,alltoallv --op read --repeat 9 --quiet --json $out/f-$m-$t-$r.json > /dev/null 2>&1
      $run $b --workload e3sm --decomp $E3/map_g_case_16p.nc --header $E3/g_case_hist.txt --steps 5 \
        --engine colio,mpiio,alltoallv --op read --repeat 15 --quiet --json $out/g-$m-$t-$r.json > /dev/null 2>&1
      $run $b --size medium --engine colio,mpiio --op read --repeat 5 --steps 4 --quiet \
        --json $out/all-$m-$t-$r.json > /dev/null 2>&1
    done
  done
done
