"""Installs into a venv under the policy, offline, with the real runner,
pip and interpreters: wheels the test builds itself, from a local
wheelhouse and from a PEP 503 simple index it serves on 127.0.0.1.

Usage: test-install.py SANDPAD-RUN [TEST-NAME...]
"""

import base64
import errno
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
import time
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from envtest import RUN_UID, SYSTEM_PYTHON, Workspace  # noqa: E402
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


def build_wheel_by_hand(house, name, version, files, scripts=()):
    """A py3-none-any wheel written with zipfile, so it can hold what
    setuptools would not make: a .pth file at the top of site-packages and
    .data/scripts (names in `scripts`, executable) that pip puts in bin/."""
    dist = f"{name}-{version}.dist-info"
    entries = dict(files)
    entries[f"{dist}/METADATA"] = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    entries[f"{dist}/WHEEL"] = ("Wheel-Version: 1.0\nGenerator: sandpad-test\n"
                                "Root-Is-Purelib: true\nTag: py3-none-any\n")
    record = []
    for path, text in entries.items():
        data = text.encode()
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
        record.append(f"{path},sha256={digest.decode()},{len(data)}")
    record.append(f"{dist}/RECORD,,")
    entries[f"{dist}/RECORD"] = "\n".join(record) + "\n"
    path = os.path.join(house, f"{name}-{version}-py3-none-any.whl")
    with zipfile.ZipFile(path, "w") as z:
        for member, text in entries.items():
            info = zipfile.ZipInfo(member)
            mode = 0o755 if "/scripts/" in member else 0o644
            info.external_attr = (0o100000 | mode) << 16
            z.writestr(info, text)
    os.chmod(path, 0o644)
    return path


class Listener:
    """A TCP listener on 127.0.0.1 that records what connects to it."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.messages = []
        self.stop = False
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        while not self.stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            conn.settimeout(2)
            try:
                self.messages.append(conn.recv(100).decode(errors="replace"))
            except OSError:
                self.messages.append("")
            conn.close()

    def heard(self, word, timeout):
        """Whether `word` came within timeout seconds (a bounded wait)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if any(word in m for m in self.messages):
                return True
            time.sleep(0.05)
        return any(word in m for m in self.messages)

    def close(self):
        self.stop = True
        self.thread.join()
        self.sock.close()


def pth_probe(port, word):
    """A .pth line: every interpreter start of the venv connects to the
    listener and says `word` (a line starting with "import" is run)."""
    return ("import socket; exec(\"try:\\n s = socket.create_connection(('127.0.0.1', "
            f"{port}), timeout=2)\\n s.sendall(b'{word}')\\n s.close()\\n"
            "except OSError:\\n pass\")\n")


EVIL_ACTIVATE = "echo replaced by a wheel\n"


def evil_house(port):
    house = tempfile.mkdtemp(prefix="sandpad-install-evil-")
    os.chmod(house, 0o755)
    build_wheel_by_hand(house, "evilpkg", "1.0", {
        "evilpkg/__init__.py": "WORD = 'evil'\n",
        "evilpkg_probe.pth": pth_probe(port, "PTH"),
        "evilpkg-1.0.data/scripts/activate": EVIL_ACTIVATE,
    })
    return house


def read(path):
    with open(path, "rb") as f:
        return f.read()


def test_venv_guard(t):
    """A wheel allowed by name that ships .data/scripts/activate and a .pth
    file: the install is refused naming bin/activate, which keeps its
    bytes; a later install's download step (network on) never starts the
    venv's interpreter, so the .pth cannot reach a listener on 127.0.0.1.
    Controls: plain pip replaces activate with the same wheel, and a run
    of the venv given the network makes the .pth connect."""
    listener = Listener()
    house = evil_house(listener.port)
    pkgs = Packages()
    ctl = Workspace()
    plain = subprocess.run([os.path.join(ctl.venv, "bin", "python"), "-m", "pip", "install",
                            "-q", "--no-index", "--no-deps", "--find-links", house, "evilpkg"],
                           capture_output=True, text=True)
    t.ok(plain.returncode == 0
         and read(os.path.join(ctl.venv, "bin", "activate")) == EVIL_ACTIVATE.encode(),
         "control: pip alone lets the wheel replace bin/activate", plain.stderr)
    ctl.remove()

    ws = Workspace()
    activate = os.path.join(ws.venv, "bin", "activate")
    before = read(activate)
    cfg_before = read(os.path.join(ws.venv, "pyvenv.cfg"))
    res = install(ws, "--find-links", house, "--allow", "evilpkg", "evilpkg")
    t.ok(res.returncode == 1 and "refused" in res.stderr and "bin/activate" in res.stderr
         and "put back" in res.stderr,
         "the install is refused, naming bin/activate and saying it was put back",
         res.stdout + res.stderr)
    t.ok(read(activate) == before and read(os.path.join(ws.venv, "pyvenv.cfg")) == cfg_before,
         "bin/activate and pyvenv.cfg hold their bytes from before the install")
    st = os.lstat(activate)
    t.ok(not os.path.islink(activate) and st.st_uid == RUN_UID and st.st_mode & 0o777 == 0o644,
         "bin/activate is a file again with its owner and mode",
         (oct(st.st_mode), st.st_uid))
    pth = os.path.join(ws.site_packages(), "evilpkg_probe.pth")
    t.ok(os.path.exists(pth), "the .pth file stays in site-packages (the probe is armed)")

    listener.messages.clear()
    res = install(ws, "--find-links", pkgs.house, "tinypkg")
    t.ok(res.returncode == 0 and "installed tinypkg 1.0" in res.stdout,
         "a second install goes through", res.stdout + res.stderr)
    t.ok(not listener.heard("PTH", 2.0),
         "its download step (network on) did not run the .pth: nothing reached the listener",
         listener.messages)
    probe = run_in(ws, "print('ran')\n", "--network")
    t.ok("ran" in probe.stdout and listener.heard("PTH", 10.0),
         "control: a run of the venv given the network makes the .pth connect",
         probe.stdout + probe.stderr + repr(listener.messages))
    shutil.rmtree(ws.root + "-state", ignore_errors=True)
    ws.remove()
    shutil.rmtree(house, ignore_errors=True)
    pkgs.remove()
    listener.close()


def test_venv_guard_python(t):
    """A wheel whose scripts are bin/python3 (replaced), bin/python3.99 and
    bin/activate.xsh (new): refused naming them; bin/python3 is the symlink
    it was and the new ones are gone, so the venv still runs."""
    house = tempfile.mkdtemp(prefix="sandpad-install-evil-")
    os.chmod(house, 0o755)
    build_wheel_by_hand(house, "pypkg", "1.0", {
        "pypkg/__init__.py": "",
        "pypkg-1.0.data/scripts/python3": "#!/bin/sh\necho not python\n",
        "pypkg-1.0.data/scripts/python3.99": "#!/bin/sh\necho not python\n",
        "pypkg-1.0.data/scripts/activate.xsh": "echo replaced\n",
    })
    ws = Workspace()
    bin_dir = os.path.join(ws.venv, "bin")
    python3 = os.path.join(bin_dir, "python3")
    link = os.readlink(python3)
    res = install(ws, "--find-links", house, "pypkg")
    t.ok(res.returncode == 1 and "bin/python3," in res.stderr
         and "bin/python3.99 (new)" in res.stderr and "bin/activate.xsh (new)" in res.stderr,
         "refused, naming bin/python3, bin/python3.99 and bin/activate.xsh",
         res.stdout + res.stderr)
    t.ok(os.path.islink(python3) and os.readlink(python3) == link,
         "bin/python3 is the symlink it was", os.listdir(bin_dir))
    t.ok(not os.path.lexists(os.path.join(bin_dir, "python3.99"))
         and not os.path.lexists(os.path.join(bin_dir, "activate.xsh")),
         "the new bin/python3.99 and bin/activate.xsh are gone", os.listdir(bin_dir))
    t.eq(run_in(ws, "import sys\nprint(sys.prefix)\n").stdout, ws.venv + "\n",
         "a run still uses the venv")
    shutil.rmtree(ws.root + "-state", ignore_errors=True)
    ws.remove()
    shutil.rmtree(house, ignore_errors=True)


def test_shadowing(t):
    """New bin/ commands named like common ones are listed as warnings;
    other new commands are not, and the install goes through."""
    house = tempfile.mkdtemp(prefix="sandpad-install-shadow-")
    os.chmod(house, 0o755)
    build_wheel_by_hand(house, "shadowpkg", "1.0", {
        "shadowpkg/__init__.py": "",
        "shadowpkg-1.0.data/scripts/ls": "#!/bin/sh\necho not ls\n",
        "shadowpkg-1.0.data/scripts/sudo": "#!/bin/sh\necho not sudo\n",
        "shadowpkg-1.0.data/scripts/shadowtool": "#!/bin/sh\necho mine\n",
    })
    ws = Workspace()
    res = install(ws, "--find-links", house, "shadowpkg")
    t.ok(res.returncode == 0 and "installed shadowpkg 1.0" in res.stdout,
         "the install goes through", res.stdout + res.stderr)
    t.ok("warning: the install added bin/ls" in res.stdout
         and "warning: the install added bin/sudo" in res.stdout,
         "bin/ls and bin/sudo are named as shadowing common commands", res.stdout)
    t.ok("shadowtool" not in res.stdout
         and os.path.exists(os.path.join(ws.venv, "bin", "shadowtool")),
         "control: another new command is installed without a warning", res.stdout)
    shutil.rmtree(ws.root + "-state", ignore_errors=True)
    ws.remove()
    shutil.rmtree(house, ignore_errors=True)


def test_no_source(t):
    """No index URL and no find-links: offline with nowhere to look. The
    install fails at once saying so, never trying pip's default index
    (which retried for 25 s where there is no network): as fast as a spec
    the policy refuses before pip would start, timed beside it."""
    ws = Workspace()
    start = time.monotonic()
    control = install(ws, "--", "-r/etc/passwd")
    control_took = time.monotonic() - start
    t.ok(control.returncode == 1 and "not a package name" in control.stderr,
         "control: a spec refused before pip starts", control.stdout + control.stderr)
    start = time.monotonic()
    res = install(ws, "tinypkg")
    took = time.monotonic() - start
    t.ok(res.returncode == 1 and "no index URL is configured" in res.stderr
         and "offline" in res.stderr and "wheels only" not in res.stderr,
         "the install fails saying no index is configured (offline)",
         res.stdout + res.stderr)
    # Both are one sandpad-run that ends before pip; four times the control
    # and a second for noise, against pip's 25 s of retries.
    t.ok(took < 4 * control_took + 1,
         f"and fails as fast as the control ({took:.2f} s, control {control_took:.2f} s)")
    shutil.rmtree(ws.root + "-state", ignore_errors=True)
    ws.remove()


SCRIPT = ("# /// script\n"
          "# dependencies = [\"tinypkg\"]\n"
          "# ///\n"
          "print('RAN')\n"
          "import tinypkg\n"
          "print(tinypkg.WORD)\n")


def run_script(ws, code, *args):
    """sandpad-run FILE.py in the workspace, with the install log kept out
    of the home directory."""
    env = dict(os.environ)
    env["XDG_STATE_HOME"] = ws.root + "-state"
    path = os.path.join(ws.root, "script.py")
    with open(path, "w") as f:
        f.write(code)
    os.chmod(path, 0o644)
    return subprocess.run([SANDPAD_RUN, "--sandbox", MODE, "--strict", *args, path],
                          capture_output=True, text=True, cwd=ws.root, env=env, timeout=300)


def install_entries(ws):
    log = os.path.join(ws.root + "-state", "sandpad", "installs.log")
    return [json.loads(line) for line in open(log)] if os.path.exists(log) else []


def test_script_deps(t):
    """sandpad-run FILE.py installs what the script declares (PEP 723)
    into the workspace's venv, through the install steps and their log,
    then runs it; with no package source it is refused before it runs.
    Run again with everything in the venv, it starts no pip (no package
    source needed, nothing logged, nothing said); a pin the venv does not
    meet installs again."""
    pkgs = Packages()
    ws = Workspace()
    res = run_script(ws, SCRIPT)
    t.ok(res.returncode == 125 and "no index URL is configured" in res.stderr
         and "PEP 723" in res.stderr and "RAN" not in res.stdout,
         "with no source the script is refused, naming why, and does not run",
         res.stdout + res.stderr)
    res = run_script(ws, SCRIPT, "--find-links", pkgs.house)
    t.eq(res.stdout, "RAN\ntinypkg-1.0\n", "the declared package is installed, then the "
         "script imports it", res.stderr)
    t.ok("Processing" not in res.stderr and "Successfully" not in res.stderr,
         "pip's words are not shown when the install succeeds", res.stderr)
    log = os.path.join(ws.root + "-state", "sandpad", "installs.log")
    entries = [json.loads(line) for line in open(log)] if os.path.exists(log) else []
    t.ok(len(entries) == 1 and entries[0]["name"] == "tinypkg",
         "the install is logged like sandpad-run --install's", entries)
    plain = run_in(ws, IMPORT)
    t.eq(plain.stdout, "tinypkg-1.0\n", "it stays in the venv for later runs", plain.stderr)
    # No package source now: a pip process would fail ("no index URL is
    # configured", as in the first run above), so a clean run proves none
    # was started.
    res = run_script(ws, SCRIPT)
    t.eq((res.returncode, res.stdout, res.stderr), (0, "RAN\ntinypkg-1.0\n", ""),
         "run again with tinypkg in the venv, it runs with no install step (no source "
         "needed, nothing said)", res.stderr)
    t.eq(len(install_entries(ws)), 1, "and nothing new is in the install log")
    newer = tempfile.mkdtemp(prefix="sandpad-install-pkgs2-")
    build_project(newer, "tinypkg", "2.0")
    for dirpath, dirnames, filenames in os.walk(newer):
        os.chmod(dirpath, 0o755)
        for n in filenames:
            os.chmod(os.path.join(dirpath, n), 0o644)
    pinned = SCRIPT.replace('"tinypkg"', '"tinypkg==2.0"')
    res = run_script(ws, pinned)
    t.ok(res.returncode == 125 and "no index URL is configured" in res.stderr
         and "RAN" not in res.stdout,
         "control: a pin the venv does not meet (1.0 for ==2.0) goes to pip, which has no "
         "source here", res.stdout + res.stderr)
    res = run_script(ws, pinned, "--find-links", os.path.join(newer, "dist"))
    entries = install_entries(ws)
    t.ok(res.stdout == "RAN\ntinypkg-2.0\n" and len(entries) == 2
         and entries[1]["version"] == "2.0",
         "with a source it installs 2.0, logged, and the script imports it",
         (res.stdout, res.stderr, entries))
    res = run_script(ws, pinned)
    t.eq((res.returncode, res.stdout), (0, "RAN\ntinypkg-2.0\n"),
         "then the pinned script runs again with no install step", res.stderr)
    t.eq(len(install_entries(ws)), 2, "and nothing new is logged")
    shutil.rmtree(newer, ignore_errors=True)
    shutil.rmtree(ws.root + "-state", ignore_errors=True)
    ws.remove()
    pkgs.remove()


def declared(ws, code, *args, environment=True):
    """sandpad-run --install --declared - with code on stdin."""
    env = dict(os.environ)
    env["XDG_STATE_HOME"] = ws.root + "-state"
    where = ["--environment", ws.venv] if environment else []
    return subprocess.run([SANDPAD_RUN, "--install", "--sandbox", MODE, "--strict", "--quiet",
                           *where, *args, "--declared", "-"],
                          input=code, capture_output=True, text=True, cwd=ws.root, env=env,
                          timeout=300)


def test_declared(t):
    """sandpad-run --install --declared (the app's Run asks it): --list
    says which declared specs the venv lacks (every one with no venv
    named), a pin names a version, what the system's site-packages hold
    counts for a venv that includes them; --declared installs those, under
    the policy (pip's words shown, --quiet or not, when it fails), and then
    lists nothing; a malformed block is refused."""
    pkgs = Packages()
    ws = Workspace()
    res = declared(ws, SCRIPT, "--list", environment=False)
    t.eq((res.returncode, res.stdout), (0, "tinypkg\n"),
         "with no environment, --list names every declared spec", res.stderr)
    res = declared(ws, SCRIPT, "--list")
    t.eq((res.returncode, res.stdout), (0, "tinypkg\n"),
         "the venv lacks tinypkg: listed", res.stderr)
    res = declared(ws, "print('RAN')\n", "--list")
    t.eq((res.returncode, res.stdout), (0, ""), "control: no block, nothing listed", res.stderr)
    res = subprocess.run([SANDPAD_RUN, "--install", "--environment", ws.venv, "--list",
                          "--declared", ws.root], capture_output=True, text=True, timeout=60)
    t.ok(res.returncode != 0 and os.strerror(errno.EISDIR) in res.stderr
         and os.strerror(errno.EFBIG) not in res.stderr,
         "a file that cannot be read is refused with the reader's error, not 'too large'",
         res.stderr)
    res = declared(ws, SCRIPT, "--find-links", pkgs.house, "--block", "tiny*")
    t.ok(res.returncode != 0 and "block list" in res.stderr and "\"tiny*\"" in res.stderr,
         "a blocked declaration is refused naming the rule", res.stdout + res.stderr)
    res = declared(ws, SCRIPT.replace("tinypkg", "nosuchpkg"), "--find-links", pkgs.house)
    t.ok(res.returncode == 1 and "nosuchpkg" in res.stderr
         and "No matching distribution" in res.stderr,
         "--quiet shows pip's words when the install fails", res.stdout + res.stderr)
    res = declared(ws, SCRIPT, "--find-links", pkgs.house)
    t.ok(res.returncode == 0 and "installed tinypkg 1.0" in res.stdout,
         "--declared installs what the venv lacks", res.stdout + res.stderr)
    res = declared(ws, SCRIPT, "--list")
    t.eq((res.returncode, res.stdout), (0, ""), "then nothing is listed", res.stderr)
    res = declared(ws, SCRIPT, "--find-links", pkgs.house)
    t.ok(res.returncode == 0 and "nothing to install" in res.stdout,
         "and --declared installs nothing", res.stdout + res.stderr)
    pinned = SCRIPT.replace('"tinypkg"', '"tinypkg==2.0", "TinyPkg==1.0"')
    res = declared(ws, pinned, "--list")
    t.eq(res.stdout, "tinypkg==2.0\n", "a pin names a version: 2.0 is missing, 1.0 (any "
         "spelling of the name) is there", res.stderr)
    system = "/usr/lib/python3/dist-packages"
    have = {n.split("-")[0].lower() for n in os.listdir(system)} if os.path.isdir(system) else set()
    if {"pyyaml", "six"} <= have:
        res = declared(ws, SCRIPT.replace('"tinypkg"', '"pyyaml", "six"'), "--list")
        t.eq(res.stdout, "", "the system's packages (a dist-info, an egg-info) count in a venv "
             "that includes them", res.stderr)
    else:
        print("# the system has no PyYAML and six: their case is not checked")
    bad = SCRIPT.replace("# ///\nprint", "print", 1)
    res = declared(ws, bad, "--list")
    t.ok(res.returncode == 125 and "PEP 723" in res.stderr and "line" in res.stderr
         and res.stdout == "", "a malformed block is refused naming its line",
         res.stdout + res.stderr)
    shutil.rmtree(ws.root + "-state", ignore_errors=True)
    ws.remove()
    pkgs.remove()


def test_script_deps_refused(t):
    """The install policy's refusal names its rule and the script does not
    run; a script that declares dependencies with no venv to put them in is
    refused (never installed into the home or the system); a malformed
    block is an error with its line."""
    pkgs = Packages()
    ws = Workspace()
    res = run_script(ws, SCRIPT, "--find-links", pkgs.house, "--install-block", "tiny*")
    t.ok(res.returncode == 125 and "refused" in res.stderr and "block" in res.stderr
         and "RAN" not in res.stdout,
         "a blocked dependency is refused with the rule's name; nothing ran",
         res.stdout + res.stderr)
    res = run_script(ws, SCRIPT, "--find-links", pkgs.house, "--require-pins")
    t.ok(res.returncode == 125 and "pin" in res.stderr and "RAN" not in res.stdout,
         "--require-pins refuses an unpinned declaration", res.stdout + res.stderr)
    bad = SCRIPT.replace("# ///\nprint", "print", 1)
    res = run_script(ws, bad, "--find-links", pkgs.house)
    t.ok(res.returncode == 125 and "PEP 723" in res.stderr and "line" in res.stderr
         and "RAN" not in res.stdout, "an unclosed block is an error naming its line",
         res.stdout + res.stderr)
    ws.remove()
    bare = Workspace(venv=False)
    res = run_script(bare, SCRIPT, "--find-links", pkgs.house)
    t.ok(res.returncode == 125 and "no Python environment" in res.stderr
         and "RAN" not in res.stdout,
         "with no venv the script is refused, saying so, and does not run",
         res.stdout + res.stderr)
    t.ok(not os.path.exists(bare.root + "-state"), "and nothing was installed or logged")
    res = run_script(bare, "print('RAN')\n", "--find-links", pkgs.house)
    t.eq(res.stdout, "RAN\n", "control: a script without the block runs there", res.stderr)
    shutil.rmtree(ws.root + "-state", ignore_errors=True)
    shutil.rmtree(bare.root + "-state", ignore_errors=True)
    bare.remove()
    pkgs.remove()


def test_create_venv(t):
    """sandpad-run --create-venv: a venv --install accepts, owned by the
    uid that runs installs (nobody's under root: the app's python3 -m venv
    as root made one that was refused); never over what is there."""
    pkgs = Packages()
    ws = Workspace(venv=False)
    # The control: python3 -m venv as this uid, as the app made it before.
    plain = os.path.join(ws.root, "plain")
    subprocess.run([SYSTEM_PYTHON, "-m", "venv", "--system-site-packages", plain], check=True)
    ws.venv = plain
    res = install(ws, "--find-links", pkgs.house, "tinypkg")
    if os.geteuid() == 0:
        t.ok(res.returncode != 0 and "must belong to uid" in res.stderr,
             "control: as root, a venv python3 -m venv made is refused", res.stderr)
    else:
        t.ok(res.returncode == 0, "control: as a user, python3 -m venv's venv takes installs",
             res.stderr)
    made = subprocess.run([SANDPAD_RUN, "--create-venv", ".venv"], cwd=ws.root,
                          capture_output=True, text=True, timeout=120)
    ws.venv = os.path.join(ws.root, ".venv")
    t.ok(made.returncode == 0 and "created .venv" in made.stdout,
         "--create-venv makes the venv", made.stdout + made.stderr)
    owners = {os.lstat(os.path.join(d, n)).st_uid
              for d, dirs, files in os.walk(ws.venv) for n in dirs + files}
    owners.add(os.stat(ws.venv).st_uid)
    t.eq(owners, {RUN_UID}, "every entry belongs to the uid that runs installs")
    cfg = open(os.path.join(ws.venv, "pyvenv.cfg")).read()
    t.ok("home = /usr/bin" in cfg and "include-system-site-packages = true" in cfg,
         "based on the system's python3, with its packages", cfg)
    res = install(ws, "--find-links", pkgs.house, "tinypkg")
    t.ok(res.returncode == 0 and "installed tinypkg 1.0" in res.stdout,
         "--install takes it", res.stdout + res.stderr)
    after = run_in(ws, IMPORT)
    t.eq(after.stdout, "tinypkg-1.0\n", "a run imports what went in", after.stderr)
    again = subprocess.run([SANDPAD_RUN, "--create-venv", ".venv"], cwd=ws.root,
                           capture_output=True, text=True, timeout=120)
    t.ok(again.returncode == 1 and "already exists" in again.stderr,
         "an existing folder is refused, not filled again", again.stderr)
    target = tempfile.mkdtemp(prefix="sandpad-install-target-")
    os.symlink(target, os.path.join(ws.root, "link"))
    linked = subprocess.run([SANDPAD_RUN, "--create-venv", "link"], cwd=ws.root,
                            capture_output=True, text=True, timeout=120)
    t.ok(linked.returncode == 1 and os.listdir(target) == []
         and os.stat(target).st_uid == os.geteuid(),
         "a symlink in its place is refused: nothing made or handed over where it points",
         linked.stderr)
    shutil.rmtree(target, ignore_errors=True)
    shutil.rmtree(ws.root + "-state", ignore_errors=True)
    ws.remove()
    pkgs.remove()


TESTS = {f.__name__[5:]: f for f in (test_wheelhouse, test_index, test_policy,
                                     test_sdist_allowed, test_venv_guard,
                                     test_venv_guard_python, test_shadowing, test_no_source,
                                     test_script_deps, test_script_deps_refused,
                                     test_declared, test_create_venv)}

if __name__ == "__main__":
    names = sys.argv[2:] or list(TESTS)
    main([TESTS[n] for n in names])
