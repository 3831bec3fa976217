#!/usr/bin/python3
"""The engine options the three commands share (runner-options.c): each of
sandpad-runner, sandpad-run and sandpad-mcp refuses a bad value of each
shared option it takes with the same words, and takes a good one (its
--help still works after it). Usage: test-options.py RUNNER RUN MCP."""
import subprocess
import sys

# option, a bad value, the words every command says about it
BAD = [
    ("--sandbox", "nowhere", "--sandbox must be auto, namespaces or fallback"),
    ("--disk", "0", "--disk must be a whole number from 1 to 1048576"),
    ("--disk-files", "x", "--disk-files must be a whole number from 1 to 1000000"),
    ("--max-concurrent", "65", "--max-concurrent must be a whole number from 1 to 64"),
    ("--interpreter", "python=relative/python3",
     "--interpreter python=relative/python3: unknown language or not an executable "
     "absolute path"),
]
GOOD = {"--sandbox": "fallback", "--disk": "64", "--disk-files": "1000",
        "--max-concurrent": "2", "--interpreter": "python=/usr/bin/python3"}
# Which command takes which (a command without one rejects it as unknown).
TAKES = {
    "sandpad-runner": {"--sandbox", "--disk", "--disk-files", "--max-concurrent",
                       "--interpreter", "--strict", "--no-warm"},
    "sandpad-run": {"--sandbox", "--disk", "--disk-files", "--interpreter", "--strict"},
    "sandpad-mcp": {"--sandbox", "--disk", "--max-concurrent", "--interpreter", "--strict",
                    "--no-warm"},
}


def run(cmd, *args):
    return subprocess.run([cmd, *args], stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=30)


def main():
    commands = dict(zip(("sandpad-runner", "sandpad-run", "sandpad-mcp"), sys.argv[1:4]))
    checks = []
    for name, path in commands.items():
        for option, bad, words in BAD:
            if option not in TAKES[name]:
                continue
            res = run(path, f"{option}={bad}", "--help")
            checks.append((res.returncode != 0 and words in res.stderr,
                           f"{name} {option}={bad}: refused, saying {words!r}",
                           res.stderr.strip()[-300:]))
            res = run(path, f"{option}={GOOD[option]}", "--help")
            checks.append((res.returncode == 0 and option in res.stdout,
                           f"{name} {option}={GOOD[option]}: taken (and --help lists it)",
                           res.stderr.strip()[-300:]))
        for flag in ("--strict", "--no-warm"):
            if flag in TAKES[name]:
                res = run(path, flag, "--help")
                checks.append((res.returncode == 0, f"{name} {flag}: taken",
                               res.stderr.strip()[-300:]))
    print(f"1..{len(checks)}")
    for i, (ok, what, err) in enumerate(checks, 1):
        print(f"{'ok' if ok else 'not ok'} {i} - {what}")
        if not ok:
            print("# stderr: " + err.replace("\n", "\n# "))
    return 0 if all(c[0] for c in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
