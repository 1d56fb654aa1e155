#!/usr/bin/python3
"""CI (sim label): the same simulation command gives the same simulated time. One small simulation
(64 ranks on cori-small, the smoke workload, the balanced kernel) runs twice, the second time with a
process spinning on a core beside it; the call, metadata and data times must agree within 1%. A third
run with --network-only (no modelled computation) must be faster, so the charge is really there."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import common  # noqa: E402
import kernels  # noqa: E402


def fail(msg):
    sys.exit(f"determinism test: {msg}")


def simulate(network_only=False):
    args = kernels.WORKLOADS["smoke"] + ["--op", "write", "--repeat", "1", "--warmup", "0", "--engine", "colio"]
    hints = f"{kernels.BASE_HINTS};cb_nodes=2;colio_exchange=balanced;colio_meta_exchange=balanced"
    runs, _, _, cmd = common.bench("cori-small", 64, args, hints, network_only=network_only)
    r = runs[0]
    if r["error"]:
        fail(f"colio-bench failed: {r['error']} ({cmd})")
    return (r["median_s"], r["phases"]["meta_exchange"], r["phases"]["data_exchange"]), cmd


def main():
    first, cmd = simulate()
    spin = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        second, _ = simulate()
    finally:
        spin.kill()
        spin.wait()
    names = ("call", "metadata exchange", "data exchange")
    for name, a, b in zip(names, first, second):
        if a <= 0 or abs(a - b) > 0.01 * a:
            fail(f"{name} time {a:.9f} s, then {b:.9f} s beside a spinning process (> 1% apart): {cmd}")
    bare, _ = simulate(network_only=True)
    if not bare[0] < first[0]:
        fail(f"network-only call {bare[0]:.9f} s is not faster than the charged one {first[0]:.9f} s")
    print(f"determinism test: ok (call {first[0]:.6f} s twice, {bare[0]:.6f} s network-only)")


if __name__ == "__main__":
    main()
