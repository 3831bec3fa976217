#!/usr/bin/env python3
"""src/runner/sandbox/AUDIT.md matches the tree (issue 40): every source
file of the boundary's directory is named in it, every file it names
there exists, and its line counts ("About N lines of C (M with the
headers)") are within a tenth of what the files hold, so an auditor's
reading list and time estimate do not drift from the code."""

import os
import re
import sys

SANDBOX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "runner",
                       "sandbox")


def lines_of(names):
    total = 0
    for name in names:
        with open(os.path.join(SANDBOX, name), encoding="utf-8") as f:
            total += sum(1 for _ in f)
    return total


def main():
    with open(os.path.join(SANDBOX, "AUDIT.md"), encoding="utf-8") as f:
        audit = f.read()
    files = sorted(f for f in os.listdir(SANDBOX) if f.endswith((".c", ".h")))
    named = set(re.findall(r"`([\w.-]+\.[ch])`", audit))
    tests = []
    tests.append(("every file of sandbox/ is named in AUDIT.md",
                  [f"{f} is not named" for f in files if f not in named]))
    # Section 1 is the boundary's own reading list: each name there is a
    # file of this directory.
    part = audit.split("## 1.", 1)[-1].split("\n## ", 1)[0]
    local = set(re.findall(r"`([\w.-]+\.[ch])`", part))
    tests.append(("every sandbox/ file AUDIT.md names exists",
                  [f"{n} is named but not in sandbox/" for n in sorted(local)
                   if n not in files and not n.startswith("runner-seccomp-table")]))
    m = re.search(r"About ([\d,]+) lines of C \(([\d,]+) with the headers\)", audit)
    problems = []
    if m is None:
        problems.append("no 'About N lines of C (M with the headers)' in AUDIT.md")
    else:
        said_c, said_all = (int(g.replace(",", "")) for g in m.groups())
        c_lines = lines_of(f for f in files if f.endswith(".c"))
        all_lines = lines_of(files)
        for said, real, what in ((said_c, c_lines, "C"), (said_all, all_lines, "C and headers")):
            if abs(said - real) > real / 10:
                problems.append(f"AUDIT.md says {said} lines of {what}, the files hold {real}")
    tests.append(("AUDIT.md's line counts are within a tenth of the files'", problems))

    print(f"1..{len(tests)}")
    failed = 0
    for i, (name, problems) in enumerate(tests, 1):
        print(f"{'not ok' if problems else 'ok'} {i} - {name}")
        for p in problems:
            print(f"# {p}")
        failed += bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
