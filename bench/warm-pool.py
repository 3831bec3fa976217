#!/usr/bin/python3
"""bench/warm-pool.py: what the warm pool (src/runner/engine/runner-warm.h)
buys, as the app sees it: one run's round trip in a long-lived runner, from
`run` to its `exited` event.

Two rows of issue 13's table, each measured in turn N times so every
variant sees the same load, reported as medians and ratios:

  - `print(1)`: bare `python3 -c 'print(1)'` (subprocess) against the same
    program sent to a runner whose runs start warm;
  - a matplotlib bar chart saved as PNG (the prelude's plt.show()): a warm
    run against today's cold path (the same runner with --no-warm).

Every warm sample is checked to have started warm (started's "warm"), every
cold one cold, and every chart to have produced its PNG.

Usage: bench/warm-pool.py [PATH-TO-SANDPAD-RUNNER] [N] [MODE]
       (default _build/src/runner/sandpad-runner, 40, namespaces)
"""

import os
import resource
import statistics
import subprocess
import sys
import time

from benchrunner import Runner as ProtocolRunner

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNNER = sys.argv[1] if len(sys.argv) > 1 else os.path.join(TOP, "_build/src/runner/sandpad-runner")
N = int(sys.argv[2]) if len(sys.argv) > 2 else 40
MODE = sys.argv[3] if len(sys.argv) > 3 else "namespaces"
WARMUP = 3

PRINT = "print(1)"
CHART = ("import matplotlib.pyplot as plt\n"
         "plt.bar(['a', 'b', 'c'], [3, 1, 2])\n"
         "plt.show()\n")


class Runner(ProtocolRunner):
    def __init__(self, *args):
        super().__init__(RUNNER, MODE, *args)

    def round_trip(self, code):
        """Seconds from run to exited, whether it started warm, its files."""
        elapsed, warm, exited = self.timed_run(code)
        self.cpu_ms = exited["cpu_ms"]
        return elapsed, warm, [f["path"] for f in exited.get("files", [])]


def children_cpu_ms():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (usage.ru_utime + usage.ru_stime) * 1000


def bare():
    cpu = children_cpu_ms()
    start = time.perf_counter()
    subprocess.run(["/usr/bin/python3", "-c", PRINT], stdout=subprocess.DEVNULL, check=True)
    elapsed = time.perf_counter() - start
    CPU["bare"].append(children_cpu_ms() - cpu)
    return elapsed


def sample(runner, code, want_warm, want_files=(), key=None):
    elapsed, warm, files = runner.round_trip(code)
    if key is not None:
        CPU[key].append(runner.cpu_ms)
    if warm != want_warm:
        sys.exit(f"a run meant to start {'warm' if want_warm else 'cold'} did not")
    if list(want_files) != files:
        sys.exit(f"the chart run made {files}, not {list(want_files)}")
    return elapsed


# CPU time of the program's tree (the run's cpu_ms, bare python3's rusage):
# less bent by the machine's load than wall time, so printed beside it.
CPU = {"bare": [], "warm print": [], "cold print": []}
warm = Runner()
cold = Runner("--no-warm")
warm.wait_warm()
times = {"bare": [], "warm print": [], "cold print": [], "warm chart": [], "cold chart": []}
for i in range(N + WARMUP):
    got = {
        "bare": bare(),
        "warm print": sample(warm, PRINT, True, key="warm print"),
        "cold print": sample(cold, PRINT, False, key="cold print"),
        "warm chart": sample(warm, CHART, True, ["plot-1.png"]),
        "cold chart": sample(cold, CHART, False, ["plot-1.png"]),
    }
    if i >= WARMUP:
        for key, value in got.items():
            times[key].append(value)
warm.close()
cold.close()

med = {key: statistics.median(values) for key, values in times.items()}
print(f"{N} runs each, in turn, {MODE} mode; medians:")
for key, value in med.items():
    print(f"  {key}: {value * 1000:.1f} ms")
cpu = {key: statistics.median(values) for key, values in CPU.items()}
print("  CPU of the program's processes: " + ", ".join(f"{k} {v:.0f} ms" for k, v in cpu.items()))
print(f"print(1) through a warm runner / bare python3: {med['warm print'] / med['bare']:.2f}x "
      f"({med['warm print'] * 1000:.1f} ms vs {med['bare'] * 1000:.1f} ms; target < 1.0x)")
print(f"matplotlib bar chart, warm / cold: {med['warm chart'] / med['cold chart']:.2f}x "
      f"({med['warm chart'] * 1000:.1f} ms vs {med['cold chart'] * 1000:.1f} ms; target <= 0.25x)")
