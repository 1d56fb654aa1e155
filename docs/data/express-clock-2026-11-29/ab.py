#!/usr/bin/env python3
"""Medians and ranges of ab.sh's lines: per tree, path and engine, write and read us per call."""
import statistics
import sys
from collections import defaultdict

rows = defaultdict(lambda: ([], []))
for line in open(sys.argv[1]):
    _, tree, path, engine, _, w, _, r = line.split()
    rows[(tree, path, engine)][0].append(float(w))
    rows[(tree, path, engine)][1].append(float(r))
print("| tree | path | engine | write us (median, range) | read us (median, range) |")
print("|---|---|---|---|---|")
for (tree, path, engine), (w, r) in sorted(rows.items()):
    cell = lambda v: f"{statistics.median(v):.2f} ({min(v):.2f}-{max(v):.2f})"
    print(f"| {tree} | {path} | {engine} | {cell(w)} | {cell(r)} |")
