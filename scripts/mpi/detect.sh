#!/usr/bin/env bash
# usage: detect.sh MPICC  -- prints FAMILY-MAJOR (mpich-4, openmpi-5, ...) of the
# MPI library that compiler wrapper builds against, as its own mpi.h reports
# (MPICH_VERSION, OMPI_MAJOR_VERSION): the key of scripts/mpi/FAMILY-MAJOR.env.
set -euo pipefail
cc=${1:?usage: detect.sh MPICC}
flags=$("$cc" -showme 2>/dev/null || "$cc" -show 2>/dev/null) || { echo "detect.sh: $cc does not run" >&2; exit 1; }
for word in $flags; do
  case $word in -I*) dir=${word#-I} ;; *) continue ;; esac
  [ -f "$dir/mpi.h" ] || continue
  if major=$(sed -n 's/^#define OMPI_MAJOR_VERSION \([0-9]*\).*/\1/p' "$dir/mpi.h") && [ -n "$major" ]; then
    echo "openmpi-$major"; exit 0
  fi
  if major=$(sed -n 's/^#define MPICH_VERSION "\([0-9]*\)\..*/\1/p' "$dir/mpi.h") && [ -n "$major" ]; then
    echo "mpich-$major"; exit 0
  fi
done
echo "detect.sh: no MPICH or Open MPI mpi.h in the include path of $cc" >&2
exit 1
