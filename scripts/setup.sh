#!/usr/bin/env bash
# Install what colio needs on Debian/Ubuntu (run as root; idempotent):
# compilers and CMake, both MPI libraries, Python for the plotting tools,
# the real MPI-IO clients the interposer is tested with (PnetCDF, HDF5, Fortran),
# and SimGrid SMPI for the at-scale simulations (sim/, docs/SCALE.md).
set -euo pipefail
packages=(build-essential cmake ninja-build pkg-config git
          mpich libmpich-dev openmpi-bin libopenmpi-dev
          python3 python3-matplotlib
          gfortran libpnetcdf-dev pnetcdf-bin hdf5-tools
          libhdf5-mpich-dev libhdf5-openmpi-dev
          libsimgrid-dev)
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
