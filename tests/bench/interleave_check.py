#!/usr/bin/env python3
"""bench_smoke.interleave's JSON: every run verified with one time per repeat, and each engine's x_mpiio
the median over repeats of MPI-IO's time over its own in the same repeat, recomputed here.
usage: interleave_check.py RESULT.json"""
import json, statistics, sys

d = json.load(open(sys.argv[1]))
bad = []
if d.get('interleave') is not True:
    bad.append('the document does not say interleave: true')
runs = d['runs']
mpiio = {(r['workload'], r['op']): r for r in runs if r['engine'] == 'mpiio'}
for r in runs:
    name = f"{r['workload']} {r['engine']} {r['op']}"
    if not r['verified'] or len(r['times_s']) != d['repeat']:
        bad.append(f"{name}: verified {r['verified']}, {len(r['times_s'])} times for {d['repeat']} repeats")
        continue
    if abs(statistics.median(r["times_s"]) - r["median_s"]) > 1e-6 * r["median_s"]:
        bad.append(f"{name}: median_s {r['median_s']} is not the median of times_s")
    m = mpiio.get((r['workload'], r['op']))
    if r['engine'] == 'mpiio' or m is None:
        continue
    want = statistics.median(a / b for a, b in zip(m['times_s'], r['times_s']))
    if abs(want - r['x_mpiio']) > 1e-4 * want:
        bad.append(f"{name}: x_mpiio {r['x_mpiio']}, the repeats' ratios give {want}")
for b in bad:
    print('interleave_check:', b)
print(f"interleave_check: {len(runs)} runs, {len(bad)} problems")
sys.exit(1 if bad or not runs else 0)
