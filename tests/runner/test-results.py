"""Results the way a notebook gives them (issue 25), through the real
runner and Debian's python3: a trailing expression's value, top-level
await, code indented as a whole. Each snippet runs cold, warm and in a
session, and the three must give the same output, exit and error, which
must also be the one expected.

Usage: test-results.py PATH-TO-SANDPAD-RUNNER [TEST-NAME...]
"""

import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from runnertest import Runner, main  # noqa: E402

RUNNER = sys.argv[1]
MODE = os.environ.get("SANDPAD_TEST_SANDBOX", "namespaces")
RUN_IDS = iter(range(1, 1 << 30))
HAVE_PANDAS = subprocess.run(["/usr/bin/python3", "-c", "import pandas"],
                             capture_output=True).returncode == 0


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


def transcript(res):
    """stdout with each display in its place, as "=> " and its text/plain
    (and the other MIME types it has, in brackets)."""
    text = ""
    for ev in res.events:
        if ev["type"] == "output" and ev["stream"] == "stdout":
            text += ev["data"]
        elif ev["type"] == "display":
            others = sorted(k for k in ev["data"] if k != "text/plain")
            text += "=> " + ev["data"].get("text/plain", "")
            text += (" [" + " ".join(others) + "]" if others else "") + "\n"
    return text


def comparable(res):
    """Output, end and error, with the snippet's path (which differs
    between a run and a session) as <file>."""
    e = res.exited
    result = dict(stdout=transcript(res), stderr=res.stderr, end=e["end"],
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
    ("value", "x = 4\nx\n", "=> 4\n", 0, None),
    ("value repr", "'a' + 'b'", "=> 'ab'\n", 0, None),
    ("value after a comment line", "[1, 2]\n# done\n", "=> [1, 2]\n", 0, None),
    ("semicolon", "x = 4\nx;\n", "", 0, None),
    ("semicolon and comment", "x = 4\nx;  # quiet\n", "", 0, None),
    ("semicolon inside a string", "'a;'\n", "=> 'a;'\n", 0, None),
    ("None", "None\n", "", 0, None),
    ("print's None", "print('hi')\n", "hi\n", 0, None),
    ("statement last", "x = 4\nif x:\n    x\n", "", 0, None),
    ("value prints in order", "print(1)\n2\n", "1\n=> 2\n", 0, None),
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
     "=> 42\n", 0, None),
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
     "    a = 1\n    if a:\n        print('in')\n\n    a + 1\n", "in\n=> 2\n", 0, None),
    ("indented error keeps its line and columns",
     "    a = 0\n    print('x')\n    1 / a\n", "x\n", 1,
     "Traceback (most recent call last):\n"
     '  File "<file>", line 3, in <module>\n    1 / a\n    ~~^~~\n'
     "ZeroDivisionError: division by zero\n"),
    ("display() in order with prints",
     "print('a')\ndisplay(1, 'b')\nprint('c')\n", "a\n=> 1\n=> 'b'\nc\n", 0, None),
    ("display() returns None", "x = display(3)\nprint(x)\n", "=> 3\nNone\n", 0, None),
    ("a raw bundle", "display({'text/plain': 'hi', 'text/html': '<b>hi</b>'}, raw=True)\n",
     "=> hi [text/html]\n", 0, None),
    ("the display protocol",
     "class R:\n    def __repr__(self): return 'R'\n"
     "    def _repr_html_(self): return '<i>R</i>'\n"
     "    def _repr_markdown_(self): return '*R*'\n"
     "    def _repr_svg_(self): return '<svg/>'\n"
     "    def _repr_png_(self): return b'\\x89PNG'\n"
     "    def _repr_jpeg_(self): return None\n"
     "    def _repr_json_(self): return {'r': [1]}\n"
     "R()\n",
     "=> R [application/json image/png image/svg+xml text/html text/markdown]\n", 0, None),
    ("_repr_mimebundle_ and include",
     "class M:\n    def _repr_mimebundle_(self, include=None, exclude=None):\n"
     "        return {'text/plain': 'M!', 'text/html': '<p>M</p>', 'text/csv': 'a,b'}, {}\n"
     "display(M())\ndisplay(M(), include=['text/csv'])\n",
     "=> M! [text/csv text/html]\n=> M! [text/csv]\n", 0, None),
    ("_repr_pretty_",
     "class P:\n    def _repr_pretty_(self, p, cycle):\n"
     "        with p.group(2, 'P(', ')'):\n            p.text('x=')\n"
     "            p.pretty([1, 2])\n            p.breakable()\n            p.text('!')\n"
     "P()\n", "=> P(x=[1, 2] !)\n", 0, None),
    ("_repr_latex_ renders to PNG",
     "class L:\n    def __repr__(self): return 'L'\n"
     "    def _repr_latex_(self): return r'$\\frac{a}{b}$'\nL()\n",
     "=> L [application/vnd.sandpad.png-scale+json image/png text/latex]\n", 0, None),
    # Issue 42 item 1: a snippet written in Jupyter imports IPython.display.
    ("IPython.display's objects, with no IPython installed",
     "from IPython.display import display, Math, Latex, HTML, Markdown, JSON, SVG, Image\n"
     "import IPython\n"
     "display(Math(r'x^2'))\ndisplay(HTML('<b>b</b>'), Markdown('*m*'), JSON({'a': 1}))\n"
     "display(SVG('<svg xmlns=\"http://www.w3.org/2000/svg\"/>'))\n"
     "from PIL import Image as P\nimport tempfile\nf = tempfile.mktemp(suffix='.png')\n"
     "P.new('RGB', (3, 2)).save(f)\ndisplay(Image(filename=f))\n"
     "IPython.display.display(Latex('$z$'))\nHTML('<i>last</i>')\n",
     "=> <IPython.core.display.Math object> [application/vnd.sandpad.png-scale+json image/png text/latex]\n"
     "=> <IPython.core.display.HTML object> [text/html]\n"
     "=> <IPython.core.display.Markdown object> [text/markdown]\n"
     "=> <IPython.core.display.JSON object> [application/json]\n"
     "=> <IPython.core.display.SVG object> [image/svg+xml]\n"
     "=> <IPython.core.display.Image object> [image/png]\n"
     "=> <IPython.core.display.Latex object> [application/vnd.sandpad.png-scale+json image/png text/latex]\n"
     "=> <IPython.core.display.HTML object> [text/html]\n", 0, None),
    # matplotlib 3.9 and later read IPython.version_info before each figure
    # once IPython is imported: without it neither charts nor formulas drew.
    ("a chart after IPython.display is imported",
     "import IPython.display\nimport matplotlib.pyplot as plt\nfig, ax = plt.subplots()\n"
     "ax.plot([1, 2])\nprint(len(fig.axes))\nplt.close(fig)\n",
     "1\n", 0, None),
    # Control: an IPython the snippet can import is the one it gets.
    ("an installed IPython wins over the built-in display names",
     "import os, sys, tempfile\nd = tempfile.mkdtemp()\nos.mkdir(d + '/IPython')\n"
     "open(d + '/IPython/__init__.py', 'w').write('REAL = 1\\n')\nsys.path.insert(0, d)\n"
     "saved = {k: sys.modules.pop(k) for k in list(sys.modules) if k.startswith('IPython')}\n"
     "import IPython\nprint(IPython.REAL)\nsys.path.remove(d)\n"
     "for k in [k for k in sys.modules if k.startswith('IPython')]:\n    del sys.modules[k]\n"
     "sys.modules.update(saved)\n",
     "1\n", 0, None),
    ("a numpy array as its repr", "import numpy as np\nnp.arange(3)\n",
     "=> array([0, 1, 2])\n", 0, None),
    ("a PIL image as PNG",
     "from PIL import Image\nim = Image.new('RGB', (4, 4))\nim\n", None, 0, None),
    ("PIL's Image.show() is a display",
     "from PIL import Image\nprint('a')\nImage.new('RGB', (5, 3)).show()\nprint('b')\n",
     "a\n=> <PIL.Image.Image image mode=RGB size=5x3> [image/png]\nb\n", 0, None),
    ("a failing repr is the snippet's error",
     "class B:\n    def __repr__(self):\n        raise ValueError('no repr')\nB()\n", "", 1,
     "Traceback (most recent call last):\n"
     '  File "<file>", line 3, in __repr__\n    raise ValueError(\'no repr\')\n'
     "ValueError: no repr\n"),
    ("a marker with another token stays text",
     "print('\\x1b]sandpad-display;0123;{\"text/plain\":\"x\"}\\x07')\n",
     '\x1b]sandpad-display;0123;{"text/plain":"x"}\x07\n', 0, None),
    ("a DataFrame as a table",
     "import pandas as pd\npd.DataFrame({'a': [1, 2], 'b': ['x', 'y']})\n",
     "=>    a  b\n0  1  x\n1  2  y [application/vnd.dataresource+json text/html]\n", 0, None),
    ("unevenly indented stays an error", "  a = 1\nb = 2\n", "", 1,
     '  File "<file>", line 1\n    a = 1\nIndentationError: unexpected indent\n'),
    # Issue 42 item 1: IPython's shell syntax, only where Python rejects
    # the snippet as written; lines stay the snippet's.
    ("!cmd and x = !cmd, with the snippet's variables",
     "x = 3\n!echo a {x} $x\nout = !printf 'b\\nc\\n'\nprint(out, _exit_code)\n"
     "!exit 4\nprint(_exit_code)\n",
     "a 3 3\n['b', 'c'] 0\n4\n", 0, None),
    ("a command whose $name is not a variable is the shell's",
     "!X=1; echo {1 + 1} $X\n", "{1 + 1} 1\n", 0, None),
    ("!cmd inside a block",
     "for i in range(2):\n    !echo {i}\n", "0\n1\n", 0, None),
    ("%cd and %pwd", "%cd /\n%pwd\n", "/\n=> '/'\n", 0, None),
    ("%env", "%env SANDPAD_X=1\nimport os\nprint(os.environ['SANDPAD_X'])\n%env SANDPAD_X\n",
     "env: SANDPAD_X=1\n1\n=> '1'\n", 0, None),
    ("%matplotlib inline is nothing to do", "%matplotlib inline\nprint(2)\n", "2\n", 0, None),
    ("%%bash", "%%bash\necho $((1 + 2))\n", "3\n", 0, None),
    ("%%bash failing is the snippet's error", "%%bash\nexit 3\n", "", 1,
     'Traceback (most recent call last):\n  File "<file>", line 1, in <module>\n'
     "    %%bash\nsubprocess.CalledProcessError: Command 'bash' returned non-zero exit "
     "status 3.\n"),
    ("%%writefile", "%%writefile w.txt\nhi\n", "Writing w.txt\n",
     0, None),
    ("%%html", "%%html\n<b>x</b>\n", "=> <IPython.core.display.HTML object> [text/html]\n",
     0, None),
    ("%%latex", "%%latex\n$x^2$\n",
     "=> <IPython.core.display.Latex object> "
     "[application/vnd.sandpad.png-scale+json image/png text/latex]\n", 0, None),
    ("an unknown magic", "print(1)\n%nosuch x\n", "1\n", 1,
     'Traceback (most recent call last):\n  File "<file>", line 2, in <module>\n'
     "    %nosuch x\nUsageError: Line magic function `%nosuch` not found.\n"),
    ("%pip says how packages are installed", "%pip install sandpad-no-such-pkg\n", "", 1,
     'Traceback (most recent call last):\n  File "<file>", line 1, in <module>\n'
     "    %pip install sandpad-no-such-pkg\nUsageError: %pip: sandpad-no-such-pkg not "
     "installed here, and a run cannot install packages (it has no network); install them "
     "with the Packages dialog, `sandpad-run --install`, or the MCP tool install_packages, "
     "then run again\n"),
    ("%pip install of what the run has goes on, as pip's -q", "%pip install -q numpy\n"
     "import numpy\nprint('ok')\n", "ok\n", 0, None),
    ("%pip of another kind says how", "%pip list\n", "", 1,
     'Traceback (most recent call last):\n  File "<file>", line 1, in <module>\n'
     "    %pip list\nUsageError: %pip: a run cannot install packages (it has no "
     "network); install them with the Packages dialog, `sandpad-run --install`, or the "
     "MCP tool install_packages, then run again\n"),
    ("an error after a magic is at its own line", "!true\nx = 1\n1 / 0\n", "", 1,
     'Traceback (most recent call last):\n  File "<file>", line 3, in <module>\n'
     "    1 / 0\nZeroDivisionError: division by zero\n"),
    ("a syntax error beside a magic is the snippet's", "!true\nx = = 1\n", "", 1,
     '  File "<file>", line 2\n    x = = 1\nSyntaxError: invalid syntax\n'),
    # Controls: Python that takes the text runs it as written.
    ("a % starting a line inside brackets is Python's", "a = (7\n% 4)\nprint(a)\n",
     "3\n", 0, None),
    ("a ! inside a string is text", "print('''\n!echo no\n''')\n", "\n!echo no\n\n", 0,
     None),
]


def without_carets(text):
    """A traceback without its lines of ~ and ^ under the failing code:
    which expressions get them changes between Python versions (3.13 marks
    a whole call such as f() that 3.11 leaves bare). The warm and session
    runs are still compared with the cold run's text as it is."""
    return "".join(line for line in text.splitlines(True)
                   if not re.fullmatch(r"\s*[~^]+\s*", line))


def check(t, name, res, want_stdout, want_exit, want_stderr, how):
    got = comparable(res)
    if want_stdout is None:  # only its kinds: the text has an address
        want_stdout = got["stdout"] if "[image/png]" in got["stdout"] else "[image/png]"
    t.eq((got["stdout"], got["exit_code"], without_carets(got["stderr"])),
         (want_stdout, want_exit, without_carets(want_stderr or "")),
         f"{name}: {how} gives the expected result", res)
    return got


def test_same_everywhere(t):
    warm, cold = runner(), runner("--no-warm")
    t.ok(wait_warm(warm), "the warm parent becomes ready")
    for i, (name, code, stdout, exit_code, stderr) in enumerate(CASES):
        if "pandas" in code and not HAVE_PANDAS:
            t.skip(f"{name}: python3-pandas is not installed")
            continue
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
    t.eq(tuple(transcript(res) for res in (first, second, third, fourth)),
         ("=> 21\n", "=> 42\n", "=> 20\n", "=> 22\n"),
         "values show in each run, `_` is the last one, await works in two runs", fourth)
    r.close()


TIMES = r"CPU times: user [\d.]+ (s|ms|µs|ns), sys: [\d.]+ (s|ms|µs|ns), " \
        r"total: [\d.]+ (s|ms|µs|ns)\nWall time: [\d.]+ (s|ms|µs|ns)\n"


def test_magic_times(t):
    """%time, %%time and %timeit (issue 42 item 1) print what IPython
    prints, their figures the machine's, in a cold, a warm and a session
    run; the value of what was timed follows the times."""
    r, cold = runner(), runner("--no-warm")
    t.ok(wait_warm(r), "the warm parent becomes ready")
    cases = [
        ("%time", "%time sum(range(10))\n", TIMES + r"=> 45\n"),
        ("%time of a statement", "%time x = 5\nprint(x)\n", TIMES + r"5\n"),
        ("%%time", "%%time\nx = 2\nx * 3\n", TIMES + r"=> 6\n"),
        ("%timeit", "%timeit -n 10 -r 2 x = 1\n",
         r"[\d.]+ (s|ms|µs|ns) ± [\d.]+ (s|ms|µs|ns) per loop "
         r"\(mean ± std\. dev\. of 2 runs, 10 loops each\)\n"),
    ]
    for name, code, pattern in cases:
        for how, runs_on, fields in (("cold", cold, {}), ("warm", r, {}),
                                     ("session", cold, {"session": "times"})):
            res = run(runs_on, code, **fields)
            t.ok(re.fullmatch(pattern, transcript(res)) is not None
                 and res.exited.get("exit_code") == 0
                 and (how != "warm") == ("warm" not in res.started),
                 f"{name}: {how} prints IPython's figures", (transcript(res), res.stderr))
    # An error in what is timed is at its own line, the times still shown.
    res = run(r, "x = 1\n%time 1 / 0\n")
    t.ok(re.fullmatch(TIMES, transcript(res)) is not None
         and 'line 2, in <module>\n    %time 1 / 0\n' in res.stderr
         and res.stderr.rstrip().endswith("ZeroDivisionError: division by zero"),
         "an error in %time's code names the snippet's line", (transcript(res), res.stderr))
    r.close()
    cold.close()


CHART = "application/vnd.sandpad.chart+json"


def charts(res):
    return [ev["data"] for ev in res.events if ev["type"] == "display" and CHART in ev["data"]]


def test_chart_data(t):
    """A matplotlib chart also comes back as data (issue 42 item 5, E2B's
    charts): its kind, title, axis labels and scales, and its bars, lines,
    points, slices and boxes, beside its plot file; the same in a cold, a
    warm and a session run."""
    code = ("import matplotlib.pyplot as plt\n"
            "fig, ax = plt.subplots()\n"
            "ax.bar(['a', 'b', 'c'], [3, 1, 2], label='sales')\n"
            "ax.set_title('Sales'); ax.set_xlabel('shop'); ax.set_ylabel('n')\n"
            "plt.show()\n"
            "plt.plot([1, 2, 3], [4, 5, 6], label='up')\n"
            "plt.yscale('log')\n"
            "plt.show()\n"
            "plt.scatter([1, 2], [3, 4])\n"
            "plt.show()\n"
            "plt.pie([1, 3], labels=['x', 'y'])\n"
            "plt.show()\n"
            "plt.boxplot([[1, 2, 3, 4, 100]])\n"
            "plt.show()\n"
            "fig, (a, b) = plt.subplots(1, 2)\n"
            "fig.suptitle('two')\n"
            "a.plot([1, 2]); b.barh(['u', 'v'], [1, 2])\n"
            "plt.show()\n"
            "fig, ax = plt.subplots()\n"
            "ax.plot([1, 2])\n"
            "fig.savefig('mine.png')\n")
    r, cold = runner(), runner("--no-warm")
    t.ok(wait_warm(r), "the warm parent becomes ready")
    got = {}
    for how, runs_on, fields in (("cold", cold, {}), ("warm", r, {}),
                                 ("session", cold, {"session": "charts"})):
        res = run(runs_on, code, **fields)
        got[how] = charts(res)
        t.eq((res.exited.get("exit_code"), len(got[how])), (0, 6),
             f"{how}: each plt.show() chart comes as data, not the figure it saved itself",
             (res.stderr, [d.get("text/plain") for d in got[how]]))
    first = got["cold"]
    if len(first) == 6:
        bar, line, scatter, pie, box, two = (d[CHART] for d in first)
        t.eq([d["text/plain"] for d in first],
             ["<bar chart 'Sales', plot-1.png>", "<line chart, plot-2.png>",
              "<scatter chart, plot-3.png>", "<pie chart, plot-4.png>",
              "<box_and_whisker chart, plot-5.png>", "<superchart chart 'two', plot-6.png>"],
             "each says its kind, title and file as text")
        t.eq((bar["title"], bar["x_label"], bar["y_label"], bar["elements"]),
             ("Sales", "shop", "n",
              [{"type": "bar", "label": k, "group": "sales", "value": v}
               for k, v in (("a", 3.0), ("b", 1.0), ("c", 2.0))]),
             "a bar chart: its title, labels and bars by name and value", bar)
        t.eq((line["y_scale"], line["elements"]),
             ("log", [{"type": "line", "label": "up",
                       "points": [[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]}]),
             "a line: its points and its axis' scale", line)
        t.eq(scatter["elements"], [{"type": "scatter", "label": None,
                                    "points": [[1.0, 3.0], [2.0, 4.0]]}],
             "scatter points", scatter)
        t.eq([(e["label"], e["angle"]) for e in pie["elements"]], [("x", 90.0), ("y", 270.0)],
             "pie slices: label and angle", pie)
        t.eq([(e["min"], e["first_quartile"], e["median"], e["third_quartile"], e["max"],
               e["outliers"]) for e in box["elements"]], [(1.0, 2.0, 3.0, 4.0, 4.0, [100.0])],
             "a box plot: its quartiles, whiskers and outliers, not its lines", box)
        t.eq((two["type"], two["title"], [c["type"] for c in two["elements"]],
              [e["label"] for e in two["elements"][1]["elements"]]),
             ("superchart", "two", ["line", "bar"], ["u", "v"]),
             "two axes: a chart of each, a horizontal bar's names", two)
    t.eq(got["warm"], first, "the warm run's charts are the cold run's")
    t.eq(got["session"], first, "the session run's charts are the cold run's")
    r.close()
    cold.close()


MARK = ("import os, sys, time\n"
        "token = os.environ['SANDPAD_DISPLAY_TOKEN']\n"
        "def out(b):\n    os.write(1, b)\n    time.sleep(0.05)\n"
        "head = ('\\x1b]sandpad-display;' + token + ';').encode()\n")


def test_display_channel(t):
    """The marker a program writes (runner-display.h): split across reads
    it is still one display; one that does not decode, or passes the size
    cap, arrives as the text it was; a request cannot set the token."""
    r = runner()
    res = run(r, MARK + "out(b'a' + head[:5])\nout(head[5:] + b'{\"text/plain\":')\n"
              "out(b'\"x\"}\\x07b\\n')\n")
    t.eq(transcript(res), "a=> x\nb\n", "a marker split across three writes is one display", res)
    res = run(r, MARK + "out(b'<' + head + b'{bad}\\x07>\\n')\nprint(token)\n")
    token = res.stdout.splitlines()[-1] if res.stdout else ""
    t.eq((transcript(res), [e for e in res.events if e["type"] == "display"]),
         (f"<\x1b]sandpad-display;{token};{{bad}}\x07>\n{token}\n", []),
         "a marker that does not decode is output as written", res)
    res = run(r, MARK + "out(head + b'{\"text/plain\":\"' + b'y' * (3 << 20) + b'\"}\\x07')\n",
              output_limit=8 << 20)
    t.ok(len(res.stdout) > 3 << 20 and res.stdout.endswith('"}\x07')
         and not any(e["type"] == "display" for e in res.events),
         "one past the 3 MiB cap is output as written", repr(res.stdout[:80]))
    res = run(r, "import os\nprint(os.environ['SANDPAD_DISPLAY_TOKEN'])\n42\n",
              env={"SANDPAD_DISPLAY_TOKEN": "mine"})
    t.ok(res.stdout.strip() not in ("", "mine") and transcript(res).endswith("=> 42\n"),
         "a request's env cannot set the token", res)
    other = run(r, "import os\nprint(os.environ['SANDPAD_DISPLAY_TOKEN'])\n")
    t.ok(len(other.stdout.strip()) == 32 and other.stdout != res.stdout,
         "each run has its own random token", (res.stdout, other.stdout))
    r.close()


def test_lines(t):
    """Output a line at a time (issue 25): a line written in pieces comes as
    one event, a partial line (a prompt) still comes within moments on its
    own, and the other stream's text or a display never overtakes it."""
    # The pieces come 5 ms apart; a hold of 5 s keeps them one line on a
    # machine too loaded to wake a sleeper within the default 30 ms.
    r = runner("--line-hold-ms", "5000")
    pieces = ("import sys, time\nfor p in ('a', 'b', 'c\\n'):\n"
              "    sys.stdout.write(p)\n    sys.stdout.flush()\n    time.sleep(0.005)\n")
    for how, fields in (("cold", {}), ("session", {"session": "lines"})):
        res = run(r, pieces, **fields)
        outs = [e["data"] for e in res.events if e["type"] == "output"]
        t.eq(outs, ["abc\n"], f"{how}: a line written in three pieces is one event", res)
    r.close()
    r = runner()
    res = run(r, "import sys, time\nprint('Name: ', end='', flush=True)\ntime.sleep(0.5)\n"
              "print('x', file=sys.stderr, flush=True)\nprint('done')\n")
    outs = [(e["stream"], e["data"], e["t_ms"]) for e in res.events if e["type"] == "output"]
    t.eq([o[:2] for o in outs], [("stdout", "Name: "), ("stderr", "x\n"), ("stdout", "done\n")],
         "a prompt comes on its own, before what follows it", res)
    t.ok(len(outs) == 3 and outs[1][2] - outs[0][2] >= 300,
         "the prompt did not wait for the rest of its line", outs)
    res = run(r, "print('p', end='')\ndisplay(1)\nprint('q')\n")
    kinds = [(e["type"], e.get("data")) for e in res.events if e["type"] in ("output", "display")]
    t.eq(kinds, [("output", "p"), ("display", {"text/plain": "1"}), ("output", "q\n")],
         "a display does not overtake a partial line", res)
    r.close()


TABLE_MIME = "application/vnd.dataresource+json"
TABLE_CODE = (
    "import pandas as pd, numpy as np\n"
    "big = pd.DataFrame({'u': np.array([2**64 - 1, 1], dtype=np.uint64), 'i': [10**30, 1],\n"
    "                    'f': [float('inf'), float('nan')], 's': ['<b>x</b>', None],\n"
    "                    'd': pd.to_datetime(['2020-01-01', None])})\n"
    "display(big)\n"
    "display({'application/json': {'nan': float('nan'), 'big': 2**70}, 'text/plain': 'j'},"
    " raw=True)\n"
    "pd.DataFrame({'n': range(1500), 'sq': [i * i for i in range(1500)]})\n")


def tables(res):
    """Each display's JSON entries (a table, application/json), in order."""
    return [{k: v for k, v in ev["data"].items() if k in (TABLE_MIME, "application/json")}
            for ev in res.events if ev["type"] == "display"]


def test_table_form(t):
    """A DataFrame's structured form (application/vnd.dataresource+json)
    and other JSON results arrive whole whatever the values: integers past
    64 bits as their text, NaN and infinities as null, where they once made
    the whole display fail to decode and show as the marker's raw text; a
    long frame as its first 1,000 rows and the count. Cold, warm and
    session runs give the same."""
    if not HAVE_PANDAS:
        t.skip("python3-pandas is not installed")
        return
    warm, cold = runner(), runner("--no-warm")
    t.ok(wait_warm(warm), "the warm parent becomes ready")
    c = run(cold, TABLE_CODE)
    w = run(warm, TABLE_CODE)
    s = run(cold, TABLE_CODE, session="table")
    t.ok(w.started.get("warm") is True and "warm" not in c.started, "one run warm, one cold", w)
    got = tables(c)
    t.eq((c.stdout, len(got)), ("", 3), "three displays, no marker left as text", c)
    if len(got) == 3:
        big = got[0].get(TABLE_MIME, {})
        t.eq([f["name"] for f in big.get("schema", {}).get("fields", [])],
             ["index", "u", "i", "f", "s", "d"], "the big frame's schema", big)
        t.eq(big.get("data"), [
            {"index": 0, "u": "18446744073709551615", "i": "1000000000000000000000000000000",
             "f": None, "s": "<b>x</b>", "d": "2020-01-01T00:00:00.000"},
            {"index": 1, "u": 1, "i": 1, "f": None, "s": None, "d": None}],
            "past 64 bits as text, inf and NaN as null", big)
        t.eq(got[1], {"application/json": {"nan": None, "big": "1180591620717411303424"}},
             "a raw application/json bundle made safe the same way", got[1])
        long = got[2].get(TABLE_MIME, {})
        t.eq((len(long.get("data", [])), long.get("total_rows"), long.get("data", [{}])[-1]),
             (1000, 1500, {"index": 999, "n": 999, "sq": 999 * 999}),
             "a long frame: its first 1,000 rows and the count", long.get("total_rows"))
    t.eq(tables(w), got, "the warm run's tables are the cold run's", w)
    t.eq(tables(s), got, "the session run's tables are the cold run's", s)
    cold.close()
    warm.close()


TESTS = {f.__name__[5:]: f for f in [test_same_everywhere, test_session_keeps_values,
                                     test_magic_times, test_chart_data,
                                     test_display_channel, test_lines, test_table_form]}

if __name__ == "__main__":
    main([TESTS[n] for n in (sys.argv[2:] or list(TESTS))])
