#!/usr/bin/env bash
# Install a built colio into a fresh prefix outside the system's library
# path, then, with no LD_LIBRARY_PATH: build a small program against it with
# CMake's find_package(colio) and with pkg-config, run an unmodified MPI-IO
# program with the installed libcolio_mpiio preloaded (its collective calls
# must go through colio), and run the installed colio-bench.
set -euo pipefail
cd "$(dirname "$0")/.."
mpi=${1:?usage: scripts/install-check.sh NAME (scripts/mpi/versions.sh)}
source scripts/env.sh
colio_mpi_env "$mpi"
unset LD_LIBRARY_PATH
run() { "$COLIO_MPIEXEC" $COLIO_MPIEXEC_FLAGS "$@"; }
build=$PWD/build/$mpi
prefix=$(mktemp -d /tmp/colio-prefix.XXXXXX)
dir=$(mktemp -d /dev/shm/colio-install.XXXXXX 2>/dev/null || mktemp -d)
trap 'rm -rf "$prefix" "$dir"' EXIT
rm -rf "$build/consumer"
cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(dirname "$(find "$prefix" -name libcolio.so -print -quit)")

cmake -S tests/install -B "$build/consumer" -DCMAKE_PREFIX_PATH="$prefix" -DMPI_C_COMPILER="$COLIO_MPICC" >/dev/null
cmake --build "$build/consumer" >/dev/null
run -n 2 "$build/consumer/consumer" "$dir/cmake.dat"
export PKG_CONFIG_PATH="$libdir/pkgconfig"
flags=$(pkg-config --cflags --libs colio)
"$COLIO_MPICC" tests/install/consumer.c $flags -Wl,-rpath,"$(pkg-config --variable=libdir colio)" -o "$dir/consumer-pc"
run -n 2 "$dir/consumer-pc" "$dir/pkgconfig.dat"

# an MPI-IO program that knows nothing of colio, the installed interposer preloaded
"$COLIO_MPICC" -Wno-stringop-overflow tests/clients/mpiio_basic.c -Itests/clients -o "$dir/mpiio_basic" # (GCC 12 misreads MPICH's MPI_STATUSES_IGNORE)
run -n 2 env LD_PRELOAD="$libdir/libcolio_mpiio.so" COLIO_HINTS="colio_stats=$dir/stats.jsonl" \
  "$dir/mpiio_basic" "$dir/preloaded.dat" >/dev/null
[ -s "$dir/stats.jsonl" ] || { echo "install check ($mpi): the preloaded program's calls did not go through colio" >&2; exit 1; }
run -n 2 "$prefix/bin/colio-bench" --workload interleaved --repeat 1 --warmup 0 --dir "$dir" --quiet >/dev/null
echo "install check ($mpi): installed to $prefix; find_package(colio), pkg-config, a preloaded MPI-IO program" \
     "and colio-bench all run without LD_LIBRARY_PATH"
