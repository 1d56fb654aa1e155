#!/usr/bin/python3
"""Experiment 1, exchange kernels at scale (Kang et al., seeds/000, Fig. 4
and 5): an all-to-many write (E3SM-like, or 64-byte blocks interleaved
round-robin) on a simulated machine (the Cori-like dragonfly by default, or
the Summit-like fat-tree), ranks packed on nodes (64 per Cori node, 42 per
Summit node), one aggregator per node (ROMIO's placement), every kernel
and colio_exchange=auto; metadata and data exchange times of the slowest
rank (simulated seconds), then a throttle sweep of the balanced spread-out
kernel.

    sim/experiments/kernels.py [--machine cori|summit] [--workload e3sm,interleaved]
                               [--ranks 256,1024,4096] [--kernels romio,issend,...,tam@512,auto]
                               [--throttle-ranks 1024] [--repeat 1] [--sims 3] [--cfg=--cfg=KEY:VALUE ...]
                               [--out NAME] [--merge A.json,B.json] [--smoke]

Kernel names are colio_exchange values; META/DATA runs two (the metadata
exchange's and the data exchange's, e.g. balanced/romio, Kang et al.'s
"hybrid"); tam@SPEC also sets colio_local_aggregators=SPEC (tam@512: 512
local aggregators in all, Kang et al.'s setting; tam@*:8: 8 per node;
tam@half: half the ranks). --sims N (default 3) runs each cell N times,
one simulation after another (common.smpirun never lets two overlap), and
reports the median call time with its CoV across them. Collective buffering is forced (romio_cb_write=enable): with
the null backend colio's cost model would otherwise write these patterns
directly and skip the exchange being measured. --repeat N times N calls in
one simulation (the median is reported, the minimum kept); --together
runs all kernels of a cell in one simulation, one after another (one
start-up for all; auto: colio-bench's plain colio engine). --cfg passes
simulator options (e.g. --cfg=--cfg=smpi/privatization:mmap). A run the
memory guard stops (common.MEM_LIMIT_GIB) is kept with its wall time and
memory so far. --smoke: 64 ranks on cori-small, two kernels, no sweep, no
files written (the CI smoke test, sim/CMakeLists.txt). Writes
docs/results/sim/NAME.json (COLIO_SIM_RESULTS moves it) and
docs/img/sim-NAME.png, docs/img/sim-throttle.png."""
import argparse
import json
import sys

import common

KERNELS = ["romio", "issend", "spread", "balanced", "pairwise", "tam", "auto"]
THROTTLES = [4, 8, 16, 32, 64, 128, 256, 512]
# E3SM-like synthetic decomposition (16 MiB, ~460,000 pieces of 1-8 doubles
# on random ranks); interleaved: 8 MiB of 64-byte blocks dealt round-robin.
# 256 KiB collective buffers give 4 rounds at 1,024 ranks on Cori.
WORKLOADS = {"e3sm": ["--workload", "e3sm", "--size", "small"],
             "interleaved": ["--workload", "interleaved", "--size", "small", "--block", "64"],
             # the CI smoke test's: 8 MiB in 4 KiB blocks (2,048 pieces), every exchange step run in about a second
             "smoke": ["--workload", "interleaved", "--size", "small", "--block", "4096"]}
BASE_HINTS = "romio_cb_write=enable;cb_buffer_size=262144"


def kernel_hints(spec, ranks):
    """colio hints of a kernel spec: NAME, META/DATA (two kernels: colio_meta_exchange, colio_exchange), each
    maybe with @LOCAL_AGGREGATORS for tam (half: ranks / 2)."""
    name, _, las = spec.partition("@")
    meta, _, data = name.rpartition("/")
    hints = f"colio_meta_exchange={meta};colio_exchange={data}" if meta else f"colio_exchange={name}"
    if las:
        hints += f";colio_local_aggregators={ranks // 2 if las == 'half' else las}"
    return hints


def engine(spec, ranks):
    """colio-bench's engine name for a kernel spec (auto: plain colio; the others as colio:key=value+...)."""
    if spec == "auto":
        return "colio"
    h = kernel_hints(spec, ranks)
    if "colio_meta_exchange" not in h:
        h += ";colio_meta_exchange=" + h.split("colio_exchange=")[1].split(";")[0]
    return "colio:" + h.replace(";", "+")


def simulated(a, ranks, args, hints):
    """a.sims simulations of one command: their runs (colio-bench's, one list per simulation), the last wall
    time and the largest memory peak, the command; SimStopped as the first stopped one raised it."""
    sims, wall, rss, cmd = [], 0.0, 0.0, ""
    for _ in range(a.sims):
        runs, wall, r, cmd = common.bench(a.machine, ranks, args, hints, network_only=a.network_only,
                                          timeout=a.timeout, extra_cfg=a.cfg)
        for run in runs:
            if run["error"]:
                sys.exit(f"colio-bench failed: {run['error']}")
        sims.append(runs)
        rss = max(rss, r)
    return sims, wall, rss, cmd


def measured(sims, i):
    """Engine i's figures over the simulations: medians of the call, metadata and data times, the call's CoV
    across simulations and every simulation's call time."""
    calls = [runs[i]["median_s"] for runs in sims]
    time_s, cov = common.median_cov(calls)
    r = sims[-1][i]
    return {"time_s": time_s, "cov": round(cov, 4), "sims_s": calls, "min_s": min(runs[i]["min_s"] for runs in sims),
            "meta_s": common.median_cov([runs[i]["phases"]["meta_exchange"] for runs in sims])[0],
            "data_s": common.median_cov([runs[i]["phases"]["data_exchange"] for runs in sims])[0],
            "kernels": r["kernels"], "messages": r["messages"]}


def together(a, workload, ranks, aggs, specs, hints):
    """Every kernel of specs in one simulation (colio-bench runs them one after another, --repeat calls each):
    one start-up for all."""
    args = WORKLOADS[workload] + ["--op", "write", "--repeat", str(a.repeat), "--warmup", "0",
                                  "--engine", ",".join(engine(k, ranks) for k in specs)]
    base = {"machine": a.machine, "workload": workload, "ranks": ranks, "aggs": aggs, "hints": hints, "cfg": a.cfg,
            "network_only": a.network_only, "repeat": a.repeat, "sims": a.sims, "together": ",".join(specs)}
    try:
        sims, wall, rss, cmd = simulated(a, ranks, args, hints)
    except common.SimStopped as e:
        return [{**base, "kernel": k, "stopped": str(e).split(":")[1].strip(), "wall_s": round(e.wall_s, 1),
                 "rss_mib": round(e.rss_mib), "command": e.cmd} for k in specs]
    return [{**base, "kernel": k, "hints": hints + ";" + kernel_hints(k, ranks) if k != "auto" else hints,
             **measured(sims, i), "wall_s": round(wall, 1), "rss_mib": round(rss), "command": cmd}
            for i, k in enumerate(specs)]


def one(a, workload, ranks, aggs, spec, hints):
    args = WORKLOADS[workload] + ["--op", "write", "--repeat", str(a.repeat), "--warmup", "0", "--engine", "colio"]
    base = {"machine": a.machine, "workload": workload, "ranks": ranks, "aggs": aggs, "kernel": spec, "hints": hints,
            "cfg": a.cfg, "network_only": a.network_only, "repeat": a.repeat, "sims": a.sims}
    try:
        sims, wall, rss, cmd = simulated(a, ranks, args, hints)
    except common.SimStopped as e:
        return {**base, "stopped": str(e).split(":")[1].strip() if ":" in str(e) else str(e),
                "wall_s": round(e.wall_s, 1), "rss_mib": round(e.rss_mib), "command": e.cmd}
    return {**base, **measured(sims, 0), "wall_s": round(wall, 1), "rss_mib": round(rss), "command": cmd}


def cells(runs):
    """Runs grouped by (machine, workload, ranks, aggregators), each a dict kernel -> run (the last run of a
    kernel wins)."""
    out = {}
    for r in runs:
        aggs = r.get("aggs") or int(r["hints"].split("cb_nodes=")[1].split(";")[0])
        key = (r.get("machine", "cori"), r.get("workload", "e3sm"), r["ranks"], aggs)
        out.setdefault(key, {})[r["kernel"]] = r
    return out


def best_table(runs):
    """One row per cell: every kernel's call time, the best fixed kernel, auto's choice and time."""
    rows = []
    for (machine, workload, ranks, aggs), ks in sorted(cells(runs).items()):
        fixed = {k: r for k, r in ks.items() if k != "auto" and "time_s" in r}
        best = min(fixed, key=lambda k: fixed[k]["time_s"]) if fixed else None
        au = ks.get("auto")
        row = [machine, workload, ranks, aggs]
        row += [f"{ks[k]['time_s']:.4f}" if k in ks and "time_s" in ks[k] else ("stopped" if k in ks else "-")
                for k in ordered_kernels(runs) if k != "auto"]
        row += [f"{best} {fixed[best]['time_s']:.4f}{cov_of(fixed[best])}" if best else "-"]
        if au and "time_s" in au:
            ratio = au["time_s"] / fixed[best]["time_s"] if best else 0
            row += [au["kernels"], f"{au['time_s']:.4f}{cov_of(au)}", f"{ratio:.2f}"]
        else:
            row += ["-", "-", "-"]
        rows.append(row)
    heads = ["machine", "workload", "ranks", "aggregators"] + [k for k in ordered_kernels(runs) if k != "auto"]
    return common.table(heads + ["best", "auto ran (meta/data)", "auto s", "auto / best"], rows)


def cov_of(r):
    """ (CoV x%) for a run of several simulations, else nothing (runs of one simulation have none)."""
    return f" (CoV {r['cov'] * 100:.1f}%)" if r.get("sims", 1) > 1 and "cov" in r else ""


def ordered_kernels(runs):
    seen = [r["kernel"] for r in runs]
    return [k for k in KERNELS if k in seen] + sorted({k for k in seen if k not in KERNELS})


def smoke():
    """CI: issend and tam side by side in one simulation of 64 ranks on one cori-small node (one start-up)."""
    args = WORKLOADS["smoke"] + ["--op", "write", "--repeat", "1", "--warmup", "0", "--engine", "colio:issend,colio:tam"]
    runs, _, _, _ = common.bench("cori-small", 64, args, f"{BASE_HINTS};cb_nodes=1", network_only=True)
    for r in runs:
        if r["error"]:
            sys.exit(f"colio-bench failed: {r['error']}")
        print(f"{r['engine'].split(':')[1]:9s} {r['nprocs']:6d} meta {r['phases']['meta_exchange']:.4f} "
              f"data {r['phases']['data_exchange']:.4f} ran {r['kernels']}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ranks", default="1024,4096")
    ap.add_argument("--throttle-ranks", type=int, default=0)
    ap.add_argument("--kernels", default=",".join(KERNELS))
    ap.add_argument("--machine", default="cori")
    ap.add_argument("--workload", default="e3sm", help="e3sm, interleaved or both, comma-separated")
    ap.add_argument("--repeat", type=int, default=1, help="timed calls per simulation (median reported)")
    ap.add_argument("--sims", type=int, default=3,
                    help="simulations of each cell (median reported with its CoV across them; at least 1)")
    ap.add_argument("--aggs", type=int, help="cb_nodes (default: one aggregator per node)")
    ap.add_argument("--together", action="store_true",
                    help="run the kernels of a cell in one simulation (one start-up for all)")
    ap.add_argument("--timeout", type=int, help="stop a run after this many seconds of wall time (kept as stopped)")
    ap.add_argument("--cfg", action="append", default=[], help="simulator option passed to smpirun (repeatable)")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--out", default="kernels", help="result name (docs/results/sim/NAME.json)")
    common.add_network_only_option(ap)
    ap.add_argument("--merge", help="comma-separated earlier result files: keep their runs and add to them "
                                    "(--ranks '' only merges, tabulates and plots)")
    a = ap.parse_args()
    if a.sims < 1:
        ap.error("--sims must be at least 1")
    if a.smoke:
        return smoke()
    results = {"experiment": "kernels", "machine": a.machine, "base_hints": BASE_HINTS,
               "workloads": {w: " ".join(WORKLOADS[w]) for w in a.workload.split(",")}, "runs": [], "throttle": []}
    for path in a.merge.split(",") if a.merge else []:
        with open(path) as f:
            earlier = json.load(f)
        results["runs"] += earlier["runs"]
        results["throttle"] += earlier.get("throttle", [])
    for workload in a.workload.split(","):
        for ranks in [int(r) for r in a.ranks.split(",") if r]:
            aggs = a.aggs or max(1, ranks // common.platform_cores(a.machine))
            if a.together:
                common.log(f"{a.machine} {workload} {ranks} ranks, together: {a.kernels}")
                rs = together(a, workload, ranks, aggs, a.kernels.split(","), f"{BASE_HINTS};cb_nodes={aggs}")
                results["runs"] += rs
                common.save(a.out, results)
                for r in rs:
                    common.log(f"  {r['kernel']}: " + (f"{r['kernels']} meta {r['meta_s']:.4f} data {r['data_s']:.4f} "
                                                        f"call {r['time_s']:.4f} (min {r['min_s']:.4f})"
                                                        if "time_s" in r else "stopped " + r["stopped"]))
                common.log(f"  wall {rs[0]['wall_s']} s, {rs[0]['rss_mib']} MiB")
                continue
            for k in a.kernels.split(","):
                hints = f"{BASE_HINTS};cb_nodes={aggs};{kernel_hints(k, ranks)}"
                common.log(f"{a.machine} {workload} {ranks} ranks, {k}")
                r = one(a, workload, ranks, aggs, k, hints)
                results["runs"].append(r)
                common.save(a.out, results)  # after every run: a long experiment keeps what it measured
                if "stopped" in r:
                    common.log(f"  stopped ({r['stopped']}) after {r['wall_s']} s, {r['rss_mib']} MiB")
                else:
                    common.log(f"  {r['kernels']} meta {r['meta_s']:.4f} s data {r['data_s']:.4f} s total "
                               f"{r['time_s']:.4f} s (wall {r['wall_s']} s, {r['rss_mib']} MiB)")
    if a.throttle_ranks:
        aggs = a.throttle_ranks // common.platform_cores(a.machine)
        workload = a.workload.split(",")[0]
        for t in THROTTLES:
            hints = f"{BASE_HINTS};cb_nodes={aggs};colio_exchange=balanced;colio_throttle={t}"
            common.log(f"throttle {t}")
            r = one(a, workload, a.throttle_ranks, aggs, "balanced", hints)
            r["throttle"] = t
            results["throttle"].append(r)
            common.save(a.out, results)
    common.save(a.out, results)
    rows = [(r.get("machine", a.machine), r.get("workload", "e3sm"), r["ranks"], r["kernel"],
             r.get("kernels", "-"), f"{r['meta_s']:.4f}" if "meta_s" in r else "-",
             f"{r['data_s']:.4f}" if "data_s" in r else "-",
             f"{r['time_s']:.4f}" if "time_s" in r else "stopped: " + r.get("stopped", "?"),
             f"{r['cov'] * 100:.1f}% of {r['sims']}" if "cov" in r and "sims" in r else "-",
             r.get("messages", "-"), r["wall_s"], r["rss_mib"]) for r in results["runs"]]
    print(common.table(["machine", "workload", "ranks", "kernel", "ran (meta/data)", "meta s", "data s", "call s",
                        "CoV", "messages", "wall s", "peak MiB"], rows))
    print()
    print(best_table(results["runs"]))
    if results["throttle"]:
        print(common.table(["throttle", "meta s", "data s", "call s"],
                           [(r["throttle"], f"{r['meta_s']:.4f}", f"{r['data_s']:.4f}", f"{r['time_s']:.4f}")
                            for r in results["throttle"] if "time_s" in r]))

    def draw_kernels(plt):
        done = [r for r in results["runs"] if "time_s" in r]
        groups = sorted({(r.get("machine", "cori"), r.get("workload", "e3sm"), r["ranks"]) for r in done})
        ks = ordered_kernels(done)
        width = 0.8 / max(1, len(groups))
        for i, g in enumerate(groups):
            rs = {r["kernel"]: r for r in done if (r.get("machine", "cori"), r.get("workload", "e3sm"), r["ranks"]) == g}
            xs = [j + i * width for j in range(len(ks))]
            plt.bar(xs, [rs[k]["time_s"] if k in rs else 0 for k in ks], width, label=f"{g[0]} {g[1]} {g[2]}")
        plt.xticks([j + width * (len(groups) - 1) / 2 for j in range(len(ks))], ks, fontsize=7)
        plt.ylabel("collective write call, slowest rank (simulated s)")
        plt.yscale("log")
        plt.title("exchange kernels under SMPI, one aggregator per node")
        plt.legend(fontsize=6, ncol=2)

    common.plot(f"sim-{a.out}", draw_kernels)
    if results["throttle"]:
        def draw_throttle(plt):
            done = [r for r in results["throttle"] if "time_s" in r]
            ts = [r["throttle"] for r in done]
            plt.plot(ts, [r["meta_s"] for r in done], "o-", label="metadata exchange")
            plt.plot(ts, [r["data_s"] for r in done], "s-", label="data exchange")
            plt.xscale("log", base=2)
            plt.xlabel("colio_throttle (requests in flight per rank)")
            plt.ylabel("simulated s (slowest rank)")
            plt.title(f"balanced spread-out, {done[0]['ranks']} ranks on {a.machine}")
            plt.legend()

        common.plot("sim-throttle", draw_throttle)


if __name__ == "__main__":
    main()
