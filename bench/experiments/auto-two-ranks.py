#!/usr/bin/python3
"""auto against every exchange kernel at 2 ranks on this machine (docs/SCALE.md,
"The auto rule"): the E3SM-like and 64-byte interleaved writes of the
simulated table (--size small), default hints and two-phase forced. Each
engine's figure is the median of RUNS runs' medians (15 repeats each); the
runs rotate the engines' order so no kernel is always measured first.

    bench/experiments/auto-two-ranks.py [BUILD] [RUNS] [OUT.json]   # default: build/mpich 5 docs/results/auto-2ranks.json

Prints one Markdown row per cell: milliseconds per kernel, then auto / best."""
import json
import os
import statistics
import subprocess
import sys
import tempfile

KERNELS = ["romio", "issend", "auto", "balanced", "spread"]
CELLS = [("e3sm", ""), ("interleaved", ""), ("e3sm", "romio_cb_write=enable"),
         ("interleaved", "romio_cb_write=enable")]


def engine(kernel):
    """colio-bench's engine spec: auto is colio with default hints."""
    return "colio" if kernel == "auto" else f"colio:colio_exchange={kernel}+colio_meta_exchange={kernel}"


def one_run(build, workload, hints, order, out):
    cmd = ["mpiexec.mpich", "-n", "2", "-bind-to", "core", os.path.join(build, "bench", "colio-bench"),
           "--workload", workload, "--size", "small", "--op", "write", "--repeat", "15",
           "--engine", ",".join(engine(k) for k in order), "--json", out, "--quiet"]
    if workload == "interleaved":
        cmd += ["--block", "64"]
    if hints:
        cmd += ["--hints", hints]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(out) as f:
        return json.load(f)["runs"]


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build/mpich"
    nruns = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    path = sys.argv[3] if len(sys.argv) > 3 else "docs/results/auto-2ranks.json"
    tmp = os.path.join(tempfile.mkdtemp(prefix="auto2-"), "r.json")
    doc = {}
    for workload, hints in CELLS:
        medians = {k: [] for k in KERNELS}
        auto_ran = set()
        for rot in range(nruns):
            order = KERNELS[rot % len(KERNELS):] + KERNELS[:rot % len(KERNELS)]
            for k, r in zip(order, one_run(build, workload, hints, order, tmp)):
                medians[k].append(r["median_s"])
                if k == "auto":
                    auto_ran.add(r["kernels"])
        med = {k: statistics.median(v) for k, v in medians.items()}
        label = f"{workload}, {'two-phase forced' if hints else 'default'}"
        print(f"| {label} | " + " | ".join(f"{med[k] * 1e3:.2f}" for k in KERNELS) +
              f" | {med['auto'] / min(med.values()):.3f} |  (auto ran {', '.join(sorted(auto_ran))})", flush=True)
        doc[label] = {"medians_s": medians, "auto_ran": sorted(auto_ran)}
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
