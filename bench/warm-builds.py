#!/usr/bin/python3
"""bench/warm-builds.py: two or more builds' warm runs side by side, so a
change that trades a warm run's latency for CPU (or the reverse) shows.

Every runner is alive at once in this one process, each in its own
long-lived protocol session as the app holds one. After a warm-up, each
round visits the runners in turn (the order rotates every round, so none
always follows the pause of another): sleep the pause, send one `run` of
the program, time `run` to `exited`, `release`. Each sample must have
started warm. Reported per pause: the median round trip per build, its
ratio to the first build, and the median CPU time of the run's programs
(its `cpu_ms`) as the runner counted it. Bare `python3 -c 'print(1)'` is
timed in the same rounds as the floor.

The machine's speed drifts over minutes by more than the differences
between builds, which is why the builds are interleaved in one process
and not measured one after another.

Usage: bench/warm-builds.py [--pauses 0.5,0.05] [--rounds 25] [--mode namespaces]
                            [--code print|chart] RUNNER [RUNNER...]
       RUNNER: a path to a sandpad-runner (its warm helpers beside it, as
       each build tree has them), optionally NAME=PATH.

To compare main against the build before a change:

    git worktree add /tmp/before HEAD~1 && meson setup /tmp/before/_build /tmp/before \\
        && ninja -C /tmp/before/_build src/runner/sandpad-runner
    bench/warm-builds.py before=/tmp/before/_build/src/runner/sandpad-runner \\
        now=_build/src/runner/sandpad-runner
"""

import argparse
import statistics
import subprocess
import sys
import time

from benchrunner import CHART, Runner

PRINT = "print(1)"


class Build(Runner):
    def __init__(self, name, path, mode):
        self.name = name
        super().__init__(path, mode)

    def round_trip(self, code):
        """(seconds from run to exited, warm?, the run's cpu_ms)."""
        elapsed, warm, exited = self.timed_run(code)
        return elapsed, warm, exited.get("cpu_ms", 0)


def bare():
    start = time.perf_counter()
    subprocess.run(["/usr/bin/python3", "-c", PRINT], stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pauses", default="0.5,0.05")
    parser.add_argument("--rounds", type=int, default=25)
    parser.add_argument("--mode", default="namespaces")
    parser.add_argument("--code", choices=("print", "chart"), default="print")
    parser.add_argument("runners", nargs="+")
    args = parser.parse_args()
    code = PRINT if args.code == "print" else CHART
    pauses = [float(p) for p in args.pauses.split(",")]

    builds = []
    for i, spec in enumerate(args.runners):
        name, _, path = spec.rpartition("=")
        builds.append(Build(name or f"build {i + 1}", path, args.mode))
    for b in builds:
        b.wait_warm()
        for _ in range(3):
            b.round_trip(code)

    print(f"{args.rounds} rounds of `{args.code}` per pause, {args.mode} mode, "
          f"builds interleaved; medians")
    for pause in pauses:
        times = {b.name: [] for b in builds}
        cpu = {b.name: [] for b in builds}
        floor = []
        for r in range(args.rounds):
            order = builds[r % len(builds):] + builds[:r % len(builds)]
            for b in order:
                time.sleep(pause)
                elapsed, warm, cpu_ms = b.round_trip(code)
                if not warm:
                    sys.exit(f"{b.name}: a run meant to start warm did not")
                times[b.name].append(elapsed)
                cpu[b.name].append(cpu_ms)
            time.sleep(pause)
            floor.append(bare())
        first = statistics.median(times[builds[0].name])
        bare_med = statistics.median(floor)
        print(f"pause {pause} s (bare python3 print(1): {bare_med * 1000:.1f} ms)")
        for b in builds:
            med = statistics.median(times[b.name])
            print(f"  {b.name:<16} {med * 1000:7.1f} ms  {med / first:5.2f}x the first  "
                  f"{med / bare_med:5.2f}x bare  program CPU {statistics.median(cpu[b.name]):.0f} ms")
    for b in builds:
        b.close()


if __name__ == "__main__":
    main()
