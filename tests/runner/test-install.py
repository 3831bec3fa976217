"""Installs into a venv under the policy, offline, with the real runner,
pip and interpreters: wheels the test builds itself, from a local
wheelhouse and from a PEP 503 simple index it serves on 127.0.0.1.

Usage: test-install.py SANDPAD-RUN [TEST-NAME...]
"""

import functools
import hashlib
import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from envtest import SYSTEM_PYTHON, Workspace  # noqa: E402
from runnertest import main  # noqa: E402

SANDPAD_RUN = os.path.abspath(sys.argv[1])
MODE = os.environ.get("SANDPAD_TEST_SANDBOX", "namespaces")


def build_project(base, name, version, extra_bytes=0, sdist=False):
    """A tiny pure-Python project built into a wheel (or an sdist) with
    Debian's setuptools and wheel, offline. Returns the file's path."""
    src = os.path.join(base, f"src-{name}")
    pkg = os.path.join(src, name)
    os.makedirs(pkg)
    with open(os.path.join(pkg, "__init__.py"), "w") as f:
        f.write(f"WORD = '{name}-{version}'\n")
    if extra_bytes:
        with open(os.path.join(pkg, "blob.bin"), "wb") as f:
            f.write(os.urandom(extra_bytes))
    with open(os.path.join(src, "setup.py"), "w") as f:
        f.write("from setuptools import setup\n"
                f"setup(name={name!r}, version={version!r}, packages=[{name!r}],\n"
                f"      package_data={{{name!r}: ['*.bin']}})\n")
    out = os.path.join(base, "dist")
    os.makedirs(out, exist_ok=True)
    if sdist:
        cmd = [SYSTEM_PYTHON, "setup.py", "-q", "sdist", "-d", out]
    else:
        cmd = [SYSTEM_PYTHON, "-m", "pip", "wheel", "-q", "--no-deps", "--no-index",
               "--no-build-isolation", "-w", out, src]
    subprocess.run(cmd, cwd=src, check=True, capture_output=True)
    found = [f for f in os.listdir(out) if f.startswith(name + "-")]
    return os.path.join(out, found[0])


class Packages:
    """A wheelhouse: tinypkg 1.0, blockedpkg 1.0, bigpkg 1.0 (2 MiB) as
    wheels, sdistonly 1.0 as an sdist."""

    def __init__(self):
        self.base = tempfile.mkdtemp(prefix="sandpad-install-pkgs-")
        self.tiny = build_project(self.base, "tinypkg", "1.0")
        build_project(self.base, "blockedpkg", "1.0")
        build_project(self.base, "bigpkg", "1.0", extra_bytes=2 * 1024 * 1024)
        build_project(self.base, "sdistonly", "1.0", sdist=True)
        self.house = os.path.join(self.base, "dist")
        for dirpath, dirnames, filenames in os.walk(self.base):
            os.chmod(dirpath, 0o755)
            for n in filenames:
                os.chmod(os.path.join(dirpath, n), 0o644)

    def remove(self):
        shutil.rmtree(self.base, ignore_errors=True)


def install(ws, *args, state=None):
    env = dict(os.environ)
    env["XDG_STATE_HOME"] = state or os.path.join(ws.root + "-state")
    return subprocess.run([SANDPAD_RUN, "--install", "--sandbox", MODE, "--strict",
                           "--environment", ws.venv, *args],
                          capture_output=True, text=True, env=env, timeout=300)


def run_in(ws, code, *args):
    path = os.path.join(ws.root, "probe.py")
    with open(path, "w") as f:
        f.write(code)
    os.chmod(path, 0o644)
    return subprocess.run([SANDPAD_RUN, "--sandbox", MODE, "--strict", *args, path],
                          capture_output=True, text=True, cwd=ws.root, timeout=120)


IMPORT = "import tinypkg\nprint(tinypkg.WORD)\n"


def test_wheelhouse(t):
    """From a local wheelhouse (offline): installed, logged with the file's
    SHA-256, and a following run imports it."""
    pkgs = Packages()
    ws = Workspace()
    before = run_in(ws, IMPORT)
    t.ok(before.returncode != 0 and "ModuleNotFoundError" in before.stderr,
         "control: the package is missing before the install", before.stderr)
    res = install(ws, "--find-links", pkgs.house, "tinypkg")
    t.ok(res.returncode == 0 and "installed tinypkg 1.0" in res.stdout,
         "the install reports what it installed", res.stdout + res.stderr)
    after = run_in(ws, IMPORT)
    t.eq(after.stdout, "tinypkg-1.0\n", "a following run imports the package",
         after.stderr)
    log = os.path.join(ws.root + "-state", "sandpad", "installs.log")
    entries = [json.loads(line) for line in open(log)] if os.path.exists(log) else []
    digest = hashlib.sha256(open(pkgs.tiny, "rb").read()).hexdigest()
    t.ok(len(entries) == 1 and entries[0]["name"] == "tinypkg"
         and entries[0]["version"] == "1.0" and entries[0]["sha256"] == digest
         and entries[0]["find_links"] == [pkgs.house] and entries[0]["time"],
         "the log names the package, version, SHA-256, time and source", entries)
    shutil.rmtree(ws.root + "-state", ignore_errors=True)
    ws.remove()
    pkgs.remove()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class Index:
    """A PEP 503 simple index over the wheelhouse, served on 127.0.0.1 by
    python3's http.server in a thread."""

    def __init__(self, pkgs):
        self.root = tempfile.mkdtemp(prefix="sandpad-install-index-")
        os.makedirs(os.path.join(self.root, "files"))
        links = {}
        for name in os.listdir(pkgs.house):
            shutil.copy(os.path.join(pkgs.house, name), os.path.join(self.root, "files"))
            project = name.split("-")[0].replace("_", "-")
            links.setdefault(project, []).append(name)
        for project, files in links.items():
            d = os.path.join(self.root, "simple", project)
            os.makedirs(d)
            with open(os.path.join(d, "index.html"), "w") as f:
                f.write("<!DOCTYPE html><html><body>\n")
                for name in files:
                    digest = hashlib.sha256(
                        open(os.path.join(self.root, "files", name), "rb").read()).hexdigest()
                    f.write(f'<a href="../../files/{name}#sha256={digest}">{name}</a>\n')
                f.write("</body></html>\n")
        handler = functools.partial(QuietHandler, directory=self.root)
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.port}/simple"

    def close(self):
        self.server.shutdown()
        self.server.server_close()
        shutil.rmtree(self.root, ignore_errors=True)


def test_index(t):
    """From a simple index on 127.0.0.1: the download step reaches it; the
    runs that follow do not (the network is off again), while a run given
    the network does (the probe works)."""
    pkgs = Packages()
    index = Index(pkgs)
    ws = Workspace()
    res = install(ws, "--index-url", index.url, "tinypkg==1.0")
    t.ok(res.returncode == 0 and "installed tinypkg 1.0" in res.stdout,
         "installed from the simple index", res.stdout + res.stderr)
    t.eq(run_in(ws, IMPORT).stdout, "tinypkg-1.0\n", "a following run imports it")
    probe = ("import socket\n"
             "try:\n"
             f"    socket.create_connection(('127.0.0.1', {index.port}), timeout=5).close()\n"
             "    print('CONNECTED')\n"
             "except OSError as e:\n"
             "    print('unreachable', e)\n")
    after = run_in(ws, probe)
    t.ok("unreachable" in after.stdout and "CONNECTED" not in after.stdout,
         "a run after the install cannot reach the index's listener", after.stdout)
    ctl = run_in(ws, probe, "--network")
    t.ok("CONNECTED" in ctl.stdout, "control: a run given the network reaches it",
         ctl.stdout + ctl.stderr)
    shutil.rmtree(ws.root + "-state", ignore_errors=True)
    ws.remove()
    index.close()
    pkgs.remove()


def refused(t, ws, res, words, desc):
    t.ok(res.returncode == 1 and "refused" in res.stderr and words in res.stderr, desc,
         res.stdout + res.stderr)


def test_policy(t):
    """Each rule refuses with a message naming it, and nothing is
    installed: the block list, the allow list, required pins, an sdist by
    default, the size cap, options smuggled in as specs. Controls: the
    same packages pass without the rule."""
    pkgs = Packages()
    ws = Workspace()
    house = ("--find-links", pkgs.house)
    refused(t, ws, install(ws, *house, "--block", "blocked*", "blockedpkg"),
            'block list (pattern "blocked*")', "a blocked name is refused, naming the pattern")
    refused(t, ws, install(ws, *house, "--allow", "tiny*", "blockedpkg"),
            "not on the allow list", "a name off the allow list is refused")
    refused(t, ws, install(ws, *house, "--require-pins", "tinypkg"), "not pinned",
            "an unpinned package is refused when pins are required")
    res = install(ws, *house, "sdistonly")
    t.ok(res.returncode == 1 and "accepts wheels only" in res.stderr
         and "source distribution" in res.stderr,
         "an sdist is refused by default (pip looks for wheels only), saying why",
         res.stdout + res.stderr)
    refused(t, ws, install(ws, *house, "--allow-sdist", "--max-mib", "1", "bigpkg"),
            "size cap", "an install over the size cap is refused")
    refused(t, ws, install(ws, *house, "--", "-r/etc/passwd"), "not a package name",
            "an option passed as a spec is refused")
    check = run_in(ws, "import importlib.util as u\n"
                   "print([n for n in ('tinypkg', 'blockedpkg', 'bigpkg', 'sdistonly')"
                   " if u.find_spec(n)])\n")
    t.eq(check.stdout, "[]\n", "nothing refused was installed", check.stderr)
    res = install(ws, *house, "--allow", "tiny*", "--allow", "blocked*", "--require-pins",
                  "tinypkg==1.0", "blockedpkg==1.0")
    t.ok(res.returncode == 0 and "tinypkg 1.0" in res.stdout and "blockedpkg 1.0" in res.stdout,
         "control: pinned names on the allow list install", res.stdout + res.stderr)
    res = install(ws, *house, "--allow-sdist", "bigpkg")
    t.ok(res.returncode == 0, "control: the big wheel installs under the default cap",
         res.stdout + res.stderr)
    shutil.rmtree(ws.root + "-state", ignore_errors=True)
    ws.remove()
    pkgs.remove()


def test_sdist_allowed(t):
    """An sdist when the policy allows it: its setup.py runs in the sandbox
    (network off), and the package imports."""
    pkgs = Packages()
    ws = Workspace()
    res = install(ws, "--find-links", pkgs.house, "--allow-sdist", "sdistonly")
    t.ok(res.returncode == 0 and "sdistonly 1.0" in res.stdout,
         "an allowed sdist installs", res.stdout + res.stderr)
    run = run_in(ws, "import sdistonly\nprint(sdistonly.WORD)\n")
    t.eq(run.stdout, "sdistonly-1.0\n", "and imports", run.stderr)
    shutil.rmtree(ws.root + "-state", ignore_errors=True)
    ws.remove()
    pkgs.remove()


TESTS = {f.__name__[5:]: f for f in (test_wheelhouse, test_index, test_policy,
                                     test_sdist_allowed)}

if __name__ == "__main__":
    names = sys.argv[2:] or list(TESTS)
    main([TESTS[n] for n in names])
