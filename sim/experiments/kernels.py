#!/usr/bin/python3
"""Experiment 1, exchange kernels at scale (Kang et al., seeds/000, Fig. 4
and 5): an E3SM-like all-to-many write on the Cori-like dragonfly, 64 ranks
per node, one aggregator per node (ranks 64*i, ROMIO's placement), every
kernel; metadata and data exchange times of the slowest rank (simulated
seconds), then a throttle sweep of the balanced spread-out kernel.

    sim/experiments/kernels.py [--ranks 1024,4096] [--throttle-ranks 1024]
                               [--kernels romio,issend,...] [--smoke]

--smoke: 64 ranks on cori-small, two kernels, no sweep, no files written
(the CI smoke test, sim/CMakeLists.txt). Writes docs/data/sim/kernels.json
and docs/img/sim-kernels.png, docs/img/sim-throttle.png."""
import argparse
import json
import sys

import common

KERNELS = ["romio", "issend", "spread", "balanced", "pairwise", "tam", "auto"]
THROTTLES = [4, 8, 16, 32, 64, 128, 256, 512]
# E3SM-like synthetic decomposition (16 MiB, ~458,000 pieces of 1-8 doubles
# on random ranks); 256 KiB collective buffers give 4 rounds at 1,024 ranks.
WORKLOAD = ["--workload", "e3sm", "--size", "small", "--op", "write", "--repeat", "1", "--warmup", "0"]
BASE_HINTS = "cb_buffer_size=262144"


def one(machine, ranks, hints, network_only):
    runs, wall, rss, cmd = common.bench(machine, ranks, WORKLOAD + ["--engine", "colio"], hints, network_only=network_only)
    r = runs[0]
    if r["error"]:
        sys.exit(f"colio-bench failed: {r['error']}")
    return {"ranks": ranks, "hints": hints, "time_s": r["median_s"], "meta_s": r["phases"]["meta_exchange"],
            "data_s": r["phases"]["data_exchange"], "kernels": r["kernels"], "messages": r["messages"],
            "wall_s": round(wall, 1), "rss_mib": round(rss), "command": cmd}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ranks", default="1024,4096")
    ap.add_argument("--throttle-ranks", type=int, default=1024)
    ap.add_argument("--kernels", default=",".join(KERNELS))
    ap.add_argument("--machine", default="cori")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--out", default="kernels", help="result name (docs/data/sim/NAME.json)")
    common.add_network_only_option(ap)
    ap.add_argument("--merge", help="comma-separated earlier result files (same workload): keep their runs and add "
                                    "to them (--ranks '' only merges, tabulates and plots)")
    a = ap.parse_args()
    if a.smoke:
        a.ranks, a.kernels, a.machine, a.throttle_ranks = "64", "issend,tam", "cori-small", 0
    results = {"experiment": "kernels", "machine": a.machine, "workload": " ".join(WORKLOAD), "runs": [],
               "throttle": []}
    for path in a.merge.split(",") if a.merge else []:
        with open(path) as f:
            earlier = json.load(f)
        results["runs"] += earlier["runs"]
        results["throttle"] += earlier["throttle"]
        a.throttle_ranks = a.throttle_ranks if not earlier["throttle"] else 0
    for ranks in [int(r) for r in a.ranks.split(",") if r]:
        aggs = ranks // common.platform_cores(a.machine)
        for k in a.kernels.split(","):
            hints = f"{BASE_HINTS};cb_nodes={aggs};colio_exchange={k}"
            common.log(f"{ranks} ranks, {k}")
            r = one(a.machine, ranks, hints, a.network_only)
            r["kernel"] = k
            results["runs"].append(r)
            if not a.smoke:
                common.save(a.out, results)  # after every run: a long experiment keeps what it measured
            common.log(f"  meta {r['meta_s']:.4f} s data {r['data_s']:.4f} s total {r['time_s']:.4f} s "
                       f"(wall {r['wall_s']} s)")
    if a.throttle_ranks:
        aggs = a.throttle_ranks // common.platform_cores(a.machine)
        for t in THROTTLES:
            hints = f"{BASE_HINTS};cb_nodes={aggs};colio_exchange=balanced;colio_throttle={t}"
            common.log(f"throttle {t}")
            r = one(a.machine, a.throttle_ranks, hints, a.network_only)
            r["throttle"] = t
            results["throttle"].append(r)
            common.save(a.out, results)
    if a.smoke:
        for r in results["runs"]:
            print(f"{r['kernel']:9s} {r['ranks']:6d} meta {r['meta_s']:.4f} data {r['data_s']:.4f}")
        return
    common.save(a.out, results)
    rows = [(r["ranks"], r["kernel"], r["kernels"], f"{r['meta_s']:.4f}", f"{r['data_s']:.4f}", f"{r['time_s']:.4f}",
             r["messages"], r["wall_s"]) for r in results["runs"]]
    print(common.table(["ranks", "kernel", "ran (meta/data)", "meta s", "data s", "call s", "messages", "wall s"], rows))
    if results["throttle"]:
        print(common.table(["throttle", "meta s", "data s", "call s"],
                           [(r["throttle"], f"{r['meta_s']:.4f}", f"{r['data_s']:.4f}", f"{r['time_s']:.4f}")
                            for r in results["throttle"]]))

    def draw_kernels(plt):
        scales = sorted({r["ranks"] for r in results["runs"]})
        ks = [k for k in KERNELS if any(r["kernel"] == k for r in results["runs"])]
        width = 0.8 / len(scales)
        for i, s in enumerate(scales):
            rs = {r["kernel"]: r for r in results["runs"] if r["ranks"] == s}
            xs = [j + i * width for j in range(len(ks))]
            plt.bar(xs, [rs[k]["meta_s"] for k in ks], width, label=f"{s} ranks: metadata")
            plt.bar(xs, [rs[k]["data_s"] for k in ks], width, bottom=[rs[k]["meta_s"] for k in ks],
                    label=f"{s} ranks: data", alpha=0.6)
        plt.xticks([j + width * (len(scales) - 1) / 2 for j in range(len(ks))], ks)
        plt.ylabel("exchange time, slowest rank (simulated s)")
        plt.title(f"E3SM-like write on {a.machine} (SMPI), aggregators at ranks 64*i")
        plt.legend(fontsize=7)

    common.plot(f"sim-{a.out}", draw_kernels)
    if results["throttle"]:
        def draw_throttle(plt):
            ts = [r["throttle"] for r in results["throttle"]]
            plt.plot(ts, [r["meta_s"] for r in results["throttle"]], "o-", label="metadata exchange")
            plt.plot(ts, [r["data_s"] for r in results["throttle"]], "s-", label="data exchange")
            plt.xscale("log", base=2)
            plt.xlabel("colio_throttle (requests in flight per rank)")
            plt.ylabel("simulated s (slowest rank)")
            plt.title(f"balanced spread-out, {results['throttle'][0]['ranks']} ranks on {a.machine}")
            plt.legend()

        common.plot("sim-throttle", draw_throttle)


if __name__ == "__main__":
    main()
