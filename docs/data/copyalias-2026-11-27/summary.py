#!/usr/bin/env python3
"""ab.sh's runs: per MPI, block, op and colio variant, the old and new library's median seconds (range over rounds)."""
import glob, json, os, sys
from collections import defaultdict

out = sys.argv[1] if len(sys.argv) > 1 else '/tmp/copyalias'
cells = defaultdict(lambda: defaultdict(list))
for path in sorted(glob.glob(os.path.join(out, '*.json'))):
    _, mpi, tag, _ = os.path.basename(path)[:-5].split('-')
    for r in json.load(open(path))['runs']:
        path_name = 'two-phase forced' if 'romio_cb' in r['engine'] else 'default'
        cells[(mpi, int(r['workload'].split('/')[1]), r['op'], path_name)][tag].append(
            (r['median_s'], r['phases']['compute']))
med = lambda xs: sorted(xs)[len(xs) // 2]
print('| MPI | block | op | colio path | old s | new s | new / old (medians) | compute s old / new |')
print('|---|---|---|---|---|---|---|---|')
for (mpi, b, op, p), t in sorted(cells.items()):
    o, n = t.get('old', []), t.get('new', [])
    if not o or not n:
        continue
    rng = lambda v: '%.4f-%.4f' % (min(x[0] for x in v), max(x[0] for x in v))
    print(f'| {mpi} | {b // 1024} KiB | {op} | {p} | {rng(o)} | {rng(n)} | {med([x[0] for x in n]) / med([x[0] for x in o]):.2f} | '
          f'{med([x[1] for x in o]):.4f} / {med([x[1] for x in n]):.4f} |')
