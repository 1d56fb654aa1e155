#!/usr/bin/env python3
"""The interleaved sweep: colio under each MPI, each library's MPI-IO, the better posix; x = the better library's time over colio's.
x ROMIO and x OMPIO come from one run each: with colio-bench --interleave, the medians of the repeats' ratios; the
columns across the two runs (x better library, x posix) are ratios of medians."""
import json, statistics, sys

runs, paired = {}, {}
for path, lib in zip(sys.argv[1:3], ('mpich', 'openmpi')):
    d = json.load(open(path))
    for r in d['runs']:
        if r.get('verified'):
            key = (lib, r['workload'].split('/')[1], r['op'], r['engine'])
            runs[key] = r['median_s']
            if d.get('interleave') and r.get('times_s'):
                paired[key] = r['times_s']


def within(lib, b, op, engine='mpiio'):
    """The engine's time over colio's in one run: paired per repeat when the run interleaved its engines."""
    m, c = paired.get((lib, b, op, engine)), paired.get((lib, b, op, 'colio'))
    if m and c:
        return statistics.median(x / y for x, y in zip(m, c))
    return runs[(lib, b, op, engine)] / runs[(lib, b, op, 'colio')]


with_a2a = all(any(k[0] == lib and k[3] == 'alltoallv' for k in runs) for lib in ('mpich', 'openmpi'))  # both runs had it


print('| block | op | colio MPICH | ROMIO | colio Open MPI | OMPIO | x ROMIO / x OMPIO | x better library | posix (better) | x posix |'
      + (' x alltoallv (MPICH / Open MPI) |' if with_a2a else ''))
print('|---|---|---|---|---|---|---|---|---|---|' + ('---|' if with_a2a else ''))
blocks = sorted({k[1] for k in runs}, key=int)
for b in blocks:
    for op in ('write', 'read'):
        g = lambda lib, e: runs.get((lib, b, op, e))
        cm, rm, co, oo = g('mpich', 'colio'), g('mpich', 'mpiio'), g('openmpi', 'colio'), g('openmpi', 'mpiio')
        px = min(x for x in (g('mpich', 'posix'), g('openmpi', 'posix')) if x)
        best_colio, best_lib = min(cm, co), min(rm, oo)
        name = f'{int(b) // 1048576} MiB' if int(b) >= 1048576 else (f'{int(b) // 1024} KiB' if int(b) >= 1024 else f'{b} B')
        print(f'| {name} | {op} | {cm:.4f} | {rm:.4f} | {co:.4f} | {oo:.4f} | {within("mpich", b, op):.2f} / {within("openmpi", b, op):.2f} | '
              f'{best_lib / best_colio:.2f} | {px:.4f} | {px / best_colio:.2f} |'
              + (f' {within("mpich", b, op, "alltoallv"):.2f} / {within("openmpi", b, op, "alltoallv"):.2f} |' if with_a2a else ''))
