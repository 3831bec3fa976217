"""Helpers for driving a real sandpad-runner over its protocol, with TAP output.

Tests start the runner as a subprocess, write request frames to its stdin
and read event frames from its stdout, exactly as a client does.
"""

import fcntl
import json
import os
import select
import struct
import subprocess
import sys
import time
import traceback

PYTHON = "/usr/bin/python3"

# Runners a test started and did not close (it failed half-way): closed after
# the test so their stderr still reaches the log.
_open_runners = []


def wait_until(condition, timeout, step=0.02):
    """True as soon as condition() holds, False once timeout seconds pass."""
    deadline = time.monotonic() + timeout
    while True:
        if condition():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(step)


# Liveness without pids or sleeps: a program that must not outlive its run
# takes flock(LOCK_EX) on a file in its directory (TICKER_LOCK) before it
# starts ticking and keeps it; the kernel drops the lock when the last
# holder dies. That works across the sandbox's pid and mount namespaces,
# where the program's pids mean nothing to the test, and turns "is it
# gone?" into a condition to wait for, not a pause to guess.
TICKER_LOCK = ("import fcntl\n"
               "_alive = open('alive', 'w')\n"
               "fcntl.flock(_alive, fcntl.LOCK_EX)\n")


# Waiting to be interrupted, at the top level of a snippet (it needs
# `import time`). CPython looks for a signal between bytecodes and when a
# blocking call returns EINTR, so a SIGINT that lands after its last look
# and before a sleep's system call starts is acted on only when that sleep
# ends: with one time.sleep(60) a cancel's interrupt was missed that way
# (kill() had returned 0, nothing was pending, the program slept on until
# the time limit), about once in 50 tries beside six CPU hogs. In slices,
# such a signal is acted on at the next one, within 50 ms, as a person's
# second Ctrl+C would be. Tests that check what a program does with its
# KeyboardInterrupt wait this way; the runner's part (the interrupt sent,
# its grace, the steps after it) is what they check.
INTERRUPTIBLE_WAIT = "while True:\n    time.sleep(0.05)\n"


def lock_held(path):
    """Whether some process holds the flock on path (False when absent)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False  # ours at once: nobody else holds it (freed on close)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def record_lock_holder(path):
    """The pid holding a POSIX record lock on path (the resident runner's
    lock, see runner-listen.c), 0 when none does or path is absent. Asks
    with F_GETLK: nothing is taken, so a runner starting meanwhile is not
    turned away."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return 0
    try:
        # struct flock: l_type, l_whence, l_start, l_len, l_pid (+ padding).
        shape = "hhqqi4x"
        got = fcntl.fcntl(fd, fcntl.F_GETLK, struct.pack(shape, fcntl.F_WRLCK, os.SEEK_SET,
                                                         0, 0, 0))
        kind, _, _, _, pid = struct.unpack(shape, got)
        return 0 if kind == fcntl.F_UNLCK else pid
    finally:
        os.close(fd)


def released(path, timeout=30):
    """True once no process holds path's lock: at once when every holder is
    dead, False if one still holds it after a generous timeout."""
    return wait_until(lambda: not lock_held(path), timeout)


class Tap:
    """A TAP producer: each check is one test point; a crash in a test is a
    failed point, not an aborted run."""

    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, desc, diag=None, todo=None):
        """One test point. With todo, a failure is expected and reported as
        TAP TODO (visible, not a pass); a pass is unexpected and fails."""
        self.n += 1
        directive = f" # TODO {todo}" if todo is not None else ""
        if cond:
            print(f"ok {self.n} - {desc}{directive}", flush=True)
            if todo is not None:
                self.failed += 1
        else:
            if todo is None:
                self.failed += 1
            print(f"not ok {self.n} - {desc}{directive}", flush=True)
        if diag is not None and (not cond or todo is not None):
            for line in str(diag).splitlines()[:40]:
                print(f"#   {line}", flush=True)
        return cond

    def skip(self, desc):
        self.n += 1
        print(f"ok {self.n} # SKIP {desc}", flush=True)

    def eq(self, got, want, desc, context=None):
        diag = f"got:  {got!r}\nwant: {want!r}"
        if context is not None:
            diag += f"\n{context!r}"
        return self.ok(got == want, desc, diag)

    def run_all(self, tests):
        for test in tests:
            try:
                test(self)
            except Exception:
                self.ok(False, f"{test.__name__} raised", traceback.format_exc())
            while _open_runners:
                _open_runners[0].close()
        print(f"1..{self.n}", flush=True)
        return 1 if self.failed else 0


class Runner:
    def __init__(self, path, *args, env=None, preexec_fn=None, pass_fds=()):
        self.proc = subprocess.Popen(
            [path, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env if env is not None else dict(os.environ),
            preexec_fn=preexec_fn,
            pass_fds=pass_fds,
        )
        self.buf = b""
        self.pending = []
        _open_runners.append(self)

    def send_raw(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, **msg):
        msg.setdefault("v", 1)
        self.send_raw(json.dumps(msg).encode() + b"\n")

    def recv(self, timeout=30):
        """The next event, or None when the runner closed its stdout."""
        if self.pending:
            return self.pending.pop(0)
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no event from the runner")
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            if not chunk:
                return None
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def recv_type(self, type_, timeout=30):
        """Skips to the next event of the given type; the skipped ones are kept."""
        skipped = []
        while True:
            ev = self.recv(timeout)
            if ev is None or ev["type"] == type_:
                self.pending = skipped + self.pending
                return ev
            skipped.append(ev)

    def hello(self):
        self.send(type="hello", client="runner-tests")
        return self.recv_type("ready")

    def collect(self, run_id, timeout=60):
        """All events of one run up to and including its exited event; events
        of other runs stay queued for later."""
        events, others = [], []
        deadline = time.monotonic() + timeout
        while True:
            ev = self.recv(max(0.1, deadline - time.monotonic()))
            if ev is None:
                raise EOFError("runner closed its output")
            if ev.get("id") != run_id:
                others.append(ev)
                continue
            events.append(ev)
            if ev["type"] == "exited":
                self.pending = others + self.pending
                return events

    def run(self, run_id, code, language="python", **fields):
        self.send(type="run", id=run_id, language=language, code=code, **fields)
        events = self.collect(run_id)
        return Result(events)

    def close(self, timeout=10):
        if self in _open_runners:
            _open_runners.remove(self)
        if self.proc.returncode is not None and self.proc.stdout.closed:
            return self.proc.returncode
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()
        # Whatever the runner said on stderr (sanitizer reports included)
        # shows up in the TAP log as a diagnostic.
        self.stderr_text = self.proc.stderr.read().decode(errors="replace")
        for line in self.stderr_text.splitlines()[:60]:
            print(f"# runner: {line}", flush=True)
        self.proc.stderr.close()
        return self.proc.returncode


class Result:
    def __init__(self, events):
        self.events = events
        self.exited = events[-1]
        self.started = next((e for e in events if e["type"] == "started"), None)
        self.stdout = "".join(
            e["data"] for e in events if e["type"] == "output" and e["stream"] == "stdout")
        self.stderr = "".join(
            e["data"] for e in events if e["type"] == "output" and e["stream"] == "stderr")

    def __repr__(self):
        return (f"exited={self.exited!r}\nstdout={self.stdout[:500]!r}\n"
                f"stderr={self.stderr[:1500]!r}")


def main(tests):
    sys.exit(Tap().run_all(tests))
