#!/usr/bin/python3
"""Experiment 3, topology-aware two-phase I/O (TATP, seeds/001, Fig. 9): the
cube (512 ranks) and BTIO (625 ranks) patterns written on the TATP-like
two-level tree (4 racks of 20 nodes, 12 ranks per node) with the job's nodes
scattered over the machine, file domains given to aggregators by ROMIO's
rule (colio_placement=romio) or by linear assignment on hop-bytes
(colio_placement=lap); hop-bytes from colio's network model (the same tree,
sim/platforms/tatp.topology) and the simulated time of the call.

    sim/experiments/tatp.py [--seeds 1,2] [--size small]

Writes docs/results/sim/tatp.json and docs/img/sim-tatp.png."""
import argparse

import common

CASES = [("cube", 512), ("btio", 625)]
PLACEMENTS = ["romio", "lap"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", default="1", help="allocations: scattered:SEED, one run each")
    ap.add_argument("--size", default="small")
    ap.add_argument("--out", default="tatp")
    common.add_network_only_option(ap)
    a = ap.parse_args()
    topo = common.topology("tatp")
    results = {"experiment": "tatp", "machine": "tatp", "topology": topo, "runs": []}
    for workload, ranks in CASES:
        for seed in a.seeds.split(","):
            for placement in PLACEMENTS:
                hints = f"colio_placement={placement};colio_topology={topo};colio_place_metrics=enable"
                common.log(f"{workload} {ranks} ranks, allocation scattered:{seed}, {placement}")
                runs, wall, rss, cmd = common.bench("tatp", ranks, ["--workload", workload, "--size", a.size,
                                                                   "--engine", "colio", "--op", "write",
                                                                   "--repeat", "1", "--warmup", "0"], hints,
                                                    alloc=f"scattered:{seed}", network_only=a.network_only)
                r = runs[0]
                if r["error"]:
                    raise SystemExit(f"colio-bench failed: {r['error']}")
                results["runs"].append({"workload": workload, "ranks": ranks, "seed": int(seed),
                                        "placement": placement, "time_s": r["median_s"],
                                        "data_s": r["phases"]["data_exchange"], "hop_bytes": r["hop_bytes"],
                                        "max_link_bytes": r["max_link_bytes"], "wall_s": round(wall, 1),
                                        "rss_mib": round(rss), "command": cmd})
                common.log(f"  {r['median_s']:.4f} s, hop-bytes {r['hop_bytes']:.3g}")
                common.save(a.out, results)
    rows = []
    for workload, ranks in CASES:
        for seed in a.seeds.split(","):
            rs = {r["placement"]: r for r in results["runs"] if r["workload"] == workload and r["seed"] == int(seed)}
            base, lap = rs["romio"], rs["lap"]
            rows.append((workload, ranks, seed, f"{base['hop_bytes']:.3g}", f"{lap['hop_bytes']:.3g}",
                         f"{100 * (1 - lap['hop_bytes'] / base['hop_bytes']):.0f}%" if base["hop_bytes"] else "-",
                         f"{base['data_s']:.4f}", f"{lap['data_s']:.4f}", f"{base['time_s']:.4f}",
                         f"{lap['time_s']:.4f}"))
    print(common.table(["workload", "ranks", "alloc seed", "hop-bytes romio", "hop-bytes lap", "hop-bytes saved",
                        "data s romio", "data s lap", "call s romio", "call s lap"], rows))

    def draw(plt):
        labels = [f"{w} {n}" for w, n in CASES]
        for i, p in enumerate(PLACEMENTS):
            vals = [sum(r["hop_bytes"] for r in results["runs"] if r["workload"] == w and r["placement"] == p)
                    for w, _ in CASES]
            plt.bar([x + 0.4 * i for x in range(len(CASES))], vals, 0.4, label=p)
        plt.xticks([x + 0.2 for x in range(len(CASES))], labels)
        plt.ylabel("hop-bytes (colio's model of the tree)")
        plt.title("TATP-like tree, scattered nodes: ROMIO's domains vs linear assignment")
        plt.legend()

    common.plot(f"sim-{a.out}", draw)


if __name__ == "__main__":
    main()
