#!/usr/bin/env python3
"""The runner's service side points one way (issue 24): the engine owns
runs and sessions; they, the plan builder and the launchers reach it only
through the host it lends them (runner-host.h), never by including the
engine's headers or calling its functions; the host includes none of them.
And a run's state (runner-run-private.h) is for the files that own a run.

A source check, like the build's own layering: it reads the files, with
their comments and strings taken out, and fails on the first line that
points the wrong way."""

import os
import re
import sys

SERVICE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                       "src", "runner", "service")

# The lowest layer: the engine's state and helpers lent to runs and
# sessions. It includes nothing of the layers above it.
HOST = ["runner-host.h", "runner-host.c", "runner-config.h", "runner-config.c"]
# Runs, sessions, the plan builder and the launchers: below the engine.
RUNS = [
    "runner-run-private.h", "runner-run.c", "runner-lines.c", "runner-input-wait.c",
    "runner-compile.c", "runner-session.h", "runner-session.c", "runner-plan-build.c",
    "runner-launch.h", "runner-launch-cold.c", "runner-warm-run.c",
    # A run's output past its limit: the kept end and the whole-output file.
    "runner-output-limit.c",
    # A run's output as events: UTF-8, lines, displays.
    "runner-run-output.c",
]
# The engine's headers, which only the engine and the files above it read.
ENGINE_HEADERS = {"runner-engine.h", "runner-engine-private.h"}
# What the host must not include: the engine's headers and everything of
# runs and sessions.
ABOVE_HOST = ENGINE_HEADERS | {"runner-run-private.h", "runner-session.h", "runner-launch.h"}
# Who may include a run's state: the files that own a run. The engine
# sees a run through runner-run.h alone, the plan builder through the
# RunnerLaunchInput a run fills.
RUN_OWNERS = set(RUNS) - {"runner-plan-build.c"}


def code_of(path):
    """The file without comments and string literals (a comment may name
    the engine; only code counts)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    # Keep #include "..." names; blank other strings.
    lines = []
    for line in text.split("\n"):
        if not line.lstrip().startswith("#include"):
            line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
        lines.append(line)
    return lines


def includes(lines):
    for n, line in enumerate(lines, 1):
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        if m:
            yield n, os.path.basename(m.group(1))


def reach(f, seen=None):
    """Every service header f includes, directly or through another one,
    each with the line of f that leads to it."""
    seen = {} if seen is None else seen
    for n, h in includes(code_of(os.path.join(SERVICE, f))):
        if h not in seen and os.path.exists(os.path.join(SERVICE, h)):
            seen[h] = n if f not in seen else seen[f]
            reach(h, seen)
    return seen


tests = []


def check(name, problems):
    tests.append((not problems, name, problems))


def main():
    missing = [f for f in HOST + RUNS if not os.path.exists(os.path.join(SERVICE, f))]
    check("every file of the two layers is where this test looks", missing)

    for f in (f for f in HOST if f not in missing):
        lines = code_of(os.path.join(SERVICE, f))
        bad = [f"{f}:{n}: includes {h}" for h, n in reach(f).items() if h in ABOVE_HOST]
        bad += [f"{f}:{n}: {m.group(0)}" for n, line in enumerate(lines, 1)
                for m in re.finditer(r"\b(_?runner_engine_\w+|RunnerEngine|_runner_run_\w+|_runner_session_\w+)", line)]
        check(f"{f} includes and calls nothing of the engine, runs or sessions", bad)

    for f in (f for f in RUNS if f not in missing):
        lines = code_of(os.path.join(SERVICE, f))
        bad = [f"{f}:{n}: includes {h}" for h, n in reach(f).items() if h in ENGINE_HEADERS]
        bad += [f"{f}:{n}: {m.group(0)}" for n, line in enumerate(lines, 1)
                for m in re.finditer(r"\b(_?runner_engine_\w+|RunnerEngine)\b", line)]
        check(f"{f} reaches the engine only through the host", bad)

    bad = []
    for f in sorted(os.listdir(SERVICE)):
        if not f.endswith((".c", ".h")) or f in RUN_OWNERS:
            continue
        lines = code_of(os.path.join(SERVICE, f))
        bad += [f"{f}:{n}: includes {h}" for n, h in includes(lines) if h == "runner-run-private.h"]
    check("only the files that own a run include runner-run-private.h", bad)

    print(f"1..{len(tests)}")
    failed = 0
    for i, (ok, name, problems) in enumerate(tests, 1):
        print(f"{'ok' if ok else 'not ok'} {i} - {name}")
        for p in problems:
            print(f"# {p}")
        failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
