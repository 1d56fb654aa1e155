#!/usr/bin/env bash
# Install a built colio into a staging prefix and build a small program
# against it twice: with CMake's find_package(colio) and with pkg-config.
set -euo pipefail
cd "$(dirname "$0")/.."
mpi=${1:?usage: scripts/install-check.sh mpich|openmpi}
source scripts/env.sh
stage=$PWD/build/$mpi/stage
rm -rf "$stage" "build/$mpi/consumer"
cmake --install "build/$mpi" --prefix "$stage" >/dev/null
cmake -S tests/install -B "build/$mpi/consumer" -DCMAKE_PREFIX_PATH="$stage" \
      -DMPI_C_COMPILER="mpicc.$mpi" >/dev/null
cmake --build "build/$mpi/consumer" >/dev/null
dir=$(mktemp -d /dev/shm/colio-install.XXXXXX 2>/dev/null || mktemp -d)
trap 'rm -rf "$dir"' EXIT
"mpiexec.$mpi" -n 2 "build/$mpi/consumer/consumer" "$dir/cmake.dat"
export PKG_CONFIG_PATH="$stage/lib/pkgconfig:$stage/lib/x86_64-linux-gnu/pkgconfig"
flags=$(pkg-config --cflags --libs colio)
libdir=$(pkg-config --variable=libdir colio)
"mpicc.$mpi" tests/install/consumer.c $flags -Wl,-rpath,"$libdir" -o "$dir/consumer-pc"
"mpiexec.$mpi" -n 2 "$dir/consumer-pc" "$dir/pkgconfig.dat"
echo "install check ($mpi): find_package(colio) and pkg-config colio both build and run"
