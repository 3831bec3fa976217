#!/usr/bin/python3
"""matplotlib's font list, built once by the runner and copied into every
Python run (issue 26, "The cold path's chart cost"), through the real
runner in one sandbox mode (runner-font-cache.h).

After the runner's own build run has kept the list (in the compile cache's
directory, named fonts-KEY), a cold run's MPLCONFIGDIR holds
fontlist-vN.json when its program starts, byte for byte the kept list. A
run that spoils its copy changes neither the kept list nor the next run's
copy. A kept list that is not JSON of matplotlib's shape, is over the size
cap, or is a symlink is not used (control: the same entry restored is).
A client cannot submit a run under the build run's id. A run that tries
to write, replace or add to the runner's kept list (its path named in the
program) is refused by the kernel, and the next run's list is intact
(control: the same probe, unsandboxed, against a copy, writes). A kept
list that names a font file outside matplotlib's data and /usr, /opt (a
file a run could plant) is not used. The build run takes no slot: with
--max-concurrent 1 and that slot held, the list is still made. A runner
that only ran bash made no list.

Usage: test-font-cache.py SANDPAD-RUNNER (SANDPAD_TEST_SANDBOX: mode)."""

import json
import os
import shutil
import sys
import tempfile
import time

from runnertest import Runner, main

RUNNER = sys.argv[1]
MODE = os.environ.get("SANDPAD_TEST_SANDBOX", "auto")

# The program's first statement: what MPLCONFIGDIR holds before any of the
# program's own code (or matplotlib) could have written there.
LIST = r"""
import os, sys
d = os.environ["MPLCONFIGDIR"]
names = sorted(n for n in os.listdir(d) if n.startswith("fontlist-v")) if os.path.isdir(d) else []
print(repr(names))
for n in names:
    data = open(os.path.join(d, n), "rb").read()
    import hashlib
    print("sha", hashlib.sha256(data).hexdigest())
"""

SPOIL = r"""
import os
d = os.environ["MPLCONFIGDIR"]
for n in os.listdir(d):
    if n.startswith("fontlist-v"):
        with open(os.path.join(d, n), "a") as f:
            f.write("spoiled")
        print("spoiled", n)
"""


# Tries to change the runner's kept list (argv: its path), each step on
# its own; prints what the kernel said.
POISON = r"""
import errno, os, sys
kept = sys.argv[1]
cache = os.path.dirname(kept)
def probe(what, fn):
    try:
        fn()
        print(what, "wrote")
    except OSError as e:
        print(what, "refused", errno.errorcode.get(e.errno, e.errno))
def append():
    with open(kept, "ab") as f:
        f.write(b"poisoned")
def replace():
    with open(os.path.join(cache, "poison"), "wb") as f:
        f.write(b'{"_version": 1, "ttflist": [], "afmlist": []}')
    os.rename(os.path.join(cache, "poison"), kept)
def add():
    with open(os.path.join(cache, "fonts-" + "0" * 64), "wb") as f:
        f.write(b"{}")
probe("append", append)
probe("replace", replace)
probe("add", add)
"""


def entry(cache):
    names = [n for n in os.listdir(cache) if n.startswith("fonts-")]
    return os.path.join(cache, names[0]) if names else None


def sha(path):
    import hashlib
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def sha_bytes(data):
    import hashlib
    return hashlib.sha256(data).hexdigest()


def listed(r, run_id):
    res = r.run(run_id, LIST)
    lines = res.stdout.splitlines()
    names = eval(lines[0]) if lines and lines[0].startswith("[") else None
    shas = [line[4:] for line in lines if line.startswith("sha ")]
    return res, names, shas


def test_font_cache(t):
    if shutil.which("python3", path="/usr/bin") is None:
        t.skip("no /usr/bin/python3")
        return
    cache = tempfile.mkdtemp(prefix="sandpad-fonts-")
    try:
        r = Runner(RUNNER, "--sandbox", MODE, "--compile-cache", cache)
        res, names, _ = listed(r, "first")
        t.eq(res.exited.get("exit_code"), 0, "the first Python run runs as before", res)
        # The build run is the runner's own, after the first run's start.
        deadline = time.monotonic() + 120
        while entry(cache) is None and time.monotonic() < deadline:
            time.sleep(0.1)
        kept = entry(cache)
        t.ok(kept is not None, "the runner keeps a font list after the first Python run",
             os.listdir(cache))
        if kept is None:
            r.close()
            return
        with open(kept, "rb") as f:
            original = f.read()
        doc = json.loads(original)
        t.ok(isinstance(doc.get("ttflist"), list) and len(doc["ttflist"]) > 0,
             "it is matplotlib's list, with fonts in it", doc.get("_version"))
        want_name = "fontlist-v%d.json" % doc["_version"]

        res, names, shas = listed(r, "second")
        t.eq(names, [want_name], "a cold run's MPLCONFIGDIR holds the list before its program "
             "starts", res)
        t.eq(shas, [sha(kept)], "byte for byte the runner's list", res)

        res = r.run("spoil", SPOIL)
        t.ok("spoiled" in res.stdout, "a run may change its own copy", res)
        t.eq(sha(kept), sha_bytes(original),
             "the runner's list is unchanged by it", res)
        res, names, shas = listed(r, "after-spoil")
        t.eq((names, shas), ([want_name], [sha(kept)]),
             "the next run's copy is the runner's list, not the spoiled one", res)

        # matplotlib says "building the font cache" on stderr when it scans.
        res = r.run("chart", "import matplotlib.pyplot as plt\nplt.bar(['a'], [1])\n"
                    "plt.savefig('c.png')\n")
        t.eq((res.exited.get("exit_code"), res.stderr), (0, ""),
             "matplotlib uses the copy: a chart draws without building a font cache", res)

        # What is kept is checked again before each use.
        bad = {
            "not JSON": b"{not json",
            "JSON of another shape": b'{"_version": 330}',
            "over the size cap": original.rstrip() + b" " * (4 * 1024 * 1024) + b"\n",
        }
        for i, (what, data) in enumerate(bad.items()):
            with open(kept, "wb") as f:
                f.write(data)
            res, names, _ = listed(r, "bad-%d" % i)
            t.eq(names, [], "a kept list %s is not used" % what, res)
        os.unlink(kept)
        aside = os.path.join(cache, "aside")
        with open(aside, "wb") as f:
            f.write(original)
        os.symlink(aside, kept)
        res, names, _ = listed(r, "symlink")
        t.eq(names, [], "a kept list that is a symlink is not followed", res)
        os.unlink(kept)
        with open(kept, "wb") as f:
            f.write(original)
        res, names, _ = listed(r, "restored")
        t.eq(names, [want_name], "control: the same list restored is used again", res)

        # A list naming a font file a run could plant: not used.
        for i, fname in enumerate(["/tmp/planted.ttf", "/dev/shm/x.ttf",
                                   "/usr/share/fonts/../../../tmp/x.ttf",
                                   "fonts/../../../../tmp/x.ttf"]):
            doc2 = json.loads(original)
            doc2["ttflist"][0]["fname"] = fname
            with open(kept, "wb") as f:
                f.write(json.dumps(doc2).encode())
            res, names, _ = listed(r, "fname-%d" % i)
            t.eq(names, [], "a kept list naming font %s is not used" % fname, res)
        with open(kept, "wb") as f:
            f.write(original)

        # A run that tries to change the kept list, by its real path.
        res = r.run("poison", POISON, args=[kept])
        lines = dict(line.split(" ", 1) for line in res.stdout.splitlines())
        for what in ("append", "replace", "add"):
            t.ok(lines.get(what, "").startswith("refused"),
                 "a run cannot %s the runner's list" % what, res)
        t.eq(sorted(os.listdir(cache)), sorted(["aside", os.path.basename(kept)]),
             "nothing was added to the runner's directory", os.listdir(cache))
        t.eq(sha(kept), sha_bytes(original), "the runner's list is intact after it")
        res, names, shas = listed(r, "after-poison")
        t.eq((names, shas), ([want_name], [sha_bytes(original)]),
             "the next run's copy is the intact list", res)
        # Control: the probe does write, run outside the sandbox on a copy.
        copy_dir = tempfile.mkdtemp(prefix="sandpad-fonts-control-")
        try:
            copy = os.path.join(copy_dir, os.path.basename(kept))
            shutil.copy(kept, copy)
            import subprocess
            out = subprocess.run(["/usr/bin/python3", "-c", POISON, copy],
                                 capture_output=True, text=True).stdout
            t.eq(sorted(out.split()), sorted(["add", "append", "replace", "wrote",
                                              "wrote", "wrote"]),
                 "control: the probe writes unsandboxed (a copy)", out)
        finally:
            shutil.rmtree(copy_dir, ignore_errors=True)

        r.send(type="run", id="\u0001sandpad-fonts", language="python", code="print(1)\n")
        ev = r.recv_type("error")
        # The protocol allows printable ASCII ids only; the engine refuses
        # the id as well, for front ends that submit to it directly.
        t.ok(ev is not None and ev.get("id") in (None, "\u0001sandpad-fonts"),
             "a client's run under the build run's id is refused", ev)
        r.close()
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def test_no_slot(t):
    """The build run takes no slot: with one slot, held by a client's run
    that waits until cancelled, the list is still made."""
    if shutil.which("python3", path="/usr/bin") is None:
        t.skip("no /usr/bin/python3")
        return
    cache = tempfile.mkdtemp(prefix="sandpad-fonts-")
    try:
        r = Runner(RUNNER, "--sandbox", MODE, "--compile-cache", cache, "--max-concurrent", "1")
        r.send(type="run", id="hold", language="python",
               code="print('holding', flush=True)\nimport time\ntime.sleep(600)\n",
               timeout_ms=300000)
        ev = r.recv_type("started", timeout=60)
        t.ok(ev is not None and ev.get("id") == "hold", "the one slot is held", ev)
        # Waits for a condition (no time is asserted): a build that needed
        # the slot would never run while "hold" sleeps (its time limit,
        # 300 s, is well past this wait).
        deadline = time.monotonic() + 120
        while entry(cache) is None and time.monotonic() < deadline:
            time.sleep(0.1)
        t.ok(entry(cache) is not None,
             "the font list is made while the only slot is a client's", os.listdir(cache))
        r.send(type="cancel", id="hold")
        r.collect("hold")
        r.close()
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def test_old_lists_forgotten(t):
    """A new key's list replaces all but the newest few of the older keys'."""
    if shutil.which("python3", path="/usr/bin") is None:
        t.skip("no /usr/bin/python3")
        return
    cache = tempfile.mkdtemp(prefix="sandpad-fonts-")
    try:
        # Six lists of keys that are not this machine's, a day apart.
        stale = []
        for i in range(6):
            name = "fonts-" + ("%x" % (i + 1)) * 64
            with open(os.path.join(cache, name), "w") as f:
                f.write("{}")
            when = time.time() - 86400 * (i + 1)
            os.utime(os.path.join(cache, name), (when, when))
            stale.append(name)
        r = Runner(RUNNER, "--sandbox", MODE, "--compile-cache", cache)
        res, _, _ = listed(r, "first")
        t.eq(res.exited.get("exit_code"), 0, "a Python run runs", res)

        def fresh():
            return [n for n in os.listdir(cache) if n.startswith("fonts-") and n not in stale]
        deadline = time.monotonic() + 120
        while not fresh() and time.monotonic() < deadline:
            time.sleep(0.1)
        r.close()
        kept = sorted(n for n in os.listdir(cache) if n.startswith("fonts-"))
        t.ok(len(fresh()) == 1, "the runner kept this machine's list", kept)
        t.eq(sorted(set(kept) - set(fresh())), sorted(stale[:3]),
             "and of the older keys' lists only the newest three, so four in all", kept)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def test_not_python(t):
    """A runner that ran only bash runs made no font list."""
    cache = tempfile.mkdtemp(prefix="sandpad-fonts-")
    try:
        r = Runner(RUNNER, "--sandbox", MODE, "--compile-cache", cache)
        res = r.run("sh", "echo hi\n", language="bash")
        t.eq(res.stdout, "hi\n", "a bash run runs", res)
        r.close()
        t.eq(entry(cache), None, "and no font list was built for it", os.listdir(cache))
    finally:
        shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main([test_font_cache, test_no_slot, test_old_lists_forgotten, test_not_python])
