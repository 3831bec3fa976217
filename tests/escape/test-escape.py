"""The escape suite: every probe in probes.py, as a control and sandboxed.

Usage: test-escape.py SANDPAD-RUN SANDPAD-RUNNER MODE [NAME-PATTERN]

MODE control: each probe runs with no sandbox at all (/usr/bin/python3
directly, or a C probe compiled by gcc and run, with the targets in its
environment) and must ESCAPE; one that
does not is broken and fails. Every other MODE runs each probe through
sandpad-run (see MODES; a C probe as language c, compiled by the runner in
its sandbox; the warm modes skip them, as only Python starts warm) and the
probe must be BLOCKED (its output shows it
ran and was stopped, or the limit it names stopped it, and any effect the
harness checks for afterwards is absent). A probe listed in
known-limitations.txt for the mode, or for the kind of sandbox the mode
gets (namespaces or fallback), is reported as a TAP TODO with the reason,
and fails if it turns out blocked (so the list stays true). Probes that
need root for their control, or a host feature this machine lacks, are
skipped, visibly.
"""

import ctypes
import fnmatch
import itertools
import json
import os
import random
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
from probes import C_PRELUDE, PRELUDE, PROBES  # noqa: E402
from runnertest import Result, Runner, Tap, lock_held, released, wait_until  # noqa: E402

SANDPAD_RUN, SANDPAD_RUNNER, MODE = sys.argv[1], sys.argv[2], sys.argv[3]
ONLY = sys.argv[4] if len(sys.argv) > 4 else "*"
ROOT = os.geteuid() == 0
NOBODY = 65534
SECRET = "s3cr3t-sandpad-probe"
# The uid the sandboxed programs have outside: as root the runner runs them
# as nobody (and the user modes run the runner itself as nobody).
RUN_UID = NOBODY if ROOT else os.getuid()
AS_USER = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"] if ROOT else []

# bwrap changes into its caller's directory by path, after the user it runs
# as lost the right to walk a 0700 folder above the tree (a clone under
# /root): it then starts in / and the runner's path, relative to the build
# tree, is not found. The Flatpak-like mode hands bwrap the tree as an fd
# (taken while still root) and has it change into that through /proc.
TREE_FD = None
if MODE == "flatpak":
    TREE_FD = os.open(".", os.O_PATH | os.O_DIRECTORY)
    os.set_inheritable(TREE_FD, True)
WRAP_FDS = [TREE_FD] if TREE_FD is not None else []
IN_TREE = ["--chdir", f"/proc/self/fd/{TREE_FD}"] if TREE_FD is not None else []

# How each mode starts the runner. sandbox/strict: its options; wrap: what
# it runs under; kind: the sandbox it must get ("auto" takes whatever the
# runner reports, checked once up front).
MODES = {
    "namespaces": dict(sandbox="namespaces", strict=True, wrap=[], kind="namespaces"),
    "fallback": dict(sandbox="fallback", strict=True, wrap=[], kind="fallback"),
    # The desktop case: the runner runs as the user, not root.
    "user-namespaces": dict(sandbox="namespaces", strict=True, wrap=AS_USER, kind="namespaces"),
    "user-fallback": dict(sandbox="fallback", strict=True, wrap=AS_USER, kind="fallback"),
    # The Flatpak case: as the user, inside a user namespace that cannot
    # create another, in the app's own configuration (auto, not strict):
    # auto must choose fallback mode there, with Landlock and seccomp.
    "flatpak": dict(sandbox="auto", strict=False, kind="fallback",
                    wrap=AS_USER + ["bwrap", "--unshare-user", "--disable-userns",
                                    "--dev-bind", "/", "/", *IN_TREE, "--"]),
    # The app's configuration (sp-runner-client.c: `sandpad-runner --fd 3`,
    # no options): auto mode, not strict, the runner as the user.
    "app": dict(sandbox="auto", strict=False, wrap=AS_USER, kind="auto"),
    # The warm path (src/runner/engine/runner-warm.h): every probe forked
    # from a warm python3 by a long-lived sandpad-runner, not exec'd by
    # sandpad-run; as root, as the ordinary user, and in fallback mode.
    "warm": dict(sandbox="namespaces", strict=True, wrap=[], kind="namespaces", warm=True),
    "warm-fallback": dict(sandbox="fallback", strict=True, wrap=[], kind="fallback", warm=True),
    "user-warm": dict(sandbox="namespaces", strict=True, wrap=AS_USER, kind="namespaces",
                      warm=True),
    "user-warm-fallback": dict(sandbox="fallback", strict=True, wrap=AS_USER, kind="fallback",
                               warm=True),
}


def known_limitations():
    """(mode or sandbox kind, probe name) -> reason."""
    known = {}
    with open(os.path.join(HERE, "known-limitations.txt")) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                mode, name, reason = line.split(None, 2)
                known[(mode, name)] = reason
    return known


def as_uid(uid):
    """A preexec_fn that drops to uid (and the same gid), or None when it
    is ours already."""
    if uid == os.getuid():
        return None
    return lambda: (os.setgroups([]), os.setgid(uid), os.setuid(uid))


# Makes SysV IPC objects with the given keys and exits, so that they are
# owned by whoever runs it (the run's uid, as the segments of the user's
# other programs would be).
MAKE_IPC = r"""
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
shm, msg, sem = (int(k) for k in sys.argv[1:4])
ok = (libc.shmget(shm, 4096, 0o1600) >= 0 and libc.msgget(msg, 0o1600) >= 0
      and libc.semget(sem, 1, 0o1600) >= 0)
sys.exit(0 if ok else 1)
"""


def sysv_keys():
    """The keys of every SysV IPC object in our IPC namespace, by kind."""
    keys = {}
    for kind in ("shm", "msg", "sem"):
        with open(f"/proc/sysvipc/{kind}") as f:
            next(f)
            keys[kind] = {int(line.split()[0]) for line in f if line.strip()}
    return keys


def remove_ipc(key):
    for flag in ("-M", "-Q", "-S"):
        subprocess.run(["ipcrm", flag, str(key)], capture_output=True)


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
        payload = os.path.join(self.base, "payload.sh")
        with open(payload, "w") as f:
            f.write("#!/bin/sh\necho pwned\n")

        # Files and a directory outside the workdir owned by the run's uid,
        # as the user's own files are (~/.ssh): one for each metadata probe.
        owned = os.path.join(self.base, "owned")
        os.mkdir(owned, 0o755)
        for name in ("chmod-file", "chown-file", "utime-file", "xattr-file", "opath-file"):
            path = os.path.join(owned, name)
            with open(path, "w") as f:
                f.write(SECRET)
            os.chmod(path, 0o600)
            os.chown(path, RUN_UID, RUN_UID)
        os.mkdir(os.path.join(owned, "chmod-dir"), 0o700)
        os.chown(os.path.join(owned, "chmod-dir"), RUN_UID, RUN_UID)
        # A download's origin, as browsers record it, for the xattr read
        # probe (where the filesystem keeps user xattrs).
        try:
            os.setxattr(os.path.join(owned, "xattr-file"), "user.xdg.origin.url",
                        f"https://example.invalid/{SECRET}".encode())
        except OSError:
            pass

        # SysV IPC objects of the run's uid, 0600, and a key for the
        # "left behind" probe; all removed at exit.
        base_key = random.randrange(0x10000000, 0x7fff0000)
        self.ipc_keys = [base_key + i for i in range(4)]
        for key in self.ipc_keys:
            remove_ipc(key)
        subprocess.run(["/usr/bin/python3", "-c", MAKE_IPC] + [str(k) for k in self.ipc_keys[:3]],
                       check=True, preexec_fn=as_uid(RUN_UID))

        # As root, something mounted under our directory: the host's mount
        # table then names it, as it names the user's home and media.
        self.mnt = None
        if ROOT:
            mnt = os.path.join(self.base, "mnt-probe")
            os.mkdir(mnt)
            if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "sandpad-probe", mnt],
                              capture_output=True).returncode == 0:
                self.mnt = mnt

        self.tcp = self._serve_tcp()
        self.udp = self._serve_udp()
        self.unix_path = os.path.join(outside, "bus")
        self.unix = self._serve_stream(socket.socket(socket.AF_UNIX), self.unix_path)
        os.chmod(self.unix_path, 0o777)
        self.abstract_name = f"sandpad-probe-{os.getpid()}"
        self.abstract = self._serve_stream(socket.socket(socket.AF_UNIX), "\0" + self.abstract_name)

        # A process the probes must not reach, holding a secret in its
        # environment and a token in its command line. As root it runs as
        # nobody, like the programs in fallback mode, so that only the
        # sandbox stands between them.
        env = dict(os.environ, SANDPAD_PROBE_PARENT_SECRET=SECRET)
        self.target = subprocess.Popen(
            [f"sandpad-probe-target --token={SECRET}", "600"], executable="/usr/bin/sleep",
            env=env, preexec_fn=as_uid(RUN_UID))

        self.outside = outside
        self.var_tmp_link = f"/var/tmp/sandpad-probe-link-{MODE}-{os.getpid()}"
        with open("/proc/sys/kernel/random/boot_id") as f:
            boot_id = f.read().strip()
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
            "SANDPAD_PROBE_PAYLOAD": payload,
            "SANDPAD_PROBE_OWNED": owned,
            "SANDPAD_PROBE_SHM_KEY": str(self.ipc_keys[0]),
            "SANDPAD_PROBE_MSG_KEY": str(self.ipc_keys[1]),
            "SANDPAD_PROBE_SEM_KEY": str(self.ipc_keys[2]),
            "SANDPAD_PROBE_LEAVE_KEY": str(self.ipc_keys[3]),
            "SANDPAD_PROBE_BASE": self.base,
            "SANDPAD_PROBE_BOOT_ID": boot_id,
            "SANDPAD_PROBE_OUTER_UID": str(RUN_UID),
            "SANDPAD_PROBE_VAR_TMP_LINK": self.var_tmp_link,
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
        for key in self.ipc_keys:
            remove_ipc(key)
        if self.mnt is not None:
            subprocess.run(["umount", "-l", self.mnt], capture_output=True)
        os.unlink(os.path.join("/tmp", self.marker))
        if os.path.lexists(self.var_tmp_link):
            os.unlink(self.var_tmp_link)
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


def lingering(cwd):
    """Whether a lingering probe's ticker outlived the probe: it holds the
    flock on cwd/alive until it dies, so the lock still held after a
    generous deadline means it lives (runnertest.released)."""
    return not released(os.path.join(cwd, "alive"), 30)


_libc = ctypes.CDLL(None, use_errno=True)


def victim_state(pid):
    """What the process probes try to change in their victim, or None when
    it is gone: its CPU limit, nice value, CPU affinity and I/O priority."""
    try:
        with open(f"/proc/{pid}/limits") as f:
            cpu = next(line for line in f if line.startswith("Max cpu time")).split()[3:5]
        with open(f"/proc/{pid}/stat") as f:
            nice = f.read().rsplit(")", 1)[1].split()[16]
        state = (tuple(cpu), nice, tuple(sorted(os.sched_getaffinity(pid))),
                 _libc.syscall(252, 1, pid))  # ioprio_get(IOPRIO_WHO_PROCESS, pid)
        os.kill(pid, 0)
        with open(f"/proc/{pid}/stat") as f:
            if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                return None
        return state
    except (OSError, StopIteration):
        return None


class Check:
    """The harness's own look at a probe's effect, before and after a run.
    effect() says whether the effect is there, with a detail."""

    def __init__(self, targets, probe, cwd, uid):
        self.kind = probe["check"]
        self.targets = targets
        self.cwd = cwd
        self.env = {}
        self.tmpdir = None
        if self.kind == "victim":
            self.victim = subprocess.Popen(["/usr/bin/sleep", "60"], preexec_fn=as_uid(uid))
            wait_until(lambda: victim_state(self.victim.pid) is not None, 2)
            self.before = victim_state(self.victim.pid)
            self.env["SANDPAD_PROBE_VICTIM_PID"] = str(self.victim.pid)
        elif self.kind == "tmpdir-clean":
            # The runner's (or, for the control, the program's) temporary
            # directory: nothing may stay in it.
            self.tmpdir = tempfile.mkdtemp(dir=targets.base, prefix="tmpdir-")
            os.chmod(self.tmpdir, 0o777)
            self.env["TMPDIR"] = self.tmpdir
        elif self.kind == "ipc-left":
            remove_ipc(targets.ipc_keys[3])

    def effect(self):
        if self.kind == "victim":
            after = victim_state(self.victim.pid)
            return after != self.before, f"victim before {self.before}, after {after}"
        if self.kind == "tmpdir-clean":
            left = os.listdir(self.tmpdir) + (os.listdir(self.cwd) if MODE == "control" else [])
            return bool(left), f"left behind: {left}"
        if self.kind == "ipc-left":
            key = self.targets.ipc_keys[3]
            left = [kind for kind, keys in sysv_keys().items() if key in keys]
            return bool(left), f"SysV objects left with key {key:#x}: {left}"
        if self.kind == "outside-clean":
            path = os.path.join(self.targets.outside, ".bash_profile")
            return os.path.lexists(path), f"{path} exists: {os.path.lexists(path)}"
        if self.kind == "cwd-setuid":
            marked = []
            for name in os.listdir(self.cwd):
                st = os.lstat(os.path.join(self.cwd, name))
                if st.st_mode & 0o6000:
                    marked.append(f"{name} {st.st_mode:o}")
            return bool(marked), f"setuid/setgid in --cwd: {marked}"
        raise ValueError(self.kind)

    def close(self):
        if self.kind == "victim":
            self.victim.kill()
            self.victim.wait()
        elif self.kind == "ipc-left":
            remove_ipc(self.targets.ipc_keys[3])
        elif self.kind == "outside-clean":
            path = os.path.join(self.targets.outside, ".bash_profile")
            if os.path.lexists(path):
                os.unlink(path)
        if self.tmpdir is not None:
            shutil.rmtree(self.tmpdir, ignore_errors=True)


def memory_folder():
    """/dev/shm where it is a writable tmpfs, else None."""
    try:
        st = os.statvfs("/dev/shm")
    except OSError:
        return None
    return "/dev/shm" if os.access("/dev/shm", os.W_OK) and st.f_favail > 1_000_000 else None


def prepare(targets, probe, where=None):
    cwd = tempfile.mkdtemp(dir=where or targets.base, prefix="sandpad-escape-run-")
    os.chmod(cwd, 0o777)
    c = probe["lang"] == "c"
    path = os.path.join(targets.base, probe["name"] + (".c" if c else ".py"))
    with open(path, "w") as f:
        f.write((C_PRELUDE if c else PRELUDE) + "\n" + probe["code"] + "\n")
    os.chmod(path, 0o644)
    if probe["setuid"]:
        suid = os.path.join(cwd, "suid-id")
        shutil.copy("/usr/bin/id", suid)
        os.chown(suid, 0, 0)
        os.chmod(suid, 0o4755)
    return cwd, path


def run_control(targets, probe):
    """Returns (escaped, detail)."""
    # A probe that makes 150,000 files or 200,000 folders shows the same
    # thing in memory as on the disk: on this ext4, with two busy
    # processes beside the suite, it took past the 60 s below (and the
    # folder's removal a minute more), so the control failed for want of
    # time, not for a limit. Removed right after, not with the rest.
    where = memory_folder() if probe["many_entries"] else None
    cwd, path = prepare(targets, probe, where)
    try:
        return control_in(targets, probe, cwd, path)
    finally:
        if where is not None:
            shutil.rmtree(cwd, ignore_errors=True)


def control_in(targets, probe, cwd, path):
    uid = NOBODY if probe["nobody_control"] and ROOT else os.getuid()
    check = Check(targets, probe, cwd, uid) if probe["check"] else None
    env = dict(os.environ, SANDPAD_PROBE_PARENT_SECRET=SECRET, **targets.env)
    env["SANDPAD_PROBE_OUTER_UID"] = str(uid)
    if check is not None:
        env.update(check.env)
    argv = ["/usr/bin/python3", path]
    if probe["lang"] == "c":
        # The control's compile: gcc with the runner's flags
        # (src/runner/languages/runner-langs.c), outside any sandbox.
        argv = [path[:-2] + ".bin"]
        cc = subprocess.run(["gcc", "-x", "c", "-std=gnu17", "-O2", "-Wall", "-o", argv[0], path],
                            capture_output=True, text=True)
        if cc.returncode != 0:
            if check is not None:
                check.close()
            return False, f"gcc failed: {cc.stderr[-300:]}"
        os.chmod(argv[0], 0o755)
    extra = socket.socketpair() if probe["extra_fd"] else ()
    try:
        proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True,
                              text=True, stdin=subprocess.DEVNULL, timeout=60,
                              preexec_fn=as_uid(uid), pass_fds=[s.fileno() for s in extra])
        out = proc.stdout
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
    for sock in extra:
        sock.close()
    if check is not None:
        escaped, detail = check.effect()
        check.close()
        return escaped, f"{detail} | {out.strip()[-160:]}"
    if probe["lingers"]:
        # Nothing kills a control's ticker: it holds its lock right away.
        escaped = lock_held(os.path.join(cwd, "alive"))
        kill_lingering(cwd)
        return escaped, "the process kept ticking" if escaped else "it stopped"
    return "ESCAPED" in out, out.strip()[-200:]


def sandpad_run_args(probe, cwd=None):
    m = MODES[MODE]
    args = m["wrap"] + [SANDPAD_RUN, "--sandbox", m["sandbox"], "--json",
                        "--timeout", str(probe["timeout"]), "--memory", str(probe["memory"]),
                        "--disk", str(probe["disk"])]
    if m["strict"]:
        args.append("--strict")
    if cwd is not None:
        args += ["--cwd", cwd]
    return args


def sandpad_run(args, path, env_extra=None, pass_fds=()):
    """Runs path with args; returns (started, exited, output, stderr)."""
    env = dict(os.environ, SANDPAD_PROBE_PARENT_SECRET=SECRET)
    env.update(env_extra or {})
    proc = subprocess.run(args + [path], env=env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120,
                          pass_fds=[*pass_fds, *WRAP_FDS])
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    started = next((e for e in events if e["type"] == "started"), None)
    exited = next((e for e in events if e["type"] == "exited"), None)
    out = "".join(e["data"] for e in events if e["type"] == "output")
    return started, exited, out, proc.stderr


def warm_run(targets, probe, args, path, env_extra=None, pass_fds=()):
    """The warm modes' sandpad_run: the same run as a request to a fresh
    sandpad-runner whose warm parent is ready (a run it starts cold would
    test nothing new). Returns (started, exited, output, stderr)."""
    m = MODES[MODE]
    # A fork copies the page tables of the whole warm interpreter (~60 MiB
    # resident: about four times a bare python3's fork), so fork-heavy
    # probes need longer; the probes that test the time limit keep theirs.
    scale = 1 if probe["limit"] == "time" else 5
    run = dict(timeout_ms=probe["timeout"] * 1000 * scale, memory_mib=probe["memory"], env={})
    i = 0
    while i < len(args):
        if args[i] == "--cwd":
            run["cwd"] = args[i + 1]
        elif args[i] == "--env":
            key, _, value = args[i + 1].partition("=")
            run["env"][key] = value
        i += 1 if args[i] not in ("--cwd", "--env") else 2
    cmd = m["wrap"] + [SANDPAD_RUNNER, "--sandbox", m["sandbox"], "--disk", str(probe["disk"]),
                       "--warm-min-memory", "0", "--allow-cwd", targets.base]
    if m["strict"]:
        cmd.append("--strict")
    if "cwd" in run:
        # A request's cwd must be the program's uid's (a CLI's need not).
        os.chown(run["cwd"], RUN_UID, RUN_UID)
    # Probes alike share one runner and so one warm parent (siblings, as
    # the app's runs are); one that passes an fd of its own gets a fresh one.
    key = (probe["disk"], tuple(sorted((env_extra or {}).items())))
    # A probe with a check of its own (what the runner leaves behind) gets
    # a fresh runner, closed before the check looks.
    shared = not pass_fds and not probe["check"]
    runner = WARM_RUNNERS.get(key) if shared else None
    if runner is None:
        env = dict(os.environ, SANDPAD_PROBE_PARENT_SECRET=SECRET)
        env.update(env_extra or {})
        runner = Runner(cmd[0], *cmd[1:], env=env, pass_fds=[*pass_fds, *WRAP_FDS])
        runner.hello()
        if shared:
            WARM_RUNNERS[key] = runner
    try:
        deadline = time.monotonic() + 60
        n = 0
        while True:
            n += 1
            res = runner.run(f"warm-up-{next(RUN_IDS)}", "pass")
            if res.started and res.started.get("warm"):
                break
            if time.monotonic() > deadline:
                return None, None, "", "no warm parent became ready within 60 s"
            time.sleep(0.2)
        with open(path) as f:
            code = f.read()
        run_id = f"probe-{next(RUN_IDS)}"
        runner.send(type="run", id=run_id, language="python", code=code,
                    name=os.path.basename(path), **run)
        events = []
        while not events or events[-1]["type"] not in ("exited", "error"):
            ev = runner.recv(probe["timeout"] + 60)
            if ev is None:
                return None, None, "", "the runner closed its output"
            if ev.get("id") == run_id:
                events.append(ev)
        if events[-1]["type"] == "error":
            return None, None, "", f"the request was refused: {events[-1]}"
        res = Result(events)
        if not res.started or not res.started.get("warm"):
            return None, None, "", f"the probe did not go warm: {res}"
        out = "".join(e["data"] for e in res.events if e["type"] == "output")
        return res.started, res.exited, out, ""
    finally:
        if runner not in WARM_RUNNERS.values():
            runner.close()


WARM_RUNNERS = {}
RUN_IDS = itertools.count()


def run_sandboxed(targets, probe, kind):
    """Returns (blocked, detail)."""
    cwd, path = prepare(targets, probe)
    args = sandpad_run_args(probe, None if probe["own_dir"] else cwd)
    # A C probe is compiled by the runner, in the run's sandbox, first.
    args += ["--lang", probe["lang"]]
    for key, value in targets.env.items():
        args += ["--env", f"{key}={value}"]
    check = Check(targets, probe, cwd, RUN_UID) if probe["check"] else None
    env_extra = {}
    if check is not None:
        for key, value in check.env.items():
            if key == "TMPDIR":
                env_extra[key] = value  # the runner's own, not the program's
            else:
                args += ["--env", f"{key}={value}"]
    # As the app's socket would be: an fd the runner holds must not reach
    # the program. The harness's own environment holds the parent secret:
    # it must not leak.
    extra = socket.socketpair() if probe["extra_fd"] else ()
    try:
        if MODES[MODE].get("warm"):
            started, exited, out, stderr = warm_run(targets, probe, args, path, env_extra,
                                                    [s.fileno() for s in extra])
        else:
            started, exited, out, stderr = sandpad_run(args, path, env_extra,
                                                       [s.fileno() for s in extra])
        effect, check_detail = check.effect() if check is not None else (False, "")
    finally:
        for sock in extra:
            sock.close()
        if check is not None:
            check.close()
    if exited is None:
        return False, f"no exited event; stderr: {stderr[-300:]}"
    if exited["end"] == "failed":
        return False, f"the run failed: {exited.get('error')}"
    got = started["sandbox"]["mode"] if started else None
    if got != kind:
        return False, f"ran in {got} mode, not {kind}"
    detail = f"{out.strip()[-160:]} | end={exited['end']} limit={exited.get('limit')}"
    if check_detail:
        detail = f"{check_detail} | {detail}"
    if "ESCAPED" in out:
        return False, detail
    if check is not None:
        ran = "DONE" in out or "BLOCKED" in out or exited.get("limit") is not None
        return ran and not effect, detail
    if probe["lingers"]:
        return not lingering(cwd), detail
    limit = probe["limit"]
    if limit == "sigsys":
        # A probe stopped by another layer before its call is still blocked,
        # and says so in its detail rather than passing as the layer it names.
        killed = exited["end"] == "signaled" and exited.get("signal") == 31
        return killed or "BLOCKED: by another layer" in out, detail
    if limit == "any":
        return exited.get("limit") is not None or "BLOCKED" in out, detail
    if limit is not None:
        # The named limit (or one of those named), or the kernel refused the
        # resource inside the run (the probe prints BLOCKED only for ENOSPC,
        # ENOMEM and kin).
        names = limit if isinstance(limit, tuple) else (limit,)
        return exited.get("limit") in names or "BLOCKED" in out, detail
    return "BLOCKED" in out, detail


def sandbox_kind(t, targets):
    """Runs one harmless program the mode's way and checks the sandbox it
    got: the kind the mode must have, with Landlock and seccomp in force.
    Returns the kind (None if the check failed)."""
    want = MODES[MODE]["kind"]
    path = os.path.join(targets.base, "hello.py")
    with open(path, "w") as f:
        f.write("print('hello')\n")
    os.chmod(path, 0o644)
    probe = dict(timeout=10, memory=256, disk=64)
    started, exited, out, stderr = sandpad_run(sandpad_run_args(probe), path)
    sandbox = started["sandbox"] if started else {}
    got = sandbox.get("mode")
    layers = " ".join(sandbox.get("layers", []))
    ok = (exited is not None and exited["end"] == "exited" and out == "hello\n"
          and got in ("namespaces", "fallback") and (want == "auto" or got == want)
          and "landlock" in layers and "seccomp" in layers)
    what = "auto picks" if want == "auto" else f"runs get {want} mode:"
    t.ok(ok, f"{MODE}: {what} {got} with Landlock and seccomp ({layers})",
         f"started={started}\nexited={exited}\nout={out!r}\nstderr={stderr[-300:]}")
    return got if ok else None


def host_has(feature):
    """Host features some controls need; without one, a probe could not
    tell blocked from absent."""
    if feature == "int80":
        # Some kernels (or VMs) give no int 0x80 entry: the call faults with
        # SIGSEGV even unsandboxed.
        code = ("import ctypes, mmap\n"
                "buf = mmap.mmap(-1, 4096, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, prot=7)\n"
                "buf.write(bytes([0x53, 0xb8, 0x14, 0, 0, 0, 0xcd, 0x80, 0x5b, 0xc3]))\n"
                "fn = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(buf)))\n"
                "fn()\n")
        return subprocess.run(["/usr/bin/python3", "-c", code]).returncode == 0
    if feature == "user_xattr":
        # User xattrs on the filesystem the runs' and controls' files are on.
        with tempfile.NamedTemporaryFile() as f:
            try:
                os.setxattr(f.name, "user.sandpad-probe", b"x")
                return True
            except OSError:
                return False
    if feature == "setxattrat":
        # Linux 6.13 and later, and user xattrs where the files are.
        with tempfile.NamedTemporaryFile() as f:
            value = ctypes.create_string_buffer(b"x", 1)
            args = (ctypes.c_uint64 * 2)(ctypes.addressof(value), 1)
            libc = ctypes.CDLL(None, use_errno=True)
            return libc.syscall(ctypes.c_long(463), ctypes.c_long(-100), f.name.encode(),
                                ctypes.c_long(0), b"user.sandpad-probe", ctypes.byref(args),
                                ctypes.c_long(16)) == 0
    raise ValueError(feature)


def cross_run(t, targets):
    """One run must not read or alter another run's private directory: two
    runs in one real runner, the second aimed at the first's files."""
    if MODE == "control":
        wrap, args = [], ["--sandbox", "namespaces", "--strict"]
    else:
        m = MODES[MODE]
        wrap, args = m["wrap"], ["--sandbox", m["sandbox"]] + (["--strict"] if m["strict"] else [])
    cmd = wrap + [SANDPAD_RUNNER] + args
    runner = Runner(cmd[0], *cmd[1:], pass_fds=WRAP_FDS)
    runner.send(type="run", id="a", language="python",
                code="open('mine.txt', 'w').write('A secret')\nimport time\ntime.sleep(5)")
    started = runner.recv_type("started")
    victim = started["cwd"]
    wait_until(lambda: os.path.exists(os.path.join(victim, "mine.txt")), 5, 0.05)
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
    if MODE != "control" and MODE not in MODES:
        sys.exit(f"unknown mode {MODE}")
    if MODE.startswith("user-") and not ROOT:
        # Without root the plain modes already run as an ordinary user.
        print(f"1..0 # SKIP not root: {MODE} is the same as {MODES[MODE]['kind']}", flush=True)
        return 0
    if MODE in MODES and MODES[MODE].get("warm") and MODES[MODE]["wrap"]:
        # The warm pool finds its helpers beside the runner by path
        # (runner-warm-run.c, find_warm_dir): as another user than the
        # tree's owner, under a folder that user cannot enter (a clone
        # under /root), no run can start warm, and every probe would wait
        # for one. A person's own runner always reaches its own files.
        helper = os.path.join(os.path.dirname(os.path.abspath(SANDPAD_RUNNER)), "sandpad-warm.so")
        if subprocess.run(MODES[MODE]["wrap"] + ["test", "-r", helper]).returncode != 0:
            print(f"1..0 # SKIP {MODE}: the runner's user (nobody) cannot reach {helper} "
                  "by its path (a folder above the tree is closed to it), so no run can "
                  "start warm", flush=True)
            return 0
    t = Tap()
    known = known_limitations()
    targets = Targets()
    features = {}
    took = {}  # each probe's seconds, for the slowest ones' line at the end
    t0 = time.monotonic()
    try:
        kind = None
        if MODE != "control":
            kind = sandbox_kind(t, targets)
            if kind is None:
                print("Bail out! the mode's sandbox is not what it must be", flush=True)
                return 1
        for probe in PROBES:
            name = probe["name"]
            if not fnmatch.fnmatch(name, ONLY):
                continue
            if probe["needs_root"] and not ROOT:
                t.skip(f"{name}: its control needs root")
                continue
            need = probe["needs"]
            if need is not None:
                if need not in features:
                    features[need] = host_has(need)
                if not features[need]:
                    t.skip(f"{name}: this host lacks {need}, so its control cannot work")
                    continue
            if probe["lang"] == "c" and not any(os.access(cc, os.X_OK) for cc in
                                                ("/usr/bin/gcc", "/usr/local/bin/gcc")):
                t.skip(f"{name}: gcc is not installed here")
                continue
            if probe["lang"] != "python" and MODES.get(MODE, {}).get("warm"):
                # Only Python starts from the warm interpreter: a C probe here
                # would be the cold run its mode without "warm" already makes.
                t.skip(f"{name}: a {probe['lang']} run never starts warm")
                continue
            if kind is not None and probe["only"] is not None and kind not in probe["only"]:
                t.skip(f"{name}: means nothing in {kind} mode")
                continue
            tp = time.monotonic()
            if MODE == "control":
                escaped, detail = run_control(targets, probe)
                took[name] = time.monotonic() - tp
                t.ok(escaped, f"{name} escapes without a sandbox ({probe['why']})", detail)
                continue
            blocked, detail = run_sandboxed(targets, probe, kind)
            took[name] = time.monotonic() - tp
            reason = known.get((MODE, name), known.get((kind, name)))
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
        for runner in WARM_RUNNERS.values():
            runner.close()
        targets.close()
    slowest = sorted(took.items(), key=lambda kv: -kv[1])[:5]
    print(f"# {MODE}: {time.monotonic() - t0:.1f} s; the slowest probes: "
          + ", ".join(f"{name} {secs:.1f} s" for name, secs in slowest), flush=True)
    print(f"1..{t.n}", flush=True)
    return 1 if t.failed else 0


if __name__ == "__main__":
    sys.exit(main())
