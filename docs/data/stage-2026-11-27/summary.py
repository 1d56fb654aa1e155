# Medians of ab.sh's output: python3 summary.py ab8.txt
import sys, statistics as st
from collections import defaultdict
w, r = defaultdict(list), defaultdict(list)
for line in open(sys.argv[1] if len(sys.argv) > 1 else 'ab8.txt'):
    f = line.split()
    if len(f) < 8 or f[0] != 'round':
        continue
    key = (f[2], int(f[3]), f[4])
    w[key].append(float(f[6])); r[key].append(float(f[7]))
print('| MPI | bytes | staged write | off write | library write | staged / off | staged / library | rounds |')
print('|---|---|---|---|---|---|---|---|')
for mpi in ('mpich', 'openmpi'):
    for b in sorted({k[1] for k in w if k[0] == mpi}):
        m = {e: st.median(w[(mpi, b, e)]) for e in ('staged', 'off', 'library')}
        print(f"| {mpi} | {b} | {m['staged']:.2f} | {m['off']:.2f} | {m['library']:.2f} | "
              f"{m['staged']/m['off']:.2f} | {m['staged']/m['library']:.2f} | {len(w[(mpi, b, 'staged')])} |")
