"""A run's process cap against the other tasks of its uid (issue 37, 3),
with the real runner and Debian's python3 (and node), in each sandbox mode.

Fallback mode's RLIMIT_NPROC is checked against every task the kernel
counts for the uid, threads and all. A count of the uid's processes taken
from /proc when the plan was built missed threads (and what the uid runs
in user namespaces of its own), and a session's was taken once for its
whole life: a run beside a process of the uid holding a few hundred
threads could not start a thread, a root runner's program could not even
be executed ("cannot execute /usr/bin/python3: Resource temporarily
unavailable"), and a session lost its room to tasks the uid started after
it. Each case holds such a process (it prints once its threads exist:
nothing here waits on time) and runs beside it; namespace mode counts per
user namespace and is the control. The cap itself still holds: a run that
holds more threads than it is stopped with limit processes.

As root the runner runs as a uid of the test's own that no account has,
so nothing else on the machine adds to its count (other suites run
fallback runs as nobody); the root case uses nobody, as a root runner's
program is nobody. As an ordinary user (the desktop case, the suite's
wrapper) the runner and the holder are that user.

Usage: test-nproc.py PATH-TO-SANDPAD-RUNNER [TEST-NAME...]
"""

import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from runnertest import PYTHON, Runner, main  # noqa: E402

RUNNER = sys.argv[1]
MODE = os.environ.get("SANDPAD_TEST_SANDBOX", "namespaces")
NOBODY = 65534
CAP = 256  # the runner's default --max-processes

# Threads that exist until stdin closes; "holding" once they all do.
HOLDER = ("import sys, threading\n"
          "threading.stack_size(65536)\n"
          "stop = threading.Event()\n"
          "for _ in range(int(sys.argv[1])):\n"
          "    threading.Thread(target=stop.wait, daemon=True).start()\n"
          "print('holding', flush=True)\n"
          "sys.stdin.read()\n")

# What an ordinary program does: a few threads and children.
WORK = ("import os, threading\n"
        "ts = [threading.Thread(target=lambda: None) for _ in range(16)]\n"
        "for t in ts:\n    t.start()\n"
        "for t in ts:\n    t.join()\n"
        "for _ in range(4):\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n        os._exit(0)\n"
        "    os.waitpid(pid, 0)\n"
        "print('ok')\n")

# More threads than the cap and its headroom, all kept.
OVER_CAP = ("import threading\n"
            "threading.stack_size(65536)\n"
            "stop = threading.Event()\n"
            f"for _ in range({CAP + 100}):\n"
            "    threading.Thread(target=stop.wait, daemon=True).start()\n"
            "print('all started', flush=True)\n"
            "stop.wait()\n")


def own_uid():
    """A uid no account and no process has (root only), else ours."""
    if os.geteuid() != 0:
        return os.geteuid()
    busy = set()
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/status") as f:
                busy.update(int(line.split()[1]) for line in f if line.startswith("Uid:"))
        except (OSError, ValueError):
            pass
    uid = 3900000 + os.getpid() % 90000
    while uid in busy:
        uid += 1
    return uid


def as_uid(uid):
    def become():
        if os.geteuid() != uid:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
    return become


class Holder:
    """A process of uid with n threads, while the with block lasts."""

    def __init__(self, uid, n):
        self.proc = subprocess.Popen([PYTHON, "-c", HOLDER, str(n)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, preexec_fn=as_uid(uid))
        self.ready = self.proc.stdout.readline() == b"holding\n"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.proc.kill()
        self.proc.wait()
        self.proc.stdin.close()
        self.proc.stdout.close()


def runner(uid, *args):
    r = Runner(RUNNER, "--sandbox", MODE, "--strict", *args, preexec_fn=as_uid(uid))
    r.hello()
    return r


def check_beside(t, uid, what, *args):
    """A run beside 400 threads of its uid (more than the cap: a count of
    processes leaves it none), then one over the cap."""
    r = runner(uid, *args)
    with Holder(uid, 400) as holder:
        t.ok(holder.ready, f"control: a process of the uid holds 400 threads ({what})")
        res = r.run("work", WORK)
        t.eq((res.exited.get("end"), res.exited.get("exit_code"), res.stdout), ("exited", 0, "ok\n"),
             f"{MODE}: a {what} run starts its threads and children beside them", res)
        # RLIMIT_NPROC refuses a thread past the cap (namespace mode) or
        # past its headroom over the uid's count (fallback mode); or, where
        # other tasks of the uid ended since the count (an ordinary user's,
        # which other tests share), the tree watch stops it at its next
        # sample.
        res = r.run("over", OVER_CAP, timeout_ms=60000)
        t.ok(res.exited.get("limit") == "processes"
             or ("can't start new thread" in res.stderr and "all started" not in res.stdout),
             f"{MODE}: and a {what} run asking for {CAP + 100} threads does not get them "
             f"(the cap, {CAP}, holds beside the uid's other tasks)", res)
    r.close()


def test_cold(t):
    check_beside(t, own_uid(), "cold", "--no-warm")


def test_warm(t):
    check_beside(t, own_uid(), "warm (or cold where the pool does not take it)")


# Raising the soft limit to the hard one, through both calls.
RAISE = ("import resource\n"
         "soft, hard = resource.getrlimit(resource.RLIMIT_NPROC)\n"
         "for name, call in (('setrlimit', lambda: resource.setrlimit(resource.RLIMIT_NPROC, "
         "(hard, hard))),\n"
         "                   ('prlimit', lambda: resource.prlimit(0, resource.RLIMIT_NPROC, "
         "(hard, hard)))):\n"
         "    try:\n"
         "        call()\n"
         "        print(name, 'changed', soft < hard)\n"
         "    except (OSError, ValueError):\n"
         "        print(name, 'refused')\n")


def test_frozen(t):
    """Fallback mode leaves the program's hard limit where it was, so that
    the runner can give a session room again: the program itself may not
    raise its soft limit to it, nor change it at all."""
    r = runner(own_uid(), "--no-warm")
    res = r.run("raise", RAISE)
    if MODE == "fallback":
        t.eq(res.stdout, "setrlimit refused\nprlimit refused\n",
             "fallback: the program cannot change its RLIMIT_NPROC (setrlimit, prlimit)", res)
    else:
        # Control: the same calls reach the kernel, which lets a process
        # set its own limits within its hard one (there equal to the soft).
        t.eq(res.stdout, "setrlimit changed False\nprlimit changed False\n",
             "control: in namespace mode the calls go through (the limit is the cap)", res)
    r.close()


def test_root(t):
    """A root runner's program is nobody: its uid changes in the child, and
    a change of uid while the count is past the limit made the execve
    itself fail."""
    if os.geteuid() != 0:
        t.skip("the runner runs as root here only when the test does")
        return
    r = runner(0, "--no-warm")
    with Holder(NOBODY, 300) as holder:
        t.ok(holder.ready, "control: a process of nobody holds 300 threads")
        res = r.run("print", "print(1)")
        t.eq((res.exited.get("end"), res.exited.get("error"), res.stdout), ("exited", None, "1\n"),
             f"{MODE}: a root runner's program (nobody) is executed beside them", res)
        res = r.run("work", WORK)
        t.eq(res.stdout, "ok\n", f"{MODE}: and starts its threads and children", res)
    r.close()


def session_beside(t, uid, language, first, second, want):
    r = runner(uid, "--no-warm")
    res = r.run("first", first, language=language, session="s")
    t.eq(res.exited.get("exit_code"), 0, f"control: a {language} session's first run", res)
    # Many more than the room the interpreter had over the uid's count
    # when it started (the cap and its headroom, a quarter of it).
    with Holder(uid, 3 * CAP) as holder:
        t.ok(holder.ready, f"control: then a process of the uid holds {3 * CAP} threads")
        res = r.run("second", second, language=language, session="s")
        t.eq((res.exited.get("exit_code"), res.stdout), (0, want),
             f"{MODE}: the {language} session's next run still starts threads and children",
             res)
    r.close()


def test_session(t):
    session_beside(t, own_uid(), "python", "x = 1\n", WORK, "ok\n")


def test_session_js(t):
    if shutil.which("node") is None:
        t.skip("no node here")
        return
    # Its runs' children are node's, and node is the relay's child.
    second = ("const cp = require('child_process');\n"
              "for (let i = 0; i < 4; i++) cp.execFileSync('/bin/true');\n"
              "console.log('ok');\n")
    session_beside(t, own_uid(), "javascript", "let x = 1;\n", second, "ok\n")


TESTS = {f.__name__[5:]: f for f in (test_cold, test_warm, test_frozen, test_root, test_session,
                                     test_session_js)}

if __name__ == "__main__":
    names = sys.argv[2:] or list(TESTS)
    main([TESTS[n] for n in names])
