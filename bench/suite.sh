#!/usr/bin/env bash
# The single-node raw-results families of docs/PERFORMANCE.md: colio-bench on 2 ranks bound to cores under
# each MPI library, colio against that library's own MPI-IO (ROMIO, OMPIO) and the other engines in the same
# run, engines in an order shuffled each repeat (--interleave), default hints, every byte verified.
#   bench/suite.sh [--out DIR] [--mpis "mpich openmpi"] [--print] FAMILY...
# FAMILY is one of
#   medium     every workload at medium size, --steps 4           DIR/medium-MPI.json
#   blocks     interleaved blocks of 64 B-4 MiB                  DIR/blocks-MPI.json
#   sizes      four workloads at small, medium and large size     DIR/sweep-MPI.json
#   e3sm-maps  the real E3SM F and G decomposition maps           DIR/e3sm-f-MPI.json, DIR/e3sm-g-MPI.json
#   slow       the block sweep behind 1 ms storage calls          DIR/slow-MPI.json (Open MPI: slow-ompio-*.json too)
#   subfiling  one shared file against subfiles                   DIR/subfiling-*-MPI.json
#   disk       interleaved blocks, IOR-like calls, E3SM F and G, lattice on the disk, flush timed and page
#              cache dropped before reads, colio buffered and direct  DIR/disk-*-MPI.json
#   gio        every workload, E3SM F and IOR-like calls against GIO, and PnetCDF 1.15's own aggregation
#              benchmark on its GIO driver against colio's drop-in  DIR/gio-*-MPI.json (needs scripts/peers.sh)
# or all. DIR defaults to docs/results, where bench/report.sh finds them (it rewrites docs/PERFORMANCE.md);
# a .txt with colio-bench's table lies beside each JSON. --print shows the commands instead of running them
# (MPIEXEC: the library's mpiexec with COLIO_MPIEXEC_FLAGS and COLIO_MPIEXEC_BIND of scripts/mpi/*.env).
# Builds are scripts/build.sh's (build/MPI). The machine should be otherwise idle. COLIO_BENCH_DISK: the
# folder on a disk-backed file system the disk runs use (default /var/tmp/colio-bench).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=docs/results mpis="mpich openmpi" print=0 families=()
while [ $# -gt 0 ]; do
  case $1 in
  --out) out=$2; shift ;;
  --mpis) mpis=$2; shift ;;
  --print) print=1 ;;
  -h | --help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  all) families+=(medium blocks sizes e3sm-maps slow subfiling) ;;
  medium | blocks | sizes | e3sm-maps | slow | subfiling | gio | disk) families+=("$1") ;;
  *) echo "suite.sh: unknown argument $1 (--help)" >&2; exit 2 ;;
  esac
  shift
done
[ ${#families[@]} -gt 0 ] || { echo "suite.sh: name a family (--help)" >&2; exit 2; }
cd "$root"
e3sm=bench/data/e3sm
blocks=64,256,1024,4096,65536,1048576,4194304
disk=${COLIO_BENCH_DISK:-/var/tmp/colio-bench} # a folder on a disk-backed file system
wrap=()

# bench NAME ARGS...: one colio-bench run under $mpi, into $out/NAME-$mpi.json
bench() {
  local name=$1; shift
  if [ $print = 1 ]; then
    echo "MPIEXEC -n 2 ${wrap[*]}${wrap[*]:+ }build/$mpi/bench/colio-bench $* --json $out/$name-$mpi.json"
    return 0
  fi
  echo "suite.sh: $mpi $name" >&2
  "$COLIO_MPIEXEC" $COLIO_MPIEXEC_FLAGS $COLIO_MPIEXEC_BIND -n 2 "${wrap[@]}" "build/$mpi/bench/colio-bench" "$@" \
    --json "$out/$name-$mpi.json" >"$out/$name-$mpi.txt"
}

# pnetcdf NAME: PnetCDF 1.15's aggregation benchmark under $mpi, into $out/NAME-$mpi.json
pnetcdf() {
  if [ $print = 1 ]; then
    echo "bench/pnetcdf-aggregation.sh MPI $out/$1-$mpi.json"
    return 0
  fi
  echo "suite.sh: $mpi $1" >&2
  bench/pnetcdf-aggregation.sh "$mpi" "$out/$1-$mpi.json" >"$out/$1-$mpi.txt"
}

family() { # FAMILY, under $mpi
  case $1 in
  medium)
    bench medium --workload all --size medium --engine colio,mpiio,posix,ceiling,alltoallv --steps 4 --repeat 15 \
      --interleave ;;
  blocks)
    bench blocks --workload interleaved --block $blocks --size medium --engine colio,mpiio,posix,alltoallv \
      --op write,read --repeat 7 --interleave ;;
  sizes)
    bench sweep --workload interleaved,random,cube,e3sm --sweep small,medium,large --engine colio,mpiio,ceiling \
      --repeat 5 --interleave ;;
  e3sm-maps)
    bench e3sm-f --workload e3sm --decomp $e3sm/map_f_case_16p.nc --header $e3sm/f_case_h0.txt \
      --engine colio,mpiio,alltoallv --op write,read --repeat 9 --interleave
    bench e3sm-g --workload e3sm --decomp $e3sm/map_g_case_16p.nc --header $e3sm/g_case_hist.txt \
      --engine colio,mpiio,alltoallv --op write,read --steps 5 --repeat 15 --interleave ;;
  gio)
    bench gio --workload all --size medium --engine colio,gio,mpiio --repeat 7 --interleave
    bench gio-e3sm-f --workload e3sm --decomp $e3sm/map_f_case_16p.nc --header $e3sm/f_case_h0.txt \
      --engine colio,gio,mpiio --op write,read --repeat 7 --interleave
    bench gio-ior --workload ior --block 64,4096,1048576 --size medium --engine colio,gio,mpiio --op write,read \
      --repeat 5 --interleave
    # the same calls on the disk: tmpfs locks a page for every read of it, so two ranks reading one page
    # at the same instant wait on each other there and nowhere else
    [ $print = 1 ] || mkdir -p "$disk"
    bench gio-ior-disk --workload ior --block 64,4096,1048576 --size medium --engine colio,gio,mpiio \
      --op write,read --repeat 5 --interleave --dir "$disk"
    pnetcdf gio-pnetcdf ;;
  disk)
    # on the disk as storage people measure: the flush inside a write's time, reads after the page cache
    # was dropped; colio as it comes and with direct I/O
    [ $print = 1 ] || mkdir -p "$disk"
    local d=(--dir "$disk" --sync --drop-cache --op write,read --repeat 5 --interleave
             --engine colio,colio:direct_write=true+direct_read=true,mpiio,posix,ceiling)
    bench disk-blocks --workload interleaved --block 64,4096,1048576 --size medium "${d[@]}"
    bench disk-ior --workload ior --block 64,4096,1048576 --size medium "${d[@]}"
    bench disk-e3sm-f --workload e3sm --decomp $e3sm/map_f_case_16p.nc --header $e3sm/f_case_h0.txt "${d[@]}"
    bench disk-e3sm-g --workload e3sm --decomp $e3sm/map_g_case_16p.nc --header $e3sm/g_case_hist.txt "${d[@]}"
    bench disk-lattice --workload lattice --size medium "${d[@]}" ;;
  slow)
    # every read and write call under /dev/shm/slow/ sleeps 1 ms first; colio's storage probe runs afresh
    [ $print = 1 ] || mkdir -p /dev/shm/slow
    wrap=(env "LD_PRELOAD=$root/build/$mpi/tools/libcolio_slowfs.so" COLIO_SLOWFS_PREFIX=/dev/shm/slow/
          COLIO_STORAGE_CACHE=none)
    [ $print = 1 ] && wrap[1]=LD_PRELOAD=build/$mpi/tools/libcolio_slowfs.so
    local common=(--workload interleaved --size medium --interleave --dir /dev/shm/slow)
    if [[ $mpi == openmpi* ]]; then
      # OMPIO writes blocks under 64 KiB with one storage call per piece (a minute a run at 64 B): its cells
      # run apart, from 4 KiB (3 repeats) and as reads below it
      bench slow "${common[@]}" --block $blocks --op write,read --engine colio,alltoallv --repeat 7
      bench slow-ompio "${common[@]}" --block 65536,1048576,4194304 --op write,read --engine colio,mpiio --repeat 7
      bench slow-ompio-4k "${common[@]}" --block 4096 --op write,read --engine colio,mpiio --repeat 3
      bench slow-ompio-reads "${common[@]}" --block 64,256,1024 --op read --engine colio,mpiio --repeat 5
    else
      bench slow "${common[@]}" --block $blocks --op write,read --engine colio,mpiio,alltoallv --repeat 7
    fi
    wrap=() ;;
  subfiling)
    local size
    for size in medium large; do
      bench subfiling-$size --workload hacc,random --size $size --op write,read --repeat 9 --interleave \
        --engine mpiio,colio,colio:cb_nodes=2,colio:colio_subfiles=1,colio:colio_subfiles=2
    done
    # the same stripes to the same two aggregators, into one file and into two
    bench subfiling-samestripes --workload hacc --size large --op write --repeat 15 --interleave \
      --engine mpiio,colio:cb_nodes=2+colio_domain=stripe+striping_unit=1m,colio:colio_subfiles=2 ;;
  esac
}

[ $print = 1 ] || { mkdir -p "$out"; source scripts/env.sh; }
for mpi in $mpis; do
  if [ $print = 1 ]; then
    for f in "${families[@]}"; do family "$f"; done
  else
    (colio_mpi_env "$mpi"
     for f in "${families[@]}"; do family "$f"; done)
  fi
done
