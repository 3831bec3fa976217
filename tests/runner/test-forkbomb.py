"""A fork bomb past its time limit: the run ends, its whole tree dies, and
the runner answers other runs meanwhile; with the real runner and Debian's
python3, in each sandbox mode, as root and as an ordinary user.

Usage: test-forkbomb.py PATH-TO-SANDPAD-RUNNER [TEST-NAME...]
"""

import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from runnertest import TICKER_LOCK, Runner, lock_held, main, released  # noqa: E402

RUNNER = sys.argv[1]
MODE = os.environ.get("SANDPAD_TEST_SANDBOX", "namespaces")
ALLOW = ["--allow-path", tempfile.gettempdir(), "--allow-cwd", tempfile.gettempdir()]

# Far beyond the 5 s limit plus any kill on a loaded machine: past it the
# run is taken to hang (no exited at all), not to be slow.
HANG_S = 60

# The bomb from the report, and one that never lets a failed fork end a
# process, so the tree stays full. Every process holds the lock (forks
# share the open file), free only once the last of them is dead.
BOMBS = {
    "plain": TICKER_LOCK + "import os\nwhile True:\n    os.fork()\n",
    "stubborn": TICKER_LOCK + "import os\nwhile True:\n    try:\n        os.fork()\n"
                "    except OSError:\n        pass\n",
}


def as_ci_user():
    import pwd
    user = pwd.getpwnam("sandpad-ci")
    os.setgroups([])
    os.setresgid(user.pw_gid, user.pw_gid, user.pw_gid)
    os.setresuid(user.pw_uid, user.pw_uid, user.pw_uid)


def bomb_runs(t, r, owner):
    for name, code in BOMBS.items():
        with tempfile.TemporaryDirectory() as tmp:
            os.chmod(tmp, 0o777)
            # A cwd must belong to the uid that runs the program (the policy).
            if os.geteuid() == 0:
                os.chown(tmp, *owner)
            alive = os.path.join(tmp, "alive")
            sent = time.monotonic()
            r.send(type="run", id=name, language="python", code=code, cwd=tmp, timeout_ms=5000)
            r.recv_type("started", timeout=HANG_S)
            # Another run while the bomb goes: it is answered, whatever the
            # bomb leaves it (in fallback mode they share a uid, whose
            # process count the bomb fills).
            r.send(type="run", id=name + "-beside", language="python", code="print(1)")
            ended, beside = None, None
            try:
                while ended is None or beside is None:
                    ev = r.recv(max(0.1, sent + HANG_S - time.monotonic()))
                    if ev is None:
                        break
                    if ev.get("type") == "exited" and ev.get("id") == name:
                        ended = ev
                    elif ev.get("type") == "exited" and ev.get("id") == name + "-beside":
                        beside = ev
            except TimeoutError:
                pass
            t.ok(ended is not None,
                 f"{MODE}: the {name} fork bomb's run ends (no exited within {HANG_S} s: "
                 "it hangs)")
            # Mostly at its time or process limit; a plain bomb whose
            # first fork fails (its uid's count already full, fallback
            # mode) may end on its own error first: ended all the same.
            t.ok(ended is not None and ended.get("end") in ("exited", "signaled"),
                 f"{MODE}: as a program that ended, not a failed run", ended)
            t.ok(beside is not None, f"{MODE}: a run started beside it is answered", beside)
            t.ok(released(alive, timeout=HANG_S) and not lock_held(alive),
                 f"{MODE}: no process of the {name} bomb is left")
            res = r.run(name + "-after", "print(1)")
            t.eq(res.stdout, "1\n", f"{MODE}: a run after it runs in full", res)


def test_bomb(t):
    r = Runner(RUNNER, "--sandbox", MODE, "--strict", *ALLOW)
    t.ok(r.hello() is not None, "control: the runner is ready")
    bomb_runs(t, r, (65534, 65534))
    t.eq(r.close(timeout=HANG_S), 0, f"{MODE}: the runner then exits at once")


def test_bomb_user(t):
    import pwd
    try:
        user = pwd.getpwnam("sandpad-ci")
    except KeyError:
        t.skip("no account sandpad-ci to run the runner as (build-aux/dev.sh makes it)")
        return
    if os.geteuid() != 0:
        t.skip("the runner is started as sandpad-ci, which needs root")
        return
    r = Runner(RUNNER, "--sandbox", MODE, "--strict", *ALLOW, preexec_fn=as_ci_user)
    t.ok(r.hello() is not None, "control: the runner (as sandpad-ci) is ready")
    bomb_runs(t, r, (user.pw_uid, user.pw_gid))
    t.eq(r.close(timeout=HANG_S), 0, f"{MODE}: the runner then exits at once")


TESTS = {f.__name__[5:]: f for f in (test_bomb, test_bomb_user)}

if __name__ == "__main__":
    names = sys.argv[2:] or list(TESTS)
    main([TESTS[n] for n in names])
