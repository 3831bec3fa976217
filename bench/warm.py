#!/usr/bin/python3
"""bench/warm.py: the per-run cost of the sandbox inside a long-lived runner.

The app keeps one sandpad-runner and sends it runs, so what a person waits
for is one run's round trip, not a process start of the runner. This
starts one runner per sandbox mode and, N times, times side by side (in
turn, so all see the same load): bare `python3 -c 'print(1)'` started with
subprocess, and the same program sent to each runner, from `run` to its
`exited` event. Prints medians and ratios to bare. The runners are not
told hello, so they keep no warm interpreter and every run starts cold:
this is the sandbox's cost (bench/warm-pool.py measures the warm path).

Usage: bench/warm.py [PATH-TO-SANDPAD-RUNNER] [N]
"""

import os
import statistics
import subprocess
import sys
import time

from benchrunner import Runner as ProtocolRunner

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNNER = sys.argv[1] if len(sys.argv) > 1 else os.path.join(TOP, "_build/src/runner/sandpad-runner")
N = int(sys.argv[2]) if len(sys.argv) > 2 else 60


class Runner(ProtocolRunner):
    def __init__(self, mode):
        super().__init__(RUNNER, mode, hello=False)

    def round_trip(self):
        run_id = self.next_id()
        start = time.perf_counter()
        self.send({"type": "run", "id": run_id, "language": "python", "code": "print(1)"})
        while True:
            event = self.recv()
            if event["type"] == "exited" and event["id"] == run_id:
                elapsed = time.perf_counter() - start
                break
        self.release(run_id)
        return elapsed


def bare():
    start = time.perf_counter()
    subprocess.run(["/usr/bin/python3", "-c", "print(1)"], stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


runners = {mode: Runner(mode) for mode in ("namespaces", "fallback")}
times = {"bare": [], "namespaces": [], "fallback": []}
for i in range(N + 5):
    samples = {"bare": bare()}
    for mode, runner in runners.items():
        samples[mode] = runner.round_trip()
    if i >= 5:  # warm-up
        for key, value in samples.items():
            times[key].append(value)
for runner in runners.values():
    runner.close()

base = statistics.median(times["bare"])
print(f"bare python3: median {base * 1000:.1f} ms over {N} runs")
for mode in ("namespaces", "fallback"):
    med = statistics.median(times[mode])
    print(f"warm runner, {mode}: {med / base:.2f}x ({med * 1000:.1f} ms vs {base * 1000:.1f} ms, "
          f"+{(med - base) * 1000:.1f} ms)")
