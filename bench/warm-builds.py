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
(its `cpu_ms`) as the runner counted it, and the CPU the runner's whole
process tree used per call (spares, refills and the warm parent's work
between calls included: what the machine pays). Bare `python3 -c 'print(1)'` is
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
import os
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


TICK = os.sysconf("SC_CLK_TCK")


def tree_cpu(pid):
    """CPU seconds the process tree under pid has used so far: every live
    process's own and its reaped children's (a run's processes, spares,
    the warm parent), so what a spare does before its run counts too."""
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += sum(int(x) for x in fields[11:15]) / TICK  # utime stime cutime cstime
            for tid in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{tid}/children") as f:
                    todo += [int(c) for c in f.read().split()]
        except (FileNotFoundError, ProcessLookupError):
            pass  # ended meanwhile: its time is its parent's now
    return total


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
        spent = {b.name: -tree_cpu(b.proc.pid) for b in builds}
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
        for b in builds:
            spent[b.name] += tree_cpu(b.proc.pid)
        first = statistics.median(times[builds[0].name])
        bare_med = statistics.median(floor)
        print(f"pause {pause} s (bare python3 print(1): {bare_med * 1000:.1f} ms)")
        for b in builds:
            med = statistics.median(times[b.name])
            print(f"  {b.name:<16} {med * 1000:7.1f} ms  {med / first:5.2f}x the first  "
                  f"{med / bare_med:5.2f}x bare  program CPU {statistics.median(cpu[b.name]):.0f} ms  "
                  f"all CPU {spent[b.name] * 1000 / args.rounds:.0f} ms a call")
    for b in builds:
        b.close()


if __name__ == "__main__":
    main()
