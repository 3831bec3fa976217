#!/usr/bin/env python3
"""No struct's state is shared by files of two rooms (issue 40): a file
under src/runner/ reads or writes a field only of a struct defined in its
own room, unless the struct is one of the interfaces below, values a call
takes or gives back (a request, a report, a row of a table, a setting),
each named with why it may cross. Any other struct of a room is that
room's state, and the rooms above ask its functions.

Exact, not a pattern: clang's syntax tree of every source of the runner
(the build's own compile commands), each member access resolved to the
field it names and the struct that declares it. Skips where clang or the
compile commands are missing."""

import concurrent.futures
import json
import os
import shlex
import shutil
import subprocess
import sys

# Structs that cross rooms, and why they may.
INTERFACES = {
    "Buf": "a byte buffer, sandbox/runner-util.h's plain type",
    "RunnerDirId": "a directory's device and inode, a value",
    "RunnerSandboxPlan": "the boundary's input: the plan the engine launches with",
    "RunnerLimits": "the plan's limits, part of it",
    "RunnerSandboxCaps": "what the kernel allows, the probe's answer",
    "RunnerPlanStrings": "what a made plan points into, given back",
    "RunnerSpawnSpec": "runner_spawn's request",
    "RunnerReport": "the run init's report of the program's end",
    "RunnerSeccompPolicy": "which filter to compile, a request",
    "RunnerConfig": "the engine's settings, filled by the commands",
    "RunnerSink": "the callbacks a command gives the engine for its events",
    "RunnerPathPolicy": "the directories a runner allows, settings",
    "RunnerLanguage": "a row of the language table, read-only once probed",
    "RunnerCompiler": "a compiled language's part of its row",
    "RunnerEnv": "a checked environment, a value",
    "RunnerUsage": "a file walk's answer",
    "RunnerTreeUsage": "the tree watch's answer",
    "RunnerInstallRequest": "an install's request",
    "RunnerInstallPolicy": "an install's policy, part of its request",
    "RunnerInstallFile": "what an install checked, given back",
    "RunnerListenOptions": "the resident runner's settings",
    "RunnerInputFile": "a run's input file, part of its options",
    "RunnerRunOptions": "a run's options beside its request",
    "RunnerWarmConfig": "the warm pool's settings",
}

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.normpath(os.path.join(HERE, "..", "..", "src", "runner"))


def room_of(path):
    rel = os.path.relpath(path, RUNNER)
    return rel.split(os.sep)[0] if os.sep in rel else "."


def clang_args(entry):
    """The compile command without what makes an object."""
    args, skip = [], False
    for a in shlex.split(entry["command"])[1:]:
        if skip:
            skip = False
        elif a in ("-o", "-MF", "-MQ"):
            skip = True
        elif a == "-c" or a == "-MD" or a.startswith("-W") or a.startswith("-fdiagnostics"):
            pass
        elif not a.endswith(".c"):
            args.append(a)
    return args


def accesses(clang, entry, path):
    """{(struct, field, the struct's file)} this file reads or writes."""
    p = subprocess.run([clang, *clang_args(entry), "-w", "-fsyntax-only", "-Xclang",
                        "-ast-dump=json", path], cwd=entry["directory"], capture_output=True,
                       text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{path}: clang failed: {p.stderr[:400]}")
    ast = json.loads(p.stdout)
    field_of, record_name, record_file = {}, {}, {}

    def decls(node, record, where):
        loc = node.get("loc", {})
        where = loc.get("file", where) if isinstance(loc, dict) else where
        kind = node.get("kind")
        if kind == "RecordDecl":
            record = node["id"]
            record_file[record] = where
            if node.get("name"):
                record_name[record] = node["name"]
        elif kind == "FieldDecl" and record is not None:
            field_of[node["id"]] = (record, node.get("name"))
        elif kind == "TypedefDecl":
            for inner in node.get("inner", []):
                owned = inner.get("ownedTagDecl", {}).get("id")
                if owned is not None:
                    record_name.setdefault(owned, node["name"])
        for child in node.get("inner", []) or []:
            where = decls(child, record if kind != "TranslationUnitDecl" else None, where)
            if child.get("kind") == "RecordDecl" and kind == "TranslationUnitDecl":
                pass
        return where

    decls(ast, None, None)
    found = set()

    def members(node):
        if node.get("kind") == "MemberExpr":
            ref = node.get("referencedMemberDecl")
            if ref in field_of:
                record, field = field_of[ref]
                where = record_file.get(record)
                if where is not None:
                    where = os.path.normpath(os.path.join(entry["directory"], where))
                    found.add((record_name.get(record, "(unnamed)"), field, where))
        for child in node.get("inner", []) or []:
            members(child)

    members(ast)
    return found


def main():
    if len(sys.argv) != 2:
        print("usage: test-struct-rooms.py BUILD_DIR", file=sys.stderr)
        return 2
    clang = shutil.which("clang-14") or shutil.which("clang")
    commands = os.path.join(sys.argv[1], "compile_commands.json")
    if clang is None or not os.path.exists(commands):
        print("1..0 # SKIP needs clang and the build's compile_commands.json")
        return 0
    sources = {}
    for entry in json.load(open(commands)):
        path = os.path.normpath(os.path.join(entry["directory"], entry["file"]))
        if path.startswith(RUNNER + os.sep) and path.endswith(".c"):
            sources.setdefault(path, entry)
    if not sources:
        print("not ok 1 - the compile commands name the runner's sources")
        return 1

    crossing = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        results = pool.map(lambda item: (item[0], accesses(clang, item[1], item[0])),
                           sorted(sources.items()))
        for path, found in results:
            for struct, field, where in found:
                if not where.startswith(RUNNER + os.sep):
                    continue
                if room_of(where) != room_of(path) and struct not in INTERFACES:
                    key = (struct, os.path.relpath(where, RUNNER))
                    crossing.setdefault(key, set()).add(
                        f"{os.path.relpath(path, RUNNER)}: .{field}")

    print("1..2")
    print(f"ok 1 - clang read the runner's {len(sources)} sources")
    if crossing:
        print("not ok 2 - no struct's state is shared by files of two rooms")
        for (struct, where), uses in sorted(crossing.items()):
            print(f"# {struct} ({where}) is read outside its room:")
            for u in sorted(uses)[:8]:
                print(f"#   {u}")
        return 1
    print("ok 2 - no struct's state is shared by files of two rooms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
