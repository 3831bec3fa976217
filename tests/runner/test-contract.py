"""The runner's contract (docs/protocol.md, "The runner's contract"), with the
real runner and Debian's interpreters: every accepted run ends with exactly
one exited event carrying its id, every frame is valid UTF-8 and at most
4 MiB whatever the program does, and the runner's own plumbing (its input,
its caller's fds, its children's fds) holds up.

Usage: test-contract.py PATH-TO-SANDPAD-RUNNER PATH-TO-SANDPAD-RUN [TEST-NAME...]
"""

import fcntl
import json
import os
import re
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from runnertest import PYTHON, Runner, main  # noqa: E402

RUNNER = sys.argv[1]
SANDPAD_RUN = sys.argv[2]
MODE = os.environ.get("SANDPAD_TEST_SANDBOX", "namespaces")
MAX_FRAME = 4 * 1024 * 1024


class RawRunner(Runner):
    """A runner whose frames are kept as bytes, so the test can check each
    one as the wire carries it, before any decoding forgives anything."""

    def __init__(self, *args, **kw):
        super().__init__(RUNNER, "--sandbox", MODE, *args, **kw)
        self.frames = []

    def recv(self, timeout=60):
        if self.pending:
            return self.pending.pop(0)
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            import select
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no event from the runner")
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.proc.stdout.fileno(), 1 << 20)
            if not chunk:
                return None
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        self.frames.append(line)
        # Strict: invalid UTF-8 raises here instead of being replaced.
        return json.loads(line.decode("utf-8", errors="strict"))


def check_frames(t, frames, what):
    too_long = [len(f) for f in frames if len(f) > MAX_FRAME]
    t.eq(too_long, [], f"{what}: no frame is over 4 MiB (largest {max(map(len, frames))})")
    bad = 0
    for f in frames:
        try:
            json.loads(f.decode("utf-8", errors="strict"))
        except ValueError:
            bad += 1
    t.eq(bad, 0, f"{what}: every frame is valid UTF-8 JSON")


def one_exited(t, events, run_id, what):
    exited = [e for e in events if e["type"] == "exited"]
    t.eq(len(exited), 1, f"{what}: exactly one exited event", events[-3:])
    t.ok(all(e.get("id") == run_id for e in events),
         f"{what}: every event about the run carries its id",
         [e for e in events if e.get("id") != run_id][:3])
    return exited[0] if exited else {}


# ---- Hostile programs ------------------------------------------------------

HOSTILE_FILES = r"""
import os, struct, zlib
# 250 files whose names are 240 bytes of control characters and invalid
# bytes, three levels down in directories named the same way.
for i in range(250):
    d = b'd%d/' % i + b'\x01' * 200 + b'/' + b'\x02\xff' * 100
    os.makedirs(d, exist_ok=True)
    open(d + b'/' + b'\x1b\xfe' * 120, 'w').write('x')
    os.symlink(b'\x05' * 250 + b'\xfe', b'l%d' % i + b'\x7f' * 240)
# Valid PNG headers (1x1), many of them, each as big as a file may be:
# inline data that would fill the frame on its own.
ihdr = b'IHDR' + struct.pack('>IIBBBBB', 1, 1, 8, 2, 0, 0, 0)
png = b'\x89PNG\r\n\x1a\n' + struct.pack('>I', 13) + ihdr + struct.pack('>I', zlib.crc32(ihdr))
for i in range(12):
    open('.img%02d.png' % i, 'wb').write(png + bytes(700 * 1024))
print('done')
"""


# Two files that show alike: the escaped name and one spelt that way.
TWIN_NAMES = r"""
open('notes\n.txt', 'w').write('a')
open('notes\\x0a.txt', 'w').write('b')
import os
os.makedirs(b'\x01' * 200 + b'/' + b'\x02' * 200)
open(b'\x01' * 200 + b'/' + b'\x02' * 200 + b'/' + b'\x03' * 200, 'w').write('c')
"""


def test_hostile_names(t):
    r = RawRunner()
    r.hello()
    r.send(type="run", id="names", language="python", code=HOSTILE_FILES,
           return_base64=True, timeout_ms=120000)
    events = r.collect("names", timeout=180)
    ex = one_exited(t, events, "names", "hostile names")
    check_frames(t, r.frames, "hostile names")
    t.eq((ex.get("end"), ex.get("exit_code")), ("exited", 0),
         "the run is reported as it ended", {k: v for k, v in ex.items() if k != "files"})
    files = ex.get("files", [])
    t.ok(ex.get("files_truncated") is True and 0 < len(files) <= 200,
         f"the list is capped and says so ({len(files)} listed)")
    t.ok(all("\x01" not in f["path"] and "\x1b" not in f["path"] for f in files),
         "no control character reaches a listed name")
    inline = sum(len(f.get("base64", "")) for f in files)
    t.ok(inline <= 2 * 1024 * 1024, f"inline data stays within its 2 MiB budget ({inline})")
    links = [f for f in files if f.get("kind") == "symlink"]
    t.ok(links and all(re.fullmatch(rb"l\d+\x7f{240}", bytes.fromhex(f.get("path_hex", "")))
                       for f in links),
         "a symlink's name comes as its bytes (path_hex) beside the escaped path")
    r.send(type="run", id="twins", language="python", code=TWIN_NAMES)
    ex = one_exited(t, r.collect("twins", timeout=60), "twins", "twin names")
    shown = {f["path"]: f for f in ex.get("files", [])}
    twins = [f for f in ex.get("files", []) if f["path"] == "notes\\x0a.txt"]
    t.eq(sorted(f.get("path_hex") or "" for f in twins), ["", b"notes\n.txt".hex()],
         "notes\\n.txt and a file named notes\\x0a.txt show alike; only the first has path_hex",
         shown)
    deep = [f for f in ex.get("files", []) if f["path"].startswith("\\x01")]
    t.ok(len(deep) == 1 and deep[0].get("path_hex_left_out") is True and "path_hex" not in deep[0],
         "a name past 512 bytes is said to be left out, never guessed", shown)
    r.close()


def test_hostile_output(t):
    r = RawRunner()
    r.hello()
    code = ("import sys\nsys.stdout.buffer.write(b'\\x01' * (2 * 1024 * 1024))\n"
            "sys.stderr.buffer.write(bytes(range(256)) * 4096);\n")
    r.send(type="run", id="out", language="python", code=code, output_limit=8 * 1024 * 1024)
    events = r.collect("out", timeout=120)
    ex = one_exited(t, events, "out", "control characters")
    check_frames(t, r.frames, "2 MiB of control characters")
    data = "".join(e["data"] for e in events if e["type"] == "output" and e["stream"] == "stdout")
    t.eq((len(data), ex.get("stdout_bytes")), (2 * 1024 * 1024, 2 * 1024 * 1024),
         "all of it arrives, as text")
    r.close()


# Tracebacks whose numbers are past what the protocol carries (issue 29):
# one such run made the app restart the runner every window shares.
HOSTILE_ERRORS = {
    "python": ("python", r"""import sys
sys.stderr.write('Traceback (most recent call last):\n'
                 '  File "/code/main.py", line 99999999999, in <module>\n'
                 'ValueError: boom\n')
sys.exit(1)
""", 1, "ValueError"),
    "node": ("javascript", r"""process.stderr.write('/code/main.js:99999999999\nthrow x\n^\n\n' +
  'Error: boom\n    at f (/code/main.js:2:99999999999)\n' +
  '    at /code/main.js:99999999999:1\n');
process.exit(1);
""", 1, "Error"),
    # bash's own error on line 2 is the one read.
    "bash": ("bash", "echo '/code/main.sh: line 99999999999: boom' >&2\nnosuchcommand\n", 127,
             "Error"),
}


def strict_errors(frames):
    """What the protocol's own strict decoder (decode-events) says of each
    frame that it refuses, as the app's client would."""
    proc = subprocess.run([os.environ["SANDPAD_DECODE_EVENTS"]], input=b"\n".join(frames) + b"\n",
                          capture_output=True, timeout=60, check=True)
    verdicts = proc.stdout.decode().splitlines()
    return [(f[:200], v) for f, v in zip(frames, verdicts) if v != "ok"]


def test_hostile_errors(t):
    r = RawRunner()
    r.hello()
    for name, (language, code, status, type_) in HOSTILE_ERRORS.items():
        r.send(type="run", id=name, language=language, code=code)
        ex = one_exited(t, r.collect(name, timeout=120), name, name)
        t.eq((ex.get("end"), ex.get("exit_code")), ("exited", status),
             f"{name}: the run is reported as it ended", ex)
        t.eq(ex.get("program_error", {}).get("type"), type_,
             f"{name}: its error is still read", ex.get("program_error"))
    t.eq(strict_errors(r.frames), [], "every frame passes the protocol's strict decoder")
    # The control: the same decoder refuses the line the runner once sent.
    bad = (b'{"v":1,"type":"exited","id":"x","end":"exited","exit_code":1,"t_ms":1,'
           b'"wall_ms":1,"cpu_ms":1,"peak_memory_bytes":1,"stdout_bytes":0,"stderr_bytes":0,'
           b'"stdout_truncated":false,"stderr_truncated":false,"files":[],'
           b'"files_truncated":false,"program_error":{"type":"E","message":"","line":0,'
           b'"frames":[{"file":"/code/main.py","line":99999999999}]}}')
    t.eq(len(strict_errors([bad])), 1, "the decoder refuses a line past int32")
    r.send(type="run", id="next", language="python", code="print('next')")
    events = r.collect("next", timeout=120)
    t.eq("".join(e["data"] for e in events if e["type"] == "output"), "next\n",
         "the runner serves the next run")
    r.close()

    # sandpad-run --json prints its events through the same check.
    with tempfile.TemporaryDirectory() as d:
        os.chmod(d, 0o755)  # the run's uid reads the script
        script = os.path.join(d, "main.py")
        with open(script, "w") as f:
            f.write(HOSTILE_ERRORS["python"][1])
        os.chmod(script, 0o644)
        proc = subprocess.run([SANDPAD_RUN, "--sandbox", MODE, "--json", script],
                              capture_output=True, timeout=120)
        lines = proc.stdout.splitlines()
        t.ok(lines and b'"exited"' in lines[-1], "sandpad-run --json ends with exited",
             proc.stdout[-400:])
        t.eq(strict_errors(lines), [], "and each of its lines passes the strict decoder")


# ---- Strings from outside the runner --------------------------------------

def hostile_dir():
    """A directory whose name is not UTF-8, as a TMPDIR may be."""
    base = tempfile.mkdtemp(prefix="sandpad-contract-")
    os.chmod(base, 0o755)
    d = os.path.join(base.encode(), b"tmp-\xff\x1b")
    os.mkdir(d, 0o755)
    return base, d


def test_non_utf8_interpreter(t):
    base, d = hostile_dir()
    try:
        fake = os.path.join(d, b"python3")
        # An interpreter that answers --version with bytes that are not
        # text, and runs snippets as python would.
        with open(fake, "wb") as f:
            f.write(b"#!/bin/sh\nif [ \"$1\" = --version ]; then printf 'Python 3.\\377\\033[1m\\n'; "
                    b"exit 0; fi\nexec /usr/bin/python3 \"$@\"\n")
        os.chmod(fake, 0o755)
        r = RawRunner(b"--interpreter=python=" + fake)
        ready = r.hello()
        t.eq(ready and ready["type"], "ready", "hello is answered with ready", ready)
        langs = {lang["name"]: lang for lang in (ready or {}).get("languages", [])}
        t.ok("python" in langs and "\\xff" in langs["python"]["path"]
             and "\\xff" in langs["python"]["version"],
             "the interpreter's path and version are escaped", langs.get("python"))
        # Gone before the run: its error names the path, which is not text.
        os.unlink(fake)
        r.send(type="run", id="gone", language="python", code="print(1)")
        events = r.collect("gone")
        ex = one_exited(t, events, "gone", "an interpreter that is gone")
        t.eq(ex.get("end"), "failed", "the run ends failed", ex)
        t.ok("\\xff" in ex.get("error", ""), "its error names the path, escaped", ex)
        check_frames(t, r.frames, "non-UTF-8 interpreter")
        res = r.run("after", "print('still serving')", language="bash")
        t.eq(res.exited.get("end"), "exited", "and the runner keeps serving", res)
        r.close()
    finally:
        shutil.rmtree(base)


def test_non_utf8_work_parent(t):
    base, d = hostile_dir()
    try:
        r = RawRunner(b"--work-parent=" + d)
        r.hello()
        r.send(type="run", id="w", language="python", code="print('ok')")
        events = r.collect("w")
        one_exited(t, events, "w", "a work parent that is not UTF-8")
        started = [e for e in events if e["type"] == "started"]
        t.ok(len(started) == 1 and "\\xff" in started[0]["cwd"],
             "started comes, with its cwd escaped", events[:3])
        t.ok(not any(e["type"] == "error" for e in events), "no error in place of an event",
             events)
        check_frames(t, r.frames, "non-UTF-8 work parent")
        r.close()
    finally:
        shutil.rmtree(base)


def test_cli_json_exited(t):
    """sandpad-run --json ends with exited even when the run's result
    holds bytes that are not text."""
    base, d = hostile_dir()
    try:
        link = os.path.join(d, b"py")
        os.symlink(b"/usr/bin/python3", link)
        script = os.path.join(base, "x.py")
        with open(script, "w") as f:
            f.write("print(1)\n")
        # In namespace mode the host's /tmp is not in the sandbox, so the
        # interpreter cannot be executed; without namespaces it runs.
        proc = subprocess.run([SANDPAD_RUN.encode(), b"--sandbox", MODE.encode(), b"--json",
                               b"--interpreter", b"python=" + link, script.encode()],
                              capture_output=True, timeout=120)
        lines = proc.stdout.splitlines()
        events = []
        for line in lines:
            try:
                events.append(json.loads(line.decode("utf-8", errors="strict")))
            except ValueError:
                events.append({"type": "undecodable"})
        t.ok(len(events) > 0 and events[-1]["type"] == "exited"
             and events[-1].get("id") == "cli",
             "the last line of --json is the run's exited event", proc.stdout[-400:])
        want = 125 if events and events[-1].get("end") == "failed" else 0
        t.eq(proc.returncode, want, "and the exit status agrees with it", proc.stderr[-400:])
    finally:
        shutil.rmtree(base)


# ---- The runner's input and its caller's fds -------------------------------

def test_file_input(t):
    d = tempfile.mkdtemp(prefix="sandpad-contract-")
    try:
        reqs = os.path.join(d, "requests.ndjson")
        with open(reqs, "w") as f:
            f.write(json.dumps({"v": 1, "type": "hello", "client": "batch"}) + "\n")
            for i in range(8):
                f.write(json.dumps({"v": 1, "type": "run", "id": f"b{i}", "language": "python",
                                    "code": f"import time\ntime.sleep(0.2)\nprint({i})"}) + "\n")
        out = os.path.join(d, "events.ndjson")
        with open(reqs, "rb") as fin, open(out, "wb") as fout:
            try:
                proc = subprocess.run([RUNNER, "--sandbox", MODE], stdin=fin, stdout=fout,
                                      stderr=subprocess.PIPE, timeout=90)
                rc = proc.returncode
            except subprocess.TimeoutExpired:
                rc = "hung"
        t.eq(rc, 0, "sandpad-runner < requests.ndjson exits 0 on its own")
        events = [json.loads(line) for line in open(out, "rb").read().splitlines()]
        t.eq([e["type"] for e in events][:1], ["ready"], "hello is answered")
        got = {e["id"]: e for e in events if e["type"] == "exited"}
        t.eq(sorted(got), [f"b{i}" for i in range(8)], "every run in the file ends",
             [e for e in events if e["type"] == "error"][:3])
        t.ok(all(e.get("end") == "exited" and e.get("exit_code") == 0 and "cancelled" not in e
                 for e in got.values()), "each as it ended, none cancelled by the file's end",
             list(got.values())[:2])
        outs = {}
        for e in events:
            if e["type"] == "output":
                outs[e["id"]] = outs.get(e["id"], "") + e["data"]
        t.eq(outs, {f"b{i}": f"{i}\n" for i in range(8)}, "with its output")
        # A slow reader of the events is not a client leaving: nothing is
        # lost however long it takes to read them.
        big = os.path.join(d, "big.ndjson")
        with open(big, "w") as f:
            f.write(json.dumps({"v": 1, "type": "hello"}) + "\n")
            for i in range(6):
                f.write(json.dumps({"v": 1, "type": "run", "id": f"y{i}", "language": "python",
                                    "code": "import sys\nsys.stdout.write('y' * 300000)"}) + "\n")
        with open(big, "rb") as fin:
            proc = subprocess.Popen([RUNNER, "--sandbox", MODE], stdin=fin,
                                    stdout=subprocess.PIPE)
            time.sleep(8)
            try:
                data, _ = proc.communicate(timeout=90)
            except subprocess.TimeoutExpired:
                proc.kill()
                data, _ = proc.communicate()
                proc.returncode = "hung"
        events = [json.loads(line) for line in data.splitlines()]
        t.eq((proc.returncode, sum(e["type"] == "exited" for e in events),
              sum(len(e["data"]) for e in events if e["type"] == "output")),
             (0, 6, 6 * 300000), "a slow reader still gets every event of every run")
        with open("/dev/null", "rb") as fin:
            try:
                proc = subprocess.run([RUNNER, "--sandbox", MODE], stdin=fin,
                                      capture_output=False, stdout=subprocess.DEVNULL,
                                      timeout=60)
                rc = proc.returncode
            except subprocess.TimeoutExpired:
                rc = "hung"
        t.eq(rc, 0, "sandpad-runner < /dev/null exits 0 at once")
    finally:
        shutil.rmtree(d)


def nonblocking(fd):
    return bool(fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_NONBLOCK)


def test_caller_flags(t):
    # The runner's stdin and stdout are pipes whose ends the test shares
    # with it (the same open file descriptions), as a shell's are.
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    proc = subprocess.Popen([RUNNER, "--sandbox", MODE], stdin=in_r, stdout=out_w)
    try:
        os.write(in_w, b'{"v":1,"type":"hello"}\n')
        buf = b""
        while b"\n" not in buf:
            buf += os.read(out_r, 65536)
        t.ok(json.loads(buf.split(b"\n")[0])["type"] == "ready", "the runner serves")
        t.eq((nonblocking(in_r), nonblocking(out_w)), (False, False),
             "while it serves, its caller's stdin and stdout stay blocking")
        os.close(in_w)
        proc.wait(30)
        t.eq((nonblocking(in_r), nonblocking(out_w)), (False, False),
             "and after it exits")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for fd in (in_r, out_r, out_w):
            os.close(fd)
        try:
            os.close(in_w)
        except OSError:
            pass

    # A socket, as the app hands over with --fd: flags put back on exit.
    ours, theirs = socket.socketpair()
    dup = os.dup(theirs.fileno())  # shares the description the runner gets
    proc = subprocess.Popen([RUNNER, "--sandbox", MODE, "--fd", str(dup)], pass_fds=(dup,))
    ours.sendall(b'{"v":1,"type":"hello"}\n')
    ours.settimeout(30)
    t.ok(b"ready" in ours.recv(65536), "the runner serves on --fd")
    ours.shutdown(socket.SHUT_WR)
    proc.wait(30)
    t.eq(nonblocking(dup), False, "the --fd socket's flags are put back when it exits")
    os.close(dup)
    ours.close()
    theirs.close()


# ---- Fds of every process the runner starts --------------------------------

def fd_links(pid):
    links = {}
    try:
        for name in os.listdir(f"/proc/{pid}/fd"):
            try:
                links[int(name)] = os.readlink(f"/proc/{pid}/fd/{name}")
            except OSError:
                pass
    except OSError:
        return None
    return links


def descendants(pid):
    out = []
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            for tid in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{tid}/children") as f:
                    kids = [int(k) for k in f.read().split()]
                out += kids
                todo += kids
        except OSError:
            pass
    return out


def comm(pid):
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return "?"


def test_probe_fds(t):
    d = tempfile.mkdtemp(prefix="sandpad-contract-")
    os.chmod(d, 0o755)
    try:
        report = os.path.join(d, "probe-fds.json")
        fake = os.path.join(d, "python3")
        # The version probe runs this with --version: it writes down the
        # fds it was started with (before opening anything itself).
        with open(fake, "w") as f:
            f.write(f"#!{PYTHON} -S\nimport os, sys, json\n"
                    "fds = {}\nfor fd in range(3, 1024):\n"
                    "    try:\n        os.fstat(fd)\n"
                    "        fds[fd] = os.readlink('/proc/self/fd/%d' % fd)\n"
                    "    except OSError:\n        pass\n"
                    "if sys.argv[1:] == ['--version']:\n"
                    f"    json.dump(fds, open({report!r}, 'w'))\n"
                    "    print('Python 3.99.0')\n    sys.exit(0)\n"
                    "os.execv('/usr/bin/python3', ['/usr/bin/python3'] + sys.argv[1:])\n")
        os.chmod(fake, 0o755)
        ours, theirs = socket.socketpair()
        extra = os.open("/dev/null", os.O_RDONLY)  # an fd our caller leaked to us
        proc = subprocess.Popen([RUNNER, "--sandbox", MODE, "--fd", str(theirs.fileno()),
                                 f"--interpreter=python={fake}"],
                                pass_fds=(theirs.fileno(), extra))
        ours.settimeout(30)
        ours.sendall(b'{"v":1,"type":"hello"}\n')
        answer = ours.recv(65536)
        t.ok(b'"3.99.0"' in answer, "the probe ran", answer[:200])
        try:
            with open(report) as f:
                fds = json.load(f)
        except OSError as e:
            fds = {"error": str(e)}
        # Python's own script fd is closed before the code runs; the file
        # it reads is not open yet: 0, 1, 2 only.
        t.eq(fds, {}, "the version probe starts with fds 0, 1 and 2 only")
        ours.shutdown(socket.SHUT_WR)
        proc.wait(30)
        os.close(extra)
        ours.close()
        theirs.close()
    finally:
        shutil.rmtree(d)


def is_warm_parent(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = f.read().split(b"\0")
    except OSError:
        return False
    return len(argv) > 3 and argv[3].endswith(b"/driver.py") and b"/warm-" in argv[3]


def test_child_fds(t):
    """Every process of a run, seen from outside while it runs: no fd of
    the runner's (its protocol pipes, its directories) in any of them."""
    r = Runner(RUNNER, "--sandbox", MODE)
    r.hello()
    proto = {f"pipe:[{os.fstat(p.fileno()).st_ino}]"
             for p in (r.proc.stdin, r.proc.stdout, r.proc.stderr)}
    runner_fds = fd_links(r.proc.pid)
    code = ("import os, sys, time\nprint('up', flush=True)\n"
            "time.sleep(30)\n")
    r.send(type="run", id="fds", language="python", code=code)
    ev = r.recv_type("output", timeout=60)
    t.ok(ev is not None and ev.get("data", "").startswith("up"), "the run is up", ev)
    # The runner may have one more python3 of its own about for a moment
    # (the interpreters' version probe, the font list's build run on a
    # loaded machine): judge the run once it is the only program left.
    deadline = time.monotonic() + 30
    while True:
        procs = {pid: (comm(pid), fd_links(pid)) for pid in descendants(r.proc.pid)}
        programs = [p for p, (name, _) in procs.items()
                    if name.startswith("python") and not is_warm_parent(p)]
        if len(programs) <= 1 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    # The warm parent (runner-warm.h) is the runner's, not the run's: it
    # holds /dev/null as 0-2 and its socket to the runner; beyond them only
    # sandpad-warm-init (opened once, to exec its spares' inits from) and,
    # once its spare is made, that spare's sockets and pidfd, and where the
    # runner has cgroups its groups and its spares' seats (directories of a
    # cgroup file system): no pipe of a run, no other file. One that is
    # still starting (this run went cold while it imports) has its script
    # open for a moment: judge it once it is at rest.
    with open("/proc/self/mountinfo") as f:
        cgroup_mounts = [line.split()[4] for line in f
                         if line.split(" - ")[-1].split()[0] in ("cgroup", "cgroup2")]

    def at_rest(links):
        def spare_or_helper(link):
            return (link.startswith("socket:") or link == "anon_inode:[pidfd]"
                    or link.endswith("/sandpad-warm-init")
                    or any(link.startswith(m + "/") for m in cgroup_mounts))
        return (all(links.get(fd) == "/dev/null" for fd in (0, 1, 2))
                and links.get(3, "").startswith("socket:")
                and all(spare_or_helper(link) for fd, link in links.items() if fd > 3))
    warm = {pid for pid in procs if is_warm_parent(pid)}
    for pid in warm:
        links = procs.pop(pid)[1] or {}
        deadline = time.monotonic() + 60
        while not at_rest(links) and time.monotonic() < deadline:
            time.sleep(0.2)
            links = fd_links(pid) or {}
        t.ok(at_rest(links), f"the warm parent ({pid}) holds /dev/null, its socket, its helper "
             "and its spare's socket and pidfd only",
             links)
    r.send(type="cancel", id="fds")
    r.collect("fds")
    r.close()

    program = [p for p, (name, _) in procs.items() if name.startswith("python")]
    t.ok(len(procs) >= 2 and len(program) == 1,
         f"the run's processes are found ({sorted(n for n, _ in procs.values())})")
    for pid, (name, links) in sorted(procs.items()):
        if links is None:
            t.ok(False, f"{name} ({pid}): its fds can be listed")
            continue
        leaked = {fd: link for fd, link in links.items() if link in proto}
        t.eq(leaked, {}, f"{name} ({pid}) holds none of the runner's protocol pipes")
        shared = {fd: link for fd, link in links.items()
                  if fd >= 3 and link in set(runner_fds.values())
                  and not link.startswith(("pipe:", "anon_inode:"))}
        t.eq(shared, {}, f"{name} ({pid}) holds no file the runner has open", links)
        if pid in program:
            t.eq(sorted(links), [0, 1, 2], f"the program {name} has exactly 0, 1 and 2", links)
        else:
            others = {fd: link for fd, link in links.items()
                      if not link.startswith(("pipe:", "anon_inode:", "/dev/null"))}
            t.eq(others, {}, f"{name} ({pid}), the supervisor, holds only pipes", links)


# ---- 2,000 runs through one runner ----------------------------------------

def runner_usage(pid):
    with open(f"/proc/{pid}/status") as f:
        rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    return len(os.listdir(f"/proc/{pid}/fd")), rss


def test_soak(t):
    total = int(os.environ.get("SANDPAD_SOAK_RUNS", "2000"))
    r = Runner(RUNNER, "--sandbox", MODE)
    r.hello()
    at = {}
    ok = 0
    window = 4
    sent = done = 0
    while done < total:
        # Both looks are taken with nothing in flight, so they compare.
        cap = 100 if done < 100 else total
        while sent < cap and sent - done < window:
            lang, code = (("bash", "true") if sent % 2 else ("python", "print(1)"))
            r.send(type="run", id=f"s{sent}", language=lang, code=code)
            sent += 1
        ev = r.recv_type("exited", timeout=120)
        if ev is None:
            break
        r.pending = [e for e in r.pending if e.get("id") != ev["id"]]
        ok += ev.get("end") == "exited" and ev.get("exit_code") == 0
        r.send(type="release", id=ev["id"])
        done += 1
        if done in (100, total):
            # Let the releases land before looking.
            r.send(type="hello")
            r.recv_type("ready")
            at[done] = runner_usage(r.proc.pid)
    r.close()
    t.eq(ok, total, f"all {total} runs end with exit code 0")
    if 100 in at and total in at:
        (fd100, rss100), (fd_end, rss_end) = at[100], at[total]
        t.ok(fd_end <= fd100, f"the runner's fd count is flat ({fd100} after 100, {fd_end} after {total})")
        t.ok(rss_end <= rss100 * 1.5 + 4096,
             f"its RSS is flat ({rss100} KiB after 100, {rss_end} KiB after {total})")
    else:
        t.ok(False, "the runner's usage was measured", at)


TESTS = {f.__name__[5:]: f for f in (test_hostile_names, test_hostile_output, test_hostile_errors,
                                     test_non_utf8_interpreter, test_non_utf8_work_parent,
                                     test_cli_json_exited, test_file_input, test_caller_flags,
                                     test_probe_fds, test_child_fds, test_soak)}

if __name__ == "__main__":
    names = sys.argv[3:] or [n for n in TESTS if n != "soak"]
    main([TESTS[n] for n in names])
