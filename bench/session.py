#!/usr/bin/python3
"""bench/session.py: a session's later run against a cold run, as the app
sees them through one long-lived sandpad-runner.

Issue 13's target: a session's second (and later) run of `x + 1` should
take at most 0.2x of a cold `print(1)` run. This starts one runner per
sandbox mode, opens a session in it (`x = 1`), and then N times, in turn
so both see the same load, sends the runner a cold `print(1)` (a fresh
sandboxed interpreter, as every ordinary run) and `print(x + 1)` in the
session, each timed from `run` to its `exited` event. Prints medians and
the ratio session / cold; nothing here passes or fails.

Usage: bench/session.py [PATH-TO-SANDPAD-RUNNER] [N]
"""

import os
import statistics
import sys
import time

from benchrunner import Runner as ProtocolRunner

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNNER = sys.argv[1] if len(sys.argv) > 1 else os.path.join(TOP, "_build/src/runner/sandpad-runner")
N = int(sys.argv[2]) if len(sys.argv) > 2 else 40


class Runner(ProtocolRunner):
    def __init__(self, mode):
        super().__init__(RUNNER, mode, hello=False)

    def round_trip(self, code, **fields):
        run_id = self.next_id()
        start = time.perf_counter()
        self.send({"type": "run", "id": run_id, "language": "python", "code": code, **fields})
        while True:
            event = self.recv()
            if event["type"] == "exited" and event["id"] == run_id:
                elapsed = time.perf_counter() - start
                break
        if event.get("exit_code") != 0:
            sys.exit(f"run failed: {event}")
        self.release(run_id)
        return elapsed


runners = {mode: Runner(mode) for mode in ("namespaces", "fallback")}
times = {(mode, kind): [] for mode in runners for kind in ("cold", "session")}
for runner in runners.values():
    runner.round_trip("x = 1", session="bench")
for i in range(N + 3):
    for mode, runner in runners.items():
        cold = runner.round_trip("print(1)")
        session = runner.round_trip("print(x + 1)", session="bench")
        if i >= 3:  # warm-up
            times[(mode, "cold")].append(cold)
            times[(mode, "session")].append(session)
for runner in runners.values():
    runner.close()

for mode in runners:
    cold = statistics.median(times[(mode, "cold")])
    session = statistics.median(times[(mode, "session")])
    print(f"{mode}: session run of x + 1 / cold print(1): {session / cold:.3f}x "
          f"({session * 1000:.1f} ms vs {cold * 1000:.1f} ms, median of {N})")
