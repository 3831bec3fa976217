"""The escape suite: every probe in probes.py, as a control and sandboxed.

Usage: test-escape.py SANDPAD-RUN SANDPAD-RUNNER MODE [NAME-PREFIX]

MODE control: each probe runs with no sandbox at all (/usr/bin/python3
directly, with the targets in its environment) and must ESCAPE; one that
does not is broken and fails. MODE namespaces or fallback: each runs through
`sandpad-run --sandbox MODE --strict` and must be BLOCKED (its output shows
it ran and was stopped, or the limit it names stopped it). A probe listed
in known-limitations.txt for the mode is reported as a TAP TODO with the
reason, and fails if it turns out blocked (so the list stays true).
Probes that need root for their control are skipped, visibly, without it.
"""

import fnmatch
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "runner"))
from probes import PRELUDE, PROBES  # noqa: E402
from runnertest import Runner, Tap  # noqa: E402

SANDPAD_RUN, SANDPAD_RUNNER, MODE = sys.argv[1], sys.argv[2], sys.argv[3]
ONLY = sys.argv[4] if len(sys.argv) > 4 else "*"
ROOT = os.geteuid() == 0
NOBODY = 65534
SECRET = "s3cr3t-sandpad-probe"


def known_limitations():
    known = {}
    with open(os.path.join(HERE, "known-limitations.txt")) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                mode, name, reason = line.split(None, 2)
                known[(mode, name)] = reason
    return known


class Targets:
    """What the probes try to reach, all made here and torn down at exit."""

    def __init__(self):
        self.base = tempfile.mkdtemp(prefix="sandpad-escape-")
        os.chmod(self.base, 0o755)
        self.threads = []
        secret_dir = os.path.join(self.base, "secret")
        os.mkdir(secret_dir, 0o755)
        secret_file = os.path.join(secret_dir, "id_rsa")
        with open(secret_file, "w") as f:
            f.write(SECRET)
        os.chmod(secret_file, 0o644)  # DAC would allow it: only the sandbox stops it
        outside = os.path.join(self.base, "outside")
        os.mkdir(outside)
        os.chmod(outside, 0o777)
        os.makedirs(os.path.join(outside, ".config", "autostart"))
        for sub in (".config", ".config/autostart"):
            os.chmod(os.path.join(outside, sub), 0o777)
        other = os.path.join(self.base, "other-run")
        os.mkdir(other)
        os.chmod(other, 0o777)
        with open(os.path.join(other, "secret.txt"), "w") as f:
            f.write(SECRET)
        os.chmod(os.path.join(other, "secret.txt"), 0o666)
        self.marker = f"sandpad-probe-marker-{os.getpid()}"
        with open(os.path.join("/tmp", self.marker), "w") as f:
            f.write(SECRET)
        os.chmod(os.path.join("/tmp", self.marker), 0o644)

        self.tcp = self._serve_tcp()
        self.udp = self._serve_udp()
        self.unix_path = os.path.join(outside, "bus")
        self.unix = self._serve_stream(socket.socket(socket.AF_UNIX), self.unix_path)
        os.chmod(self.unix_path, 0o777)
        self.abstract_name = f"sandpad-probe-{os.getpid()}"
        self.abstract = self._serve_stream(socket.socket(socket.AF_UNIX), "\0" + self.abstract_name)

        # A process the probes must not reach, holding a secret in its
        # environment. As root it runs as nobody, like the programs in
        # fallback mode, so that only the sandbox stands between them.
        env = dict(os.environ, SANDPAD_PROBE_PARENT_SECRET=SECRET)
        self.target = subprocess.Popen(
            ["/usr/bin/sleep", "600"], env=env,
            preexec_fn=(lambda: (os.setgid(NOBODY), os.setuid(NOBODY))) if ROOT else None)

        self.env = {
            "SANDPAD_PROBE_SECRET_FILE": secret_file,
            "SANDPAD_PROBE_SECRET_DIR": secret_dir,
            "SANDPAD_PROBE_OUTSIDE_DIR": outside,
            "SANDPAD_PROBE_OTHER_RUN": other,
            "SANDPAD_PROBE_TMP_MARKER": self.marker,
            "SANDPAD_PROBE_TCP_PORT": str(self.tcp.getsockname()[1]),
            "SANDPAD_PROBE_UDP_PORT": str(self.udp.getsockname()[1]),
            "SANDPAD_PROBE_UNIX_PATH": self.unix_path,
            "SANDPAD_PROBE_ABSTRACT_NAME": self.abstract_name,
            "SANDPAD_PROBE_TARGET_PID": str(self.target.pid),
            "SANDPAD_PROBE_HOSTNAME": socket.gethostname(),
        }

    def _serve_stream(self, sock, address):
        sock.bind(address)
        sock.listen(16)

        def serve():
            while True:
                try:
                    conn, _ = sock.accept()
                except OSError:
                    return
                conn.sendall(b"pong")
                conn.close()

        threading.Thread(target=serve, daemon=True).start()
        return sock

    def _serve_tcp(self):
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        return self._serve_stream(sock, ("127.0.0.1", 0))

    def _serve_udp(self):
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.bind(("127.0.0.1", 0))

        def serve():
            while True:
                try:
                    data, peer = sock.recvfrom(64)
                    sock.sendto(b"pong", peer)
                except OSError:
                    return

        threading.Thread(target=serve, daemon=True).start()
        return sock

    def close(self):
        self.target.kill()
        self.target.wait()
        for sock in (self.tcp, self.udp, self.unix, self.abstract):
            sock.close()
        os.unlink(os.path.join("/tmp", self.marker))
        shutil.rmtree(self.base, ignore_errors=True)


def kill_lingering(cwd):
    """Kills processes a control run left behind in cwd (the probe meant to
    escape, and without a sandbox it did)."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            if os.readlink(f"/proc/{pid}/cwd") == cwd:
                os.kill(int(pid), signal.SIGKILL)
        except OSError:
            pass


def still_ticking(cwd):
    path = os.path.join(cwd, "ticks")
    if not os.path.exists(path):
        return False
    before = os.path.getsize(path)
    time.sleep(0.6)
    return os.path.getsize(path) != before


def prepare(targets, probe):
    cwd = tempfile.mkdtemp(dir=targets.base, prefix="run-")
    os.chmod(cwd, 0o777)
    path = os.path.join(targets.base, probe["name"] + ".py")
    with open(path, "w") as f:
        f.write(PRELUDE + "\n" + probe["code"] + "\n")
    os.chmod(path, 0o644)
    if probe["setuid"]:
        suid = os.path.join(cwd, "suid-id")
        shutil.copy("/usr/bin/id", suid)
        os.chown(suid, 0, 0)
        os.chmod(suid, 0o4755)
    return cwd, path


def run_control(targets, probe):
    """Returns (escaped, detail)."""
    cwd, path = prepare(targets, probe)
    env = dict(os.environ, SANDPAD_PROBE_PARENT_SECRET=SECRET, **targets.env)
    as_nobody = (lambda: (os.setgid(NOBODY), os.setuid(NOBODY))) if probe["nobody_control"] else None
    extra = socket.socketpair() if probe["extra_fd"] else ()
    try:
        proc = subprocess.run(["/usr/bin/python3", path], cwd=cwd, env=env, capture_output=True,
                              text=True, stdin=subprocess.DEVNULL, timeout=60, preexec_fn=as_nobody,
                              pass_fds=[s.fileno() for s in extra])
        out = proc.stdout
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
    for sock in extra:
        sock.close()
    if probe["lingers"]:
        escaped = still_ticking(cwd)
        kill_lingering(cwd)
        return escaped, "the process kept ticking" if escaped else "it stopped"
    return "ESCAPED" in out, out.strip()[-200:]


def run_sandboxed(targets, probe):
    """Returns (blocked, detail)."""
    cwd, path = prepare(targets, probe)
    args = [SANDPAD_RUN, "--sandbox", MODE, "--strict", "--json", "--timeout", "3", "--memory",
            "256", "--disk", "64", "--cwd", cwd]
    for key, value in targets.env.items():
        args += ["--env", f"{key}={value}"]
    # The harness's own environment holds the parent secret: it must not leak.
    env = dict(os.environ, SANDPAD_PROBE_PARENT_SECRET=SECRET)
    # As the app's socket would be: an fd the runner holds must not reach
    # the program.
    extra = socket.socketpair() if probe["extra_fd"] else ()
    proc = subprocess.run(args + [path], env=env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120,
                          pass_fds=[s.fileno() for s in extra])
    for sock in extra:
        sock.close()
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    exited = next((e for e in events if e["type"] == "exited"), None)
    out = "".join(e["data"] for e in events if e["type"] == "output")
    if exited is None:
        return False, f"no exited event; stderr: {proc.stderr[-300:]}"
    if exited["end"] == "failed":
        return False, f"the run failed: {exited.get('error')}"
    detail = f"{out.strip()[-160:]} | end={exited['end']} limit={exited.get('limit')}"
    if "ESCAPED" in out:
        return False, detail
    if probe["lingers"]:
        return not still_ticking(cwd), detail
    limit = probe["limit"]
    if limit == "sigsys":
        return exited["end"] == "signaled" and exited.get("signal") == 31, detail
    if limit == "any":
        return exited.get("limit") is not None or "BLOCKED" in out, detail
    if limit is not None:
        return exited.get("limit") == limit, detail
    return "BLOCKED" in out, detail


def cross_run(t, targets):
    """One run must not read or alter another run's private directory: two
    runs in one real runner, the second aimed at the first's files."""
    runner = Runner(SANDPAD_RUNNER, "--sandbox", "namespaces" if MODE == "control" else MODE,
                    "--strict")
    runner.send(type="run", id="a", language="python",
                code="open('mine.txt', 'w').write('A secret')\nimport time\ntime.sleep(5)")
    started = runner.recv_type("started")
    victim = started["cwd"]
    for _ in range(100):
        if os.path.exists(os.path.join(victim, "mine.txt")):
            break
        time.sleep(0.05)
    code = (f"p = {victim!r} + '/mine.txt'\n"
            "try:\n"
            "    print('ESCAPED:', open(p).read(), open(p, 'a').write('!'))\n"
            "except OSError as e:\n"
            "    print('BLOCKED:', e)\n")
    if MODE == "control":
        proc = subprocess.run(["/usr/bin/python3", "-c", code], capture_output=True, text=True)
        t.ok("ESCAPED" in proc.stdout, "cross-run: control reads another run's files",
             proc.stdout)
    else:
        res = runner.run("b", code)
        t.ok("BLOCKED" in res.stdout and "ESCAPED" not in res.stdout,
             f"cross-run: {MODE} keeps one run out of another's directory", res)
    runner.send(type="cancel", id="a")
    runner.close()


def main():
    t = Tap()
    known = known_limitations()
    targets = Targets()
    try:
        for probe in PROBES:
            name = probe["name"]
            if not fnmatch.fnmatch(name, ONLY):
                continue
            if probe["needs_root"] and not ROOT:
                t.skip(f"{name}: its control needs root")
                continue
            if MODE == "control":
                escaped, detail = run_control(targets, probe)
                t.ok(escaped, f"{name} escapes without a sandbox ({probe['why']})", detail)
                continue
            blocked, detail = run_sandboxed(targets, probe)
            reason = known.get((MODE, name))
            if reason is not None:
                # Expected to fail: "not ok # TODO". Should it pass, the list
                # is out of date, and that fails the test.
                t.ok(blocked, f"{name} is blocked in {MODE} mode (known limitation; if this "
                     "passes, update known-limitations.txt)", detail, todo=reason)
            else:
                t.ok(blocked, f"{name} is blocked in {MODE} mode ({probe['why']})", detail)
        if fnmatch.fnmatch("cross-run", ONLY):
            cross_run(t, targets)
    finally:
        targets.close()
    print(f"1..{t.n}", flush=True)
    return 1 if t.failed else 0


if __name__ == "__main__":
    sys.exit(main())
