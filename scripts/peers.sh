#!/usr/bin/env bash
# Build the libraries colio is measured against and must work with, GIO and
# PnetCDF with its GIO driver, from their source tarballs, once per machine:
# for each Debian MPI library, each into its own prefix under the machine's
# cache, rebuilt when missing or when a tarball changes.
#   scripts/peers.sh [MPI...]        build (default: mpich openmpi), print each prefix
#   scripts/peers.sh --prefix MPI NAME   the prefix of NAME (gio, pnetcdf) for MPI, if built
# COLIO_PEERS: the folder of the tarballs (default: ../shared/peers beside the
# clone); without it nothing is built and the reason is printed.
# COLIO_PEERS_CACHE: where the prefixes go (default /var/cache/colio/peers).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
peers=${COLIO_PEERS:-$root/../shared/peers}
cache=${COLIO_PEERS_CACHE:-/var/cache/colio/peers}
declare -A tarball=([gio]=gio-1.0.0.tar.gz [pnetcdf]=pnetcdf-1.15.0.tar.gz)

# The prefix NAME's tarball builds into for MPI: its file name and the start of the checksum of it and of
# this script (a change to either builds anew).
prefix_of() { # MPI NAME
  local tb=$peers/${tarball[$2]} sum
  [ -f "$tb" ] || return 1
  sum=$(cat "$tb" "${BASH_SOURCE[0]}" | sha256sum | cut -c1-12)
  echo "$cache/$1/${tarball[$2]%.tar.gz}-$sum"
}

# Unpack a tarball into a fresh folder and make its build system with Debian's libtool.
unpack() { # TARBALL DIR
  rm -rf "$2" && mkdir -p "$2"
  tar -xzf "$1" -C "$2" --strip-components=1
  # both ask for libtool 2.5.4 (PnetCDF's GIO too); Debian 12's 2.4.7 builds them alike
  find "$2" -name configure.ac -exec sed -i 's/LT_PREREQ(\[2\.5\.4\])/LT_PREREQ([2.4.6])/' {} +
  (cd "$2" && autoreconf -fi) >"$2.autoreconf.log" 2>&1 || { tail -5 "$2.autoreconf.log" >&2; return 1; }
}

build() { # MPI NAME
  local mpi=$1 name=$2 prefix src log
  prefix=$(prefix_of "$mpi" "$name")
  if [ -f "$prefix/.built" ]; then echo "$prefix"; return 0; fi
  # PnetCDF's tree stays beside its prefix: its tests and benchmarks build and run there (scripts/pnetcdf-suite.sh)
  rm -rf "$prefix"
  src=$prefix/source log=$prefix/build.log
  [ "$name" = gio ] && src=$(mktemp -d)/$name
  mkdir -p "$prefix"
  echo "colio peers: building $name for $mpi into $prefix (log: $log)" >&2
  unpack "$peers/${tarball[$name]}" "$src"
  local -a conf=(--prefix="$prefix" MPICC="mpicc.$mpi")
  # PnetCDF refuses shared libraries against Debian's MPICH; the clients link it statically
  [ "$name" = pnetcdf ] && conf+=(MPICXX="mpicxx.$mpi" --disable-shared --disable-fortran --disable-cxx)
  if ! (cd "$src" && ./configure "${conf[@]}" && make -j"$(nproc)" && make install) >"$log" 2>&1; then
    echo "colio peers: building $name for $mpi failed; the end of $log:" >&2
    tail -20 "$log" >&2
    return 1
  fi
  touch "$prefix/.built"
  [ "$name" = gio ] && rm -rf "$(dirname "$src")"
  echo "$prefix"
}

if [ "${1:-}" = --prefix ]; then
  p=$(prefix_of "$2" "$3") && [ -f "$p/.built" ] && echo "$p"
  exit
fi
if [ ! -d "$peers" ]; then
  echo "colio peers: no sources at $peers (set COLIO_PEERS): GIO and PnetCDF 1.15 not built" >&2
  exit 0
fi
for mpi in "${@:-mpich openmpi}"; do
  for m in $mpi; do
    build "$m" gio
    build "$m" pnetcdf
  done
done
