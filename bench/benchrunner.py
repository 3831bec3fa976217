"""bench/benchrunner.py: one sandpad-runner spoken to over its protocol
(docs/protocol.md), for the benchmarks that time runs as a client of a
long-lived runner sees them (warm-pool.py, concurrent-live.py, session.py,
warm.py), and what the scripts that time `sandpad-run` share
(daemon-paused.py, cold-chart.py). Not a benchmark itself."""

import glob
import json
import os
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The bar chart the sandpad-run benchmarks draw (bench/daemon.sh's too).
CHART = ('import matplotlib\nmatplotlib.use("Agg")\nimport matplotlib.pyplot as plt\n'
         'fig, ax = plt.subplots()\nax.bar(["a", "b", "c"], [3, 1, 2])\nfig.savefig("chart.png")\n')


def sandpad_run_args(default_rounds):
    """argv's [PATH-TO-SANDPAD-RUN] [ROUNDS]: the path (default: the first
    _build*/src/runner/sandpad-run) and the rounds; exits when there is no
    sandpad-run there."""
    found = sorted(glob.glob(os.path.join(TOP, "_build*/src/runner/sandpad-run")))
    run = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else (found[0] if found else "")
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else default_rounds
    if not os.access(run, os.X_OK):
        sys.exit(f"no sandpad-run at '{run}'; build first")
    return run, rounds


class Runner:
    def __init__(self, path, mode, *args, hello=True):
        """Starts the runner at path in sandbox mode (strict). With hello,
        says hello and waits for ready: the runner then keeps its warm
        pool, as for the app (without, it is a batch's runner)."""
        self.proc = subprocess.Popen([path, "--sandbox", mode, "--strict", *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.seq = 0
        if hello:
            self.send({"type": "hello", "client": "bench"})
            while self.recv()["type"] != "ready":
                pass

    def send(self, msg):
        self.proc.stdin.write((json.dumps({"v": 1, **msg}) + "\n").encode())
        self.proc.stdin.flush()

    def recv(self):
        return json.loads(self.proc.stdout.readline())

    def next_id(self):
        self.seq += 1
        return f"r{self.seq}"

    def timed_run(self, code):
        """Runs Python code: (seconds from run to exited, whether it
        started warm, the exited event), released once it ended. Exits the
        benchmark when the run did not exit 0."""
        run_id = self.next_id()
        warm = None
        start = time.perf_counter()
        self.send({"type": "run", "id": run_id, "language": "python", "code": code})
        while True:
            event = self.recv()
            if event.get("id") != run_id:
                continue
            if event["type"] == "started":
                warm = event.get("warm", False)
            if event["type"] == "exited":
                elapsed = time.perf_counter() - start
                break
        self.release(run_id)
        if event["end"] != "exited" or event.get("exit_code") != 0:
            sys.exit(f"a run failed: {event}")
        return elapsed, warm, event

    def wait_warm(self, timeout=120):
        """Sends `pass` until a run starts warm; exits after timeout s."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.timed_run("pass")[1]:
                return
            time.sleep(0.2)
        sys.exit("the warm parent never became ready")

    def release(self, run_id):
        """Releases an ended run and waits until the runner says so."""
        self.send({"type": "release", "id": run_id})
        while self.recv()["type"] != "released":
            pass

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()
