#!/usr/bin/python3
"""CI (sim label): the harness's own rules, without a simulation. Two simulations never overlap: a
second smpirun waits, saying so, for the lock the first holds, and takes it once it is released; and the
median and CoV a cell reports over its simulations are the textbook ones."""
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def fail(msg):
    sys.exit(f"harness test: {msg}")


def main():
    lock = tempfile.mktemp(prefix="colio-sim-lock-test.")
    os.environ["COLIO_SIM_LOCK"] = lock
    import common
    med, cov = common.median_cov([1.0, 2.0, 3.0, 10.0])
    if med != 2.5 or abs(cov - 12.5 ** 0.5 / 4) > 1e-12:
        fail(f"median_cov([1, 2, 3, 10]) = {med}, {cov}; expected 2.5, 0.884 (population standard deviation over the mean)")
    if common.median_cov([4.0, 4.0, 4.0]) != (4.0, 0.0):
        fail("three equal times: median 4, CoV 0")
    held = common._machine_lock()
    child = subprocess.Popen([sys.executable, "-c", "import common; common._machine_lock(); print('got it', flush=True)"],
                             cwd=HERE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)
    if child.poll() is not None:
        fail(f"a second simulation took the lock while the first held it: {child.communicate()}")
    held.close()
    out, err = child.communicate(timeout=30)
    os.unlink(lock)
    if "got it" not in out or "waiting for it" not in err:
        fail(f"the waiting simulation: stdout {out!r}, stderr {err!r}")
    print("harness test: ok")


if __name__ == "__main__":
    main()
