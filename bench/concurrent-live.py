#!/usr/bin/python3
"""bench/concurrent-live.py: issue 13's "8 concurrent time.sleep(0.2) runs"
row as the app and sandpad-mcp see it: handed together to a runner that is
already up (hello sent, its warm interpreter ready), against one such run
alone, in the same runner. bench/concurrent.sh measures the same through
the batch mode instead, where every figure includes a runner start.

Two runners are measured in turn, one with the warm pool (its default) and
one with --no-warm, each sample "one run" then "eight at once", with a
pause between samples so the warm runner's next spare is ready, as it would
be between a person's runs. Every run is checked to have exited 0; how many
of each batch started warm is printed.

Usage: bench/concurrent-live.py [PATH-TO-SANDPAD-RUNNER] [N] [MODE]
       (default _build/src/runner/sandpad-runner, 10, namespaces)
"""

import os
import statistics
import sys
import time

from benchrunner import Runner as ProtocolRunner

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNNER = sys.argv[1] if len(sys.argv) > 1 else os.path.join(TOP, "_build/src/runner/sandpad-runner")
N = int(sys.argv[2]) if len(sys.argv) > 2 else 10
MODE = sys.argv[3] if len(sys.argv) > 3 else "namespaces"
AT_ONCE = 8
SLEEP = "import time\ntime.sleep(0.2)\n"
# Long enough for a spare to be made and populated after a batch.
PAUSE = 2.0


class Runner(ProtocolRunner):
    def __init__(self, *args):
        super().__init__(RUNNER, MODE, *args)

    def batch(self, n, code=SLEEP):
        """Seconds from the first run request to the last exited, and how
        many of the runs started warm."""
        ids = []
        start = time.perf_counter()
        for _ in range(n):
            ids.append(self.next_id())
            self.send({"type": "run", "id": ids[-1], "language": "python", "code": code})
        left, warm = set(ids), 0
        while left:
            event = self.recv()
            if event.get("id") not in left:
                continue
            if event["type"] == "started" and event.get("warm"):
                warm += 1
            if event["type"] == "exited":
                if event["end"] != "exited" or event.get("exit_code") != 0:
                    sys.exit(f"a run failed: {event}")
                left.discard(event["id"])
        elapsed = time.perf_counter() - start
        for run_id in ids:
            self.release(run_id)
        return elapsed, warm

    def wait_warm(self, timeout=120):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.batch(1, "pass")[1]:
                return
            time.sleep(0.2)
        sys.exit("the warm parent never became ready")


runners = {"warm pool": Runner(), "--no-warm": Runner("--no-warm")}
runners["warm pool"].wait_warm()
times = {(name, n): [] for name in runners for n in (1, AT_ONCE)}
warm_counts = {key: [] for key in times}
for i in range(N + 1):  # the first round is a warm-up
    for name, runner in runners.items():
        for n in (1, AT_ONCE):
            time.sleep(PAUSE)
            elapsed, warm = runner.batch(n)
            if i > 0:
                times[(name, n)].append(elapsed)
                warm_counts[(name, n)].append(warm)
for runner in runners.values():
    runner.close()

print(f"{N} samples each, {MODE} mode, runner already up; medians:")
for name in runners:
    one = statistics.median(times[(name, 1)])
    many = statistics.median(times[(name, AT_ONCE)])
    warm = statistics.median(warm_counts[(name, AT_ONCE)])
    print(f"{name}: {AT_ONCE} at once {many:.3f} s, {many / one:.2f}x one run "
          f"({one * 1000:.0f} ms); {warm:.0f} of {AT_ONCE} started warm")
