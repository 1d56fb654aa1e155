# Medians (and ranges) of ab.txt per MPI, size, preload, engine and agreements.
import collections, statistics, sys
d = collections.defaultdict(list)
for line in open(sys.argv[1] if len(sys.argv) > 1 else "ab.txt"):
    mpi, a, b, pre, eng, _, w, _, r = line.split()
    d[(mpi, b, pre, eng, a)].append((float(w), float(r)))
def fmt(v):
    return "%.2f (%.2f-%.2f)" % (statistics.median(v), min(v), max(v))
for k in sorted(d):
    ws = [x[0] for x in d[k]]; rs = [x[1] for x in d[k]]
    print("%-8s %5s %-9s %-6s %-3s  write %-20s read %s" % (k + (fmt(ws), fmt(rs))))
