"""The warm pool (src/runner/engine/runner-warm.h), end to end: Python runs
forked from a warm python3 give the same results as cold runs, keep every
limit, stay isolated from their parent and from each other, and fall back
to cold whenever the warm path cannot serve them.

Usage: test-warm.py PATH-TO-SANDPAD-RUNNER [TEST-NAME...]
"""

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import syscall_inject  # noqa: E402
from runnertest import Runner, main, wait_until  # noqa: E402

RUNNER = sys.argv[1]
MODE = os.environ.get("SANDPAD_TEST_SANDBOX", "namespaces")
RUN_IDS = iter(range(1, 1 << 30))


def runner(*args):
    r = Runner(RUNNER, "--cancel-grace-ms", "300", "--sandbox", MODE, "--strict", *args)
    r.hello()
    return r


def run(r, code, **fields):
    return r.run(f"r{next(RUN_IDS)}", code, **fields)


def wait_warm(r, timeout=90):
    """Runs `pass` until one starts warm (the parent imports for a while
    after hello); True once one did."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if run(r, "pass").started.get("warm"):
            return True
        time.sleep(0.2)
    return False


def descendants(pid):
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/task/{p}/children") as f:
                kids = [int(k) for k in f.read().split()]
        except OSError:
            kids = []
        out += kids
        todo += kids
    return out


def warm_parents(r):
    return warm_children(r.proc.pid)


def warm_children(runner_pid):
    """Pids of a runner's warm parents: its children running the driver
    in python3, with the runner's socket as fd 3 (a spare run's program
    is a copy of one, but not the runner's child)."""
    found = []
    try:
        with open(f"/proc/{runner_pid}/task/{runner_pid}/children") as f:
            children = [int(k) for k in f.read().split()]
    except OSError:
        children = []
    for pid in children:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            if (len(argv) > 3 and argv[3].endswith(b"/driver.py")
                    and os.readlink(f"/proc/{pid}/fd/3").startswith("socket:")):
                found.append(pid)
        except OSError:
            pass
    return found


def status_field(pid, name):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(name + ":"):
                return line.split()[1]
    return None


def comparable(res):
    """What must be equal between a warm and a cold run of one snippet."""
    e = res.exited
    result = dict(stdout=res.stdout, stderr=res.stderr, end=e["end"],
                  exit_code=e.get("exit_code"), signal=e.get("signal"), limit=e.get("limit"),
                  program_error=e.get("program_error"),
                  files=sorted((f["path"], f["mime"], f.get("width"), f.get("height"))
                               for f in e["files"]))
    # Without namespaces a run sees its host paths, which differ per run.
    text = json.dumps(result)
    run_dir = os.path.dirname(res.started["cwd"])
    if run_dir != "/":
        text = text.replace(run_dir, "<run>")
    return json.loads(text)


SAME = [
    ("print", "print(1)\n", {}),
    ("error line", "x = 1\n\ndef f():\n    raise ValueError('boom')\n\nf()\n", {}),
    ("syntax error", "x = (\n", {}),
    ("exit code", "import sys\nsys.exit(3)\n", {}),
    ("exit message", "import sys\nsys.exit('bye')\n", {}),
    ("interrupt", "print('a', flush=True)\nraise KeyboardInterrupt\n", {}),
    ("argv, cwd, main", "import os, sys\nprint(sys.argv, os.getcwd(), __name__, __file__)\n",
     {"args": ["one", "two"]}),
    # The display token is random per run (runner-display.h).
    ("environment", "import os\nprint(sorted((k, v) for k, v in os.environ.items()\n"
     "             if k != 'SANDPAD_DISPLAY_TOKEN'))\n", {"env": {"MINE": "1"}}),
    ("sys.path", "import sys\nprint([p for p in sys.path if 'sandpad-runner' not in p])\n",
     {"env": {"PYTHONPATH": "/opt/x"}}),
    ("flags and encoding",
     "import sys\nprint(sys.flags.utf8_mode, sys.flags.dont_write_bytecode, sys.stdout.encoding,"
     " sys.stdout.line_buffering, sys.getfilesystemencoding())\n", {}),
    ("signals", "import signal\nprint([signal.getsignal(s) for s in "
     "(signal.SIGINT, signal.SIGPIPE, signal.SIGXFSZ, signal.SIGTERM)])\n", {}),
    ("stdin", "print(input().upper())\n", {"stdin": "hello\n"}),
    ("plot", "import matplotlib.pyplot as plt\nplt.bar([1, 2, 3], [3, 1, 2])\nplt.show()\n"
     "print('after')\n", {}),
    ("saved and open figures", "import matplotlib.pyplot as plt\nplt.plot([1, 2])\n"
     "plt.savefig('mine.png')\nplt.figure()\nplt.plot([2, 1]);\n", {}),
    ("atexit", "import atexit\natexit.register(print, 'bye')\nprint('hi')\n", {}),
    ("threads joined", "import threading, time\n"
     "threading.Thread(target=lambda: (time.sleep(0.3), print('late'))).start()\n", {}),
    # The parent has json imported: the snippet's own file must win, as in
    # a cold run (python3 puts the snippet's directory first on sys.path).
    ("snippet named like a preloaded module",
     "import json, signal\nprint(json.__file__, signal.getsignal(signal.SIGPIPE))\n",
     {"name": "json.py"}),
    # The prelude is the run's sitecustomize, as imported from its file
    # (a warm run execs the code its parent compiled from the same text).
    ("the prelude as a module",
     "import sys\ns = sys.modules['sitecustomize']\nprint(s.__name__, s.__file__, s.__cached__,"
     " s.__spec__.origin, s.__loader__.path, s._sandpad_run_snippet.__code__.co_filename)\n"
     "display(1, include=5)\n", {}),
    ("uncaught in thread and chained",
     "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    raise KeyError('k') from e\n", {}),
]


def test_same_results(t):
    warm, cold = runner(), runner("--no-warm")
    t.ok(wait_warm(warm), "the warm parent becomes ready")
    for name, code, fields in SAME:
        a, b = run(warm, code, **fields), run(cold, code, **fields)
        t.ok(a.started.get("warm") is True and "warm" not in b.started
             and a.exited.get("warm") is True and "warm" not in b.exited,
             f"{name}: started and exited say warm and cold", (a, b))
        t.eq(comparable(a), comparable(b), f"{name}: the warm run's result is the cold run's")


def test_limits(t):
    r = runner("--disk", "16")
    t.ok(wait_warm(r), "the warm parent becomes ready")
    cases = [
        ("time", "import time\ntime.sleep(30)\n", {"timeout_ms": 1000}),
        ("memory", "held = []\nwhile True:\n    held.append(bytearray(8 << 20))\n",
         {"memory_mib": 512}),
        ("disk", "with open('big', 'wb') as f:\n    f.write(b'x' * (64 << 20))\n", {}),
    ]
    for limit, code, fields in cases:
        res = run(r, code, **fields)
        t.ok(res.started.get("warm") is True, f"{limit}: the run started warm", res)
        t.eq(res.exited.get("limit"), limit, f"{limit}: a warm run is stopped at its {limit} limit",
             res)
    # Past the output limit a warm run goes on as a cold one (issue 38): a
    # flood keeps its start and end and meets its time limit.
    res = run(r, "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n",
              output_limit=100000, timeout_ms=2000)
    omitted = [e for e in res.events if e["type"] == "output_omitted"]
    t.ok(res.started.get("warm") is True, "output: the run started warm", res)
    t.ok(res.exited.get("limit") == "time" and len(omitted) == 1 and len(res.stdout) <= 126024,
         "output: a warm flood past its output limit keeps start and end, meets its time limit",
         res)
    r.send(type="run", id="cancel-me", language="python",
           code="import time\nprint('up', flush=True)\ntime.sleep(60)\n")
    ev = r.recv_type("output", timeout=60)
    r.send(type="cancel", id="cancel-me")
    events = r.collect("cancel-me")
    started = next(e for e in events if e["type"] == "started")
    t.ok(started.get("warm") is True and ev is not None, "cancel: the run started warm")
    t.ok(events[-1].get("cancelled") is not None and events[-1]["end"] != "exited",
         "cancel: a warm run is cancelled", events[-1])
    r.close()


def test_parent_runs_no_user_code(t):
    r = runner()
    t.ok(wait_warm(r), "the warm parent becomes ready")
    parents = warm_parents(r)
    t.eq(len(parents), 1, "one warm parent for the default policy", parents)
    if not parents:
        return
    parent = parents[0]
    res = run(r, "import os\nprint(open('/proc/self/status').read())\n")
    status = dict(line.split(":", 1) for line in res.stdout.splitlines() if ":" in line)
    t.ok(res.started.get("warm") and status.get("Seccomp", "").strip() == "2"
         and status.get("NoNewPrivs", "").strip() == "1"
         and status.get("CapEff", "").strip() == "0000000000000000",
         "the snippet runs under seccomp, no_new_privs and no capabilities", res)
    # Its own filter (test_parent_filtered) and the runner's, if any: none
    # of a run's two.
    t.eq(status_field(parent, "Seccomp_filters"),
         str(int(status_field(r.proc.pid, "Seccomp_filters")) + 1),
         "the warm parent itself never took a run's last steps")
    t.eq(warm_parents(r), [parent], "the same parent serves the next runs")
    # Beyond /dev/null and its socket to the runner: its spare runs' sockets
    # and pidfds, once it has made them again (two, RUNNER_WARM_SPARES).
    # Never a pipe: nothing of any run.
    def kinds():
        found = []
        for fd in os.listdir(f"/proc/{parent}/fd"):
            try:
                found.append(os.readlink(f"/proc/{parent}/fd/{fd}").split(":")[0])
            except OSError:
                pass
        return sorted(found)
    # And sandpad-warm-init, opened once (O_PATH) for its spares to exec.
    helper = os.path.join(os.path.dirname(os.path.abspath(RUNNER)), "sandpad-warm-init")
    want = sorted(["/dev/null"] * 3 + ["anon_inode"] * 2 + ["socket"] * 3 + [helper])
    # With cgroups (a root runner here): the runner's group(s), and in each
    # its two spares' seats (runner_cgroup_seat_make), as directories.
    layers = ",".join(res.started.get("sandbox", {}).get("layers", []))
    cgroups = "cgroup-v" in layers

    def seats_ok(found):
        groups = [k for k in found if k.startswith("/sys/fs/cgroup/")]
        tops = [g for g in groups if not os.path.basename(g).startswith("seat-")]
        seats = [g for g in groups if g not in tops]
        return (len(tops) >= 1 if cgroups else not tops) \
            and all(os.path.dirname(g) in tops for g in seats) \
            and len(seats) == 2 * len(tops)

    def others(found):
        return [k for k in found if not k.startswith("/sys/fs/cgroup/")]
    seen = []
    wait_until(lambda: seen.append(kinds()) or (others(seen[-1]) == want
                                                 and seats_ok(seen[-1])), 20)
    t.eq(others(seen[-1]), want,
         "the warm parent holds only /dev/null, its socket, its two spares' sockets and "
         "pidfds, and sandpad-warm-init")
    t.ok(seats_ok(seen[-1]),
         "and with cgroups the runner's groups and its two spares' seats in them, no more",
         seen[-1])
    t.ok(not any("pipe" in k for ks in seen for k in ks), "it never holds a run's pipe", seen[:3])
    t.eq(status_field(parent, "Threads"), "1",
         "the warm parent is single-threaded when it forks (numpy started no threads)")
    r.close()


def test_parent_filtered(t):
    """The warm parent runs under a seccomp filter of its own
    (runner-warm-filter.c): made to call what it never calls, from inside
    itself, it is refused; an unfiltered process of the same uid is not."""
    if not syscall_inject.supported():
        t.skip("the calls are injected on x86_64 only")
        return
    r = runner()
    t.ok(wait_warm(r), "the warm parent becomes ready")
    parent = warm_parents(r)[0]
    t.eq(status_field(parent, "Seccomp"), "2", "the warm parent is in seccomp filter mode")
    # Harmless when they work: no memory written, no namespace made.
    calls = [("process_vm_writev", parent, 0, 0, 0, 0, 0), ("unshare", 0)]
    control = subprocess.Popen([sys.executable, "-c", "import time\ntime.sleep(60)\n"])
    try:
        time.sleep(0.3)  # asleep in its call
        for name, *args in calls:
            if name == "process_vm_writev":
                args[0] = control.pid
            t.eq(syscall_inject.call(control.pid, name, *args), 0,
                 f"control: {name} works in an unfiltered process of the same uid")
    finally:
        control.kill()
        control.wait()
    for name, *args in calls:
        t.eq(syscall_inject.call(parent, name, *args), -errno.EPERM,
             f"the warm parent is refused {name}")
    res = run(r, "print('still serving')")
    t.ok(res.started.get("warm") and res.stdout == "still serving\n",
         "and it serves the next run as before", res)
    r.close()


MONKEY_CORE = """\
import json, os, sys, numpy, matplotlib
json.dumps = None
sys.modules['numpy'] = None
numpy.sandpad_mark = 'dirty'
matplotlib.rcParams['lines.linewidth'] = 99
os.environ['SANDPAD_DIRTY'] = '1'
sys.path.insert(0, '/nowhere')
import tempfile
open(os.path.join(tempfile.gettempdir(), 'dirty'), 'w').write('x')
"""
MONKEY = MONKEY_CORE + """\
import builtins
builtins.print = lambda *a, **k: None
sys.stdout.write('patched\\n')
"""

CHECK = """\
import json, os, sys, matplotlib, tempfile
import numpy
print(json.dumps is not None and callable(json.dumps),
      sys.modules.get('numpy') is numpy,
      getattr(numpy, 'sandpad_mark', None),
      matplotlib.rcParams['lines.linewidth'],
      os.environ.get('SANDPAD_DIRTY'),
      '/nowhere' in sys.path,
      os.path.exists(os.path.join(tempfile.gettempdir(), 'dirty')))
"""


def test_monkeypatch_isolated(t):
    r = runner()
    t.ok(wait_warm(r), "the warm parent becomes ready")
    before = run(r, CHECK)
    dirty = run(r, MONKEY)
    after = run(r, CHECK)
    t.ok(all(x.started.get("warm") for x in (before, dirty, after)), "all three ran warm")
    t.eq(dirty.stdout, "patched\n", "the run patched json, numpy, matplotlib, os.environ, print")
    t.eq(after.stdout, before.stdout, "the next warm run sees none of it", (before, after))
    # Control: the check run after the same patches in one process sees them.
    control = run(r, MONKEY_CORE + CHECK.replace("import numpy\n", ""))
    t.ok(before.stdout.startswith("True True None") and control.stdout != before.stdout
         and "dirty" in control.stdout and "99" in control.stdout,
         "control: the check sees the patches within the run that made them", (before, control))
    r.close()


def test_random_differs(t):
    r = runner()
    t.ok(wait_warm(r), "the warm parent becomes ready")
    code = "import random, os\nprint(random.getrandbits(64), os.urandom(8).hex())\n"
    outs = [run(r, code).stdout for _ in range(3)]
    t.eq(len(set(outs)), 3, "random and urandom differ between warm runs of one parent", outs)
    r.close()


PARENT_PROBE = """\
import ctypes, os, sys
pid = int(os.environ['PARENT_PID'])
found = []
try:
    os.kill(pid, 0)
    found.append('signal')
except OSError as e:
    pass
# The parent's layout is the child's own (fork), so id(sys) is mapped there;
# an outsider (the control) takes an address from the maps it can read.
address = id(sys)
for what in ('maps', 'environ', 'mem'):
    try:
        with open('/proc/%d/%s' % (pid, what), 'rb') as f:
            if what == 'maps':
                address = int(f.readline().split(b'-')[0], 16)
            if what == 'mem':
                f.seek(address)
            f.read(16)
        found.append(what)
    except (OSError, ValueError):
        pass
libc = ctypes.CDLL(None, use_errno=True)
buf = ctypes.create_string_buffer(16)
class iovec(ctypes.Structure):
    _fields_ = [('base', ctypes.c_void_p), ('len', ctypes.c_size_t)]
local = iovec(ctypes.addressof(buf), 16)
remote = iovec(address, 16)
if libc.process_vm_readv(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0) == 16:
    found.append('process_vm_readv')
print('REACHED', found) if found else print('BLOCKED')
"""


def test_parent_unreachable(t):
    r = runner()
    t.ok(wait_warm(r), "the warm parent becomes ready")
    parent = warm_parents(r)[0]
    # Control: the same probe as the runner's uid, unsandboxed, reaches it.
    control = subprocess.run([sys.executable, "-c", PARENT_PROBE], capture_output=True,
                             text=True, env=dict(os.environ, PARENT_PID=str(parent)))
    t.ok("REACHED" in control.stdout and "mem" in control.stdout,
         "control: an unsandboxed process reaches the warm parent's memory", control.stdout)
    res = run(r, PARENT_PROBE, env={"PARENT_PID": str(parent)})
    t.ok(res.started.get("warm") and res.stdout == "BLOCKED\n",
         "a warm run cannot signal or read its warm parent", res)
    r.close()


SOCKET_PROBE = """\
import os, socket, stat
open_fds = []
for fd in range(3, 4096):
    try:
        st = os.fstat(fd)
    except OSError:
        continue
    open_fds.append((fd, stat.S_IFMT(st.st_mode)))
# The listing's own fd aside, nothing: no socket to the runner.
listed = sorted(int(x) for x in os.listdir('/proc/self/fd'))
print(open_fds, listed[:3])
"""


def test_no_control_socket(t):
    r = runner()
    t.ok(wait_warm(r), "the warm parent becomes ready")
    res = run(r, SOCKET_PROBE)
    t.ok(res.started.get("warm") and res.stdout == "[] [0, 1, 2]\n",
         "a warm run holds fds 0-2 only: the warm parent's socket is closed", res)
    # Control: the probe does see an fd that is open (here a socket).
    import socket
    a, b = socket.socketpair()
    control = subprocess.run([sys.executable, "-c", SOCKET_PROBE], capture_output=True,
                             text=True, pass_fds=[a.fileno()])
    t.ok(str(a.fileno()) in control.stdout and "49152" in control.stdout,
         "control: the probe finds an open socket", control.stdout)
    a.close()
    b.close()
    r.close()


MAPS_PROBE = """\
import sys
shared = [l.strip() for l in open('/proc/self/maps') if l.split()[1][3] == 's'
          and 'w' in l.split()[1]]
print(shared)
"""


def test_no_shared_writable_mappings(t):
    r = runner()
    t.ok(wait_warm(r), "the warm parent becomes ready")
    res = run(r, MAPS_PROBE)
    t.ok(res.started.get("warm") and res.stdout == "[]\n",
         "a warm run has no shared writable mapping (none could reach parent or sibling)", res)
    control = subprocess.run(
        [sys.executable, "-c", "import mmap\nm = mmap.mmap(-1, 4096)\nm[:1] = b'x'\n" + MAPS_PROBE],
        capture_output=True, text=True)
    t.ok("rw-s" in control.stdout, "control: the probe sees a shared writable mapping",
         control.stdout)
    r.close()


def test_siblings_isolated(t):
    r = runner()
    t.ok(wait_warm(r), "the warm parent becomes ready")
    r.send(type="run", id="a", language="python",
           code="import json, os, tempfile, time\njson.dumps = None\n"
                "mark = os.path.join(tempfile.gettempdir(), 'a-was-here')\n"
                "open(mark, 'w').write('1')\nopen('mine', 'w').write('a')\n"
                "print(mark, os.path.abspath('mine'), flush=True)\ntime.sleep(20)\n")
    up = r.recv_type("output", timeout=60)
    t.ok(up is not None and up.get("id") == "a", "run a is up", up)
    paths = up["data"].split() if up else ["/nonexistent", "/nonexistent"]
    # Read, not stat: without namespaces Landlock does not hide whether a
    # path exists (cold runs alike), it refuses opening it.
    b = run(r, "import json, os, sys\n"
               "seen = []\n"
               "for p in sys.argv[1:]:\n"
               "    try:\n"
               "        seen.append(open(p).read())\n"
               "    except OSError:\n"
               "        pass\n"
               "print(callable(json.dumps), seen, os.listdir('.'))\n", args=paths)
    # b is warm when the parent's other spare was ready (a sibling forked
    # from the same parent), else cold; isolated either way.
    t.eq(b.stdout, "True [] []\n",
         "a running sibling's module patch and files (its /tmp, its directory) are not b's", b)
    r.send(type="cancel", id="a")
    events = r.collect("a")
    t.ok(next(e for e in events if e["type"] == "started").get("warm"), "run a started warm")
    # The spares taken were made again: runs are warm.
    deadline = time.monotonic() + 60
    c = run(r, "import json\nprint(callable(json.dumps))\n")
    while not c.started.get("warm") and time.monotonic() < deadline:
        time.sleep(0.2)
        c = run(r, "import json\nprint(callable(json.dumps))\n")
    t.ok(c.started.get("warm"), "run c, after a ended, started warm", c.started)
    t.eq(c.stdout, "True\n", "a's module patch did not outlive it", c)
    r.close()


INIT_PROBE = """\
import ctypes, os
pid = int(os.environ.get('TARGET_PID') or os.getppid())
libc = ctypes.CDLL(None, use_errno=True)
found = []
PTRACE_SEIZE, PTRACE_DETACH = 0x4206, 17
if libc.ptrace(PTRACE_SEIZE, pid, None, None) == 0:
    libc.ptrace(PTRACE_DETACH, pid, None, None)
    found.append('ptrace')
address = 0
for what in ('maps', 'mem', 'environ'):
    try:
        with open('/proc/%d/%s' % (pid, what), 'rb') as f:
            if what == 'maps':
                address = int(f.readline().split(b'-')[0], 16)
            if what == 'mem':
                f.seek(address)
            f.read(16)
        found.append(what)
    except (OSError, ValueError):
        pass
print('REACHED', found) if found else print('BLOCKED')
"""


def test_init_unreachable(t):
    """A warm run's init and supervisor are sandpad-warm-init, no capability
    and undumpable: the program cannot trace or read them."""
    r = runner()
    t.ok(wait_warm(r), "the warm parent becomes ready")
    res = run(r, INIT_PROBE)
    t.ok(res.started.get("warm") and res.stdout == "BLOCKED\n",
         "a warm run cannot ptrace or read its run init", res)
    # Control: the same probe, unsandboxed, reaches a process of its uid.
    target = subprocess.Popen(["sleep", "30"])
    control = subprocess.run([sys.executable, "-c", INIT_PROBE], capture_output=True, text=True,
                             env=dict(os.environ, TARGET_PID=str(target.pid)))
    target.kill()
    target.wait()
    t.ok("REACHED" in control.stdout and "mem" in control.stdout,
         "control: the probe reaches a process it may trace", control.stdout)
    r.close()


def test_spare_ends_with_parent(t):
    """The run made ahead (a spare) holds nothing once its parent is gone."""
    r = runner()
    t.ok(wait_warm(r), "the warm parent becomes ready")
    parent = warm_parents(r)[0]
    wait_until(lambda: len(descendants(parent)) >= 2, 30)
    spare = descendants(parent)
    t.ok(len(spare) >= 2, "control: the parent has a spare run's processes", spare)
    os.kill(parent, signal.SIGKILL)
    t.ok(wait_until(lambda: not any(os.path.exists(f"/proc/{p}") for p in spare or []), 15),
         "when the parent dies, its spare ends too (no process left)", spare)
    r.close()


def test_recycled(t):
    r = runner("--warm-max-runs", "2")
    t.ok(wait_warm(r), "the warm parent becomes ready")
    first = warm_parents(r)
    run(r, "pass")  # the second warm run: the parent retires
    t.ok(wait_until(lambda: not set(first) & set(warm_parents(r)), 10),
         "after max runs the warm parent is gone", (first, warm_parents(r)))
    res = run(r, "print(1)")
    t.ok(res.exited["end"] == "exited" and res.stdout == "1\n",
         "a run right after recycling is served (cold or warm)", res)
    t.ok(wait_warm(r), "a new warm parent serves later runs")
    t.ok(warm_parents(r) and not set(first) & set(warm_parents(r)), "it is a new process")
    r.close()


def test_killed_parent_falls_back(t):
    r = runner()
    t.ok(wait_warm(r), "the warm parent becomes ready")
    parent = warm_parents(r)[0]
    os.kill(parent, signal.SIGKILL)
    wait_until(lambda: parent not in warm_parents(r), 10)
    res = run(r, "print('still here')")
    t.ok(res.exited["end"] == "exited" and res.stdout == "still here\n"
         and not res.started.get("warm"),
         "with its warm parent killed, the next run runs cold and succeeds", res)
    t.ok(wait_warm(r), "a new warm parent is started later")
    r.close()


def exe_name(pid):
    """The file name of what pid runs; "" once it is gone."""
    try:
        return os.path.basename(os.readlink(f"/proc/{pid}/exe"))
    except OSError:
        return ""


def stop_parent_before_ready(*args):
    """A runner whose first warm parent is stopped (SIGSTOP) before it
    could say ready, and that parent's pid; (None, None) if it never was
    caught in time. Its first spare is started before it says ready, so a
    parent with no sandpad-warm-init child has not said it."""
    for _ in range(5):
        r = runner(*args)
        caught = wait_until(lambda: warm_parents(r), 30, step=0.002)
        parent = warm_parents(r)[0] if caught else None
        if parent is not None:
            os.kill(parent, signal.SIGSTOP)
            spares = [p for p in descendants(parent) if exe_name(p) == "sandpad-warm-init"]
            if not spares:
                return r, parent
        r.close()
    return None, None


def test_stuck_parent_replaced(t):
    """A warm parent that never says ready (stuck in an import; here
    stopped) is ended after --warm-start-ms and another serves warm runs:
    one hang does not keep every run cold, silently, for the runner's life."""
    r, stuck = stop_parent_before_ready()
    if r is None:
        t.skip("no warm parent was caught before it said ready")
        return
    # Control: with the default (a minute) it is still there, every run cold.
    time.sleep(4)
    res = run(r, "print(1)")
    t.ok(stuck in warm_parents(r) and not res.started.get("warm"),
         "control: a stopped parent stays and runs go cold (default --warm-start-ms)",
         (stuck, warm_parents(r), res.started))
    r.close()
    # The deadline from a control on this machine now: how long a parent
    # that is not stopped takes to serve a warm run, four times over (at
    # least 2 s). A fixed 2 s ended every parent of a machine at a load of
    # 9 before it was ready, over and over.
    r = runner()
    start = time.monotonic()
    ready = wait_warm(r, 90)
    ready_ms = int((time.monotonic() - start) * 1000)
    r.close()
    if not ready:
        t.skip("control: no warm run within 90 s on this machine")
        return
    deadline_ms = max(2000, 4 * ready_ms)
    print(f"# a parent served its first warm run after {ready_ms} ms; deadline {deadline_ms} ms",
          flush=True)
    r, stuck = stop_parent_before_ready("--warm-start-ms", str(deadline_ms))
    if r is None:
        t.skip("no warm parent was caught before it said ready")
        return
    gone = wait_until(lambda: stuck not in warm_parents(r), deadline_ms / 1000 + 15, step=0.1)
    # The next parent starts after the restart backoff (5 s), at a run.
    t.ok(gone and wait_warm(r, 60 + deadline_ms / 1000) and stuck not in warm_parents(r),
         "a parent not ready after --warm-start-ms is ended; a new one serves warm runs",
         (stuck, warm_parents(r)))
    r.close()
    t.ok(f"was not ready after {deadline_ms} ms" in r.stderr_text,
         "the runner's log says why it was ended", r.stderr_text)


def test_spare_check_transient(t):
    """How the warm parent reads a spare's start report
    (sp_warm_spare_check in sandpad-warm.so): a setup step that failed for
    want of a process, memory or a namespace under a limit others share
    (EAGAIN, ENOMEM, ENOSPC...) drops that spare only (-2); any other
    failure turns the pool off (-1, with why); EOF is a started spare."""
    import ctypes
    import errno
    import socket
    import struct
    lib = ctypes.CDLL(os.path.join(os.path.dirname(os.path.abspath(RUNNER)), "sandpad-warm.so"))
    check = lib.sp_warm_spare_check
    check.restype = ctypes.c_int
    check.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t]

    def verdict(report):
        ours, theirs = socket.socketpair()
        if report is not None:
            theirs.send(struct.pack("=ii", *report))
        theirs.close()
        why = ctypes.create_string_buffer(256)
        rc = check(ours.fileno(), 1000, why, len(why))
        ours.close()
        return rc, why.value.decode()
    setup, exec_init = 1, 3
    got = {name: verdict(report)[0] for name, report in [
        ("EOF", None), ("setup EAGAIN", (setup, errno.EAGAIN)),
        ("setup ENOMEM", (setup, errno.ENOMEM)), ("setup ENOSPC", (setup, errno.ENOSPC)),
        ("setup EPERM", (setup, errno.EPERM)), ("setup EINVAL", (setup, errno.EINVAL)),
        ("exec EACCES", (exec_init, errno.EACCES)), ("exec EAGAIN", (exec_init, errno.EAGAIN))]}
    t.eq(got, {"EOF": 1, "setup EAGAIN": -2, "setup ENOMEM": -2, "setup ENOSPC": -2,
               "setup EPERM": -1, "setup EINVAL": -1, "exec EACCES": -1, "exec EAGAIN": -1},
         "transient setup failures drop a spare; the others turn the pool off")
    t.ok("Operation not permitted" in verdict((setup, errno.EPERM))[1],
         "the pool-off verdict says why")


def test_memory_cap(t):
    r = runner("--warm-memory", "1")
    # The parent starts, and is ended at the next look at its memory.
    seen = wait_until(lambda: warm_parents(r), 60)
    gone = wait_until(lambda: not warm_parents(r), 30)
    t.ok(seen and gone, "a warm parent over the memory cap is ended")
    res = run(r, "print(1)")
    t.ok(res.stdout == "1\n" and not res.started.get("warm"),
         "runs go cold while the parents would not fit the cap", res)
    r.close()


def rss_mib(pids):
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status") as f:
                total += next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
        except (OSError, StopIteration):
            pass
    return total / 1024


def test_memory_cap_fewer_spares(t):
    """Over --warm-memory with its spares, a parent first keeps one spare
    instead of two and goes on serving warm runs; it is ended only when
    one spare does not fit either (test_memory_cap)."""
    control = runner()
    t.ok(wait_warm(control), "control: the warm parent becomes ready")
    parent = warm_parents(control)[0]
    # Two spares, each a supervisor (the parent's child) with its program
    # below it (and an init, in namespace mode), and their memory once
    # populated and steady.
    sizes = []
    def supervisors():
        with open(f"/proc/{parent}/task/{parent}/children") as f:
            return len(f.read().split())
    wait_until(lambda: supervisors() >= 2
               and (sizes.append(rss_mib(descendants(parent))) or len(sizes) > 3
                    and abs(sizes[-1] - sizes[-3]) < 1), 60, step=0.5)
    alone, spares = rss_mib([parent]), sizes[-1] / 2 if sizes else 0
    control.close()
    if spares < 8:
        t.skip(f"cannot size the spares here ({sizes[-3:]} MiB for two)")
        return
    # Room for the parent and one and a half spares.
    cap = int(alone + 1.5 * spares)
    r = runner("--warm-memory", str(cap))
    t.ok(wait_warm(r), f"a parent of {alone:.0f} MiB with spares of {spares:.0f} MiB "
         f"under a {cap} MiB cap serves warm runs")
    first = warm_parents(r)
    # Its memory is looked at every 2 s (runner-warm.c): past three looks.
    deadline = time.monotonic() + 7
    same = True
    while time.monotonic() < deadline:
        same = same and warm_parents(r) == first
        time.sleep(0.1)
    t.ok(same and len(first) == 1, "the parent was not ended for its second spare",
         (first, warm_parents(r)))
    res = run(r, "print(1)")
    t.ok(res.started.get("warm") and res.stdout == "1\n", "runs go on warm", res)
    t.ok(wait_until(lambda: rss_mib([first[0]] + descendants(first[0])) <= cap, 10),
         "within the cap, with one spare", rss_mib([first[0]] + descendants(first[0])))
    r.close()


def smaps_mib(pid, field):
    with open(f"/proc/{pid}/smaps_rollup") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field + ":")) / 1024


ROLLUP = 'print(open("/proc/self/smaps_rollup").read())\n'


def rollup_mib(text, field):
    return next(int(line.split()[1]) for line in text.splitlines()
                if line.startswith(field + ":")) / 1024


def test_chart_copies_written_only(t):
    """A spare that has waited for its run (past IDLE_COPY_MS) copies the
    pages a chart writes (the parent's probe learns them), so a run after
    a pause does not pay a page fault each while it draws; only those, not
    every page it shares with the parent (copying all of them in every
    spare cost a small run's machine more CPU than the run). A run whose
    snippet names matplotlib copies them itself when its spare did not.
    Calls back to back take their spare before it copies: bench/
    warm-builds.py shows that CPU, a test cannot time it."""
    r = runner()
    t.ok(wait_warm(r), "the warm parent becomes ready")
    parent = warm_parents(r)[0]

    def sample():
        """(owned, anonymous) MiB of each spare's program, once there are two."""
        found = []
        for pid in spare_programs(parent):
            try:
                found.append((smaps_mib(pid, "Private_Dirty"), smaps_mib(pid, "Anonymous")))
            except (FileNotFoundError, ProcessLookupError):
                pass  # a spare that ended meanwhile
        return found if len(found) >= 2 else None

    def copied(found):
        return found is not None and all(own > 0.1 * anon for own, anon in found)

    sizes = []
    try:
        # A spare copies only while a processor is free: on a busy machine
        # it waits for a moment when one is.
        wait_until(lambda: (sizes.append(sample()) or len(sizes) > 3 and copied(sizes[-1])
                            and sizes[-1] == sizes[-3]), 60, step=0.5)
    except PermissionError as error:
        t.skip(f"cannot read a spare's memory here: {error}")
        r.close()
        return
    if not copied(sizes[-1]) and not processor_free():
        t.skip(f"no processor was free for a minute (load {os.getloadavg()}): the spares "
               "rightly copied nothing ahead")
        r.close()
        return
    t.ok(len(sizes) > 3 and sizes[-1] == sizes[-3], "two spares, their memory steady", sizes[-3:])
    for own, anon in sizes[-1] or []:
        t.ok(0.1 * anon < own < 0.6 * anon,
             f"a spare that waited owns {own:.1f} of its {anon:.1f} MiB anonymous memory: "
             "a copy of what a chart writes, and only that")
    plain = run(r, ROLLUP)
    # The next spare waits past IDLE_COPY_MS too, and for a free processor.
    wait_until(lambda: copied(sample()), 30, step=0.2)
    chart = run(r, "# matplotlib\n" + ROLLUP)
    t.ok(plain.started.get("warm") and chart.started.get("warm"), "both run warm",
         (plain, chart))
    try:
        own_plain = rollup_mib(plain.stdout, "Private_Dirty")
        own_chart = rollup_mib(chart.stdout, "Private_Dirty")
        anon = rollup_mib(chart.stdout, "Anonymous")
    except StopIteration:
        t.ok(False, "the runs read their memory", (plain, chart))
        r.close()
        return
    t.ok(own_plain > 0.1 * anon and own_chart > 0.1 * anon,
         f"runs after a pause start with the chart's pages copied ({own_plain:.1f} and "
         f"{own_chart:.1f} MiB)")
    t.ok(own_chart < 0.6 * anon and abs(own_chart - own_plain) < 0.1 * anon,
         f"only those, once: {own_chart:.1f} of {anon:.1f} MiB anonymous memory, the word "
         f"matplotlib copying nothing more ({own_plain:.1f} without it)")
    res = run(r, "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.savefig('c.png')\n"
              "print(1)")
    t.ok(res.started.get("warm") and res.stdout == "1\n", "a chart runs warm", res)
    r.close()


def processor_free():
    """Whether fewer tasks than processors are ready to run, this one
    aside (what a spare looks at before it copies)."""
    with open("/proc/loadavg") as f:
        running = int(f.read().split()[3].split("/")[0])
    return running - 1 < os.cpu_count()


def test_busy_spares_copy_nothing(t):
    """With every processor busy, a spare copies nothing ahead, however
    long it waits: a run then pays its own page faults, and the machine's
    busy work keeps its CPU. The control is chart_copies_written_only."""
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
            for _ in range(os.cpu_count())]
    try:
        r = runner()
        t.ok(wait_warm(r), "the warm parent becomes ready beside the busy processes")
        parent = warm_parents(r)[0]
        time.sleep(2)  # ten times IDLE_COPY_MS
        found = []
        try:
            for pid in spare_programs(parent):
                found.append((smaps_mib(pid, "Private_Dirty"), smaps_mib(pid, "Anonymous")))
        except PermissionError as error:
            t.skip(f"cannot read a spare's memory here: {error}")
            r.close()
            return
        t.ok(found and all(own < 0.1 * anon for own, anon in found),
             "every spare owns next to none of its anonymous memory: it copied nothing", found)
        r.close()
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


def cgroup_files(pid):
    """pid's memory group as a host path, with its limit files: (group,
    memory limit file, pids group or None). None when it has none."""
    with open(f"/proc/{pid}/cgroup") as f:
        lines = f.read().splitlines()
    memory = pids = None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        names = controllers.split(",")
        if "memory" in names:
            memory = ("/sys/fs/cgroup/memory" + path, "memory.limit_in_bytes")
        if "pids" in names:
            pids = "/sys/fs/cgroup/pids" + path
    if memory is None:
        with open("/proc/self/mountinfo") as f:
            mounts = [ln.split() for ln in f if " - cgroup2 " in ln]
        for line in lines:
            if line.startswith("0::") and mounts:
                group = mounts[0][4] + line[3:]
                return group, "memory.max", group
        return None
    return memory[0], memory[1], pids


def limits(files):
    group, memory_file, pids = files
    with open(os.path.join(group, memory_file)) as f:
        memory = f.read().strip()
    tasks = None
    if pids is not None and os.path.exists(os.path.join(pids, "pids.max")):
        with open(os.path.join(pids, "pids.max")) as f:
            tasks = f.read().strip()
    return memory, tasks


def spare_programs(parent):
    """The spares' programs of a warm parent: copies of it below it."""
    with open(f"/proc/{parent}/cmdline", "rb") as f:
        argv = f.read()
    found = []
    for pid in descendants(parent):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if f.read() == argv:
                    found.append(pid)
        except OSError:
            pass
    return found


SLEEPER = "import time\nprint('go', flush=True)\ntime.sleep(5)\n"


def start_sleeper(r):
    """Sends SLEEPER; returns its id and started event once it printed."""
    run_id = f"r{next(RUN_IDS)}"
    r.send(type="run", id=run_id, language="python", code=SLEEPER, memory_mib=300)
    started = None
    while True:
        ev = r.recv(60)
        if ev is None:
            return run_id, started
        if ev.get("id") == run_id and ev["type"] == "started":
            started = ev
        if ev.get("id") == run_id and ev["type"] in ("output", "exited"):
            return run_id, started


def test_seats(t):
    """A warm run's cgroups are made ahead, with its spare (a seat): the
    spare's init moves its program in while it waits, since the move waits
    for an RCU grace period in the kernel (~10-15 ms, on every warm run's
    path before); the parent sets the run's limits on it before the run
    starts, the same as a cold run's group gets. Seats no run took are gone
    with the runner."""
    r = runner()
    t.ok(wait_warm(r), "the warm parent becomes ready")
    probe = run(r, "pass")
    if not any("cgroup-v" in layer for layer in probe.started.get("sandbox", {}).get("layers", [])):
        t.skip("runs get no cgroup here (no delegated or writable cgroup for this runner)")
        r.close()
        return
    parent = warm_parents(r)[0]
    seats = {}

    def look():
        seats.clear()
        for pid in spare_programs(parent):
            try:
                files = cgroup_files(pid)
            except OSError:
                continue
            if files is not None:
                seats[pid] = files
        return len(seats) == 2 and all(
            os.path.basename(f[0]).startswith(f"seat-{parent}-") for f in seats.values())
    wait_until(look, 30)
    t.ok(look(), "each spare's program waits in a seat of its own, before any run",
         {pid: f[0] for pid, f in seats.items()})
    groups = {os.path.dirname(f[0]) for f in seats.values()}

    run_id, started = start_sleeper(r)
    taken = {pid: files for pid, files in seats.items() if os.path.exists(f"/proc/{pid}")
             and limits(files)[0] not in ("max", str((1 << 63) - 4096))}
    t.ok(started is not None and started.get("warm") and len(taken) == 1,
         "a warm run takes one spare, whose seat now has limits", taken)
    warm_limits = limits(next(iter(taken.values()))) if taken else None
    warm_seat = next(iter(taken.values()))[0] if taken else None
    r.collect(run_id)

    cold = runner("--no-warm")
    cold_id, cold_started = start_sleeper(cold)
    cold_limits = None
    for pid in descendants(cold.proc.pid):
        try:
            with open(f"/proc/{pid}/comm") as f:
                comm = f.read().strip()
            files = cgroup_files(pid)
        except OSError:
            continue
        if comm.startswith("python") and files is not None \
                and os.path.basename(files[0]).startswith("run-"):
            cold_limits = limits(files)
    cold.collect(cold_id)
    cold.close()
    t.ok(cold_limits is not None, "control: a cold run's program is in a group of its own",
         cold_limits)
    t.eq(warm_limits, cold_limits, "the seat's limits are the ones a cold run's group gets")
    r.send(type="release", id=run_id)
    t.ok(warm_seat is not None and wait_until(lambda: not os.path.exists(warm_seat), 10),
         "the run's seat is gone once the run is released", warm_seat)
    r.close()
    left = [os.path.join(g, e) for g in groups if os.path.isdir(g)
            for e in os.listdir(g) if e.startswith("seat-")]
    t.eq(left, [], "no seat is left once the runner has ended")
    t.ok(not any(os.path.isdir(g) for g in groups), "nor the runner's own group", groups)


def test_back_to_back(t):
    """Runs one after another, each sent as soon as the last ended, all
    start warm: a spare is there, or the parent is making it (it starts
    the next as soon as one is taken) and the run waits for it, bounded.
    The runner counts the spares the parent says it has ("spares N"), a
    message that may come just before the answer to a run."""
    r = runner()
    t.ok(wait_warm(r), "the warm parent becomes ready")
    flags = [bool(run(r, "print(1)").started.get("warm")) for _ in range(40)]
    t.ok(all(flags), "40 runs back to back all started warm",
         "".join("W" if f else "c" for f in flags))
    r.close()


def test_refill_after_run(t):
    """While another spare is ready, the one a run took is made again
    once that run has ended, not beside it (where it took the CPU the run
    was waiting for); then the parent holds two again."""
    r = runner()
    t.ok(wait_warm(r), "the warm parent becomes ready")
    parent = warm_parents(r)[0]

    def children():
        """Its children but zombies (a run's, until it reaps them)."""
        try:
            with open(f"/proc/{parent}/task/{parent}/children") as f:
                pids = f.read().split()
        except OSError:
            return -1
        alive = 0
        for pid in pids:
            try:
                with open(f"/proc/{pid}/stat") as f:
                    alive += f.read().rpartition(")")[2].split()[0] != "Z"
            except OSError:
                pass
        return alive
    # Each spare, and each warm run under way, is a supervisor: its child.
    t.ok(wait_until(lambda: children() == 2, 30), "control: two spares ready", children())
    seen = None
    for _ in range(3):
        sent = time.monotonic()
        run_id, started = start_sleeper(r)
        # Judged only within the half second a refill may wait: on a slow
        # machine the run may print later than that, and the try is void.
        if started is not None and started.get("warm") and time.monotonic() - sent < 0.2:
            seen = []
            while time.monotonic() - sent < 0.45:
                seen.append(children())
                time.sleep(0.01)
        r.collect(run_id)
        wait_until(lambda: children() == 2, 30)
        if seen is not None:
            break
    if seen is None:
        t.skip("no warm run printed within 0.2 s of its request here (a loaded machine)")
        r.close()
        return
    t.ok(max(seen) == 2, "while the run goes on, one spare and the run, no new spare",
         sorted(set(seen)))
    t.ok(children() == 2 and run(r, "print(1)").started.get("warm"),
         "after the run, two spares again, and the next run is warm", children())
    r.close()


def test_no_warm(t):
    # The control sets how long to watch: as long as a runner on this
    # machine, now, takes from hello to its first warm run, and twice that
    # (the machine's load varies), not a fixed guess that a slow machine
    # outlasts (a run that came too early would be cold anyway).
    started = time.monotonic()
    control = runner()
    t.ok(wait_warm(control), "control: without --no-warm a run starts warm")
    span = 2 * (time.monotonic() - started)
    control.close()
    r = runner("--no-warm")
    deadline = time.monotonic() + span
    parents, res = set(), []
    while len(res) < 3 or time.monotonic() < deadline:
        parents |= set(warm_parents(r))
        res.append(run(r, "print(1)"))
    t.ok(not any(x.started.get("warm") for x in res) and not parents,
         f"--no-warm: no warm parent, every run cold ({len(res)} runs in {span:.1f} s)",
         (sorted(parents), [x.started["id"] for x in res if x.started.get("warm")]))
    r.close()


def watch_warm_children(proc, found):
    """Adds to found every warm parent of proc's until proc exits."""
    while proc.poll() is None:
        found.update(warm_children(proc.pid))
        time.sleep(0.01)


def test_batch_stays_cold(t):
    """A batch of requests (no hello) gets no warm parent: it would only
    take the runs' CPU before the runner exits with them."""
    requests = "".join(json.dumps({"v": 1, "type": "run", "id": f"b{i}", "language": "python",
                                   "code": "import time\ntime.sleep(1.5)\nprint('done')\n"})
                       + "\n" for i in range(2))
    # From a file: at EOF on a pipe the runner would take its client for
    # gone and stop the runs.
    with tempfile.TemporaryFile("w+") as f:
        f.write(requests)
        f.seek(0)
        proc = subprocess.Popen([RUNNER, "--sandbox", MODE, "--strict"], stdin=f,
                                stdout=subprocess.PIPE, text=True)
    # Watched for the whole batch, not sampled once: a parent started at
    # any time before the runner exits is seen.
    parents = set()
    watcher = threading.Thread(target=watch_warm_children, args=(proc, parents))
    watcher.start()
    events = [json.loads(line) for line in proc.stdout]
    proc.wait()
    watcher.join()
    parents = sorted(parents)
    exited = [e for e in events if e["type"] == "exited"]
    t.eq(parents, [], "no warm parent while a batch runs")
    t.ok(len(exited) == 2 and all(e.get("exit_code") == 0 and not e.get("warm") for e in exited),
         "both runs ran, cold", events)
    # The control: the same runner, told hello, starts one.
    r = runner()
    t.ok(wait_until(lambda: warm_parents(r), 30), "after a hello a warm parent starts")
    r.close()


def test_small_memory_goes_cold(t):
    r = runner()
    t.ok(wait_warm(r), "the warm parent becomes ready")
    res = run(r, "print(1)", memory_mib=64)
    t.ok(res.stdout == "1\n" and not res.started.get("warm"),
         "a run whose memory limit the parent's imports would crowd starts cold", res)
    r.close()


def copy_runner(folder):
    """The runner and its warm helpers, copied into folder (the runner finds
    them beside itself); the copy's path."""
    here = os.path.dirname(os.path.abspath(RUNNER))
    for name in ("sandpad-runner", "sandpad-warm.so", "sandpad-warm-init"):
        shutil.copy2(os.path.join(here, name), folder)
    return os.path.join(folder, "sandpad-runner")


def reachable_by_nobody(path):
    """Whether uid/gid 65534 can stat path (it needs search rights on every
    folder above it)."""
    def become_nobody():
        os.setgroups([])
        os.setgid(65534)
        os.setuid(65534)
    probe = subprocess.run([sys.executable, "-c", "import os, sys; os.stat(sys.argv[1])", path],
                           preexec_fn=become_nobody, capture_output=True)
    return probe.returncode == 0


def test_closed_folder(t):
    """Issue 31: a runner built or installed where the run's uid cannot go
    (a clone under /root, a 0700 folder) still runs warm: the spares exec
    sandpad-warm-init from an fd the warm parent opened, not by path."""
    if os.geteuid() != 0:
        t.skip("needs root: only a root runner's runs are another uid (nobody) "
               "than the folder's owner")
        return
    with tempfile.TemporaryDirectory(prefix="sandpad-closed-") as folder:
        os.chmod(folder, 0o700)
        copy = copy_runner(folder)
        t.ok(not reachable_by_nobody(os.path.join(folder, "sandpad-warm-init")),
             "control: the runs' uid (nobody) cannot reach the folder's helpers")
        r = Runner(copy, "--cancel-grace-ms", "300", "--sandbox", MODE, "--strict")
        r.hello()
        t.ok(wait_warm(r), "a runner in a 0700 root-owned folder has a warm parent")
        results = [run(r, f"print({i} * 7)") for i in range(4)]
        t.ok(all(x.started.get("warm") for x in results), "its runs start warm",
             [x.started for x in results])
        t.eq([(x.exited["end"], x.stdout) for x in results],
             [("exited", f"{i * 7}\n") for i in range(4)],
             "and succeed, one after another (each on a spare made after the last)",
             [x.exited for x in results])
        r.close()


def test_helper_unusable(t):
    """A warm helper that cannot be executed does not fail a run: every run
    starts cold, the reason is said once, and no warm parent is started
    again."""
    with tempfile.TemporaryDirectory(prefix="sandpad-broken-") as folder:
        os.chmod(folder, 0o755)
        copy = copy_runner(folder)
        # Not executable by anyone, root included (exec needs an x bit).
        os.chmod(os.path.join(folder, "sandpad-warm-init"), 0)
        r = Runner(copy, "--cancel-grace-ms", "300", "--sandbox", MODE, "--strict")
        r.hello()
        # The parent imports, makes its first spare and finds it cannot
        # start: until then runs are cold as before any parent is ready.
        seen = wait_until(lambda: warm_children(r.proc.pid), 30)
        gone = wait_until(lambda: not warm_children(r.proc.pid), 90, step=0.2)
        t.ok(seen and gone, "the warm parent starts, then ends by itself", (seen, gone))
        # The runner reads the parent's last word ("broken") a moment after
        # the parent is gone; a run started in between is cold for no
        # reason the runner knows yet. Wait until it knows.
        wait_until(lambda: run(r, "pass").exited.get("cold_reason") is not None, 30, step=0.2)
        results = [run(r, f"print({i})") for i in range(3)]
        t.eq([(x.exited["end"], x.stdout, bool(x.started.get("warm"))) for x in results],
             [("exited", f"{i}\n", False) for i in range(3)],
             "every run succeeds, cold", [x.exited for x in results])
        reasons = {x.exited.get("cold_reason") for x in results}
        reason = next(iter(reasons))
        t.ok(len(reasons) == 1 and reason is not None and "sandpad-warm-init" in reason
             and "Permission denied" in reason,
             "each run's exited says why it is cold (cold_reason)", reasons)
        # Past the restart backoff (5 s): the pool stays off.
        time.sleep(6)
        late = run(r, "print('late')")
        t.ok(late.stdout == "late\n" and not late.started.get("warm")
             and not warm_children(r.proc.pid),
             "no warm parent is started again, later runs still cold", late.exited)
        r.close()
        t.ok("warm runs are off" in r.stderr_text and "sandpad-warm-init" in r.stderr_text
             and "Permission denied" in r.stderr_text,
             "the runner's log says why warm runs are off", r.stderr_text)
        # Control: the same copy with its helper executable runs warm.
        os.chmod(os.path.join(folder, "sandpad-warm-init"), 0o755)
        r = Runner(copy, "--cancel-grace-ms", "300", "--sandbox", MODE, "--strict")
        r.hello()
        t.ok(wait_warm(r), "control: with the helper executable, the same copy runs warm")
        r.close()


def test_helpers_missing(t):
    """A runner whose warm helpers are nowhere it looks (a copied binary, or
    a build tree its user cannot enter) says so in every Python run's
    exited (cold_reason) and once in its log, where a client used to wait
    for a warm run that could not come."""
    with tempfile.TemporaryDirectory(prefix="sandpad-alone-") as folder:
        os.chmod(folder, 0o755)
        copy = copy_runner(folder)
        for name in ("sandpad-warm.so", "sandpad-warm-init"):
            os.unlink(os.path.join(folder, name))
        r = Runner(copy, "--cancel-grace-ms", "300", "--sandbox", MODE, "--strict")
        r.hello()
        results = [run(r, f"print({i})") for i in range(2)]
        if any(x.started.get("warm") for x in results):
            t.skip("an installed runner's helpers are found (the libexec directory): "
                   "no runner here lacks them")
            r.close()
            return
        reasons = {x.exited.get("cold_reason") for x in results}
        t.ok(len(reasons) == 1 and "warm helpers" in str(next(iter(reasons))),
             "each Python run's exited says why it is cold", [x.exited for x in results])
        t.eq([x.stdout for x in results], ["0\n", "1\n"], "and the runs succeed", results)
        bash = r.run("b", "echo hi", language="bash")
        t.ok(bash.stdout == "hi\n" and bash.exited.get("cold_reason") is None,
             "a bash run (never warm) gives no reason", bash.exited)
        r.close()
        t.ok(r.stderr_text.count("every run starts cold") == 1,
             "the runner's log says it once", r.stderr_text)
        # Control: the same copy beside its helpers runs warm.
        copy_runner(folder)
        r = Runner(copy, "--cancel-grace-ms", "300", "--sandbox", MODE, "--strict")
        r.hello()
        t.ok(wait_warm(r), "control: with its helpers beside it, the same copy runs warm")
        r.close()


# Loads sandpad-warm.so as the warm parent does and asks it for a spare,
# once single-threaded (the control) and once with a thread running: the
# fork must be refused then (EDEADLK), as a child of a multi-threaded
# process may find the allocator's lock held by a thread it lacks.
PREFORK_PROBE = r"""
import ctypes, errno, json, os, sys, threading
lib = ctypes.PyDLL(sys.argv[1], use_errno=True)
lib.sp_warm_prefork.restype = ctypes.c_int
lib.sp_warm_prefork.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int,
                                ctypes.POINTER(ctypes.c_int), ctypes.c_size_t,
                                ctypes.POINTER(ctypes.c_int)]
helper = os.open(sys.argv[2], os.O_PATH | os.O_CLOEXEC)
blob = b"namespaces=0\0network=0\0nobody=0\0"

def prefork():
    out = (ctypes.c_int * 3)()
    pid = lib.sp_warm_prefork(blob, len(blob), helper, None, 0, out)
    if pid == 0:
        os._exit(0)  # the spare's program: not this test's
    err = ctypes.get_errno()
    if pid > 0:
        os.close(out[0])  # EOF: its init ends the spare
        os.close(out[2])
        os.waitpid(pid, 0)
    return pid, err

result = {}
pid, err = prefork()
result["single"] = [pid > 0, err]
stop = threading.Event()
thread = threading.Thread(target=stop.wait)
thread.start()
pid, err = prefork()
result["threaded"] = [pid > 0, pid < 0 and err == errno.EDEADLK]
stop.set()
thread.join()
print(json.dumps(result))
"""


def test_fork_refused_with_threads(t):
    """The warm parent forks a spare only while it has one thread: with a
    second thread in its interpreter, sp_warm_prefork refuses."""
    build = os.path.dirname(os.path.abspath(RUNNER))
    module = os.path.join(build, "sandpad-warm.so")
    helper = os.path.join(build, "sandpad-warm-init")
    if not (os.path.exists(module) and os.path.exists(helper)):
        t.skip(f"no sandpad-warm.so and sandpad-warm-init beside {RUNNER}")
        return
    out = subprocess.run(["/usr/bin/python3", "-c", PREFORK_PROBE, module, helper],
                         capture_output=True, text=True, timeout=60)
    try:
        result = json.loads(out.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        result = {}
    t.eq(result.get("single"), [True, 0],
         "control: single-threaded, the warm module forks a spare", out)
    t.eq(result.get("threaded"), [False, True],
         "with a second thread running, it refuses to fork (EDEADLK)", out)


TESTS = {f.__name__[5:]: f for f in [
    test_same_results, test_limits, test_parent_runs_no_user_code, test_parent_filtered,
    test_monkeypatch_isolated,
    test_random_differs, test_parent_unreachable, test_no_control_socket,
    test_no_shared_writable_mappings, test_siblings_isolated, test_recycled,
    test_killed_parent_falls_back, test_memory_cap, test_memory_cap_fewer_spares,
    test_chart_copies_written_only, test_seats, test_back_to_back,
    test_no_warm, test_small_memory_goes_cold, test_stuck_parent_replaced, test_refill_after_run,
    test_spare_check_transient,
    test_init_unreachable, test_spare_ends_with_parent, test_batch_stays_cold, test_closed_folder,
    test_helper_unusable, test_fork_refused_with_threads, test_helpers_missing,
    test_busy_spares_copy_nothing,
]}

if __name__ == "__main__":
    names = sys.argv[2:] or list(TESTS)
    main([TESTS[n] for n in names])
