"""A program waiting for its stdin (src/runner/engine/runner-input-wait.c):
the runner says so with an input_wait event, the time limit stands still
while it waits, and the input idle cap is what ends a prompt nobody
answers; with the real runner and Debian's python3, node and bash.

Usage: test-input-wait.py PATH-TO-SANDPAD-RUNNER [TEST-NAME...]
"""

import os
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from runnertest import Runner, main  # noqa: E402

RUNNER = sys.argv[1]
MODE = os.environ.get("SANDPAD_TEST_SANDBOX", "namespaces")


def runner(*args, preexec_fn=None):
    r = Runner(RUNNER, "--cancel-grace-ms", "300", "--sandbox", MODE, "--strict", *args,
               preexec_fn=preexec_fn)
    r.hello()
    return r


def as_nobody():
    os.setgroups([])
    os.setresgid(65534, 65534, 65534)
    os.setresuid(65534, 65534, 65534)


def next_wait(r, run_id, timeout=30):
    """The run's next input_wait event, and the output before it; None when
    the run exited first."""
    out = []
    while True:
        ev = r.recv(timeout)
        if ev is None:
            return None, "".join(out)
        if ev.get("id") != run_id:
            continue
        if ev["type"] == "input_wait":
            return ev, "".join(out)
        if ev["type"] == "output":
            out.append(ev["data"])
        if ev["type"] == "exited":
            r.pending.insert(0, ev)
            return None, "".join(out)


def prompt_outlives_timeout(t, r, label, **fields):
    """input() unanswered for three times its 1 s time limit: the run is
    told to be waiting, is not stopped by the time limit, and goes on when
    answered; a second prompt is reported again."""
    code = ("name = input('name? ')\nprint('hello', name)\n"
            "age = input('age? ')\nprint('age', age)\n")
    run_id = "w-" + label
    r.send(type="run", id=run_id, language="python", code=code, stdin_open=True,
           timeout_ms=1000, **fields)
    started = r.recv_type("started")
    ev, out = next_wait(r, run_id)
    t.ok(ev is not None and ev["waiting"] is True and out == "name? ",
         f"{label}: input_wait arrives after the prompt", (ev, out))
    time.sleep(3)
    r.send(type="stdin", id=run_id, data="Ada\n")
    ev, out = next_wait(r, run_id)
    t.ok(ev is not None and ev["waiting"] is False,
         f"{label}: the wait ends once input is given", (ev, out))
    ev, out = next_wait(r, run_id)
    t.ok(ev is not None and ev["waiting"] is True and out == "hello Ada\nage? ",
         f"{label}: the second prompt is a wait of its own", (ev, out))
    r.send(type="stdin", id=run_id, data="36\n", eof=True)
    events = r.collect(run_id)
    exited = events[-1]
    out = "".join(e["data"] for e in events if e["type"] == "output")
    t.ok(exited.get("limit") is None and exited.get("exit_code") == 0 and out == "age 36\n"
         and exited["wall_ms"] >= 3000,
         f"{label}: waiting 3 s with a 1 s time limit is not stopped by it",
         (exited, out))
    return started


def test_cold(t):
    r = runner("--no-warm")
    prompt_outlives_timeout(t, r, "cold")
    r.close()


def warm_runner(t, label, preexec_fn=None):
    """A runner whose runs start warm, or None (and a skip) where the warm
    pool does not start."""
    if not os.path.exists("/usr/bin/python3"):
        t.skip(f"{label}: no /usr/bin/python3")
        return None
    r = runner(preexec_fn=preexec_fn)
    deadline = time.monotonic() + 90
    warm, n, why = False, 0, None
    while not warm and why is None and time.monotonic() < deadline:
        n += 1
        res = r.run(f"p{n}", "pass")
        warm = bool(res.started.get("warm"))
        # Warm runs off for good (helpers this user cannot reach: a build
        # tree under a 0700 folder, run as nobody): no use waiting.
        why = res.exited.get("cold_reason")
    if not warm:
        t.skip(f"{label}: warm runs do not start here ({why or 'the pool is off'})")
        r.close()
        return None
    return r


def test_warm(t):
    """A warm run, whoever the runner is: as an ordinary user its spare's
    init and supervisor (sandpad-warm-init, undumpable) cannot be read, and
    need not be."""
    r = warm_runner(t, "warm")
    if r is None:
        return
    started = prompt_outlives_timeout(t, r, "warm")
    t.ok(started.get("warm") is True, "warm: the run was a warm one", started)
    r.close()


def test_session(t):
    r = runner()
    prompt_outlives_timeout(t, r, "session", session="s1")
    res = r.run("after", "print(name, age)", session="s1")
    t.eq(res.stdout, "Ada 36\n", "session: the answers are kept in the session", res)
    r.close()


def test_as_user(t):
    """The runner as an ordinary user reads its runs' /proc as well."""
    if os.geteuid() != 0:
        t.skip("needs root to start the runner as another user (this whole run is "
               "an ordinary user's already)")
        return
    r = runner("--no-warm", preexec_fn=as_nobody)
    prompt_outlives_timeout(t, r, "user")
    r.close()
    r = warm_runner(t, "user warm", preexec_fn=as_nobody)
    if r is None:
        return
    started = prompt_outlives_timeout(t, r, "user-warm")
    t.ok(started.get("warm") is True, "user-warm: the run was a warm one", started)
    r.close()


def test_idle_cap(t):
    """Nobody answers: the idle cap ends the run, named as such."""
    r = runner("--no-warm", "--input-idle-ms", "1500")
    r.send(type="run", id="idle", language="python", code="input('? ')\n", stdin_open=True,
           timeout_ms=1000)
    events = r.collect("idle")
    waits = [e for e in events if e["type"] == "input_wait"]
    exited = events[-1]
    t.ok(waits and waits[0]["waiting"] is True, "idle: the wait was reported", events)
    t.ok(exited.get("limit") == "input_idle" and exited["wall_ms"] >= 1500,
         "idle: stopped by the input idle cap, not the time limit", exited)
    r.close()


def test_not_waiting(t):
    """Controls: a program that sleeps, computes while another thread
    reads, or has its stdin closed, is not waiting; the time limit stops
    it as ever."""
    r = runner("--no-warm")
    cases = [
        ("sleep", "import time\ntime.sleep(5)\n", {"stdin_open": True}),
        ("busy", "import threading\nthreading.Thread(target=input, daemon=True).start()\n"
                 "while True: pass\n", {"stdin_open": True}),
        ("closed", "import time\ninput()\n", {}),
    ]
    for name, code, fields in cases:
        res = r.run(name, code, timeout_ms=1000, **fields)
        waits = [e for e in res.events if e["type"] == "input_wait"]
        want_limit = None if name == "closed" else "time"
        t.ok(not waits and res.exited.get("limit") == want_limit,
             f"not waiting: {name} gets no input_wait and limit {want_limit}", res)
    r.close()


def test_child_reads(t):
    """The reader is a child process (cat, bash's read, node on its event
    loop): still a wait on the run's stdin."""
    programs = [
        ("child", "python", "import subprocess\nsubprocess.run(['/bin/cat'])\n"),
        ("bash", "bash", "read -r line\necho \"got $line\"\n"),
    ]
    if shutil.which("node") or os.path.exists("/usr/bin/node"):
        programs.append(("node", "javascript",
                         "require('readline').createInterface({input: process.stdin})"
                         ".on('line', l => { console.log('got ' + l); process.exit(0); });\n"))
    else:
        t.skip("node: not installed")
    r = runner("--no-warm")
    # The limit must leave the program time to reach its read on a busy
    # machine (node alone took over 1 s to start at a load of 9 on two
    # cores); the wait then lasts longer than the limit.
    limit_ms = 4000
    for name, language, code in programs:
        r.send(type="run", id=name, language=language, code=code, stdin_open=True,
               timeout_ms=limit_ms)
        ev, _ = next_wait(r, name)
        t.ok(ev is not None and ev["waiting"] is True, f"{name}: the wait is seen", ev)
        time.sleep(limit_ms / 1000 + 0.5)
        r.send(type="stdin", id=name, data="x\n", eof=True)
        events = r.collect(name)
        t.ok(events[-1].get("limit") is None,
             f"{name}: not stopped by the time limit while waiting", events[-1])
    r.close()


TESTS = {f.__name__[5:]: f for f in [test_cold, test_warm, test_session, test_as_user,
                                      test_idle_cap, test_not_waiting, test_child_reads]}

if __name__ == "__main__":
    names = sys.argv[2:] or list(TESTS)
    main([TESTS[n] for n in names])
