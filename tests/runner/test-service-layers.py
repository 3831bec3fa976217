#!/usr/bin/env python3
"""The runner's rooms point one way (issue 40): src/runner/ is a house of
folders, each with a README.md, ranked bottom to top (ROOMS); a file
includes only headers of its own room or of rooms below it, a room's
private headers (*-private.h) and its underscore functions (_runner_*)
stay in the room, and every source file is in a room. Inside each room
no files point at each other in a circle: a file and its header are one
unit, which points at another when it includes that one's header or
calls a function only that one defines; a circle means some arrow runs
back up (issue 40's graph had twelve).

Inside engine/ (issue 24): the engine owns runs and sessions; they, the
plan builder and the launchers reach it only through the host it lends
them (runner-host.h), never by including the engine's headers or calling
its functions; the host includes none of them. And a run's state
(runner-run-private.h) is for the files that own a run.

A source check, like the build's own layering: it reads the files, with
their comments and strings taken out, and fails on the first line that
points the wrong way."""

import os
import re
import sys

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "runner")
SERVICE = os.path.join(RUNNER, "engine")
# The rooms, bottom to top; the programs (src/runner/*.c) are above all.
ROOMS = ["sandbox", "base", "watch", "languages", "engine", "packages", "resident"]

# The lowest layer: the engine's state and helpers lent to runs and
# sessions. It includes nothing of the layers above it.
HOST = ["runner-host.h", "runner-host.c", "runner-config.h", "runner-config.c"]
# Runs, sessions, the plan builder and the launchers: below the engine.
RUNS = [
    "runner-run-private.h", "runner-run.c", "runner-lines.c", "runner-input-wait.c",
    "runner-compile.c", "runner-compile.h", "runner-run-watch.c", "runner-run-watch.h",
    "runner-session.h", "runner-session.c", "runner-plan-build.c",
    "runner-launch.h", "runner-launch-cold.c", "runner-warm-run.c",
    # A run's output past its limit: the kept end and the whole-output file.
    "runner-output-limit.c",
    # A run's output: its life as the run sees it, then as events (UTF-8,
    # displays), by lines.
    "runner-run-output.c", "runner-output-scan.c",
]
# The engine's headers, which only the engine and the files above it read.
ENGINE_HEADERS = {"runner-engine.h"}
# What the host must not include: the engine's headers and everything of
# runs and sessions.
ABOVE_HOST = ENGINE_HEADERS | {"runner-run-private.h", "runner-session.h", "runner-launch.h"}
# Who may include a run's state: the files that own a run. The engine
# sees a run through runner-run.h alone, the plan builder through the
# RunnerLaunchInput a run fills.
RUN_OWNERS = set(RUNS) - {"runner-plan-build.c"}
# A run's parts with a state of their own: the run hands them what they
# look at, and they know nothing of RunnerRun (issue 40 item 2).
OWN_STATE = {"compile": {"runner-compile.c"}, "watch": {"runner-run-watch.c"},
             "input_wait": {"runner-input-wait.c"},
             "output": {"runner-run-output.c", "runner-output-limit.c", "runner-output-scan.c",
                        "runner-lines.c"}}
OWN_FILES = set().union(*OWN_STATE.values())
RUN_OWNERS -= OWN_FILES


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


def room_files():
    """{file name: its room} for every source file of every room."""
    where = {}
    for room in ROOMS:
        for f in sorted(os.listdir(os.path.join(RUNNER, room))):
            if f.endswith((".c", ".h")):
                where[f] = room
    return where


def check_rooms():
    where = room_files()
    rank = {room: i for i, room in enumerate(ROOMS)}

    check("every room has its README.md",
          [f"{room}/README.md is missing" for room in ROOMS
           if not os.path.exists(os.path.join(RUNNER, room, "README.md"))])

    stray = []
    for dirpath, dirnames, filenames in os.walk(RUNNER):
        rel = os.path.relpath(dirpath, RUNNER)
        if rel != "." and rel.split(os.sep)[0] not in ROOMS:
            stray += [f"{rel}/{f}" for f in filenames if f.endswith((".c", ".h"))]
    check("every source file is in a room (or is one of the programs)", stray)

    # Each file's room ("." for the programs) and its code.
    files = [(".", f) for f in sorted(os.listdir(RUNNER)) if f.endswith((".c", ".h"))]
    files += [(room, f) for f, room in sorted(where.items(), key=lambda x: (x[1], x[0]))]
    up, private = [], []
    underscore = {}
    for room in ROOMS:
        for f in (f for f, r in where.items() if r == room and f.endswith(".h")):
            for line in code_of(os.path.join(RUNNER, room, f)):
                for m in re.finditer(r"\b(_runner_\w+)\s*\(", line):
                    underscore[m.group(1)] = room
    calls = []
    for room, f in files:
        lines = code_of(os.path.join(RUNNER, room, f))
        for n, h in includes(lines):
            if h not in where or where[h] == room:
                continue
            if room != "." and rank[where[h]] > rank[room]:
                up.append(f"{room}/{f}:{n}: includes {where[h]}/{h}, a room above")
            if h.endswith("-private.h"):
                private.append(f"{room}/{f}:{n}: includes {where[h]}/{h}")
        for n, line in enumerate(lines, 1):
            for m in re.finditer(r"\b_runner_\w+\b", line):
                if m.group(0) in underscore and underscore[m.group(0)] != room:
                    calls.append(f"{room}/{f}:{n}: {m.group(0)} of {underscore[m.group(0)]}/")
    check("no room includes a header of a room above it", up)
    check("a room's private headers are its own", private)
    check("a room's underscore functions are its own", calls)


def units_of(room):
    """{unit: [file, ...]} of one room: a file and its header (x.c, x.h)
    are one unit, named x."""
    units = {}
    for f in sorted(os.listdir(os.path.join(RUNNER, room))):
        if f.endswith((".c", ".h")):
            units.setdefault(f.rsplit(".", 1)[0], []).append(f)
    return units


def unit_arrows(room, units):
    """{unit: {other unit: why}}: includes of another unit's header, and
    calls of a function defined (not static) in another unit's .c."""
    code = {f: code_of(os.path.join(RUNNER, room, f)) for fs in units.values() for f in fs}
    # GNU style: the name at a line's start, its type on the line before;
    # a static function is its file's own, and a name two units define is
    # no one's (a namesake).
    defined, twice = {}, set()
    for unit, fs in units.items():
        for f in (f for f in fs if f.endswith(".c")):
            for i, line in enumerate(code[f]):
                m = re.match(r"^(\w+)\s*\(", line)
                if m and not (i > 0 and code[f][i - 1].startswith("static")):
                    if defined.get(m.group(1), unit) != unit:
                        twice.add(m.group(1))
                    defined[m.group(1)] = unit
    for name in twice:
        del defined[name]
    arrows = {unit: {} for unit in units}
    for unit, fs in units.items():
        for f in fs:
            for n, h in includes(code[f]):
                other = h.rsplit(".", 1)[0]
                if other in units and other != unit and h in units[other]:
                    arrows[unit].setdefault(other, f"{f}:{n} includes {h}")
            if not f.endswith(".c"):
                continue
            for n, line in enumerate(code[f], 1):
                for m in re.finditer(r"(?<![\w>.])(\w+)\s*\(", line):
                    other = defined.get(m.group(1))
                    if other is not None and other != unit:
                        arrows[unit].setdefault(other, f"{f}:{n} calls {m.group(1)}")
    return arrows


def circles(arrows):
    """The strongly connected parts of more than one unit (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in arrows[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for v in sorted(arrows):
        if v not in index:
            visit(v)
    return found


def check_circles():
    for room in ROOMS:
        arrows = unit_arrows(room, units_of(room))
        bad = []
        for part in circles(arrows):
            bad.append("a circle: " + ", ".join(part))
            bad += [f"  {a} -> {b}: {why}" for a in part for b, why in sorted(arrows[a].items())
                    if b in part]
        check(f"no files of {room}/ point at each other in a circle", bad)


def main():
    check_rooms()
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

    # A run's parts are their files' own (issue 40 item 2): a member of
    # RunnerRun whose type a file owns is read and written there alone;
    # the others ask through that file's header, and those files see no
    # more of the run than what it hands them.
    bad, knows = [], []
    for f in sorted(os.listdir(SERVICE)):
        if not f.endswith((".c", ".h")):
            continue
        for n, line in enumerate(code_of(os.path.join(SERVICE, f)), 1):
            for m in re.finditer(r"(->|\.)(\w+)\.\w", line):
                if m.group(2) in OWN_STATE and f not in OWN_STATE[m.group(2)]:
                    owner = ", ".join(sorted(OWN_STATE[m.group(2)]))
                    bad.append(f"{f}:{n}: {m.group(0)}... is {owner}'s")
            if f in OWN_FILES or f.replace(".h", ".c") in OWN_FILES:
                knows += [f"{f}:{n}: {m.group(0)}" for m in re.finditer(r"\bRunnerRun\b", line)]
    check("a run's output, compile state, watch and input wait are their files' alone", bad)
    check("the files of a run's parts know nothing of RunnerRun", knows)

    check_circles()

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
