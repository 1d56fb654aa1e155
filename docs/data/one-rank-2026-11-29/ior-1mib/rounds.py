#!/usr/bin/env python3
"""Open MPI rounds of docs/data/ior-2026-11-29/ior.sh with one block (1 MiB): per round, the medians of colio's API
and OMPIO (one run, engines interleaved) and of the interposer (its own run), and OMPIO's time over the interposer's."""
import json, sys

d = sys.argv[1] if len(sys.argv) > 1 else '.'
for r in range(1, 6):
    api = json.load(open(f'{d}/openmpi-api-{r}.json'))['runs']
    itp = json.load(open(f'{d}/openmpi-interposer-{r}.json'))['runs']
    med = lambda runs, e, op: next(x['median_s'] for x in runs if x['engine'] == e and x['op'] == op and x['verified'])
    print(r, ' | '.join('%s API %.4f OMPIO %.4f interposer %.4f x %.2f' % (
        op, med(api, 'colio', op), med(api, 'mpiio', op), med(itp, 'mpiio', op), med(api, 'mpiio', op) / med(itp, 'mpiio', op))
        for op in ('write', 'read')))
