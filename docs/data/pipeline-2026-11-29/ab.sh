#!/usr/bin/env bash
# Pipelined rounds on and off in the same runs (colio against colio:colio_pipeline=1, engines interleaved), 2 ranks
# bound, default hints otherwise: the interleaved blocks, every medium workload (--steps 4) and the E3SM maps, on
# /dev/shm, then the blocks behind 1 ms storage calls (tools/slowfs.c). JSON and text into OUT.
# usage: ab.sh OUT [mpich|openmpi ...]   (from the repository root)
set -u
here=$(dirname "$0")
source "$here/../launch.sh"
out=${1:?a folder}; shift; mkdir -p "$out" /dev/shm/slow
mpis=${*:-mpich openmpi}
eng="--engine colio,colio:colio_pipeline=1 --interleave"
d=bench/data/e3sm
for mpi in $mpis; do
  b=build/$mpi/bench/colio-bench
  launch $mpi $b --workload interleaved --block 64,256,1024,4096,65536,1048576,4194304 --size medium --op write,read \
    $eng --repeat 7 --json "$out/blocks-$mpi.json" > "$out/blocks-$mpi.txt"
  launch $mpi $b --workload all --size medium --op write,read --steps 4 $eng --repeat 9 \
    --json "$out/medium-$mpi.json" > "$out/medium-$mpi.txt"
  launch $mpi $b --workload e3sm --decomp $d/map_f_case_16p.nc --header $d/f_case_h0.txt --op write,read $eng \
    --repeat 9 --json "$out/f-$mpi.json" > "$out/f-$mpi.txt"
  launch $mpi $b --workload e3sm --decomp $d/map_g_case_16p.nc --header $d/g_case_hist.txt --op write,read --steps 5 \
    $eng --repeat 15 --json "$out/g-$mpi.json" > "$out/g-$mpi.txt"
  lib=build/$mpi/tools/libcolio_slowfs.so
  if [ "$mpi" = mpich ]; then
    env=(-genv LD_PRELOAD $lib -genv COLIO_SLOWFS_PREFIX /dev/shm/slow/ -genv COLIO_STORAGE_CACHE none)
  else
    env=(-x LD_PRELOAD=$lib -x COLIO_SLOWFS_PREFIX=/dev/shm/slow/ -x COLIO_STORAGE_CACHE=none)
  fi
  launch $mpi "${env[@]}" $b --workload interleaved --block 64,4096,1048576 --size medium --op write,read \
    --dir /dev/shm/slow $eng --repeat 7 --json "$out/slow-$mpi.json" > "$out/slow-$mpi.txt"
done
