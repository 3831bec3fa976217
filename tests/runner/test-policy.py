"""Which paths a request may name: the runner's --allow-path/--allow-cwd
policy, with the real runner, as root and as an ordinary user.

Usage: test-policy.py PATH-TO-SANDPAD-RUNNER [TEST-NAME...]
"""

import ctypes
import os
import pwd
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from runnertest import Result, Runner, main  # noqa: E402

RUNNER = sys.argv[1]
MODE = os.environ.get("SANDPAD_TEST_SANDBOX", "namespaces")
NOBODY = 65534
SECRET = "policy-secret-4711"


def as_user(uid):
    """A preexec_fn that makes the runner an ordinary user (the desktop case);
    None when the test already runs as that user (it cannot setgroups)."""
    if uid == os.geteuid():
        return None

    def drop():
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    return drop


class Tree:
    """An allowed directory with a program and a run directory in it, and,
    beside it, a secret the run must never see."""

    def __init__(self, run_uid):
        self.base = tempfile.mkdtemp(prefix="sandpad-policy-")
        os.chmod(self.base, 0o755)
        self.allowed = os.path.join(self.base, "allowed")
        self.work = os.path.join(self.allowed, "work")
        self.outside = os.path.join(self.base, "outside")
        for d in (self.allowed, self.work, self.outside):
            os.mkdir(d)
            os.chmod(d, 0o755)
        self.program = os.path.join(self.allowed, "prog.py")
        with open(self.program, "w") as f:
            f.write("print('allowed program ran')\n")
        os.chmod(self.program, 0o644)
        self.secret = os.path.join(self.outside, "secret.sh")
        with open(self.secret, "w") as f:
            f.write(f"echo {SECRET}\n")
        os.chmod(self.secret, 0o644)
        # The run's uid owns its work directory (what the policy asks).
        os.chown(self.work, run_uid, run_uid)
        os.chown(self.allowed, run_uid, run_uid)
        # A symlink and a symlinked directory pointing out of the allowed tree.
        os.symlink(self.secret, os.path.join(self.allowed, "link.sh"))
        os.symlink(self.outside, os.path.join(self.allowed, "outdir"))

    def close(self):
        shutil.rmtree(self.base, ignore_errors=True)


# The Flatpak-like setting (the escape suite's "flatpak" mode): the runner
# as the user (nobody when the test is root), inside a user namespace that
# cannot create another (bwrap --disable-userns), in the app's own
# configuration (auto, not strict), where auto must pick fallback mode.
FLATPAK = MODE == "flatpak"
FLATPAK_WRAP = ["bwrap", "--unshare-user", "--disable-userns", "--dev-bind", "/", "/", "--"]
# bwrap changes into its caller's directory by path, as a user that cannot
# walk a 0700 folder above the tree (a clone under /root): it would start in
# / and miss the runner's relative path. It gets the tree as an fd instead.
TREE_FD = None
if FLATPAK:
    TREE_FD = os.open(".", os.O_PATH | os.O_DIRECTORY)
    os.set_inheritable(TREE_FD, True)


def start(tree, *extra, uid=None):
    if FLATPAK:
        bwrap = shutil.which("bwrap")
        if bwrap is None:
            print("# no bwrap here for the Flatpak-like setting")
            sys.exit(77)
        user = NOBODY if os.geteuid() == 0 else os.geteuid()
        r = Runner(bwrap, *FLATPAK_WRAP[1:-1], "--chdir", f"/proc/self/fd/{TREE_FD}", "--",
                   RUNNER, "--sandbox", "auto", *extra, env=dict(os.environ),
                   preexec_fn=as_user(uid if uid is not None else user), pass_fds=[TREE_FD])
        ready = r.hello()
        if ready["sandbox"]["mode"] != "fallback":
            raise AssertionError(f"auto mode in the Flatpak-like setting chose "
                                 f"{ready['sandbox']['mode']}, not fallback")
        return r
    args = ["--sandbox", MODE, "--strict", *extra]
    env = dict(os.environ)
    if uid is None:
        r = Runner(RUNNER, *args, env=env)
    else:
        r = Runner(RUNNER, *args, env=env, preexec_fn=as_user(uid))
    r.hello()
    return r


def refused(t, r, run_id, field, desc, **fields):
    """Sends a run and checks it is refused with an error naming the field,
    and that nothing ran (no queued, started or output event)."""
    fields.setdefault("language", "bash")
    r.send(type="run", id=run_id, **fields)
    others = []
    ev = r.recv()
    while ev is not None and ev.get("id") != run_id:
        others.append(ev)
        ev = r.recv()
    r.pending = others + r.pending
    ok = (ev is not None and ev["type"] == "error" and ev.get("id") == run_id
          and f'"{field}"' in ev.get("message", ""))
    t.ok(ok, desc, ev)
    # A following run proves the runner still serves and that the refused
    # one left no events behind.
    r.send(type="run", id=run_id + "-after", language="bash", code="echo alive")
    events = r.collect(run_id + "-after")
    stray = [e for e in r.pending if e.get("id") == run_id]
    r.pending = [e for e in r.pending if e.get("id") != run_id]
    t.ok(not stray and SECRET not in str(events + stray), f"{desc}: nothing of it ran",
         stray)


def cases(t, uid, tag):
    """The same cases for a root runner (uid None) and a user runner."""
    run_uid = NOBODY if uid is None and os.geteuid() == 0 else (uid or os.geteuid())
    tree = Tree(run_uid)
    try:
        # No flags: path and cwd are refused outright.
        r = start(tree, uid=uid)
        refused(t, r, "nopath", "path", f"{tag}: without --allow-path, path is refused",
                path=tree.program, language="python")
        refused(t, r, "nocwd", "cwd", f"{tag}: without --allow-cwd, cwd is refused",
                code="pwd", cwd=tree.work)
        refused(t, r, "shadow", "path", f"{tag}: /etc/shadow is refused", path="/etc/shadow")
        r.close()

        r = start(tree, "--allow-path", tree.allowed, "--allow-cwd", tree.allowed, uid=uid)
        # Control: inside the allowed directory both work.
        r.send(type="run", id="ok", language="python", path=tree.program)
        res = Result(r.collect("ok"))
        t.eq(res.stdout, "allowed program ran\n", f"{tag}: control: an allowed path runs", res)
        res = r.run("okcwd", "import os\nopen('made.txt', 'w').write('x')\nprint('in cwd')",
                    cwd=tree.work)
        t.eq((res.stdout, os.path.exists(os.path.join(tree.work, "made.txt"))),
             ("in cwd\n", True), f"{tag}: control: an allowed cwd is used", res)
        # Outside, through a symlink, through "..", "/" and the runner's own.
        refused(t, r, "out", "path", f"{tag}: a path outside the allowed directory is refused",
                path=tree.secret)
        refused(t, r, "link", "path", f"{tag}: a symlink pointing out is refused",
                path=os.path.join(tree.allowed, "link.sh"))
        refused(t, r, "linkdir", "path", f"{tag}: a symlinked directory pointing out is refused",
                path=os.path.join(tree.allowed, "outdir", "secret.sh"))
        refused(t, r, "dots", "path", f"{tag}: a path that leaves with .. is refused",
                path=os.path.join(tree.allowed, "..", "outside", "secret.sh"))
        refused(t, r, "shadow2", "path", f"{tag}: /etc/shadow is refused", path="/etc/shadow")
        refused(t, r, "root", "cwd", f"{tag}: cwd / is refused", code="pwd", cwd="/")
        refused(t, r, "dotscwd", "cwd", f"{tag}: a cwd that leaves with .. is refused",
                code="pwd", cwd=os.path.join(tree.work, "..", "..", "outside"))
        refused(t, r, "linkcwd", "cwd", f"{tag}: a symlinked cwd pointing out is refused",
                code="pwd", cwd=os.path.join(tree.allowed, "outdir"))
        # Files of another owner: only root can make them (chown), so an
        # ordinary user's test run (the desktop case in CI) skips these two.
        if os.geteuid() == 0:
            notmine = os.path.join(tree.allowed, "notmine")
            os.mkdir(notmine)
            os.chmod(notmine, 0o777)
            os.chown(notmine, 0 if run_uid != 0 else 1, 0)
            refused(t, r, "owner", "cwd",
                    f"{tag}: a cwd not owned by the run's uid is refused, even if writable",
                    code="pwd", cwd=notmine)
            # A file inside the allowed directory that the run's uid cannot read.
            private = os.path.join(tree.allowed, "private.sh")
            with open(private, "w") as f:
                f.write(f"echo {SECRET}\n")
            os.chown(private, 0 if run_uid != 0 else 1, 0)
            os.chmod(private, 0o600)
            refused(t, r, "unreadable", "path",
                    f"{tag}: a file the run's uid cannot read is refused", path=private)
        else:
            t.skip(f"{tag}: a cwd or path of another owner needs root to make (chown)")
        r.close()
    finally:
        tree.close()


def test_policy_root(t):
    if os.geteuid() != 0:
        t.skip("the root runner's case needs root")
        return
    cases(t, None, "root runner")


def test_policy_user(t):
    if os.geteuid() != 0:
        cases(t, os.geteuid(), "user runner")
        return
    # As root, the desktop case is simulated with an ordinary uid.
    uid = pwd.getpwnam("nobody").pw_uid
    cases(t, uid, "user runner")


def test_private_dir(t):
    """Another run's private directory is never a path or cwd, even when
    the allowed directory holds the runner's own."""
    parent = tempfile.mkdtemp(prefix="sandpad-policy-parent-")
    os.chmod(parent, 0o711)
    r = Runner(RUNNER, "--sandbox", MODE, "--strict", "--work-parent", parent,
               "--allow-path", parent, "--allow-cwd", parent)
    r.hello()
    r.send(type="run", id="a", language="python",
           code="open('mine.txt', 'w').write('A')\nimport time\ntime.sleep(3)")
    started = r.recv_type("started")
    victim = started["cwd"]
    refused(t, r, "b", "cwd", "another run's directory is refused as cwd", code="pwd",
            cwd=victim)
    refused(t, r, "c", "path", "a file in another run's directory is refused as path",
            path=os.path.join(victim, "mine.txt"))
    refused(t, r, "d", "cwd", "a cwd holding the runner's run directories is refused",
            code="pwd", cwd=parent)
    r.send(type="cancel", id="a")
    r.collect("a")
    r.close()
    shutil.rmtree(parent, ignore_errors=True)


# ---- A checked cwd swapped under the runner (issue "Close the seams") ----

RENAME_EXCHANGE = 2
AT_FDCWD = -100
RACE_TRIES = 300     # sandboxed runs at most...
RACE_SECONDS = 45    # ...or this long, whichever ends first
_libc = ctypes.CDLL(None, use_errno=True)


class Swapper(threading.Thread):
    """Exchanges two names as fast as it can (renameat2 RENAME_EXCHANGE):
    what a program racing its own next call does to the directory that
    call names. Bounded: it stops when told to."""

    def __init__(self, a, b):
        super().__init__(daemon=True)
        self.a, self.b = a.encode(), b.encode()
        self.stop = threading.Event()
        self.swaps = 0

    def run(self):
        # Pauses of up to 2 ms: a run's check and its later lookups then see
        # every interleaving, the same state as well as the swapped one.
        rng = random.Random(4711)
        while not self.stop.is_set():
            if _libc.renameat2(AT_FDCWD, self.a, AT_FDCWD, self.b, RENAME_EXCHANGE) == 0:
                self.swaps += 1
            time.sleep(rng.uniform(0, 0.002))

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.join()


class RaceTree:
    """An allowed workspace holding sub/ and sublink -> home, where home is
    outside the workspace and writable by the run's uid (the person's home
    directory); the swapper exchanges sub and sublink."""

    def __init__(self, run_uid):
        self.base = tempfile.mkdtemp(prefix="sandpad-race-")
        os.chmod(self.base, 0o755)
        self.ws = os.path.join(self.base, "ws")
        self.home = os.path.join(self.base, "home")
        self.sub = os.path.join(self.ws, "sub")
        self.link = os.path.join(self.ws, "sublink")
        for d in (self.ws, self.home, self.sub):
            os.mkdir(d)
            os.chmod(d, 0o755)
            if os.geteuid() == 0:
                os.chown(d, run_uid, run_uid)
        os.symlink(self.home, self.link)
        self.landed = os.path.join(self.home, "f")

    def close(self):
        shutil.rmtree(self.base, ignore_errors=True)


def race_run_uid():
    return NOBODY if os.geteuid() == 0 else os.geteuid()


def test_cwd_swap_race(t):
    """A cwd checked, then looked up again by name (bind mount, chdir,
    Landlock rule) is a race a program wins by swapping the name for a
    symlink between the two: the run then writes into the person's home.
    The runner holds the checked directory as an fd and the sandbox checks
    every later lookup against it, so no run may ever write there."""
    tree = RaceTree(race_run_uid())
    try:
        # Control: unsandboxed, the same race lands in home within a few tries.
        won = 0
        with Swapper(tree.sub, tree.link):
            for _ in range(200):
                subprocess.run(["bash", "-c", f"cd {tree.sub} 2>/dev/null && echo x >> f"],
                               check=False)
                if os.path.exists(tree.landed):
                    won += 1
                    break
        t.ok(won == 1, "control: unsandboxed, a cwd looked up again lands in home")
        if os.path.exists(tree.landed):
            os.unlink(tree.landed)

        r = start(tree, "--allow-cwd", tree.ws)
        ran = refused_runs = other = 0
        deadline = time.monotonic() + RACE_SECONDS
        with Swapper(tree.sub, tree.link) as swapper:
            tries = 0
            while tries < RACE_TRIES and time.monotonic() < deadline:
                ids = [f"race{tries + i}" for i in range(4)]
                for run_id in ids:
                    r.send(type="run", id=run_id, language="bash", code="echo x >> f",
                           cwd=tree.sub)
                for run_id in ids:
                    last = final_event(r, run_id)
                    if last.get("type") == "exited" and last.get("end") == "exited":
                        ran += 1
                    elif last.get("type") in ("error", "exited"):
                        refused_runs += 1
                    else:
                        other += 1
                tries += len(ids)
                if os.path.exists(tree.landed):
                    break
        r.close()
        t.ok(not os.path.exists(tree.landed) and other == 0,
             f"{MODE}: {tries} runs against a swapping cwd never wrote into home "
             f"({ran} ran in the checked directory, {refused_runs} refused as changed, "
             f"{swapper.swaps} swaps)",
             f"landed={os.path.exists(tree.landed)} other={other}")
        t.ok(ran > 0, f"{MODE}: runs still ran while the name was swapped ({ran})")
    finally:
        tree.close()


def test_walk_swap(t):
    """After a run started, its directory's name is swapped for a symlink to
    a directory outside the workspace: the runner's walks (the files
    report, setuid strip, disk use) must keep to the directory the run was
    given, through its fd, and never describe or change the other one."""
    run_uid = race_run_uid()
    tree = RaceTree(run_uid)
    try:
        outside = os.path.join(tree.base, "private")
        os.mkdir(outside)
        os.chmod(outside, 0o755)
        with open(os.path.join(outside, "secret-notes.txt"), "w") as f:
            f.write(SECRET)
        setuid_file = os.path.join(outside, "tool")
        with open(setuid_file, "w") as f:
            f.write("#!/bin/sh\n")
        os.chmod(setuid_file, 0o4755)
        r = start(tree, "--allow-cwd", tree.ws)
        r.send(type="run", id="w", language="bash",
               code="echo mine > made.txt; touch ready; sleep 2", cwd=tree.sub)
        ok = wait_until_exists(os.path.join(tree.sub, "ready"), 20)
        real = tree.sub + ".real"
        os.rename(tree.sub, real)
        os.symlink(outside, tree.sub)
        events = r.collect("w")
        r.close()
        exited = events[-1] if events else {}
        names = sorted(f.get("path", "") for f in exited.get("files", []))
        t.ok(ok and "made.txt" in names and "secret-notes.txt" not in names
             and "tool" not in names,
             f"{MODE}: the files report lists the run's own directory, not the swapped-in one",
             f"files={names} exited={exited}")
        t.ok(os.stat(setuid_file).st_mode & 0o4000,
             f"{MODE}: a setuid file in the swapped-in directory keeps its bit")
    finally:
        tree.close()


def final_event(r, run_id, timeout=60):
    """The run's exited event, or the error that refused its request."""
    others = []
    deadline = time.monotonic() + timeout
    while True:
        ev = r.recv(max(0.1, deadline - time.monotonic()))
        if ev is None or ev.get("id") != run_id:
            if ev is None:
                raise EOFError("runner closed its output")
            others.append(ev)
            continue
        if ev["type"] in ("exited", "error"):
            r.pending = others + r.pending
            return ev


def wait_until_exists(path, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if os.path.exists(path):
            return True
        time.sleep(0.02)
    return False


def test_cwd_swap_race_warm(t):
    """The cwd swap race through the warm path: a warm spare gets the
    checked directory's dev/inode in its plan and must bind or enter only
    that directory, never what the swapped name leads to."""
    tree = RaceTree(race_run_uid())
    code = "open('f', 'a').write('x')\n"
    try:
        # Control: unsandboxed, python3 entering the name as it is swapped
        # lands in home within a few tries.
        won = False
        with Swapper(tree.sub, tree.link):
            for _ in range(200):
                subprocess.run(["/usr/bin/python3", "-c", f"import os\ntry:\n os.chdir({tree.sub!r})\n"
                                f"except OSError:\n raise SystemExit\n{code}"], check=False)
                if os.path.exists(tree.landed):
                    won = True
                    break
        t.ok(won, "control: unsandboxed, a cwd looked up again lands in home")
        if os.path.exists(tree.landed):
            os.unlink(tree.landed)
        r = start(tree, "--allow-cwd", tree.ws, "--warm-min-memory", "0")
        # The warm parent imports for a while after hello.
        deadline = time.monotonic() + 90
        warm_ready = False
        while time.monotonic() < deadline and not warm_ready:
            res = r.run(f"wait{int(time.monotonic() * 1000)}", "pass")
            started = res.started or {}
            # Warm runs off for good (exited says why: helpers this user
            # cannot reach, a build tree under a 0700 folder): no use waiting.
            why = (res.exited or {}).get("cold_reason")
            if why:
                started = dict(started, cold_reason=why)
                break
            warm_ready = bool(started.get("warm"))
            time.sleep(0.2)
        if not warm_ready:
            t.skip(f"no warm runs here: {started.get('cold_reason', 'none started warm')}")
            r.close()
            return
        ran = warm = refused_runs = other = tries = 0
        deadline = time.monotonic() + RACE_SECONDS
        with Swapper(tree.sub, tree.link) as swapper:
            while tries < RACE_TRIES and time.monotonic() < deadline:
                # One at a time: each goes warm once the parent has its
                # next spare (the ones that go cold race as well).
                run_id = f"race{tries}"
                r.send(type="run", id=run_id, language="python", code=code, cwd=tree.sub)
                events = []
                while True:
                    ev = r.recv(60)
                    if ev.get("id") != run_id:
                        continue
                    events.append(ev)
                    if ev["type"] in ("exited", "error"):
                        break
                last = events[-1]
                if any(e["type"] == "started" and e.get("warm") for e in events):
                    warm += 1
                if last["type"] == "exited" and last.get("end") == "exited":
                    ran += 1
                elif last["type"] in ("error", "exited"):
                    refused_runs += 1
                else:
                    other += 1
                tries += 1
                if os.path.exists(tree.landed):
                    break
        r.close()
        t.ok(not os.path.exists(tree.landed) and other == 0,
             f"{MODE}: {tries} runs ({warm} warm) against a swapping cwd never wrote into home "
             f"({ran} ran in the checked directory, {refused_runs} refused as changed, "
             f"{swapper.swaps} swaps)",
             f"landed={os.path.exists(tree.landed)} other={other}")
        t.ok(warm > 0, f"{MODE}: warm runs took part in the race ({warm})")
    finally:
        tree.close()


TESTS = {f.__name__[5:]: f for f in (test_policy_root, test_policy_user, test_private_dir,
                                      test_cwd_swap_race, test_walk_swap,
                                      test_cwd_swap_race_warm)}

if __name__ == "__main__":
    names = sys.argv[2:] or list(TESTS)
    main([TESTS[n] for n in names])
