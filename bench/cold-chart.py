#!/usr/bin/python3
"""bench/cold-chart.py: a matplotlib bar chart through `sandpad-run
--no-daemon` (the cold path, issue 26's target: at most 1.1x bare)
against bare python3 drawing it, calls of the two in a shuffled order
each round (so both see the same load), each after a pause. Prints the
median wall time and the median CPU (the process and every descendant
it waited for: the sandbox's processes and the run itself) and their
ratios to bare. Measurements, not assertions.

Usage: bench/cold-chart.py [PATH-TO-SANDPAD-RUN] [ROUNDS]
       (default: first _build*/src/runner/sandpad-run, 20 rounds)
"""

import os
import random
import resource
import shutil
import statistics
import subprocess
import tempfile
import time

from benchrunner import CHART, sandpad_run_args

PAUSE = 0.2
WARMUP = 2


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main():
    run, rounds = sandpad_run_args(20)
    work = tempfile.mkdtemp()
    os.chmod(work, 0o755)
    chart = os.path.join(work, "chart.py")
    with open(chart, "w") as f:
        f.write(CHART)
    os.chdir(work)  # where bare python3 writes chart.png
    rows = {"bare python3": ["/usr/bin/python3", chart],
            "sandpad-run --no-daemon": [run, "--no-daemon", chart]}
    wall = {name: [] for name in rows}
    cpu = {name: [] for name in rows}
    try:
        for i in range(rounds + WARMUP):  # the first cold runs build the font list
            order = list(rows)
            random.shuffle(order)
            for name in order:
                time.sleep(PAUSE)
                cpu_before = children_cpu()
                start = time.perf_counter()
                subprocess.run(rows[name], stdout=subprocess.DEVNULL, check=True)
                if i >= WARMUP:
                    wall[name].append(time.perf_counter() - start)
                    cpu[name].append(children_cpu() - cpu_before)
    finally:
        os.chdir("/")
        shutil.rmtree(work, ignore_errors=True)
    bare_wall = statistics.median(wall["bare python3"])
    bare_cpu = statistics.median(cpu["bare python3"])
    for name in rows:
        w, c = statistics.median(wall[name]), statistics.median(cpu[name])
        print(f"{name}: {w * 1000:.1f} ms ({w / bare_wall:.2f}x bare), "
              f"CPU {c * 1000:.1f} ms ({c / bare_cpu:.2f}x)")


if __name__ == "__main__":
    main()
