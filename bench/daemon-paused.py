#!/usr/bin/python3
"""bench/daemon-paused.py: sandpad-run calls the way an assistant makes
them, with a pause between them (it reads the output), against bare
python3 (issue 26).

bench/daemon.sh times calls back to back, which measures how much CPU a
call costs the machine (the next one competes with the work the last one
left: the spare it took is made again). Here every call comes after a
pause, so the warm spare it takes is ready and nothing else runs: what
is left is the call's own path. Rows, in a shuffled order each round so
that all see the same load, each call after PAUSE seconds: bare
`python3 p.py`, `sandpad-run p.py` through a private resident runner, and
with BENCH_BEFORE=OTHER/sandpad-run another build's resident runner.
Prints medians and ratios to bare; measurements, not assertions.

Usage: bench/daemon-paused.py [PATH-TO-SANDPAD-RUN] [ROUNDS]
       (default: first _build*/src/runner/sandpad-run, 60 rounds)
       SNIPPET=chart for a matplotlib bar chart instead of print(1)
"""

import glob
import os
import random
import shutil
import signal
import statistics
import subprocess
import tempfile
import time

from benchrunner import CHART, sandpad_run_args

PAUSE = 0.1
WARMUP = 3


def main():
    run, rounds = sandpad_run_args(60)
    work = tempfile.mkdtemp()
    os.chmod(work, 0o755)
    # A private resident runner, stopped at the end (its lock names it).
    runtime = os.path.join(work, "rt")
    os.mkdir(runtime, 0o700)
    os.environ.update(XDG_RUNTIME_DIR=runtime, SANDPAD_RUNNER_IDLE_EXIT="600")
    os.environ.pop("SANDPAD_NO_DAEMON", None)
    snippet = os.path.join(work, "p.py")
    with open(snippet, "w") as f:
        f.write(CHART if os.environ.get("SNIPPET") == "chart" else "print(1)\n")
    os.chdir(work)  # where bare python3 writes chart.png
    rows = {"bare python3": ["/usr/bin/python3", snippet],
            "sandpad-run (resident runner)": [run, snippet]}
    before = os.environ.get("BENCH_BEFORE")
    if before:
        rows["sandpad-run (resident runner, BENCH_BEFORE)"] = [before, snippet]
    times = {name: [] for name in rows}
    try:
        for i in range(rounds + WARMUP):
            order = list(rows)
            random.shuffle(order)
            for name in order:
                time.sleep(PAUSE)
                start = time.perf_counter()
                subprocess.run(rows[name], stdout=subprocess.DEVNULL, check=True)
                if i >= WARMUP:
                    times[name].append(time.perf_counter() - start)
    finally:
        for lock in glob.glob(os.path.join(runtime, "sandpad", "*.lock")):
            try:
                with open(lock) as f:
                    pid = int(f.read().strip() or 0)
                with open(f"/proc/{pid}/comm") as f:
                    if f.read().strip() == "sandpad-runner":
                        os.kill(pid, signal.SIGTERM)
            except (OSError, ValueError):
                pass
        os.chdir("/")
        shutil.rmtree(work, ignore_errors=True)
    bare = statistics.median(times["bare python3"])
    print(f"{os.path.basename(snippet)} ({os.environ.get('SNIPPET', 'print')}), "
          f"{PAUSE} s before each call, {rounds} rounds: " + ", ".join(
              f"{name} {statistics.median(v) / bare:.2f}x ({statistics.median(v) * 1000:.1f} ms)"
              for name, v in times.items() if name != "bare python3")
          + f" vs bare {bare * 1000:.1f} ms")


if __name__ == "__main__":
    main()
