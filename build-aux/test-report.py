#!/usr/bin/python3
"""build-aux/test-report.py: the closing lines of `dev.sh test`.

    test-report.py STAGES LABEL=TESTLOG...

STAGES holds one line per stage of the run, "SECONDS<TAB>NAME" (dev.sh
writes it as the stages end, and last the whole run as "total"). Each TESTLOG is a meson test log (one JSON
object per test) and LABEL names the stage it came from ("debian-12",
"asan", ...). Prints the budget (each stage's wall time, the total), the
ten slowest tests with their stage, and last the line CI reads:
"N passed, N failed, N skipped", counted from the logs alone: a skip is a
skip, a missing log counts as one failure. Exits 1 when anything failed.
"""
import json
import sys


def minutes(seconds):
    seconds = int(round(seconds))
    return f"{seconds // 60:3d} min {seconds % 60:2d} s"


def read_stages(path):
    stages = []
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                secs, _, name = line.rstrip("\n").partition("\t")
                if name:
                    stages.append((name, float(secs)))
    except FileNotFoundError:
        pass
    return stages


def read_logs(specs):
    tests, missing = [], []
    for spec in specs:
        label, _, path = spec.partition("=")
        try:
            with open(path, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except FileNotFoundError:
            missing.append(path)
            continue
        for line in lines:
            if line.strip():
                entry = json.loads(line)
                tests.append((label, entry["name"], entry["result"],
                              float(entry.get("duration") or 0)))
    return tests, missing


def main():
    stages = read_stages(sys.argv[1])
    tests, missing = read_logs(sys.argv[2:])

    # dev.sh ends the list with the whole run's wall time as "total";
    # without it, the stages' sum stands in.
    total = [secs for name, secs in stages if name == "total"]
    stages = [(name, secs) for name, secs in stages if name != "total"]
    total = total[-1] if total else sum(secs for _, secs in stages)
    print("dev.sh: the run's budget, stage by stage (wall time)")
    width = max([len(name) for name, _ in stages] + [5])
    for name, secs in stages:
        print(f"  {name:<{width}}  {minutes(secs)}")
    print(f"  {'total':<{width}}  {minutes(total)}")

    print("dev.sh: the ten slowest tests")
    for label, name, result, secs in sorted(tests, key=lambda t: -t[3])[:10]:
        print(f"  {secs:7.1f} s  {label}: {name} ({result})")

    passed = failed = skipped = 0
    for path in missing:
        failed += 1
        print(f"dev.sh: missing test log {path}", file=sys.stderr)
    for _, _, result, _ in tests:
        if result in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif result == "SKIP":
            skipped += 1
        else:
            failed += 1
    sys.stdout.flush()
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
