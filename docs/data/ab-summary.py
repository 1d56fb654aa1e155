#!/usr/bin/env python3
"""Runs of an in-turn script (ab-inturn.sh) whose JSON files are NAME-MPI-TAG-ROUND.json: per MPI, workload,
block, op and engine, the old and new library's seconds (range over rounds), new / old of the medians, and the
median data-exchange phase old / new.  usage: ab-summary.py OUTDIR"""
import glob, json, os, sys
from collections import defaultdict

cells = defaultdict(lambda: defaultdict(list))
for path in sorted(glob.glob(os.path.join(sys.argv[1], '*.json'))):
    _, mpi, tag, _ = os.path.basename(path)[:-5].split("-")
    for r in json.load(open(path))['runs']:
        wl, _, block = r['workload'].partition('/')
        key = (mpi, wl, int(block or 0), r['op'], r['engine'])
        cells[key][tag].append((r['median_s'], (r.get('phases') or {}).get('data_exchange', 0.0)))
med = lambda xs: sorted(xs)[len(xs) // 2]
rng = lambda v: '%.4f-%.4f' % (min(x[0] for x in v), max(x[0] for x in v))
print('| MPI | workload | block | op | engine | old s | new s | new / old (medians) | data s old / new |')
print('|---|---|---|---|---|---|---|---|---|')
for (mpi, wl, b, op, eng), t in sorted(cells.items()):
    o, n = t.get('old', []), t.get('new', [])
    if o and n:
        size = f'{b // 1024} KiB' if b else '-'
        print(f'| {mpi} | {wl} | {size} | {op} | {eng} | {rng(o)} | {rng(n)} | '
              f'{med([x[0] for x in n]) / med([x[0] for x in o]):.2f} | '
              f'{med([x[1] for x in o]):.4f} / {med([x[1] for x in n]):.4f} |')
