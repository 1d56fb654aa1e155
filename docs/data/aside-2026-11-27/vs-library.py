#!/usr/bin/env python3
"""Writes from memory 16 bytes before a page (ab.sh's write4080 runs): colio's default path before and after,
the library's MPI-IO and one pwrite per piece (medians over all rounds), and colio's speed against the library."""
import glob, json, os, sys
from collections import defaultdict

runs = defaultdict(list)
for path in glob.glob(os.path.join(sys.argv[1] if len(sys.argv) > 1 else 'runs', 'write4080-*.json')):
    _, mpi, tag, _ = os.path.basename(path)[:-5].split('-')
    for r in json.load(open(path))['runs']:
        eng = r['engine'] if r['engine'] in ('mpiio', 'posix') else r['engine'] + '-' + tag
        runs[(mpi, int(r['workload'].split('/')[1]), eng)].append(r['median_s'])
med = lambda v: sorted(v)[len(v) // 2]
print('| MPI | block | colio before s | colio after s | MPI-IO s | posix s | colio x MPI-IO before | after |')
print('|---|---|---|---|---|---|---|---|')
for mpi, block in sorted({(k[0], k[1]) for k in runs}):
    old, new = med(runs[(mpi, block, 'colio-old')]), med(runs[(mpi, block, 'colio-new')])
    lib, posix = med(runs[(mpi, block, 'mpiio')]), med(runs[(mpi, block, 'posix')])
    print(f'| {mpi} | {block // 1024} KiB | {old:.4f} | {new:.4f} | {lib:.4f} | {posix:.4f} | {lib / old:.2f} | {lib / new:.2f} |')
