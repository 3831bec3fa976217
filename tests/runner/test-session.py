"""Persistent sessions through the real runner and Debian's python3: state
kept between runs, the per-run time limit, crashes, restart, close, idle
reaping, cancel, the session's memory limit, isolation between sessions and
from ordinary runs (each probe with a control showing it works), and the
requests a session refuses.

Usage: test-session.py PATH-TO-SANDPAD-RUNNER [TEST-NAME...]
"""

import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from runnertest import INTERRUPTIBLE_WAIT, Result, Runner, main  # noqa: E402

RUNNER = sys.argv[1]
MODE = os.environ.get("SANDPAD_TEST_SANDBOX", "namespaces")
MIB = 1024 * 1024


def runner(*args):
    r = Runner(RUNNER, "--sandbox", MODE, "--strict", *args)
    r.hello()
    return r


def ended(r, session, timeout=60):
    """The next session_ended event of this session (others are kept)."""
    skipped = []
    deadline = time.monotonic() + timeout
    try:
        while True:
            ev = r.recv(max(0.1, deadline - time.monotonic()))
            if ev is None:
                return None
            if ev["type"] == "session_ended" and ev["session"] == session:
                return ev
            skipped.append(ev)
    finally:
        r.pending = skipped + r.pending


def refused(r, **fields):
    """The error a refused request gets (requests without an id included)."""
    fields.setdefault("v", 1)
    r.send(**fields)
    return r.recv_type("error")


def test_state_kept(t):
    r = runner()
    first = r.run("a", "import json as j\nimport os\nx = 41\nos.mkdir('sub')\nos.chdir('sub')\n",
                  session="s")
    t.eq((first.exited["end"], first.exited.get("exit_code"), first.started.get("session"),
          first.started.get("session_new")),
         ("exited", 0, "s", True), "the first run of a session starts its interpreter", first)
    second = r.run("b", "print(x + 1, j.dumps([1]), os.path.basename(os.getcwd()))",
                   session="s")
    t.eq(second.stdout, "42 [1] sub\n",
         "the second run sees its variables, imports and working directory", second)
    t.eq(second.started.get("session_new"), None, "and says it did not start afresh", second)
    # Control: without the session, the same code has nothing to see.
    control = r.run("c", "print(x + 1)")
    t.eq(control.exited.get("program_error", {}).get("type"), "NameError",
         "control: an ordinary run does not know x", control)
    # A run's stdin is its own: the text it was given, then EOF.
    res = r.run("d", "print(input())\ntry:\n    input()\nexcept EOFError:\n    print('eof')\n",
                session="s", stdin="Ada\n")
    t.eq(res.stdout, "Ada\neof\n", "input() reads the run's own stdin, then EOF", res)
    r.send(type="run", id="e", language="python", session="s", stdin_open=True,
           code="print('got', input())")
    r.recv_type("started")
    r.send(type="stdin", id="e", data="Grace\n", eof=True)
    res = Result(r.collect("e"))
    t.eq(res.stdout, "got Grace\n", "and stdin messages reach a session run", res)
    r.close()


def test_errors_and_plots(t):
    r = runner()
    r.run("a", "open('one.txt', 'w').write('1')\nvalue = 1\n", session="s")
    res = r.run("b", "a = 1\n\nprint(undefined_name)\n", session="s", name="cell.py")
    err = res.exited.get("program_error", {})
    t.eq((res.exited.get("exit_code"), err.get("type"), err.get("line")), (1, "NameError", 3),
         "a NameError in a session run names its type and line, exit code 1", res)
    t.ok(res.stderr.startswith("Traceback (most recent call last):\n  File ")
         and "cell.py\", line 3, in <module>" in res.stderr
         and "sandpad_session" not in res.stderr,
         "the traceback is the snippet's, as in a cold run (no driver frames)", res)
    res = r.run("c", "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\n"
                     "open('two.txt', 'w').write('2')\n", session="s")
    files = {f["path"]: f for f in res.exited["files"]}
    t.eq(sorted(files), ["plot-1.png", "two.txt"],
         "a plot left open in run 3 arrives as a file, and only this run's files are listed",
         res)
    t.eq(files.get("plot-1.png", {}).get("mime"), "image/png", "the plot is a PNG", res)
    res = r.run("d", "plt.plot([3, 2, 1])\nplt.show()\nprint('after')\n", session="s")
    t.eq(([f["path"] for f in res.exited["files"]], res.stdout), (["plot-2.png"], "after\n"),
         "plt.show() in a later run saves the next plot, pyplot still imported", res)
    res = r.run("e", "x = (\n", session="s")
    err = res.exited.get("program_error", {})
    t.eq((err.get("type"), err.get("syntax")), ("SyntaxError", True),
         "a syntax error is reported as one", res)
    res = r.run("f", "import sys\nsys.exit(4)\n", session="s")
    t.eq(res.exited.get("exit_code"), 4, "sys.exit(4) is exit code 4", res)
    # A child the snippet forks ends with the snippet, as in a script, and
    # does not take over the session.
    res = r.run("fork", "import os\npid = os.fork()\nprint('child' if pid == 0 else 'parent')\n"
                        "if pid:\n    os.waitpid(pid, 0)\n", session="s")
    t.eq(sorted(res.stdout.split()), ["child", "parent"], "a forked child runs to the end", res)
    # Output is line buffered: each print is one write, so a parent's and
    # its children's lines never mix mid-line (unbuffered, about one fork in
    # two did here).
    res = r.run("forks", "import os\nfor i in range(8):\n    pid = os.fork()\n"
                         "    print('child' if pid == 0 else 'parent')\n    if pid == 0:\n"
                         "        break\n    os.waitpid(pid, 0)\n", session="s")
    t.eq(sorted(res.stdout.splitlines()), ["child"] * 8 + ["parent"] * 8,
         "eight forks in a row: every line whole", res)
    res = r.run("partial", "import sys\nprint('no newline', end='')\n"
                           "print('err', end='', file=sys.stderr)\n", session="s")
    t.eq((res.stdout, res.stderr), ("no newline", "err"),
         "a partial line is not lost when the run ends", res)
    res = r.run("g", "print(value)", session="s")
    t.eq((res.stdout, res.exited.get("session_ended")), ("1\n", None),
         "and none of that ended the session", res)
    r.close()


def test_timeout(t):
    r = runner("--cancel-grace-ms", "1000")
    r.run("a", "x = 5", session="s")
    res = r.run("b", "while True:\n    pass\n", session="s", timeout_ms=1000)
    t.eq((res.exited.get("limit"), res.exited["end"], res.exited.get("signal"),
          res.exited.get("session_ended")),
         ("time", "signaled", 2, None),
         "a run past its time is interrupted (KeyboardInterrupt), the session survives", res)
    res = r.run("c", "print(x)", session="s")
    t.eq(res.stdout, "5\n", "and keeps its state", res)
    res = r.run("d", "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n"
                     "while True:\n    time.sleep(0.01)\n", session="s", timeout_ms=1000)
    t.eq((res.exited.get("limit"), res.exited.get("session_ended")), ("time", "timeout"),
         "a run that ignores the interrupt is killed with its session, and says so", res)
    ev = ended(r, "s")
    t.eq(ev and ev.get("reason"), "timeout", "session_ended says why", ev)
    res = r.run("e", "print(x)", session="s")
    t.eq((res.started.get("session_new"), res.exited.get("program_error", {}).get("type")),
         (True, "NameError"), "the next run starts a new session, without the old state", res)
    r.close()


def test_crash(t):
    r = runner()
    cases = [
        ("os._exit", "import os\nos._exit(3)\n", ("exited", 3)),
        ("kill -9", "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n",
         ("signaled", 9)),
        ("segfault", "import ctypes\nctypes.string_at(0)\n", ("signaled", 11)),
    ]
    for i, (what, code, want) in enumerate(cases):
        r.run(f"set{i}", "x = 1", session="s")
        res = r.run(f"crash{i}", code, session="s")
        got = (res.exited["end"], res.exited.get("exit_code", res.exited.get("signal")))
        t.eq((got, res.exited.get("session_ended")), (want, "exited"),
             f"{what} ends the run as it ends the interpreter, and the session", res)
        ev = ended(r, "s")
        t.eq(ev and ev.get("reason"), "exited", f"{what}: session_ended says exited", ev)
        res = r.run(f"next{i}", "print(x)", session="s")
        t.eq((res.started.get("session_new"), res.exited.get("program_error", {}).get("type")),
             (True, "NameError"), f"{what}: the next run starts a new session", res)
    r.close()


def test_restart_close(t):
    r = runner()
    r.run("a", "x = 1", session="s")
    r.send(type="session_restart", session="s")
    ev = ended(r, "s")
    t.eq(ev and ev.get("reason"), "restart", "session_restart ends the interpreter", ev)
    res = r.run("b", "print(x)", session="s")
    t.eq((res.started.get("session_new"), res.exited.get("program_error", {}).get("type")),
         (True, "NameError"), "the next run starts afresh", res)
    r.run("c", "y = 2", session="s")
    r.send(type="session_close", session="s")
    ev = ended(r, "s")
    t.eq(ev and ev.get("reason"), "closed", "session_close ends it", ev)
    err = refused(r, type="session_close", session="s")
    t.eq(err.get("code"), "unknown_session", "a closed session is unknown", err)
    err = refused(r, type="session_restart", session="nope")
    t.eq(err.get("code"), "unknown_session", "so is one never opened", err)
    # Closing a session while it runs: the run ends with it, a queued one
    # fails without running.
    r.send(type="run", id="long", language="python", session="t",
           code="import time\nprint('go', flush=True)\ntime.sleep(60)\n")
    r.send(type="run", id="behind", language="python", session="t", code="print('never')")
    r.recv_type("output")
    r.send(type="session_close", session="t")
    long_, behind = Result(r.collect("long")), Result(r.collect("behind"))
    t.eq(long_.exited.get("session_ended"), "closed", "the running run ends with the session",
         long_)
    t.ok(behind.exited["end"] == "failed" and behind.started is None,
         "the run queued behind it fails without starting", behind)
    # Restarting while it runs: the run ends with the interpreter, the one
    # queued behind it starts a new one.
    r.send(type="run", id="r1", language="python", session="u",
           code="x = 1\nimport time\nprint('go', flush=True)\ntime.sleep(60)\n")
    r.send(type="run", id="r2", language="python", session="u", code="print('x' in globals())")
    r.recv_type("output")
    r.send(type="session_restart", session="u")
    r1, r2 = Result(r.collect("r1")), Result(r.collect("r2"))
    t.eq((r1.exited.get("session_ended"), r2.stdout, r2.started.get("session_new")),
         ("restart", "False\n", True),
         "session_restart ends the running run; the queued one starts afresh", (r1, r2))
    r.close()


def test_queue_and_cancel(t):
    r = runner()
    r.send(type="run", id="a", language="python", session="s",
           code="import time\ntime.sleep(1)\nx = 1\nprint('a done')\n")
    r.send(type="run", id="b", language="python", session="s", code="print('b sees', x)")
    a, b = Result(r.collect("a")), Result(r.collect("b"))
    t.eq((a.stdout, b.stdout), ("a done\n", "b sees 1\n"),
         "a second run for a busy session waits for the first", (a, b))
    r.send(type="run", id="c", language="python", session="s",
           code="import time\nx = 2\nprint('sleeping', flush=True)\n" + INTERRUPTIBLE_WAIT)
    r.recv_type("output")
    r.send(type="cancel", id="c")
    res = Result(r.collect("c"))
    t.eq((res.exited.get("cancelled"), res.exited.get("session_ended")), ("interrupt", None),
         "cancel interrupts the run; the session survives", res)
    res = r.run("d", "print(x)", session="s")
    t.eq(res.stdout, "2\n", "and keeps what the cancelled run set", res)
    # A run waiting behind a busy session can be cancelled before it starts.
    r.send(type="run", id="e", language="python", session="s",
           code="import time\ntime.sleep(1)\ny = 3\n")
    r.send(type="run", id="f", language="python", session="s", code="print('never')")
    r.send(type="cancel", id="f")
    f, e = Result(r.collect("f")), Result(r.collect("e"))
    t.ok(f.exited["end"] == "failed" and f.started is None and e.exited.get("exit_code") == 0,
         "a queued session run is cancelled without running; the one before it finishes",
         (f, e))
    res = r.run("g", "print(y)", session="s")
    t.eq(res.stdout, "3\n", "and the session goes on", res)
    # Past the output limit the middle is left out as in any run (issue 38):
    # the run ends by itself, and the session goes on.
    res = r.run("h", "import sys\nsys.stdout.write('x' * 100000 + '\\nend\\n')\ny = 4\n",
                session="s", output_limit=1000)
    omitted = [e for e in res.events if e["type"] == "output_omitted"]
    t.ok(res.exited.get("exit_code") == 0 and res.exited.get("limit") is None
         and res.exited.get("session_ended") is None and len(omitted) == 1
         and len(res.stdout) <= 1250 + 1024 and res.stdout.endswith("\nend\n"),
         "past the output limit a session run keeps its start and end and ends by itself", res)
    res = r.run("i", "print(y)", session="s")
    t.eq(res.stdout, "4\n", "and the session goes on with its state", res)
    r.close()


def test_idle(t):
    r = runner("--session-idle-ms", "1500")
    r.run("a", "x = 1", session="s")
    ev = ended(r, "s")
    t.eq(ev and ev.get("reason"), "idle", "an unused session is stopped after the idle time", ev)
    res = r.run("b", "print(x)", session="s")
    t.eq(res.started.get("session_new"), True, "and the next run starts a new one", res)
    r.close()


# A thread the run leaves behind keeps writing after the run ended; so does
# a run that writes the driver's own report ({"exit":0}) on fd 3 and goes
# on: both are idle sessions to the runner.
IDLE_WRITER = ("import threading, time\n"
               "def fill():\n"
               "    chunk = b'x' * (1024 * 1024)\n"
               "    for i in range({count}):\n"
               "        with open('{name}' % i, 'wb') as f:\n"
               "            f.write({data})\n"
               "        time.sleep(0.01)\n"
               "threading.Thread(target=fill, daemon=True).start()\n")
LEAVE_EARLY = ("import os\n"
               "os.write(3, b'{\"exit\": 0}')\n"
               "fill()\n")


def test_idle_caps(t):
    """Disk and entries are watched while a session is idle, as while a run
    goes: a writer left behind ends the session when it passes a cap."""
    cases = [
        ("disk", ["--disk", "64"], dict(count=200, name="big-%d.bin", data="chunk"), ""),
        ("entries", ["--disk-files", "1000"], dict(count=5000, name="f-%d", data="b''"), ""),
        ("disk, from a run that ended itself", ["--disk", "64"],
         dict(count=200, name="big-%d.bin", data="chunk"), LEAVE_EARLY),
    ]
    for what, flags, fill, tail in cases:
        r = runner(*flags)
        code = IDLE_WRITER.format(**fill)
        if tail:
            # The writer in the foreground, after the report that ends the run.
            code = code.replace("threading.Thread(target=fill, daemon=True).start()\n", "")
        res = r.run("a", code + tail, session="s", timeout_ms=30000)
        t.eq((res.exited.get("end"), res.exited.get("limit")), ("exited", None),
             f"{what}: control: the run itself ends within its caps", res)
        try:
            ev = ended(r, "s", timeout=30)
        except TimeoutError:
            ev = None
        t.eq(ev and ev.get("reason"), "limit",
             f"{what}: the idle session is ended when its writer passes the cap", ev)
        r.close()


# A thread the run leaves spinning: it counts its turns in a global the
# next run of the session can read.
SPINNER = ("import threading\n"
           "turns = [0]\n"
           "def spin():\n"
           "    while True:\n"
           "        turns[0] += 1\n"
           "threading.Thread(target=spin, daemon=True).start()\n")


def test_idle_cpu(t):
    """An idle session's tree may spend no more CPU than its last run could
    (its timeout): a thread left spinning ends the session."""
    r = runner()
    # Control: with a long timeout, the thread spins while the session
    # waits, and the session lives on.
    res = r.run("c1", SPINNER, session="c", timeout_ms=120000)
    t.eq(res.exited.get("exit_code"), 0, "control: the run that leaves a spinner ends", res)
    time.sleep(4)
    res = r.run("c2", "print(turns[0] > 1000)", session="c", timeout_ms=120000)
    t.eq((res.stdout, res.exited.get("session_ended"), bool(res.started.get("session_new"))),
         ("True\n", None, False),
         "control: the thread spun while the session was idle, and the session lives", res)
    r.send(type="session_close", session="c")
    # The same with a 1 s timeout: past ~2 s of CPU the session is ended.
    res = r.run("s1", SPINNER, session="s", timeout_ms=1000)
    t.eq(res.exited.get("exit_code"), 0, "the run that leaves a spinner ends within its time",
         res)
    try:
        ev = ended(r, "s", timeout=60)
    except TimeoutError:
        ev = None
    t.eq(ev and ev.get("reason"), "limit",
         "the idle session is ended when its spinner passes the run's CPU limit", ev)
    r.close()


def test_memory(t):
    r = runner()
    hold = "b{n} = bytearray({mib} * 1024 * 1024)\nb{n}[::4096] = b'x' * len(b{n}[::4096])\n"
    res = r.run("a", hold.format(n=1, mib=120), session="s", memory_mib=256)
    t.eq((res.exited.get("exit_code"), res.exited.get("limit")), (0, None),
         "control: 120 MiB in a 256 MiB session is fine", res)
    t.ok(res.exited["peak_memory_bytes"] >= 100 * MIB, "and its peak is measured", res)
    # RLIMIT_DATA holds the interpreter to the limit with what it kept.
    res = r.run("b", hold.format(n=2, mib=150), session="s", memory_mib=256)
    t.eq((res.exited.get("program_error", {}).get("type"), res.exited.get("session_ended")),
         ("MemoryError", None), "120 + 150 MiB in the interpreter is a MemoryError", res)
    # A child under RLIMIT_DATA alone: the tree watch sums the session.
    child_sleep_s = 20
    child_code = hold.format(n=3, mib=150) + f"import time\ntime.sleep({child_sleep_s})\n"
    child = ("import subprocess, sys\n"
             "subprocess.run([sys.executable, '-c', " + repr(child_code) + "])\n")
    res = r.run("c", child, session="s", memory_mib=256)
    t.eq((res.exited.get("limit"), res.exited.get("session_ended")), ("memory", "limit"),
         "memory_mib holds for the whole session's tree: a 150 MiB child ends it", res)
    # The child sleeps after taking its memory: a run shorter than the
    # sleep ended before the child could, however slow the machine.
    t.ok(res.exited.get("wall_ms", 0) < child_sleep_s * 1000, "before the child is done", res)
    r.close()


# The sleeper's argument marks it as this test process's (tests run in
# parallel, each may leave one).
MARK = f"61.{os.getpid()}"

SECRETS = ("import os, subprocess\n"
           "secret = 'kept-4711'\n"
           "open('secret.txt', 'w').write('kept-4711')\n"
           "open(os.path.join(os.environ.get('TMPDIR', '/tmp'), 'secret-tmp.txt'), 'w')"
           ".write('kept-4711')\n"
           f"sleeper = subprocess.Popen(['sleep', '{MARK}'])\n")

# What a run can find of those; PID is the sleeper's pid on the host (in
# namespace mode another pid namespace's, in fallback mode the same uid's).
PROBE = ("import os\n"
         "seen = []\n"
         "if 'secret' in globals():\n    seen.append('variable')\n"
         "if os.path.exists('secret.txt'):\n    seen.append('file')\n"
         "if os.path.exists(os.path.join(os.environ.get('TMPDIR', '/tmp'), 'secret-tmp.txt')):\n"
         "    seen.append('tmp')\n"
         "try:\n"
         "    os.kill({pid}, 0)\n"
         "    seen.append('process')\n"
         "except OSError:\n"
         "    pass\n"
         "if 'sleeper' in globals() and sleeper.poll() is None:\n"
         "    seen.append('process')\n"
         "print(sorted(set(seen)))\n")


def sleeper_pid():
    """The host pid of the sleeper SECRETS started (the test runs outside
    the sandbox: this is also the control that the pid is signalable)."""
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if MARK.encode() in f.read().split(b"\0"):
                    os.kill(int(pid), 0)
                    return int(pid)
        except (OSError, ValueError):
            pass
    return None


def test_isolation_sessions(t):
    r = runner()
    res = r.run("a", SECRETS, session="one")
    pid = sleeper_pid()
    t.ok(res.exited.get("exit_code") == 0 and pid is not None,
         "session one keeps a variable, files and a process (control: the test, outside, "
         "can signal it)", res)
    other = r.run("b", PROBE.format(pid=pid or 1), session="two")
    t.eq(other.stdout, "[]\n", "session two sees none of them", other)
    control = r.run("c", PROBE.format(pid=pid or 1), session="one")
    t.eq(control.stdout, "['file', 'process', 'tmp', 'variable']\n",
         "control: session one itself sees all four", control)
    r.close()


def test_isolation_normal(t):
    r = runner()
    r.run("a", SECRETS, session="one")
    pid = sleeper_pid()
    normal = r.run("b", PROBE.format(pid=pid or 1))
    t.eq(normal.stdout, "[]\n", "an ordinary run sees nothing of a session", normal)
    control = r.run("c", PROBE.format(pid=pid or 1), session="one")
    t.eq(control.stdout, "['file', 'process', 'tmp', 'variable']\n",
         "control: the session itself sees all four", control)
    # And the other way: an ordinary run's leftovers do not reach a session.
    r.run("d", SECRETS.replace("sleep", "true"))
    res = r.run("e", PROBE.format(pid=pid or 1), session="fresh")
    t.eq(res.stdout, "[]\n", "a new session sees nothing of an ordinary run", res)
    r.close()


FDS = ("import os\nfds = {}\nfor fd in os.listdir('/proc/self/fd'):\n    try:\n"
       "        fds[int(fd)] = os.readlink(f'/proc/self/fd/{fd}')\n    except OSError:\n"
       "        pass\n"
       "print(sorted((fd, 'socket' if t.startswith('socket:') else t) for fd, t in fds.items()"
       " if fd > 2 and not t.startswith('/proc')))\n")


def test_fds(t):
    r = runner()
    r.run("a", "x = 1", session="s")
    res = r.run("b", FDS, session="s")
    t.eq(res.stdout, "[(3, 'socket'), (4, '/dev/null')]\n",
         "a session's interpreter holds nothing of the runner: only its channel (3) and "
         "the /dev/null it parks 0-2 on between runs", res)
    # Control: the probe sees fds; an ordinary run has none beyond 2.
    res = r.run("c", FDS)
    t.eq(res.stdout, "[]\n", "control: an ordinary run has none beyond 2", res)
    r.close()


def test_client_gone(t):
    from runnertest import wait_until
    r = runner()
    r.run("a", SECRETS, session="one")
    t.ok(sleeper_pid() is not None, "control: the session's process runs on between runs")
    r.close()
    t.ok(wait_until(lambda: sleeper_pid() is None, 30),
         "when the client goes away, the runner ends its sessions and their processes")


def test_refusals(t):
    r = runner("--max-sessions", "1")
    err = refused(r, type="run", id="rb", language="ruby", code="1", session="s")
    t.eq(err.get("code"), "unsupported_language", "a session is for python, javascript, r or java", err)
    err = refused(r, type="run", id="cwd", language="python", code="1", session="s", cwd="/tmp")
    t.eq(err.get("code"), "invalid_value",
         "a session run's cwd passes the runner's policy as any run's (no --allow-cwd here)", err)
    r.run("a", "x = 1", session="s", memory_mib=256)
    err = refused(r, type="run", id="mem", language="python", code="1", session="s",
                  memory_mib=300)
    t.ok(err.get("code") == "invalid_value" and "memory_mib" in err.get("message", ""),
         "a running session's memory_mib cannot change under it", err)
    err = refused(r, type="run", id="cap", language="python", code="1", session="t")
    t.eq(err.get("code"), "limit", "a session over the cap is refused", err)
    res = r.run("b", "print(x)", session="s", memory_mib=256)
    t.eq(res.stdout, "1\n", "control: the open session still runs", res)
    err = refused(r, type="session_close", session="s", extra=1)
    t.eq(err.get("code"), "unknown_field", "session requests are strictly decoded", err)
    r.close()


# A JavaScript session's probe, as PROBE: what it can find of SECRETS (a
# Python session's variable, files and process) and of the host.
JS_PROBE = ("{ const fs = require('fs');\n"
            "const seen = [];\n"
            "if (typeof secret !== 'undefined') seen.push('variable');\n"
            "if (fs.existsSync('secret.txt')) seen.push('file');\n"
            "if (fs.existsSync(require('path').join(process.env.TMPDIR || '/tmp', 'secret-tmp.txt')))"
            " seen.push('tmp');\n"
            "try { process.kill({pid}, 0); seen.push('process'); } catch (e) {{}}\n"
            "try {{ fs.readFileSync({host!r}); seen.push('host file'); }} catch (e) {{}}\n"
            "try {{ fs.writeFileSync('/usr/sandpad-js-probe', 'x'); seen.push('system write'); }}"
            " catch (e) {{}}\n"
            "console.log(JSON.stringify(seen)); }\n")


def test_env_per_call(t):
    """A session call's env applies to that call, over the session's own
    (E2B's per-call envs, issue 42 item 4), and is gone after; its
    children see it; the display token stays the runner's."""
    r = runner()
    py = ("import os, subprocess\n"
          "print(os.environ.get('A'), os.environ.get('B'), "
          "subprocess.run(['sh', '-c', 'echo ${B:-none}'], capture_output=True, "
          "text=True).stdout.strip())\n")
    js = ("{ const { execSync } = require('child_process');\n"
          "console.log(process.env.A, process.env.B, "
          "execSync('echo ${B:-none}').toString().trim()) }\n")
    for language, code, unset in (("python", py, "None"), ("javascript", js, "undefined")):
        session = "env-" + language
        outs = []
        for i, env in enumerate(({"A": "1"}, {"B": "2"}, {}, {"A": "3", "B": "4"}, {})):
            res = r.run(f"{language}{i}", code, language=language, session=session, env=env)
            outs.append(res.stdout.strip())
        t.eq(outs, ["1 %s none" % unset, "1 2 2", "1 %s none" % unset, "3 4 4",
                    "1 %s none" % unset],
             f"{language}: each call's env over the session's, gone after", outs)
        # A snippet's own change to a variable the call set is undone too;
        # its change to another one stays, as any state does.
        r.run(f"{language}-own", "import os\nos.environ['B'] = 'mine'\nos.environ['C'] = 'c'\n"
              if language == "python" else "process.env.B = 'mine'; process.env.C = 'c'",
              language=language, session=session, env={"B": "2"})
        res = r.run(f"{language}-after", "import os\nprint(os.environ.get('B'), os.environ['C'])\n"
                    if language == "python" else "console.log(process.env.B, process.env.C)",
                    language=language, session=session)
        t.eq(res.stdout, "%s c\n" % unset, f"{language}: the call's variable is put back", res)
    # PYTHONPATH stays the session's: the prelude's directory first, so
    # a child python still gets it.
    res = r.run("path", "import os\nprint(os.environ['PYTHONPATH'].split(':')[-1])\n",
                session="env-python", env={"PYTHONPATH": "/mine"})
    t.ok(res.stdout.strip() not in ("", "/mine") and ".sandpad" in res.stdout,
         "a call's PYTHONPATH does not replace the session's", res)
    res = r.run("token", "display(7)\n", session="env-python",
                env={"SANDPAD_DISPLAY_TOKEN": "mine"})
    t.eq([e["data"] for e in res.events if e["type"] == "display"], [{"text/plain": "7"}],
         "a call's env cannot set the display token", res)
    r.close()


def test_js_session(t):
    import tempfile
    r = runner()
    first = r.run("a", "let x = 41; var y = 1; function f(a) { return a * 2 }\n"
                  "const fs = require('fs'); fs.writeFileSync('kept.txt', 'k')",
                  language="javascript", session="j")
    t.eq((first.exited["end"], first.exited.get("exit_code"), first.started.get("session_new")),
         ("exited", 0, True), "the first JavaScript run starts the session's node", first)
    second = r.run("b", "console.log(x + y, f(3), fs.readFileSync('kept.txt', 'utf8'))",
                   language="javascript", session="j")
    t.eq((second.stdout, bool(second.started.get("session_new"))), ("42 6 k\n", False),
         "the next run sees its let, var, function, require and files", second)
    control = r.run("c", "console.log(typeof x)", language="javascript")
    t.eq(control.stdout, "undefined\n", "control: an ordinary JavaScript run knows no x",
         control)
    res = r.run("d", "throw new Error('boom')", language="javascript", session="j")
    t.ok(res.exited.get("exit_code") == 1 and "Error: boom" in res.stderr
         and "sandpad_session" not in res.stderr,
         "an uncaught error ends the run with 1 and its stack, not the driver's", res)
    res = r.run("e", "new Promise((r) => setTimeout(() => { console.log('later', x); r() }, 20))",
                language="javascript", session="j")
    t.eq(res.stdout, "later 41\n", "a promise the snippet ends with is awaited", res)
    res = r.run("f", "while (true) {}", language="javascript", session="j", timeout_ms=1000)
    t.eq((res.exited.get("limit"), res.exited.get("signal"), res.exited.get("session_ended")),
         ("time", 2, None), "a loop past its time is interrupted and the session lives", res)
    res = r.run("g", "console.log('still', x)", language="javascript", session="j")
    t.eq(res.stdout, "still 41\n", "the state outlives the interrupt", res)
    err = refused(r, type="run", id="py", language="python", code="1", session="j")
    t.ok(err.get("code") == "invalid_value" and "language" in err.get("message", ""),
         "a running session's language cannot change", err)

    # Isolation: a JavaScript session is a sandbox of its own, as a Python one.
    r.run("s", SECRETS, session="one")
    pid = sleeper_pid()
    with tempfile.NamedTemporaryFile("w", prefix="sandpad-js-host-", delete=False) as f:
        f.write("host")
        host = f.name
    try:
        os.chmod(host, 0o644)
        with open(host) as f:
            readable = f.read() == "host"
        t.ok(pid is not None and readable,
             "control: outside, the sleeper can be signalled and the host file read")
        probe = JS_PROBE.replace("{pid}", str(pid or 1)).replace("{{", "{").replace("}}", "}")
        probe = probe.replace("{host!r}", repr(host))
        res = r.run("p", probe, language="javascript", session="j")
        t.eq(res.stdout, "[]\n", "a JavaScript session sees nothing of a Python session nor "
             "of the host, and cannot write the system", res)
        import subprocess
        outside = subprocess.run(["node", "-e", "\n".join(l for l in probe.split("\n")
                                                         if "/usr/" not in l)],
                                 capture_output=True, text=True, timeout=60, cwd="/")
        t.eq(outside.stdout, '["process","host file"]\n',
             "control: the same probe unsandboxed signals the sleeper and reads the host file "
             "(the system write is left out of it)", outside)
        control = r.run("q", PROBE.format(pid=pid or 1), session="one")
        t.eq(control.stdout, "['file', 'process', 'tmp', 'variable']\n",
             "control: the Python session itself sees all four", control)
    finally:
        os.unlink(host)
    r.send(type="session_close", session="j")
    ev = ended(r, "j")
    t.eq(ev and ev.get("reason"), "closed", "session_close ends a JavaScript session", ev)
    res = r.run("h", "console.log(typeof x)", language="javascript", session="j")
    t.eq((res.stdout, res.started.get("session_new")), ("undefined\n", True),
         "after close the id starts afresh", res)
    r.close()


def test_r_session(t):
    """R sessions (issue 42): state kept between runs, an error located and
    the session alive after it, a run's args and env for that run alone, a
    loop past its time interrupted with the state kept, close, and an R
    without the relay's python3 refused. A missing R skips."""
    r = runner()
    ready = r.hello()
    if "r" not in [lang["name"] for lang in ready["languages"]]:
        t.skip(f"R is not installed here: unavailable={ready.get('unavailable')}")
        r.close()
        return
    first = r.run("a", "x <- 41\nsq <- function(n) n * n\nx + 1\n", language="r", session="rs",
                  timeout_ms=30000)
    t.eq((first.stdout, first.exited.get("exit_code"), first.started.get("session_new")),
         ("[1] 42\n", 0, True), "the first R run starts the session and prints its value", first)
    control = r.run("c", "exists('x')\n", language="r", timeout_ms=30000)
    t.eq(control.stdout, "[1] FALSE\n", "control: an ordinary R run knows no x", control)
    res = r.run("b", "print(sq(x))\nprint(commandArgs(TRUE))\nprint(Sys.getenv('FOO'))\n"
                "f <- function() {\n  stop('bad')\n}\nf()\n", language="r", session="rs",
                args=["p", "q r"], env={"FOO": "bar"}, timeout_ms=30000)
    err = res.exited.get("program_error") or {}
    t.eq(res.stdout, '[1] 1681\n[1] "p"   "q r"\n[1] "bar"\n',
         "the session's function, and this run's args and env", res)
    t.eq((res.exited.get("exit_code"), err.get("line"), err.get("message")), (1, 5, "bad"),
         "an error ends the run with 1, on its line", res)
    res = r.run("d", "print(Sys.getenv('FOO', 'unset'))\nprint(commandArgs(TRUE))\nx\n",
                language="r", session="rs", timeout_ms=30000)
    t.eq((res.stdout, res.exited.get("exit_code")),
         ('[1] "unset"\ncharacter(0)\n[1] 41\n', 0),
         "after the error the session lives; the run's env and args were its alone", res)
    res = r.run("e", "repeat {}\n", language="r", session="rs", timeout_ms=1000)
    t.eq((res.exited.get("limit"), res.exited.get("signal"), res.exited.get("session_ended")),
         ("time", 2, None), "a loop past its time is interrupted and the session lives", res)
    res = r.run("f", "x\n", language="r", session="rs", timeout_ms=30000)
    t.eq(res.stdout, "[1] 41\n", "the state outlives the interrupt", res)
    plotted = [r.run(f"p{i}", "plot(1:3)\n", language="r", session="rs", timeout_ms=30000)
               for i in (1, 2)]
    t.eq([[f["path"] for f in p.exited.get("files", [])] for p in plotted],
         [["plot-1.png"], ["plot-2.png"]],
         "a session's plots are numbered on from run to run, each file whole at its run's end",
         plotted)
    r.send(type="session_close", session="rs")
    ev = ended(r, "rs")
    t.eq(ev and ev.get("reason"), "closed", "session_close ends an R session", ev)
    res = r.run("g", "exists('x')\n", language="r", session="rs", timeout_ms=30000)
    t.eq((res.stdout, res.started.get("session_new")), ("[1] FALSE\n", True),
         "after close the id starts afresh", res)
    r.close()


def test_java_session(t):
    """Java sessions (issue 42), one JShell in one JVM: declarations kept
    between runs, an expression's value shown as jshell shows it, an
    exception located on the file's line and the session alive after it,
    a compile error as javac's, a loop past its time interrupted with the
    state kept. A missing JDK skips."""
    r = runner()
    ready = r.hello()
    if "java" not in [lang["name"] for lang in ready["languages"]]:
        t.skip(f"Java is not installed here: unavailable={ready.get('unavailable')}")
        r.close()
        return
    first = r.run("a", "int x = 41;\n\nx + 1\n", language="java", session="js1",
                  timeout_ms=60000)
    t.eq((first.stdout, first.exited.get("exit_code"), first.started.get("session_new")),
         ("$1 ==> 42\n", 0, True), "the first Java run starts the session and shows its value",
         first)
    res = r.run("b", "int f(int n) {\n  return 10 / n;\n}\nSystem.out.println(x * 2);\nf(0)\n",
                language="java", session="js1", timeout_ms=30000)
    err = res.exited.get("program_error") or {}
    t.eq((res.stdout, res.exited.get("exit_code"), err.get("type"), err.get("line")),
         ("82\n", 1, "java.lang.ArithmeticException", 2),
         "the session's x; an exception ends the run with 1, on the method's line", res)
    res = r.run("c", "String s = 5;\n", language="java", session="js1", timeout_ms=30000)
    err = res.exited.get("program_error") or {}
    t.eq((res.exited.get("exit_code"), err.get("line"), err.get("syntax")), (1, 1, True),
         "a snippet that does not compile is javac's error, on its line", res)
    res = r.run("d", "while (true) { }\n", language="java", session="js1", timeout_ms=2000)
    t.eq((res.exited.get("limit"), res.exited.get("signal"), res.exited.get("session_ended")),
         ("time", 2, None), "a loop past its time is stopped and the session lives", res)
    res = r.run("e", "f(5) + x\n", language="java", session="js1", timeout_ms=30000)
    # jshell numbers its values ($3 here) as it does interactively.
    t.ok(re.fullmatch(r"\$[0-9]+ ==> 43\n", res.stdout) is not None,
         "the state outlives the error and the interrupt", res)
    control = r.run("g", "public class Main { public static void main(String[] a) {\n"
                    "  System.out.println(\"cold\"); } }\n", language="java", timeout_ms=60000)
    t.eq(control.stdout, "cold\n", "control: an ordinary Java run is a program of its own",
         control)
    r.close()


def displays(res):
    return [e["data"] for e in res.events if e["type"] == "display"]


def test_js_values(t):
    """A JavaScript session shows the script's completion value as the node
    REPL does, as a display event like a Python session's value."""
    r = runner()
    res = r.run("a", "x = 4; x", language="javascript", session="j")
    t.eq((displays(res), res.stdout), ([{"text/plain": "4"}], ""),
         "`x = 4; x` shows 4 as a display event", res)
    res = r.run("b", "console.log('before'); ({a: [1, 'two'], x})", language="javascript",
                session="j")
    kinds = [e["type"] for e in res.events if e["type"] in ("output", "display")]
    t.eq((kinds, displays(res)), (["output", "display"], [{"text/plain": "{ a: [ 1, 'two' ], x: 4 }"}]),
         "the value comes after what was printed before it, as util.inspect shows it", res)
    for n, code in enumerate(("let y = 1;", "undefined", "console.log('only')", "void 0")):
        res = r.run(f"c{n}", code, language="javascript", session="j")
        t.eq(displays(res), [], f"no value shown for {code!r} (undefined)", res)
    res = r.run("d", "new Promise((r) => setTimeout(() => r(x * 10), 10))",
                language="javascript", session="j")
    t.eq(displays(res), [{"text/plain": "40"}], "a promise's value is shown once awaited", res)
    res = r.run("e", "'text'", language="javascript", session="j")
    t.eq(displays(res), [{"text/plain": "'text'"}], "a string shows quoted, as the REPL does",
         res)
    res = r.run("f", "throw new Error('no value')", language="javascript", session="j")
    t.eq((displays(res), res.exited.get("exit_code")), ([], 1), "a thrown error shows no value",
         res)
    # The same value from a Python session, for the shape.
    res = r.run("g", "x = 4\nx", session="p")
    t.eq(displays(res), [{"text/plain": "4"}], "control: a Python session's value has the "
         "same shape", res)
    r.close()


def test_js_stdin(t):
    """A JavaScript session run reads its own stdin, as a Python session run
    does: synchronously from fd 0, through process.stdin, given later by
    stdin messages (with input_wait while it waits), and never the next
    run's."""
    r = runner()
    res = r.run("a", "const fs = require('fs'); console.log(JSON.stringify(fs.readFileSync(0, 'utf8')))",
                language="javascript", session="j", stdin="Ada\nGrace\n")
    t.eq(res.stdout, '"Ada\\nGrace\\n"\n', "fs.readFileSync(0) reads the run's stdin to its EOF",
         res)
    res = r.run("b", "console.log(JSON.stringify(fs.readFileSync(0, 'utf8')))",
                language="javascript", session="j", stdin="left over")
    t.eq(res.stdout, '"left over"\n', "the next run reads its own", res)
    res = r.run("c", "console.log('unread')", language="javascript", session="j",
                stdin="not read")
    res = r.run("d", "console.log(JSON.stringify(fs.readFileSync(0, 'utf8')))",
                language="javascript", session="j")
    t.eq(res.stdout, '""\n', "what a run leaves unread is not the next run's; no stdin is EOF",
         res)
    code = ("(async () => { const lines = [];\n"
            "  const rl = require('readline').createInterface({ input: process.stdin });\n"
            "  for await (const l of rl) lines.push(l);\n"
            "  console.log(lines.join('+')); })()")
    res = r.run("e", code, language="javascript", session="j", stdin="1\n2\n3\n")
    t.eq(res.stdout, "1+2+3\n", "readline over process.stdin, awaited, reads the lines", res)
    res = r.run("f", code, language="javascript", session="j", stdin="4\n")
    t.eq(res.stdout, "4\n", "and process.stdin is the next run's own stream", res)
    r.send(type="run", id="g", language="javascript", session="j", stdin_open=True,
           code="const b = Buffer.alloc(64); const k = fs.readSync(0, b);\n"
                "console.log('got', b.toString('utf8', 0, k).trim())")
    r.recv_type("started")
    wait = r.recv_type("input_wait")
    t.eq(wait.get("waiting"), True, "a synchronous read of fd 0 is reported as input_wait", wait)
    r.send(type="stdin", id="g", data="Hopper\n", eof=True)
    res = Result(r.collect("g"))
    t.eq(res.stdout, "got Hopper\n", "and stdin messages reach it", res)
    # Control: the same code in a cold run reads the same.
    res = r.run("h", "console.log(JSON.stringify(require('fs').readFileSync(0, 'utf8')))",
                language="javascript", stdin="Ada\nGrace\n")
    t.eq(res.stdout, '"Ada\\nGrace\\n"\n', "control: a cold run reads the same", res)
    r.close()


def test_cli(t):
    import subprocess
    import tempfile
    cli = os.environ["SANDPAD_RUN"]
    with tempfile.TemporaryDirectory() as d:
        files = []
        for name, code in (("a.py", "x = 41\nimport math\n"), ("b.py", "print(x + 1)\n"),
                           ("c.py", "print(undefined)\n"), ("d.py", "print('never')\n")):
            files.append(os.path.join(d, name))
            with open(files[-1], "w") as f:
                f.write(code)
        res = subprocess.run([cli, "--sandbox", MODE, "--strict", "--session", *files],
                             capture_output=True, text=True, timeout=120)
        t.eq((res.stdout, res.returncode), ("42\n", 1),
             "sandpad-run --session runs the files in one session and stops at the first "
             "that fails", res)
        t.ok("NameError" in res.stderr and "never" not in res.stdout, "the failure is shown",
             res)
        # Control: without --session, b.py alone knows no x.
        res = subprocess.run([cli, "--sandbox", MODE, files[1]], capture_output=True,
                             text=True, timeout=120)
        t.eq(res.returncode, 1, "control: b.py alone fails with NameError", res)
        # --session with --cwd: the files run there, one after another.
        work = os.path.join(d, "work")
        os.mkdir(work)
        os.chmod(d, 0o755)  # the run's user reaches work through it
        if os.geteuid() == 0:
            os.chown(work, 65534, 65534)
        with open(os.path.join(d, "w1.py"), "w") as f:
            f.write("open('from-w1.txt', 'w').write('1')\nn = 3\n")
        with open(os.path.join(d, "w2.py"), "w") as f:
            f.write("import os\nprint(n, sorted(os.listdir('.')))\n")
        res = subprocess.run([cli, "--sandbox", MODE, "--strict", "--session", "--cwd", work,
                              os.path.join(d, "w1.py"), os.path.join(d, "w2.py")],
                             capture_output=True, text=True, timeout=120)
        t.eq((res.stdout, res.returncode), ("3 ['from-w1.txt']\n", 0),
             "sandpad-run --session --cwd DIR runs the files' session in DIR", res)


def test_cwd(t):
    """A session started with a cwd (a folder of the person's, under
    --allow-cwd) runs there for its life, Python and JavaScript alike: its
    files land there and are reported, a later call may leave cwd out or
    name the same one, another is refused; a folder put in its place since
    is never entered (the session keeps the one it checked)."""
    import shutil
    import tempfile

    uid = 65534 if os.geteuid() == 0 else os.getuid()
    base = tempfile.mkdtemp(prefix="sandpad-session-cwd-")
    os.chmod(base, 0o755)
    dirs = {}
    for name in ("py", "js", "other"):
        dirs[name] = os.path.join(base, name)
        os.mkdir(dirs[name])
        os.chown(dirs[name], uid, uid)
    r = runner("--allow-cwd", base)
    try:
        a = r.run("a", "import os\nopen('made.txt', 'w').write('x')\nprint(os.listdir('.'))\n"
                  "v = 41", session="p", cwd=dirs["py"])
        t.ok(a.exited.get("end") == "exited" and a.started.get("cwd") == dirs["py"]
             and "made.txt" in a.stdout and os.path.exists(os.path.join(dirs["py"], "made.txt")),
             "python: the session runs in the folder it was given, its files land there", a)
        t.eq([f["path"] for f in a.exited.get("files", [])], ["made.txt"],
             "and are reported as the run's", a.exited)
        b = r.run("b", "print(v + 1, open('made.txt').read())", session="p")
        t.eq(b.stdout, "42 x\n", "a later call without cwd runs in the same place, state kept", b)
        c = r.run("c", "print(v)", session="p", cwd=dirs["py"])
        t.eq(c.stdout, "41\n", "and one naming the same folder", c)
        err = refused(r, type="run", id="d", language="python", code="1", session="p",
                      cwd=dirs["other"])
        t.ok(err.get("code") == "invalid_value" and '"cwd"' in err.get("message", ""),
             "another folder is refused while the session lives", err)
        js = r.run("j", "const fs = require('fs');\nfs.writeFileSync('from-js.txt', 'y');\n"
                   "let n = 2;", language="javascript", session="j", cwd=dirs["js"])
        js2 = r.run("j2", "console.log(n * 3, require('fs').readFileSync('from-js.txt', 'utf8'))",
                    language="javascript", session="j")
        t.ok(os.path.exists(os.path.join(dirs["js"], "from-js.txt")) and js2.stdout == "6 y\n",
             "javascript: the same", (js, js2))
        # The folder swapped for another by name: the session does not go
        # on in the new one (the runner checks it is the one it held).
        os.rename(dirs["py"], dirs["py"] + "-moved")
        os.mkdir(dirs["py"])
        os.chown(dirs["py"], uid, uid)
        e = r.run("e", "open('after-swap.txt', 'w').write('z')", session="p")
        t.ok(e.exited.get("end") == "failed" and "replaced" in (e.exited.get("error") or "")
             and not os.path.exists(os.path.join(dirs["py"], "after-swap.txt")),
             "a folder put in the session's place is refused, nothing written in it", e.exited)
        # Control: a new session in the new folder runs there.
        f = r.run("f", "open('fresh.txt', 'w').write('z')", session="q", cwd=dirs["py"])
        t.ok(f.exited.get("end") == "exited"
             and os.path.exists(os.path.join(dirs["py"], "fresh.txt")),
             "control: a session started there now runs there", f.exited)
    finally:
        r.close()
        shutil.rmtree(base, ignore_errors=True)


TESTS = {f.__name__[5:]: f for f in (test_cli, test_state_kept, test_errors_and_plots, test_timeout,
                                     test_crash, test_restart_close, test_queue_and_cancel,
                                     test_idle, test_idle_caps, test_idle_cpu, test_memory, test_isolation_sessions,
                                     test_isolation_normal, test_refusals, test_fds,
                                     test_client_gone, test_js_session, test_js_values, test_js_stdin,
                                     test_env_per_call, test_cwd, test_r_session,
                                     test_java_session)}

if __name__ == "__main__":
    names = sys.argv[2:] or list(TESTS)
    main([TESTS[n] for n in names])
