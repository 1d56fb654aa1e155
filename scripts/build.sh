#!/usr/bin/env bash
# Configure and build colio against one MPI library: scripts/build.sh mpich|openmpi [cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:?usage: scripts/build.sh mpich|openmpi|<dir> [cmake args...]}
shift
mpi=$name
case $name in mpich | openmpi) ;; *) mpi=auto ;; esac
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
[ -f "build/$name/CMakeCache.txt" ] && gen=() # keep the generator already chosen
args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
[ "$mpi" != auto ] && args+=(-DCOLIO_MPI="$mpi")
cmake -S . -B "build/$name" "${gen[@]}" "${args[@]}" "$@" >/dev/null
cmake --build "build/$name" --parallel
