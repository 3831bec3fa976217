"""Results the way a notebook gives them (issue 25), through the real
runner and Debian's python3: a trailing expression's value, top-level
await, code indented as a whole. Each snippet runs cold, warm and in a
session, and the three must give the same output, exit and error, which
must also be the one expected.

Usage: test-results.py PATH-TO-SANDPAD-RUNNER [TEST-NAME...]
"""

import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from runnertest import Runner, main  # noqa: E402

RUNNER = sys.argv[1]
MODE = os.environ.get("SANDPAD_TEST_SANDBOX", "namespaces")
RUN_IDS = iter(range(1, 1 << 30))


def runner(*args):
    r = Runner(RUNNER, "--cancel-grace-ms", "300", "--sandbox", MODE, "--strict", *args)
    r.hello()
    return r


def run(r, code, **fields):
    return r.run(f"r{next(RUN_IDS)}", code, **fields)


def wait_warm(r, timeout=90):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if run(r, "pass").started.get("warm"):
            return True
        time.sleep(0.2)
    return False


def ended(r, session, timeout=60):
    """Skips to the session_ended event of a closed session."""
    skipped = []
    deadline = time.monotonic() + timeout
    try:
        while True:
            ev = r.recv(max(0.1, deadline - time.monotonic()))
            if ev is None or (ev["type"] == "session_ended" and ev["session"] == session):
                return ev
            skipped.append(ev)
    finally:
        r.pending = skipped + r.pending


def comparable(res):
    """Output, end and error, with the snippet's path (which differs
    between a run and a session) as <file>."""
    e = res.exited
    result = dict(stdout=res.stdout, stderr=res.stderr, end=e["end"],
                  exit_code=e.get("exit_code"), signal=e.get("signal"),
                  program_error=e.get("program_error"))
    text = json.dumps(result)
    path = None
    for line in res.stderr.splitlines():
        if line.startswith("  File \"") and "main.py" in line:
            path = line.split('"')[1]
            break
    if path:
        text = text.replace(path, "<file>")
    return json.loads(text)


# (name, code, stdout, exit code, stderr or None when it must be empty)
CASES = [
    ("value", "x = 4\nx\n", "4\n", 0, None),
    ("value repr", "'a' + 'b'", "'ab'\n", 0, None),
    ("value after a comment line", "[1, 2]\n# done\n", "[1, 2]\n", 0, None),
    ("semicolon", "x = 4\nx;\n", "", 0, None),
    ("semicolon and comment", "x = 4\nx;  # quiet\n", "", 0, None),
    ("semicolon inside a string", "'a;'\n", "'a;'\n", 0, None),
    ("None", "None\n", "", 0, None),
    ("print's None", "print('hi')\n", "hi\n", 0, None),
    ("statement last", "x = 4\nif x:\n    x\n", "", 0, None),
    ("value prints in order", "print(1)\n2\n", "1\n2\n", 0, None),
    ("error in the value's line",
     "x = 0\n1 / x\n", "", 1, "Traceback (most recent call last):\n"
     '  File "<file>", line 2, in <module>\n    1 / x\n    ~~^~~\n'
     "ZeroDivisionError: division by zero\n"),
    ("error before the value",
     "def f():\n    raise ValueError('boom')\n\nf()\n3\n", "", 1,
     "Traceback (most recent call last):\n"
     '  File "<file>", line 4, in <module>\n    f()\n'
     '  File "<file>", line 2, in f\n    raise ValueError(\'boom\')\n'
     "ValueError: boom\n"),
    ("syntax error", "x = (\n", "", 1,
     '  File "<file>", line 1\n    x = (\n        ^\nSyntaxError: \'(\' was never closed\n'),
    ("exit in the value", "import sys\nsys.exit(3)\n", "", 3, None),
    ("top-level await",
     "import asyncio\nawait asyncio.sleep(0)\nasync def f():\n    return 6 * 7\nawait f()\n",
     "42\n", 0, None),
    ("error under await",
     "async def f():\n    raise KeyError('k')\n\nawait f()\n", "", 1,
     "Traceback (most recent call last):\n"
     '  File "<file>", line 4, in <module>\n    await f()\n'
     '  File "<file>", line 2, in f\n    raise KeyError(\'k\')\n'
     "KeyError: 'k'\n"),
    ("asyncio.run still works",
     "import asyncio\nasync def f():\n    return 5\nprint(asyncio.run(f()))\n",
     "5\n", 0, None),
    ("indented as a whole",
     "    a = 1\n    if a:\n        print('in')\n\n    a + 1\n", "in\n2\n", 0, None),
    ("indented error keeps its line and columns",
     "    a = 0\n    print('x')\n    1 / a\n", "x\n", 1,
     "Traceback (most recent call last):\n"
     '  File "<file>", line 3, in <module>\n    1 / a\n    ~~^~~\n'
     "ZeroDivisionError: division by zero\n"),
    ("unevenly indented stays an error", "  a = 1\nb = 2\n", "", 1,
     '  File "<file>", line 1\n    a = 1\nIndentationError: unexpected indent\n'),
]


def check(t, name, res, want_stdout, want_exit, want_stderr, how):
    got = comparable(res)
    t.eq((got["stdout"], got["exit_code"], got["stderr"]),
         (want_stdout, want_exit, want_stderr or ""), f"{name}: {how} gives the expected result",
         res)
    return got


def test_same_everywhere(t):
    warm, cold = runner(), runner("--no-warm")
    t.ok(wait_warm(warm), "the warm parent becomes ready")
    for i, (name, code, stdout, exit_code, stderr) in enumerate(CASES):
        c = run(cold, code)
        w = run(warm, code)
        # A session of its own per snippet, closed after (the runner caps
        # how many live at once).
        s = run(cold, code, session=f"s{i}")
        cold.send(type="session_close", session=f"s{i}")
        ended(cold, f"s{i}")
        t.ok(w.started.get("warm") is True and "warm" not in c.started,
             f"{name}: one run was warm and one cold", (w, c))
        a = check(t, name, c, stdout, exit_code, stderr, "a cold run")
        b = check(t, name, w, stdout, exit_code, stderr, "a warm run")
        d = check(t, name, s, stdout, exit_code, stderr, "a session run")
        t.eq(b, a, f"{name}: the warm run's result is the cold run's")
        t.eq(d, a, f"{name}: the session run's result is the cold run's")
    cold.close()
    warm.close()


def test_session_keeps_values(t):
    """A session's value is shown per run, and `_` holds the last one."""
    r = runner()
    first = run(r, "x = 20\nx + 1\n", session="v")
    second = run(r, "_ * 2\n", session="v")
    third = run(r, "import asyncio\nawait asyncio.sleep(0)\nx\n", session="v")
    fourth = run(r, "await asyncio.sleep(0)\nx + 2\n", session="v")
    t.eq((first.stdout, second.stdout, third.stdout, fourth.stdout),
         ("21\n", "42\n", "20\n", "22\n"),
         "values show in each run, `_` is the last one, await works in two runs", fourth)
    r.close()


TESTS = {f.__name__[5:]: f for f in [test_same_everywhere, test_session_keeps_values]}

if __name__ == "__main__":
    main([TESTS[n] for n in (sys.argv[2:] or list(TESTS))])
