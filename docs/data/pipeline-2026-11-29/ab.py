#!/usr/bin/env python3
"""ab.sh's runs: per workload and op, colio's median time with pipelined rounds (the default) and without
(colio_pipeline=1), and the median of the repeats' ratios (x > 1: one buffer faster)."""
import glob, json, statistics as st, sys

print('| run | workload | op | pipelined s | one buffer s | x |')
print('|---|---|---|---|---|---|')
for path in sorted(glob.glob(f'{sys.argv[1]}/*.json')):
    runs = {}
    for r in json.load(open(path))['runs']:
        if r.get('verified'):
            runs[(r['workload'], r['op'], r['engine'])] = r
    for (w, op, e), r in runs.items():
        if e != 'colio':
            continue
        o = runs.get((w, op, 'colio:colio_pipeline=1'))
        if o:
            x = st.median(a / b for a, b in zip(r['times_s'], o['times_s']))
            print(f"| {path.split('/')[-1][:-5]} | {w} | {op} | {r['median_s']:.4f} | {o['median_s']:.4f} | {x:.2f} |")
