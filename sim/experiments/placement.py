#!/usr/bin/python3
"""Experiment 2, aggregator placement (TAPIOCA, seeds/003, Table 2): the
random micro-benchmark (each rank one contiguous chunk of 0-2 MiB) written
on the Mira-like 5D torus, 16 ranks per node, 4 aggregators per 128-node
pset, 16 MiB collective buffers, to the I/O nodes' "null device" (colio's
null backend with colio_null_route=sim/platforms/MACHINE.storage: each
aggregator's writes cross the simulated torus to its bridge node, then cost
the bridge-to-I/O-node link's time, and are dropped). Strategies: topology (C1 + C2), shortest,
longest, greedy, and romio for reference. Time per round = call time /
rounds (the slowest aggregator's rounds).

    sim/experiments/placement.py [--machine mira] [--ranks 8192] [--per-node 16] [--seeds 1,2,3]

Writes docs/results/sim/placement.json and docs/img/sim-placement.png."""
import argparse

import common

STRATEGIES = ["topology", "shortest", "longest", "greedy", "romio"]
TAPIOCA_TABLE2 = {"topology": (2638.40, 310.46), "shortest": (2484.39, 327.08), "longest": (2202.91, 370.40),
                  "greedy": (1927.45, 421.33)}  # MBps, ms per round (8,192 ranks on Mira)
BUFFER = 16 << 20
IO_BANDWIDTH = 1800000000  # each aggregator's storage call at the bridge-to-I/O-node link speed (TAPIOCA sec. 5.1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--machine", default="mira")
    ap.add_argument("--ranks", type=int, default=8192)
    ap.add_argument("--seeds", default="1,2,3", help="random sizes: one run per seed, medians reported")
    ap.add_argument("--out", default="placement")
    ap.add_argument("--per-node", type=int, help="ranks per node (default: the platform's cores, 16 on Mira): fewer "
                                                 "ranks spread the job over more nodes and psets at less cost")
    common.add_network_only_option(ap)
    ap.add_argument("--size", default="medium", help="random: small (0-256 KiB per rank) or medium (0-2 MiB, TAPIOCA's)")
    a = ap.parse_args()
    per_node = a.per_node or common.platform_cores(a.machine)
    nodes = a.ranks // per_node
    psets = max(1, nodes // 128)
    aggs = 4 * psets
    topo = common.topology(a.machine)
    storage = common.storage_route(a.machine)
    route = f";colio_null_route={storage}" if storage else ""
    results = {"experiment": "placement", "machine": a.machine, "ranks": a.ranks, "per_node": per_node,
               "aggregators": aggs, "size": a.size,
               "topology": topo, "runs": []}
    for strategy in STRATEGIES:
        for seed in a.seeds.split(","):
            # two-phase forced: one contiguous chunk per rank would otherwise go direct (no aggregators to place);
            # sparse counts: O(aggregators) words a rank, not the dense alltoall's p (SCALE.md, "What holds the memory")
            hints = (f"romio_cb_write=enable;cb_nodes={aggs};cb_buffer_size={BUFFER};colio_placement={strategy};"
                     f"colio_counts=sparse;"
                     f"colio_place_metrics=enable;"
                     f"colio_topology={topo};colio_exchange=issend;colio_null_bandwidth={IO_BANDWIDTH}{route}")
            common.log(f"{strategy} seed {seed}")
            runs, wall, rss, cmd = common.bench(a.machine, a.ranks, ["--workload", "random", "--size", a.size,
                                                                    "--engine", "colio", "--op", "write",
                                                                    "--repeat", "1", "--warmup", "0",
                                                                    "--seed", seed], hints, per_node=per_node,
                                                network_only=a.network_only)
            r = runs[0]
            if r["error"]:
                raise SystemExit(f"colio-bench failed: {r['error']}")
            results["runs"].append({"strategy": strategy, "seed": int(seed), "time_s": r["median_s"],
                                    "bytes": r["bytes"], "data_s": r["phases"]["data_exchange"],
                                    "io_s": r["phases"]["io"], "hop_bytes": r["hop_bytes"],
                                    "max_link_bytes": r["max_link_bytes"], "placement": r["placement"],
                                    "wall_s": round(wall, 1), "rss_mib": round(rss), "command": cmd})
            common.log(f"  {r['median_s']:.4f} s, {r['bytes'] / r['median_s'] / 1e6:.0f} MB/s (wall {wall:.0f} s)")
    common.save(a.out, results)

    def median(v):
        v = sorted(v)
        return v[len(v) // 2]

    rows, summary = [], {}
    for s in STRATEGIES:
        rs = [r for r in results["runs"] if r["strategy"] == s]
        t = median([r["time_s"] for r in rs])
        mbps = median([r["bytes"] / r["time_s"] / 1e6 for r in rs])
        rounds = max(1, -(-median([r["bytes"] for r in rs]) // (aggs * BUFFER)))
        paper = TAPIOCA_TABLE2.get(s)
        summary[s] = mbps
        rows.append((s, f"{mbps:.0f}", f"{t / rounds * 1e3:.1f}", f"{median([r['hop_bytes'] for r in rs]):.3g}",
                     f"{paper[0]:.0f}" if paper else "-", f"{paper[1]:.1f}" if paper else "-"))
    print(common.table(["strategy", "colio MB/s", "colio ms/round", "hop-bytes", "TAPIOCA MBps", "TAPIOCA ms/round"],
                       rows))

    sizes = {"small": "0-256 KiB", "medium": "0-2 MiB"}
    draw = common.bar_pair(STRATEGIES, [summary[s] for s in STRATEGIES],
                           [TAPIOCA_TABLE2.get(s, (0, 0))[0] for s in STRATEGIES],
                           ("colio (SMPI, simulated)", "TAPIOCA Table 2 (Mira)"), "MB/s",
                           f"random {sizes.get(a.size, a.size)} per rank, {a.ranks} ranks, {aggs} aggregators, {a.machine}")
    common.plot(f"sim-{a.out}", draw)


if __name__ == "__main__":
    main()
