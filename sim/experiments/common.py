"""Shared by the experiment scripts: find the SMPI build, write hostfiles,
run colio-bench or colio-nbbench under smpirun on a platform of
sim/platforms/, collect JSON, draw PNGs, write result files.

Every run is one smpirun of one program: SMPI simulates all ranks in one OS
process, so the wall time is the sum of the ranks' real CPU time plus the
simulator's; times reported are simulated seconds."""
import fcntl
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLATFORMS = os.path.join(ROOT, "sim", "platforms")
BUILD = os.environ.get("COLIO_SMPI_BUILD", os.path.join(ROOT, "build", "smpi"))
RESULTS = os.environ.get("COLIO_SIM_RESULTS", os.path.join(ROOT, "docs", "results", "sim"))
IMAGES = os.path.join(ROOT, "docs", "img")


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def program(name):
    path = os.path.join(BUILD, "bench", name)
    if not os.path.exists(path):
        sys.exit(f"{path} missing: build the SMPI configuration first (scripts/build-smpi.sh)")
    return path


def platform_cores(machine):
    """Ranks per node of a platform (its hosts' core count)."""
    with open(os.path.join(PLATFORMS, machine + ".xml")) as f:
        for line in f:
            if 'core="' in line and "node-" in line:
                return int(line.split('core="')[1].split('"')[0])
    raise ValueError(f"{machine}.xml: no compute host")


def topology(machine):
    """The colio_topology hint naming the same network as the platform."""
    path = os.path.join(PLATFORMS, machine + ".topology")
    with open(path) as f:
        text = f.read()
    return path if text.startswith("colio-topology") else text.strip()


def storage_route(machine):
    """The platform's storage route file (every node's bridge node, for colio_null_route), or None."""
    path = os.path.join(PLATFORMS, machine + ".storage")
    return path if os.path.exists(path) else None


def hostfile(path, nranks, per_node, machine_nodes, alloc="compact"):
    """per_node ranks on each node (the last may hold fewer): the first nodes
    (compact) or a seeded random choice of the machine's (scattered:SEED),
    as a busy system allocates them (TATP sec. 5)."""
    need = (nranks + per_node - 1) // per_node
    if need > machine_nodes:
        raise ValueError(f"{nranks} ranks need {need} nodes, the machine has {machine_nodes}")
    nodes = list(range(need))
    if alloc.startswith("scattered:"):
        nodes = sorted(random.Random(int(alloc.split(":")[1])).sample(range(machine_nodes), need))
    with open(path, "w") as f:
        left = nranks
        for n in nodes:
            f.write(f"node-{n}:{min(per_node, left)}\n")
            left -= per_node
    return need


def machine_nodes(machine):
    with open(os.path.join(PLATFORMS, machine + ".xml")) as f:
        text = f.read()
    if 'radical="0-' in text:
        return int(text.split('radical="0-')[1].split('"')[0]) + 1
    return text.count('<host id="node-')


# Collective algorithms: logarithmic, not SMP-aware. SMPI's selectors (mpich,
# ompi) pick SMP-aware algorithms whose first use on a communicator runs a
# ring allgather to detect nodes (Comm::init_smp): a million messages and
# ~30 s of wall time at 1,024 ranks. (Its nonblocking collectives are linear;
# colio's SMPI build does not call them: colio_agreements=p2p, src/coll.)
COLLECTIVES = ["--cfg=smpi/allgather:bruck", "--cfg=smpi/allgatherv:ompi_bruck", "--cfg=smpi/allreduce:rdb",
               "--cfg=smpi/alltoall:bruck", "--cfg=smpi/bcast:binomial_tree",
               "--cfg=smpi/barrier:ompi_recursivedoubling", "--cfg=smpi/reduce:binomial",
               "--cfg=smpi/gather:ompi_binomial"]

# Time charged for an MPI_Test that finds nothing: SMPI's default is 100 us,
# growing by 100 us with each consecutive failed test, which made every colio
# phase that polls cost milliseconds (a failed MPI_Test costs 14-40 ns under
# Open MPI and MPICH on this machine); 0.1 us, not growing.
TIMING = ["--cfg=smpi/test:1e-7", "--cfg=smpi/grow-injected-times:no"]

# Computation: colio charges its own work as modelled time (src/base/charge.c,
# calibrated by calibrate.py), so SMPI's own charge, the host CPU time
# measured between MPI calls, is off: that measurement depends on the load
# of the machine running the simulation (two runs of one kernel differed by
# a third), the model does not, and the same command gives the same
# simulated time. --network-only charges network and storage time only
# (COLIO_SIM_COMPUTE=0 turns colio's charge off too).
COMPUTATION = ["--cfg=smpi/simulate-computation:no"]
NETWORK_ONLY_ENV = {"COLIO_SIM_COMPUTE": "0"}

# Simulator memory options (measured in docs/SCALE.md, "Simulator memory").
MEMORY = []


def add_network_only_option(ap):
    ap.add_argument("--network-only", action="store_true",
                    help="charge network and storage time only, not colio's modelled computation")


# Simulator memory: a run is stopped when the simulator's memory (Pss, _tree_mem_kib) passes
# this many GiB (COLIO_SIM_MEM_LIMIT_GIB; the machine is shared), and its peak is the largest
# sample (every 2 s at most; /usr/bin/time -v's resident peak for a run too short to sample).
MEM_LIMIT_GIB = float(os.environ.get("COLIO_SIM_MEM_LIMIT_GIB", "12"))


def _tree_mem_kib(pid):
    """Memory of pid and its descendants (KiB), from /proc: the proportional set size (Pss), which counts a
    page once however many times a process maps it. SMPI maps one shared data buffer (SMPI_SHARED_MALLOC,
    colio-bench on the null backend) once per simulated rank, so the resident set size would count it
    once per rank; VmRSS where smaps_rollup is missing."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            try:
                with open(f"/proc/{p}/smaps_rollup") as f:
                    total += next((int(l.split()[1]) for l in f if l.startswith("Pss:")), 0)
            except OSError:
                with open(f"/proc/{p}/status") as f:
                    total += next((int(l.split()[1]) for l in f if l.startswith("VmRSS:")), 0)
            with open(f"/proc/{p}/task/{p}/children") as f:
                todo += [int(c) for c in f.read().split()]
        except (OSError, ValueError):
            pass
    return total


def _time_v(path):
    """Peak RSS (KiB) and wall seconds from a /usr/bin/time -v report, or (0, 0)."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return 0, 0.0
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    return (int(rss.group(1)) if rss else 0), 0.0


def _run_guarded(cmd, cwd, timeout):
    """Run cmd; stop its process tree when it passes MEM_LIMIT_GIB or timeout.
    Returns (returncode, stdout, stderr, sampled peak KiB, why stopped or None)."""
    limit = int(MEM_LIMIT_GIB * 1024 * 1024)
    out, err = tempfile.TemporaryFile(mode="w+"), tempfile.TemporaryFile(mode="w+")
    p = subprocess.Popen(cmd, stdout=out, stderr=err, text=True, cwd=cwd)
    t0, peak, why, interval = time.time(), 0, None, 0.05
    while True:
        try:
            p.wait(timeout=interval)  # a short run is not held back by the polling
            break
        except subprocess.TimeoutExpired:
            interval = min(2 * interval, 2.0)
        rss = _tree_mem_kib(p.pid)
        peak = max(peak, rss)
        if rss > limit:
            why = f"simulator memory {rss / 1048576:.1f} GiB > {MEM_LIMIT_GIB:g} GiB"
        elif timeout and time.time() - t0 > timeout:
            why = f"wall time over {timeout} s"
        if why:
            _kill_tree(p.pid)
            break
    p.wait()
    out.seek(0)
    err.seek(0)
    return p.returncode, out.read(), err.read(), peak, why


def _kill_tree(pid):
    """SIGKILL pid and its descendants (the processes this script started), deepest first."""
    kids = []
    todo = [pid]
    while todo:
        q = todo.pop()
        kids.append(q)
        try:
            with open(f"/proc/{q}/task/{q}/children") as f:
                todo += [int(c) for c in f.read().split()]
        except (OSError, ValueError):
            pass
    for q in reversed(kids):
        try:
            os.kill(q, signal.SIGKILL)
        except OSError:
            pass


class SimStopped(RuntimeError):
    """A run stopped by the memory or time guard; .rss_mib and .wall_s say how far it got."""

    def __init__(self, msg, rss_mib, wall_s, cmd):
        super().__init__(msg)
        self.rss_mib, self.wall_s, self.cmd = rss_mib, wall_s, cmd


# One simulation at a time on a machine: the simulated time no longer depends on the machine's load
# (COMPUTATION), but a simulation's wall time and memory do, and --cfg=smpi/simulate-computation:yes
# brings the measured charge back. Every smpirun takes this lock (COLIO_SIM_LOCK moves it), waiting for
# the one that holds it.
LOCK = os.environ.get("COLIO_SIM_LOCK", os.path.join(tempfile.gettempdir(), "colio-sim.lock"))


def _machine_lock():
    """The exclusive lock on LOCK, held until the returned file is closed."""
    f = open(LOCK, "a")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        log(f"another simulation holds {LOCK}: waiting for it")
        fcntl.flock(f, fcntl.LOCK_EX)
    return f


def median_cov(values):
    """The median of values and their coefficient of variation (population standard deviation over the mean)."""
    v = sorted(values)
    n = len(v)
    med = v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2
    mean = sum(v) / n
    cov = (sum((x - mean) ** 2 for x in v) / n) ** 0.5 / mean if mean else 0.0
    return med, cov


def smpirun(machine, nranks, argv, alloc="compact", per_node=None, timeout=None, extra_cfg=(), env=None):
    """Run argv (program first) on nranks simulated ranks; returns (stdout, wall seconds, peak memory MiB, command).
    The peak is the simulator's, sampled from /proc (MEM_LIMIT_GIB). Waits
    for any other simulation on this machine to end first (LOCK)."""
    per_node = per_node or platform_cores(machine)
    with _machine_lock():
        return _smpirun(machine, nranks, argv, alloc, per_node, timeout, extra_cfg, env or {})


def _smpirun(machine, nranks, argv, alloc, per_node, timeout, extra_cfg, env):
    tmp = tempfile.mkdtemp(prefix="colio-sim-")
    try:
        hf = os.path.join(tmp, "hosts")
        hostfile(hf, nranks, per_node, machine_nodes(machine), alloc)
        cmd = ["smpirun", "-np", str(nranks), "-platform", os.path.join(PLATFORMS, machine + ".xml"), "-hostfile", hf,
               "--cfg=smpi/host-speed:1Gf", *COMPUTATION, *COLLECTIVES, *TIMING, *MEMORY,
               "--log=root.thres:critical", *extra_cfg, *argv]
        timev = os.path.join(tmp, "time-v")
        wrap = ["/usr/bin/time", "-v", "-o", timev] if os.path.exists("/usr/bin/time") else []
        cmd = [f"{k}={v}" for k, v in env.items()] + cmd  # recorded as a shell command line
        if env:
            wrap.append("env")
        t0 = time.time()
        rc, stdout, stderr, sampled, why = _run_guarded(wrap + cmd, tmp, timeout)
        wall = time.time() - t0
        rss = (sampled or _time_v(timev)[0]) / 1024.0
        if why:
            raise SimStopped(f"stopped: {why} after {wall:.0f} s: {' '.join(cmd)}", rss, wall, " ".join(cmd))
        if rc != 0:
            sys.stderr.write(stderr[-4000:])
            raise RuntimeError(f"smpirun failed ({rc}): {' '.join(cmd)}")
        return stdout, wall, rss, " ".join(cmd)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def bench(machine, nranks, args, hints, alloc="compact", per_node=None, timeout=None, network_only=False,
          extra_cfg=()):
    """One colio-bench run (null backend added to the hints; colio's modelled computation charged unless
    network_only; extra_cfg:
    more simulator options); returns its JSON runs, wall s, RSS MiB, command."""
    tmp = tempfile.mkdtemp(prefix="colio-sim-json-")
    try:
        out = os.path.join(tmp, "r.json")
        hints = "colio_backend=null;" + hints if "colio_backend" not in hints else hints
        # its own directory: colio-bench removes its file at the end, so a shared default
        # (/dev/shm) would pull files from under another colio-bench running on this machine
        argv = [program("colio-bench"), *args, "--dir", tmp, "--hints", hints, "--quiet", "--json", out]
        _, wall, rss, cmd = smpirun(machine, nranks, argv, alloc, per_node, timeout, list(extra_cfg),
                                    NETWORK_ONLY_ENV if network_only else None)
        with open(out) as f:
            return json.load(f)["runs"], wall, rss, cmd
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def save(name, doc):
    os.makedirs(RESULTS, exist_ok=True)
    path = os.path.join(RESULTS, name + ".json")
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
    log(f"wrote {path}")
    return path


def plot(name, draw):
    """draw(plt) makes the figure; saved as docs/img/NAME.png (skipped without matplotlib)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("matplotlib missing: no PNG (scripts/setup.sh installs python3-matplotlib)")
        return None
    os.makedirs(IMAGES, exist_ok=True)
    plt.figure(figsize=(7, 4.2))
    draw(plt)
    plt.tight_layout()
    path = os.path.join(IMAGES, name + ".png")
    plt.savefig(path, dpi=110)
    plt.close()
    log(f"wrote {path}")
    return path


def bar_pair(labels, left, right, names, ylabel, title):
    """A draw function for plot(): two bars per label (left and right series, named names)."""
    def draw(plt):
        xs = range(len(labels))
        plt.bar([x - 0.2 for x in xs], left, 0.4, label=names[0])
        plt.bar([x + 0.2 for x in xs], right, 0.4, label=names[1])
        plt.xticks(list(xs), labels)
        plt.ylabel(ylabel)
        plt.title(title)
        plt.legend()
    return draw


def table(headers, rows):
    """A Markdown table (docs/SCALE.md pastes these)."""
    out = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)
