#!/usr/bin/env python3
"""Old and new library from ab.sh: colio's read time (median of its runs) and x MPI-IO, per cell and round."""
import glob, json, os, sys
from collections import defaultdict

out = sys.argv[1] if len(sys.argv) > 1 else '/tmp/pageshift'
cells = defaultdict(lambda: defaultdict(list))  # (mpi, workload) -> tag -> [(colio s, mpiio s, bounce MiB)]
for path in sorted(glob.glob(os.path.join(out, '*.json'))):
    kind, mpi, tag, _ = os.path.basename(path)[:-5].split('-')
    runs = json.load(open(path))['runs']
    by = {(r['workload'], r['engine']): r for r in runs}
    for (w, e), r in by.items():
        if e != 'colio':
            continue
        m = by.get((w, 'mpiio'))
        cells[(mpi, w)][tag].append((r['median_s'], m['median_s'] if m else float('nan'), r['colio_buffer_bytes'] / 2**20))
print('| MPI | workload | colio old (s) | colio new (s) | new / old | runs holding a colio buffer, old / new | x MPI-IO old | x MPI-IO new |')
print('|---|---|---|---|---|---|---|---|')
for (mpi, w), tags in sorted(cells.items()):
    old = [v for t, vs in tags.items() if t == 'old' for v in vs]
    new = [v for t, vs in tags.items() if t == 'new' for v in vs]
    if not old or not new:
        continue
    med = lambda xs: sorted(xs)[len(xs) // 2]
    o, n = med([v[0] for v in old]), med([v[0] for v in new])
    rng = lambda vs: '%.4f-%.4f' % (min(v[0] for v in vs), max(v[0] for v in vs))
    bo = sum(v[2] > 0 for v in old); bn = sum(v[2] > 0 for v in new)
    xo = med([v[1] / v[0] for v in old]); xn = med([v[1] / v[0] for v in new])
    print(f'| {mpi} | {w} | {rng(old)} | {rng(new)} | {n / o:.2f} | {bo}/{len(old)} / {bn}/{len(new)} | {xo:.2f} | {xn:.2f} |')
