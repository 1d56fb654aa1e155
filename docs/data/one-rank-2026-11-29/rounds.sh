#!/usr/bin/env bash
# ROUNDS rounds of: pingpong (a cache line between cores 0 and 1 without MPI; pingpong.c, built to /tmp/pingpong)
# then one round of the per-call set (final-2026-11-29/percall.sh). OUT/pingpong.txt, OUT/percall.txt (rounds
# renumbered). usage: rounds.sh ROUNDS OUT   (from the repository root)
set -u
rounds=$1 out=$2
mkdir -p "$out"; : > "$out/pingpong.txt"; : > "$out/percall.txt"
cc -O2 -o /tmp/pingpong "$(dirname "$0")/pingpong.c"
for k in $(seq "$rounds"); do
  /tmp/pingpong /dev/shm/pp.dat | sed "s/^/$k /" >> "$out/pingpong.txt"
  bash docs/data/final-2026-11-29/percall.sh 1 "$out/round.txt"
  sed "s/^1 /$k /" "$out/round.txt" >> "$out/percall.txt"
done
rm -f "$out/round.txt"
