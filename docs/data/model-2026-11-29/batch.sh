#!/usr/bin/env bash
# pred.sh over the interleaved blocks, every medium workload and the E3SM maps (about a minute).
# usage: batch.sh OUT > table.txt   (from the repository root)
set -u
P="bash $(dirname "$0")/pred.sh ${1:?a folder}"
for b in 64 256 1024 4096 65536 1048576; do echo "== interleaved $b"; $P i$b --workload interleaved --block $b --size medium --op write,read --steps 4 --repeat 3; done
for w in random cube flash btio hacc lattice collperf; do echo "== $w"; $P $w --workload $w --size medium --op write,read --steps 4 --repeat 3; done
echo "== e3sm F"; $P f --workload e3sm --decomp bench/data/e3sm/map_f_case_16p.nc --header bench/data/e3sm/f_case_h0.txt --op write,read --repeat 3
echo "== e3sm G"; $P g --workload e3sm --decomp bench/data/e3sm/map_g_case_16p.nc --header bench/data/e3sm/g_case_hist.txt --op write,read --steps 3 --repeat 3
