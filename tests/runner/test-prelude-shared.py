#!/usr/bin/python3
"""The prelude's files (sitecustomize.py, its .pyc, bin/python), through the
real runner in one sandbox mode, as root and as the ordinary user sandpad-ci
(whose runs have the runner's own uid, so own the runner's files).

In namespace mode they are the runner's, written once and bound read-only
into every run: two runs, cold and warm, see the very same files (same
inode). Every run may try to write, truncate, chmod, rename, unlink or
replace them, or add a module beside them, by every name it has for them;
each attempt fails, and the next run's prelude is byte for byte and mode
for mode what the first run saw. Control: the same probe, unsandboxed, on a
copy it may write, changes every one of them.

Usage: test-prelude-shared.py SANDPAD-RUNNER (SANDPAD_TEST_SANDBOX: mode)."""

import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from runnertest import Runner, main  # noqa: E402

RUNNER = sys.argv[1]
MODE = os.environ.get("SANDPAD_TEST_SANDBOX", "namespaces")

# What a run sees of the prelude: each file under its directory (links not
# followed) with its mode, inode and content's hash.
LIST = r"""
import hashlib, json, os, sys
def listing(top):
    out = {}
    for base, dirs, files in os.walk(top):
        for name in dirs + files:
            p = os.path.join(base, name)
            st = os.lstat(p)
            if os.path.islink(p):
                data = os.readlink(p).encode()
            elif os.path.isfile(p):
                data = open(p, "rb").read()
            else:
                data = b""
            out[os.path.relpath(p, top)] = [st.st_mode, st.st_dev, st.st_ino,
                                            hashlib.sha256(data).hexdigest()]
    return out
"""

PROBE = LIST + r"""
top = os.environ.get("PROBE_DIR") or os.path.dirname(sys.modules["sitecustomize"].__file__)
src = os.path.join(top, "sitecustomize.py")
pyc_dir = os.path.join(top, "__pycache__")
pyc = os.path.join(pyc_dir, sorted(os.listdir(pyc_dir))[0])
alias = os.path.join(top, "bin", "python")
before = listing(top)
def attempt(name, fn):
    try:
        fn()
        print("DONE", name)
    except OSError as e:
        print("DENIED", name, e.errno)
def append(p):
    with open(p, "a") as f:
        f.write("\nprint('tampered')\n")
def replace(p):
    new = os.path.join(os.path.dirname(p), ".new")
    with open(new, "w") as f:
        f.write("print('tampered')\n")
    os.replace(new, p)
def relink(p):
    os.symlink("/bin/sh", p + ".new")
    os.replace(p + ".new", p)
attempt("append-source", lambda: append(src))
attempt("truncate-pyc", lambda: os.truncate(pyc, 0))
attempt("chmod-source", lambda: os.chmod(src, 0o666))
attempt("chmod-dir", lambda: os.chmod(top, 0o777))
attempt("utime-source", lambda: os.utime(src, (0, 0)))
attempt("replace-source", lambda: replace(src))
attempt("unlink-pyc", lambda: os.unlink(pyc))
attempt("rename-cache", lambda: os.rename(pyc_dir, pyc_dir + ".old"))
attempt("add-module", lambda: open(os.path.join(top, "evil.py"), "x").close())
attempt("relink-alias", lambda: relink(alias))
print("BEFORE", json.dumps(before))
print("AFTER", json.dumps(listing(top)))
"""

ATTEMPTS = ["append-source", "truncate-pyc", "chmod-source", "chmod-dir", "utime-source",
            "replace-source", "unlink-pyc", "rename-cache", "add-module", "relink-alias"]


def as_ci_user():
    import pwd
    user = pwd.getpwnam("sandpad-ci")
    os.setgroups([])
    os.setresgid(user.pw_gid, user.pw_gid, user.pw_gid)
    os.setresuid(user.pw_uid, user.pw_uid, user.pw_uid)


def parse(stdout):
    done, denied, lists = [], [], {}
    for line in stdout.splitlines():
        word, _, rest = line.partition(" ")
        if word == "DONE":
            done.append(rest)
        elif word == "DENIED":
            denied.append(rest.split()[0])
        elif word in ("BEFORE", "AFTER"):
            lists[word] = json.loads(rest)
    return done, denied, lists


def without_inodes(listing):
    return {k: [v[0], v[3]] for k, v in listing.items()}


def start(user):
    """A runner that has said hello (which starts its warm pool)."""
    tmp = tempfile.gettempdir()
    extra = ("--allow-path", tmp, "--allow-cwd", tmp) if user else ()
    r = Runner(RUNNER, "--sandbox", MODE, "--strict", *extra,
               preexec_fn=as_ci_user if user else None)
    r.hello()
    return r


def wait_warm(r, timeout=90):
    deadline = time.monotonic() + timeout
    n = 0
    while time.monotonic() < deadline:
        n += 1
        if r.run(f"w{n}", "pass").started.get("warm"):
            return True
        time.sleep(0.2)
    return False


def tampering(t, user):
    who = "as sandpad-ci" if user else "as root"
    if user:
        try:
            import pwd
            pwd.getpwnam("sandpad-ci")
        except KeyError:
            t.skip("no account sandpad-ci to run the runner as (build-aux/dev.sh makes it)")
            return
        if os.geteuid() != 0:
            t.skip("the runner is started as sandpad-ci, which needs root")
            return
    r = start(user)
    first = r.run("tamper", PROBE)
    done, denied, lists = parse(first.stdout)
    t.ok("BEFORE" in lists and "sitecustomize.py" in lists["BEFORE"],
         f"{who}: the probe ran and saw the prelude", first)
    if MODE == "namespaces":
        t.eq(done, [], f"{who}: every write, chmod, rename and replace of the prelude fails",
             first.stdout)
        t.eq(sorted(denied), sorted(ATTEMPTS), f"{who}: each attempt was made", first.stdout)
    second = r.run("after", LIST + "print(json.dumps(listing(os.path.dirname("
                   "sys.modules['sitecustomize'].__file__))))\n")
    try:
        later = json.loads(second.stdout)
    except ValueError:
        later = None
    t.ok(later is not None and "BEFORE" in lists
         and without_inodes(later) == without_inodes(lists["BEFORE"]),
         f"{who}: the next run's prelude is what the first saw, content and modes", second)
    plot = r.run("plot", "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()\n")
    t.eq([f["path"] for f in plot.exited.get("files", [])], ["plot-1.png"],
         f"{who}: the next run's prelude still works (plt.show() leaves plot-1.png)", plot)
    if MODE == "namespaces" and wait_warm(r):
        warm = r.run("warm", PROBE)
        wdone, _, wlists = parse(warm.stdout)
        t.ok(warm.started.get("warm") is True and wdone == [],
             f"{who}: a warm run cannot change the prelude either", warm)
        t.ok("BEFORE" in wlists and wlists["BEFORE"] == lists["BEFORE"],
             f"{who}: a warm run has the cold runs' very files (same inodes)", (lists, wlists))
    elif MODE == "namespaces":
        t.ok(False, f"{who}: no run started warm within 90 s")
    r.close()


def test_tamper_root(t):
    tampering(t, False)


def test_tamper_user(t):
    tampering(t, True)


def test_shared(t):
    if MODE != "namespaces":
        t.skip("fallback mode gives each run its own copy (docs/security.md says why)")
        return
    r = start(False)
    code = LIST + "print(json.dumps(listing(os.path.dirname(" \
        "sys.modules['sitecustomize'].__file__))))\n"
    a = r.run("a", code)
    b = r.run("b", code)
    la, lb = json.loads(a.stdout or "{}"), json.loads(b.stdout or "{}")
    t.ok(la and la == lb, "two runs see the runner's one copy of the prelude (same inodes)",
         (la, lb))
    r.close()


def test_control(t):
    """The probe, unsandboxed, on a copy of the prelude it may write."""
    with tempfile.TemporaryDirectory() as tmp:
        top = os.path.join(tmp, "prelude")
        os.makedirs(os.path.join(top, "__pycache__"))
        os.makedirs(os.path.join(top, "bin"))
        with open(os.path.join(top, "sitecustomize.py"), "w") as f:
            f.write("x = 1\n")
        with open(os.path.join(top, "__pycache__", "sitecustomize.pyc"), "wb") as f:
            f.write(b"\0" * 16)
        os.symlink("/usr/bin/python3", os.path.join(top, "bin", "python"))
        res = subprocess.run(["/usr/bin/python3", "-c", PROBE], capture_output=True, text=True,
                             env={**os.environ, "PROBE_DIR": top}, timeout=60)
        done, denied, lists = parse(res.stdout)
        t.eq(sorted(done), sorted(ATTEMPTS), "control: unsandboxed, every attempt changes the copy",
             res.stdout + res.stderr)
        t.ok(lists.get("BEFORE") != lists.get("AFTER"), "control: the listing shows the change")


if __name__ == "__main__":
    main([test_shared, test_tamper_root, test_tamper_user, test_control])
