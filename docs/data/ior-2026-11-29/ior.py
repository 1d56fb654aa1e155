#!/usr/bin/env python3
"""ior.sh's rounds: seconds for the run of calls (medians of each run's repeats), colio's API and the interposer
against the library; ratios are the library's time over colio's, per round (API: within one run, the medians of
the repeats' ratios; interposer: the round's two runs), then their range over the rounds."""
import glob, json, os, statistics as st, sys

out = sys.argv[1]


def load(path):
    d = json.load(open(path))
    return {(r['workload'].split('/')[1], r['op'], r['engine']): r for r in d['runs'] if r.get('verified')}


print('| MPI | block | op | colio API s | interposer s | library s | x library (API) | x library (interposer) |')
print('|---|---|---|---|---|---|---|---|')
for mpi in ('mpich', 'openmpi'):
    rounds = sorted(int(os.path.basename(p).split('-')[-1].split('.')[0]) for p in glob.glob(f'{out}/{mpi}-api-*.json'))
    api = [load(f'{out}/{mpi}-api-{r}.json') for r in rounds]
    itp = [load(f'{out}/{mpi}-interposer-{r}.json') for r in rounds]
    for b, op in sorted({(k[0], k[1]) for k in api[0]}, key=lambda x: (int(x[0]), x[1] != 'write')):
        c = [a[(b, op, 'colio')] for a in api]
        lib = [a[(b, op, 'mpiio')] for a in api]
        i = [t[(b, op, 'mpiio')] for t in itp]
        xa = [st.median(m / x for m, x in zip(l['times_s'], k['times_s'])) for l, k in zip(lib, c)]
        xi = [l['median_s'] / k['median_s'] for l, k in zip(lib, i)]
        span = lambda v: '%.4f-%.4f' % (min(v), max(v))
        print(f'| {mpi} | {b} | {op} | {span([x["median_s"] for x in c])} | {span([x["median_s"] for x in i])} | '
              f'{span([x["median_s"] for x in lib])} | {min(xa):.2f}-{max(xa):.2f} | {min(xi):.2f}-{max(xi):.2f} |')
