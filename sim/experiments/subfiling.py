#!/usr/bin/python3
"""Experiment 5, subfiling (TAPIOCA, seeds/003, Sec. 5.4.2 and Fig. 7: one
file per Pset against one shared file). On the Mira-like torus (512 nodes,
4 psets of 128 with 2 bridge nodes each), the random
micro-benchmark (and HACC-IO), one rank per node on 256 nodes (2 psets, 4
bridges: the job's 4 storage targets), written through colio to the null backend,
whose colio_null_route puts each file on one storage host: the shared file
on one bridge node, subfile K on the K-th bridge (route lines
"file B" and "sub:K B", docs/SUBFILING.md). Every access crosses the
simulated torus into its file's host, so the flows of a shared file all
share that host's links, while N subfiles spread over N hosts; each access
then costs the bridge-to-I/O-node link's time. The same aggregator count
(cb_nodes) in every run; subfiled runs take them within each subfile's
group of nodes.

    sim/experiments/subfiling.py [--machine mira] [--ranks 256] [--per-node 1] [--subfiles 0,2,4]

(Simulation cost grows fast with the job: one configuration takes 3 s of
wall time at 128 ranks, 61 s at 256, more than 6 minutes at 512.)

Writes docs/results/sim/subfiling.json and docs/img/sim-subfiling.png."""
import argparse
import os
import tempfile

import common

BUFFER = 16 << 20
IO_BANDWIDTH = 1800000000  # per storage access, the bridge-to-I/O-node link (TAPIOCA sec. 5.1)


def targets(machine):
    """The machine's distinct bridge nodes (its storage targets), in node order."""
    path = common.storage_route(machine)
    if path is None:
        raise SystemExit(f"{machine}: no storage route (sim/platforms/{machine}.storage)")
    with open(path) as f:
        hosts = sorted({line.split()[1] for line in f if line.strip()}, key=lambda h: int(h.split("-")[1]))
    return hosts


def route_file(tmp, hosts, nsub):
    """colio_null_route for a shared file (nsub 0: all on the first bridge) or nsub subfiles (K on bridge K)."""
    path = os.path.join(tmp, f"route-{nsub}")
    with open(path, "w") as f:
        f.write(f"file {hosts[0]}\n")
        for k in range(nsub):
            f.write(f"sub:{k} {hosts[k % len(hosts)]}\n")
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--machine", default="mira")
    ap.add_argument("--ranks", type=int, default=256)
    ap.add_argument("--per-node", type=int, default=1, help="ranks per node (1: the job spans every pset)")
    ap.add_argument("--subfiles", default="0,2,4", help="0 = one shared file")
    ap.add_argument("--aggregators", type=int, default=16)
    ap.add_argument("--workloads", default="random,hacc")
    ap.add_argument("--size", default="small")
    ap.add_argument("--out", default="subfiling")
    common.add_network_only_option(ap)
    a = ap.parse_args()
    hosts = targets(a.machine)
    topo = common.topology(a.machine)
    results = {"experiment": "subfiling", "machine": a.machine, "ranks": a.ranks, "per_node": a.per_node,
               "aggregators": a.aggregators, "size": a.size, "targets": hosts, "topology": topo, "runs": []}
    counts = [int(n) for n in a.subfiles.split(",")]
    with tempfile.TemporaryDirectory(prefix="colio-sim-route-") as tmp:
        for workload in a.workloads.split(","):
            for nsub in counts:
                sub = f";colio_subfiles={nsub}" if nsub else ""
                hints = (f"cb_nodes={a.aggregators};cb_buffer_size={BUFFER};colio_topology={topo};"
                         f"colio_null_bandwidth={IO_BANDWIDTH};colio_null_route={route_file(tmp, hosts, nsub)}{sub}")
                common.log(f"{workload}, {nsub or 'shared'}")
                runs, wall, rss, cmd = common.bench(a.machine, a.ranks, ["--workload", workload, "--size", a.size,
                                                                        "--engine", "colio", "--op", "write",
                                                                        "--repeat", "1", "--warmup", "0"],
                                                    hints, per_node=a.per_node, network_only=a.network_only)
                r = runs[0]
                if r["error"]:
                    raise SystemExit(f"colio-bench failed: {r['error']}")
                mbps = r["bytes"] / r["median_s"] / 1e6
                results["runs"].append({"workload": workload, "subfiles": nsub, "time_s": r["median_s"],
                                        "bytes": r["bytes"], "mbps": mbps, "data_s": r["phases"]["data_exchange"],
                                        "io_s": r["phases"]["io"], "wall_s": round(wall, 1),
                                        "rss_mib": round(rss), "command": cmd})
                common.log(f"  {r['median_s']:.4f} s, {mbps:.0f} MB/s, io {r['phases']['io']:.4f} s (wall {wall:.0f} s)")
    common.save(a.out, results)

    rows = []
    for r in results["runs"]:
        shared = next(x for x in results["runs"] if x["workload"] == r["workload"] and x["subfiles"] == 0) \
            if 0 in counts else r
        rows.append((r["workload"], r["subfiles"] or "shared", f"{r['bytes'] / 2**20:.0f}", f"{r['time_s'] * 1e3:.1f}",
                     f"{r['mbps']:.0f}", f"{r['io_s'] * 1e3:.1f}", f"{r['mbps'] / shared['mbps']:.2f}"))
    print(common.table(["workload", "subfiles", "MiB", "call ms", "MB/s", "io ms (slowest rank)", "x shared"], rows))

    labels = [str(n or "shared") for n in counts]
    wls = a.workloads.split(",")

    def series(w):
        return [next(r["mbps"] for r in results["runs"] if r["workload"] == w and r["subfiles"] == n) for n in counts]
    draw = common.bar_pair(labels, series(wls[0]), series(wls[-1]) if len(wls) > 1 else [0] * len(counts),
                           (wls[0], wls[-1] if len(wls) > 1 else ""), "MB/s (simulated)",
                           f"one shared file vs N subfiles, {a.ranks} ranks on {a.machine}, {len(hosts)} storage targets")
    common.plot(f"sim-{a.out}", draw)


if __name__ == "__main__":
    main()
