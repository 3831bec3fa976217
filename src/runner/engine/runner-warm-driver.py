# Sandpad's warm parent (see runner-warm.c). It imports the heavy modules
# once, then makes the runs' processes ahead of time through
# sandpad-warm.so (runner-warm-child.c): a spare run whose program is a copy
# of this interpreter waiting for its run. It never runs a user's code
# itself. Embedded in the runner at build time.
#
# argv: sandpad-warm.so, sandpad-warm-init, what every run of this parent
# shares ("namespaces=N,network=N,nobody=N"), how many spares to keep, the
# runs' cgroups ("V:P": version 0, 1 or 2, and whether fd 5 is v1's pids
# group), and the path every run finds the prelude at (namespace mode;
# else empty). fd 3 is a SOCK_SEQPACKET socket to the runner; with cgroups,
# fd 4 is the runner's memory group (its directory) and fd 5 its pids
# group (v1, when P is 1): under them each spare gets a seat, the run's
# groups made ahead (runner_cgroup_seat_make), which its init moves the
# program into while it waits. Those and sandpad-warm-init's (opened once,
# see below) are the only fds it keeps:
#   -> "ready VMDATA_BYTES" once warm, its first spare started
#   -> "spares N" whenever N spares have started and wait (after each
#      answer too); the runner hands a run only while it counts one
#   <- a plan (NUL-separated key=value) with the run's five pipes, handed
#      on to the spare's init; with cgroups, this parent first sets the
#      plan's cg_memory and cg_tasks on the spare's seat, read by the
#      sandbox's strict decoder (sp_warm_seat_limit), never parsed here
#   -> "ok" (no cgroups) or "ok SEAT" (the seat's name, the run's groups
#      from now on) with a pidfd of the run's supervisor, or "error TEXT"
#   <- "want N": keep at most N spares (the runner's memory cap; no answer)
#   -> "broken TEXT", instead of "ready" or an answer, then it exits: warm
#      runs cannot work here (a helper that cannot be loaded or executed);
#      the runner turns its warm pool off and says why
import array
import ctypes
import gc
import os
import select
import signal
import socket
import sys
import time

CONTROL_FD = 3
# The nice value every run gets (runner-sandbox.c).
RUN_NICE = 10
# How long a ready spare waits for its run before it copies a chart's
# pages (sp_warm_enter), if a processor is free: longer than the gap
# between calls that come back to back (each of the two spares waits out
# about two calls), shorter than a person's or an assistant's pause
# before the next Run.
IDLE_COPY_MS = 200
# A cold run's python3 -c text (RUNNER_PYTHON_BOOTSTRAP in runner-langs.h).
COLD_BOOTSTRAP = "import sitecustomize as s; s._sandpad_main()"


def preload():
    # What a plot needs, pyplot included (the prelude patches it when it
    # finds it imported), and what the driver's run_child imports.
    for name in ("numpy", "matplotlib", "matplotlib.figure",
                 "matplotlib.backends.backend_agg", "matplotlib.font_manager",
                 "matplotlib.pyplot", "PIL.Image", "json", "traceback",
                 "importlib.util", "importlib.machinery", "types", "atexit", "threading"):
        try:
            __import__(name)
        except Exception:  # a module this system lacks only costs speed
            pass
    # One chart drawn here fills matplotlib's own caches (fonts, text
    # layout) once for every run; into memory, nothing is written.
    try:
        draw_chart()
        # Its fonts read their files through open file objects: closed
        # here, or the fds would be shared with every run (and closed under
        # them below).
        from matplotlib import font_manager

        font_manager._get_font.cache_clear()
    except Exception:
        pass
    gc.collect()


def draw_chart():
    """A bar chart saved as PNG, into memory."""
    import io
    import matplotlib.pyplot as pyplot

    figure = pyplot.figure()
    figure.gca().bar(["a", "b"], [1, 2])
    figure.savefig(io.BytesIO(), format="png")
    pyplot.close("all")


class ProbeEnd(Exception):
    """Ends run_path's run where a run's program would exit."""


def end_probe(status):
    raise ProbeEnd()


def run_path():
    """A run of print(1) with nothing of a user's, through the very path
    every run's program takes (run_child, from its run file to its exit's
    work), laid out as a run's: the snippet, its run file in .sandpad, the
    prelude in .sandpad/prelude on PYTHONPATH. Only in a probe
    (learn_written), which then says what it wrote."""
    import json
    import shutil

    work = os.path.join(os.environ.get("TMPDIR", "/tmp"), "probe-%d" % os.getpid())
    prelude_dir = os.path.join(work, ".sandpad", "prelude")
    os.makedirs(prelude_dir, 0o700, exist_ok=True)
    try:
        code_path = os.path.join(work, "main.py")
        with open(code_path, "w", encoding="utf-8") as f:
            f.write("print(1)\n")
        text, _ = PRELUDE
        if text is not None:
            with open(os.path.join(prelude_dir, "sitecustomize.py"), "wb") as f:
                f.write(text)
        run_file = os.path.join(work, ".sandpad", "run.json")
        with open(run_file, "w", encoding="utf-8") as f:
            json.dump({"env": ["PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + work,
                               "LANG=C.UTF-8", "TERM=dumb", "PYTHONUNBUFFERED=1",
                               "PYTHONPATH=" + prelude_dir,
                               "MPLCONFIGDIR=" + os.path.join(work, ".matplotlib"),
                               "SANDPAD_DISPLAY_TOKEN=probe"],
                       "code": code_path, "args": []}, f)
        try:
            run_child(run_file, True, end_probe)
        except ProbeEnd:
            pass
    finally:
        shutil.rmtree(work, ignore_errors=True)


def learn_written(work):
    """The pages of this interpreter that work() writes, as ranges to copy
    ahead (sp_warm_populate): a probe, a fork of this parent that runs no
    user code, does work() and says which pages it then has its own copy
    of (sp_warm_written). None when it cannot say: nothing is then copied
    ahead for it."""
    ours, theirs = socket.socketpair()
    pid = os.fork()
    if pid == 0:
        try:
            ours.close()
            try:
                work()
            except Exception:  # no matplotlib: what a run writes without it
                pass
            os._exit(0 if lib.sp_warm_written(theirs.fileno()) > 0 else 1)
        finally:
            os._exit(1)
    theirs.close()
    data = bytearray()
    deadline = time.monotonic() + PROBE_S
    while time.monotonic() < deadline:
        if not select.select([ours], [], [], deadline - time.monotonic())[0]:
            break
        chunk = ours.recv(1 << 16)
        if not chunk:
            break
        data += chunk
    ours.close()
    try:
        os.kill(pid, signal.SIGKILL)  # one that took too long
    except ProcessLookupError:
        pass
    _, status = os.waitpid(pid, 0)
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0 or not data \
            or len(data) % 16 != 0:
        return None
    return (ctypes.c_uint64 * (len(data) // 8)).from_buffer_copy(data)


def vm_data():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmData:"):
                return int(line.split()[1]) * 1024
    return 0


def take(sock, spare):
    """The runner's next message, and when it is a run the spare given can
    take, that run handed to it and the runner answered, all in one call
    that touches almost none of this interpreter's pages (sp_warm_hand:
    each write here after a fork is a copy-on-write fault): (plan_bytes,
    fds, spare when it took the run, else None); (None, None, None) when
    the message came cut short or with too many fds (closed)."""
    rc = lib.sp_warm_hand(sock.fileno(), *(spare.hand_args if spare is not None else NO_SPARE),
                          HAND_MSG, len(HAND_MSG), ctypes.byref(HAND_LEN), HAND_FDS,
                          len(HAND_FDS), ctypes.byref(HAND_N_FDS))
    if rc < 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))
    if rc == 2:
        return None, None, None
    plan_bytes = ctypes.string_at(HAND_MSG, HAND_LEN.value)
    if rc == 1:
        spare.taken = True
        return plan_bytes, [], spare
    return plan_bytes, list(HAND_FDS[:HAND_N_FDS.value]), None


def reap():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def spare_child(channel, init_pid):
    """The spare's program: gets ready, waits for its run, becomes it."""
    # Only the channel is open: the C side closed every other fd, so the
    # socket object must not close its old number again, which the run's
    # pipes may take.
    control.detach()
    ctypes.pythonapi.PyOS_AfterFork_Child()
    # A run's own priority (runner-sandbox.c sets it again, as in a cold
    # run) from now on: made while another run goes on, this spare's
    # start-up never takes the CPU from it ahead of its turn.
    try:
        os.setpriority(os.PRIO_PROCESS, 0, RUN_NICE)
    except OSError:
        pass
    buf = ctypes.create_string_buffer(MAX_PLAN + 1)
    # Waiting, it copies the pages every run writes and a chart's once no
    # run came for IDLE_COPY_MS (runner-warm-child.c): a run after a pause
    # finds them copied.
    copied = ctypes.c_int(0)
    size = lib.sp_warm_enter(channel, init_pid, buf, len(buf), IDLE,
                             len(IDLE) // 2 if IDLE is not None else 0, IDLE_COPY_MS,
                             ctypes.byref(copied))
    run_file = buf.raw[:size].decode("utf-8", "surrogateescape")
    del buf
    run_child(run_file, bool(copied.value))


def run_child(run_file, copied, end=os._exit):
    """In the run's program, every layer applied: become the cold run.
    copied: the spare copied a chart's pages (and every run's) while it
    waited. end(status) ends the program (run_path's probe ends there)."""
    # The program's last steps reset every signal; python3 itself starts
    # with these, so a cold run has them too.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    import json

    with open(run_file, encoding="utf-8") as f:
        run = json.load(f)
    os.environ.clear()
    for item in run["env"]:
        name, _, value = item.partition("=")
        os.environ[name] = value
    code_path = run["code"]
    if not copied:
        copy_chart_pages(code_path)
    sys.argv[:] = [code_path] + run["args"]
    extra = [p for p in os.environ.get("PYTHONPATH", "").split(":") if p]
    sys.path[:] = [os.path.dirname(code_path)] + extra + BASE_PATH
    # The system's directories look the same from the sandbox: their
    # finders (packages' too) stay, each rereads its directory when its
    # mtime changes; every other path was the parent's.
    for path in list(sys.path_importer_cache):
        if not (path in BASE_PATH or path.startswith(BASE_PREFIXES)):
            del sys.path_importer_cache[path]
    # matplotlib resolved its config and cache directories in the parent
    # (the parent's own, which no run can reach): forget them.
    mpl = sys.modules.get("matplotlib")
    if mpl is not None:
        for getter in ("get_configdir", "get_cachedir", "get_data_path"):
            forget(getattr(mpl, getter, None))
    # A module beside the snippet (or on its PYTHONPATH) named like one this
    # interpreter has imported would be the snippet's in a cold run, whose
    # own directory comes first on sys.path; here `import` would return the
    # parent's. Such a run becomes the cold run it would have been: python3
    # exec'd with the cold run's arguments and environment (every layer is
    # on already; a cold program execs after them too).
    if shadows_preloaded([os.path.dirname(code_path)] + extra):
        for number in (signal.SIGPIPE, signal.SIGXFSZ):
            signal.signal(number, signal.SIG_DFL)
        os.execve(sys.executable, [sys.executable, "-u", "-B", "-c", COLD_BOOTSTRAP, code_path]
                  + run["args"], dict(os.environ))
    # As a cold run, the prelude is this run's sitecustomize.
    sys.modules.pop("sitecustomize", None)
    try:
        import_prelude()
    except ImportError:
        pass
    except Exception:
        import traceback

        print("Error in sitecustomize; set PYTHONVERBOSE for traceback:", file=sys.stderr)
        traceback.print_exc()
    run_main(code_path, end)


def load_prelude():
    """The runs' prelude (their sitecustomize.py), as the runner wrote it
    beside this driver, and compiled here once: (text, code), or
    (None, None). Compiled under the name runs find it by when they all
    find it at one path (namespace mode): import_prelude then has no file
    name to rewrite in its code objects (~1 ms of a print(1) run)."""
    name = (sys.argv[6] if len(sys.argv) > 6 else "") or "sitecustomize.py"
    try:
        with open(os.path.join(os.path.dirname(os.path.abspath(sys.argv[0])), "prelude.py"),
                  "rb") as f:
            text = f.read()
        return text, compile(text, name, "exec", dont_inherit=True)
    except (OSError, SyntaxError, ValueError):
        return None, None


def import_prelude():
    """import sitecustomize, the run's prelude: with the code compiled in
    the parent (PRELUDE) when the run's file has the same text, which it
    has (the runner writes both), else as any import. Reading and
    unmarshalling its .pyc took ~1 ms of a print(1) run."""
    import _imp
    import importlib.util

    text, code = PRELUDE
    spec = importlib.util.find_spec("sitecustomize") if code is not None else None
    same = False
    if spec is not None and spec.origin is not None and spec.has_location:
        try:
            with open(spec.origin, "rb") as f:
                same = f.read(len(text) + 1) == text
        except OSError:
            pass
    if not same:
        import sitecustomize  # noqa: F401
        return
    module = importlib.util.module_from_spec(spec)
    # Tracebacks name the run's file, as an import from it would.
    _imp._fix_co_filename(code, spec.origin)
    sys.modules["sitecustomize"] = module
    try:
        exec(code, module.__dict__)
    except BaseException:
        sys.modules.pop("sitecustomize", None)
        raise


# Words of a snippet that draws with matplotlib (pandas' and seaborn's
# plots included), for copy_chart_pages.
CHART_WORDS = (b"matplotlib", b"pyplot", b"seaborn", b".plot(")


def copy_chart_pages(code_path):
    """A snippet that draws a chart writes a few thousand pages this
    process shares with the warm parent (HOT, learnt by its probe): copied
    in one madvise a range first, they cost ~6 ms here, against ~50 ms
    more taken one page fault at a time while drawing. Only then: copied
    ahead by every spare, they were most of the CPU a small run cost the
    machine (and again at its exit). Speed only: a chart this misses (drawn
    by a module of the snippet's own) is drawn the same, more slowly."""
    if HOT is None:
        return
    try:
        with open(code_path, "rb") as f:
            source = f.read()
    except OSError:
        return
    if any(word in source for word in CHART_WORDS):
        lib.sp_warm_populate(HOT, len(HOT) // 2)


def loaded_names():
    """The top-level names of the modules this interpreter has imported."""
    return frozenset(name.partition(".")[0] for name in sys.modules) - {"__main__",
                                                                         "sitecustomize"}


def shadows_preloaded(dirs):
    """Whether one of dirs holds a module or package whose top-level name
    is already in sys.modules."""
    # Made once in the parent (LOADED): made again here, it touched every
    # module name this copy shares with the parent, a page copied for
    # most of them (1-2 ms of a print(1) run). Modules imported since
    # (none, unless a run's path changed) are counted the slow way.
    loaded = LOADED if len(sys.modules) == LOADED_COUNT else loaded_names()
    suffixes = SUFFIXES
    for directory in dirs:
        try:
            entries = os.listdir(directory)
        except OSError:
            continue
        for entry in entries:
            name = next((entry[: -len(s)] for s in suffixes if entry.endswith(s)), None)
            if name is None and os.path.isfile(os.path.join(directory, entry, "__init__.py")):
                name = entry
            if name in loaded:
                return True
    return False


def forget(cached):
    """Empties a function's cache: functools' or matplotlib's own
    _logged_cached (a closure over "called" and "ret")."""
    if cached is None:
        return
    clear = getattr(cached, "cache_clear", None)
    if clear is not None:
        clear()
        return
    code = getattr(cached, "__code__", None)
    for name, cell in zip(code.co_freevars if code else (), cached.__closure__ or ()):
        if name == "called":
            cell.cell_contents = False


def run_main(code_path, end):
    import builtins
    import types

    main = types.ModuleType("__main__")
    main.__file__ = code_path
    main.__builtins__ = builtins
    main.__cached__ = None
    sys.modules["__main__"] = main
    try:
        # The prelude runs it, as in a cold run (a trailing expression's
        # value, top-level await, dedent).
        run_snippet = getattr(sys.modules.get("sitecustomize"), "_sandpad_run_snippet", None)
        if run_snippet is not None:
            run_snippet(code_path, main.__dict__)
        else:
            with open(code_path, "rb") as f:
                source = f.read()
            code = compile(source, code_path, "exec", dont_inherit=True)
            del source
            exec(code, main.__dict__)
    except SystemExit as done:
        finish(end, exit_status(done))
    except BaseException as error:
        tb = error.__traceback__
        # Drop this driver's frame: the traceback starts in the snippet, as
        # a cold run's does (a SyntaxError has no snippet frame at all); the
        # prelude's own frames past it go as they do in a cold run.
        user_traceback = getattr(sys.modules.get("sitecustomize"), "_sandpad_user_traceback",
                                 None)
        if user_traceback is not None:
            tb = user_traceback(tb, code_path)
        while tb is not None and tb.tb_frame.f_code.co_filename != code_path:
            tb = tb.tb_next
        error.__traceback__ = tb
        interrupted = isinstance(error, KeyboardInterrupt)
        sys.excepthook(type(error), error, tb)
        del error, tb
        finish(end, 1, interrupted)
    finish(end, 0)


def exit_status(done):
    """What python3 makes of an uncaught SystemExit."""
    code = done.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        print(code, file=sys.stderr)
    except Exception:
        pass
    return 1


def finish(end, status, interrupted=False):
    """python3's exit, minus tearing down every module: that would write to
    every page the parent shares with this child (copy-on-write) and costs
    more than the run. Non-daemon threads are joined and atexit handlers run
    (the prelude saves open figures there), as at a cold exit; the objects'
    own __del__ at teardown are not called."""
    import atexit
    import threading

    try:
        threading._shutdown()
    except BaseException:
        pass
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    if interrupted:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    end(status)


def plan_key(plan_bytes):
    """What a spare is made for: a plan differing here needs another."""
    key = {}
    for item in plan_bytes.rstrip(b"\0").split(b"\0"):
        name, _, value = item.partition(b"=")
        if name in (b"namespaces", b"network", b"nobody"):
            key[name] = value
    return tuple(sorted(key.items()))


class Seat:
    """A spare's cgroups, made ahead (runner_cgroup_seat_make): the runner's
    groups get one named seat-PID-N per spare; a run that takes the spare
    keeps it (the runner removes it at the run's end), one that no run
    took is dropped here."""

    count = 0

    def __init__(self):
        Seat.count += 1
        self.name = b"seat-%d-%d" % (os.getpid(), Seat.count)
        self.dirs = (ctypes.c_int * 2)(-1, -1)
        self.procs = (ctypes.c_int * 2)(-1, -1)
        if lib.runner_cgroup_seat_make(CGROUP_VERSION, CGROUP_MEMORY_FD, CGROUP_PIDS_FD,
                                       self.name, self.dirs, self.procs) != 0:
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))

    def join_fds(self):
        return [fd for fd in self.procs if fd >= 0]

    def close_procs(self):
        """Once the spare's init has them."""
        for i, fd in enumerate(self.procs):
            if fd >= 0:
                os.close(fd)
            self.procs[i] = -1

    def close(self, taken):
        self.close_procs()
        for i, fd in enumerate(self.dirs):
            if fd >= 0:
                os.close(fd)
            self.dirs[i] = -1
        if not taken:
            UNUSED_SEATS.append(self.name)


def drop_unused_seats():
    """Removes the seats of spares no run took, once their processes are
    gone (the init kills its program when it reads EOF)."""
    UNUSED_SEATS[:] = [name for name in UNUSED_SEATS
                       if lib.runner_cgroup_seat_drop(CGROUP_VERSION, CGROUP_MEMORY_FD,
                                                      CGROUP_PIDS_FD, name) != 0]


class Spare:
    """A run made ahead: its supervisor's pid and pidfd, the socket its
    init waits on for the run's plan and pipes, its seat (with cgroups),
    and until it is known to have started, the socket that says whether it
    did."""

    def __init__(self, blob):
        self.key = plan_key(blob)
        self.seat = Seat() if CGROUP_VERSION != 0 else None
        self.taken = False
        self.failed = False
        join = self.seat.join_fds() if self.seat is not None else []
        out = (ctypes.c_int * 3)()
        ctypes.pythonapi.PyOS_BeforeFork()
        join_fds = (ctypes.c_int * 2)(-1, -1)
        for i, fd in enumerate(join):
            join_fds[i] = fd
        pid = lib.sp_warm_prefork(blob, len(blob), HELPER_FD, join_fds, len(join), out)
        if pid == 0:
            spare_child(out[0], out[1])
            os._exit(127)  # not reached: the run ends in finish()
        ctypes.pythonapi.PyOS_AfterFork_Parent()
        if pid < 0:
            errno = ctypes.get_errno()
            if self.seat is not None:
                self.seat.close(False)
            raise OSError(errno, os.strerror(errno))
        if self.seat is not None:
            self.seat.close_procs()
        self.sock = socket.socket(fileno=out[0])
        self.report = out[2]
        # A pidfd, taken before any reap, so the pid cannot be another's.
        self.pidfd = os.pidfd_open(pid)
        # What take() hands sp_warm_hand for this spare, made here, off a
        # run's way.
        seat = self.seat
        self.hand_args = (out[0], self.pidfd, blob, len(blob), CGROUP_VERSION,
                          seat.dirs[0] if seat is not None else -1,
                          seat.dirs[1] if seat is not None else -1, self.answer())

    def started(self, timeout_ms):
        """True once its supervisor and init run sandpad-warm-init, False if
        they have not yet after timeout_ms or could not for now (a process
        or memory limit others share); ends this parent with "broken"
        when one cannot at all, since no spare can then."""
        if self.failed:
            return False
        if self.report < 0:
            return True
        why = ctypes.create_string_buffer(512)
        rc = lib.sp_warm_spare_check(self.report, timeout_ms, why, len(why))
        if rc == -1:
            broken(why.value)
        if rc != 0:
            os.close(self.report)
            self.report = -1
        self.failed = rc < 0
        return rc > 0

    def alive(self):
        return not select.select([self.pidfd], [], [], 0)[0]

    def hand(self, plan_bytes, fds):
        """Gives it the run, its seat's limits set first (read from the plan
        by the sandbox's strict decoder, never here: sp_warm_give, as
        take() does); False if it is gone or they cannot be set."""
        channel, _, _, _, version, memory_dir, pids_dir, _ = self.hand_args
        if lib.sp_warm_give(channel, version, memory_dir, pids_dir, plan_bytes, len(plan_bytes),
                            (ctypes.c_int * len(fds))(*fds), len(fds)) != 0:
            return False
        self.taken = True
        return True

    def answer(self):
        """What the runner hears when this spare took its run."""
        return b"ok " + self.seat.name if self.seat is not None else b"ok"

    def close(self):
        """Ours no more: a run's init has it, or (unused) it ends, since
        its init reads EOF."""
        if self.seat is not None:
            self.seat.close(self.taken)
            self.seat = None
        self.sock.close()
        os.close(self.pidfd)
        if self.report >= 0:
            os.close(self.report)
            self.report = -1


def broken(reason):
    """Warm runs cannot work here: tells the runner why, then ends."""
    control.send(b"broken " + reason[:MAX_REASON])
    os._exit(0)


def make_spare(blob):
    try:
        return Spare(blob)
    except OSError:
        return None


def serve(sock, first_spare, first_key):
    """Hands runs to spares and keeps `want` of them started, so a run
    that comes right after another finds one (back to back through the
    resident runner, or a second run while the first still runs). The
    next is made as soon as one is taken when none is left (ready or
    being made), else once the run that took it has ended. One is made at
    a time; this loop never waits for one to start."""
    want = WANT_SPARES
    ready = [first_spare] if first_spare is not None else []
    starting = None   # a spare made, its processes not known to be up yet
    started_at = 0.0
    refill = True     # off after a spare failed to appear, until the next run
    last_plan = first_key
    # The run just handed a spare, while another is ready or being made:
    # the next is made once that run has ended (its pidfd) or after REFILL_DEFER_S,
    # not beside it, where making one took the CPU the run itself was
    # waiting for (a paused print(1) call took 13.6 ms, 11.7 ms deferred;
    # back to back, where a call always has one beside it, no change).
    running = None
    running_until = 0.0
    while True:
        if running is not None and ((not ready and starting is None)
                                    or time.monotonic() >= running_until
                                    or select.select([running], [], [], 0)[0]):
            os.close(running)
            running = None
        if starting is None and refill and running is None and len(ready) < want:
            starting = make_spare(last_plan)
            started_at = time.monotonic()
            if starting is None:
                refill = False
        drop_unused_seats()
        watch = [sock]
        if starting is not None:
            watch.append(starting.report)
        timeout = None if starting is None else SPARE_START_MS / 1000
        if running is not None:
            watch.append(running)
            left = max(0.0, running_until - time.monotonic())
            timeout = left if timeout is None else min(timeout, left)
        if UNUSED_SEATS and (timeout is None or timeout > SEAT_RETRY_S):
            timeout = SEAT_RETRY_S
        readable = select.select(watch, [], [], timeout)[0]
        if starting is not None and (starting.report in readable
                                     or time.monotonic() - started_at > SPARE_START_MS / 1000):
            if starting.started(0):
                ready.append(starting)
                # The runner counts these: a run goes warm only when one is.
                sock.send(b"spares %d" % len(ready))
            else:
                starting.close()
                refill = False
            starting = None
        if sock not in readable:
            continue
        # The plain case, a run for the first ready spare, is handed and
        # answered in take() before any bookkeeping here.
        plan_bytes, fds, handed = take(sock, ready[0] if ready else None)
        if handed is not None:
            ready.pop(0)
        reap()
        if handed is None:
            if plan_bytes is None:
                sock.send(b"error bad request")
                continue
            if not plan_bytes:
                os._exit(0)
            if plan_bytes.startswith(b"want ") and not fds:
                # The runner's memory cap: keep fewer.
                want = max(1, int(plan_bytes[5:] or b"1"))
                while len(ready) > want:
                    ready.pop().close()
                continue
            if not 5 <= len(fds) <= MAX_FDS:
                for fd in fds:
                    os.close(fd)
                sock.send(b"error bad request")
                continue
            key = plan_key(plan_bytes)
            # Spares that died meanwhile, or were made for another policy, go.
            for spare in [s for s in ready if s.key != key or not s.alive()]:
                ready.remove(spare)
                spare.close()
            for _ in range(2):  # a spare that died meanwhile: make another
                if ready:
                    spare = ready.pop(0)
                elif starting is not None and starting.key == key:
                    spare, starting = starting, None
                else:
                    spare = make_spare(plan_bytes)
                # Handed only once its processes are sandpad-warm-init: a
                # run whose supervisor could not start would end "failed",
                # where a cold start works.
                if spare is not None and not spare.started(HAND_START_MS):
                    spare.close()
                    break
                if spare is not None and spare.hand(plan_bytes, fds):
                    handed = spare
                    break
                if spare is not None:
                    spare.close()
            for fd in fds:
                os.close(fd)
            if handed is None:
                sock.send(b"error cannot make the run's processes")
            else:
                sock.sendmsg([handed.answer()], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                                  array.array("i", [handed.pidfd]))])
        if handed is not None:
            if (ready or starting is not None) and running is None:
                running = os.dup(handed.pidfd)
                running_until = time.monotonic() + REFILL_DEFER_S
            handed.close()
        # What is left, for the runner's count; the next is made at once.
        sock.send(b"spares %d" % len(ready))
        last_plan = plan_bytes
        refill = True
        del handed


def load():
    """sandpad-warm.so."""
    global lib
    try:
        lib = ctypes.PyDLL(sys.argv[1], use_errno=True)
    except OSError as error:
        broken(str(error).encode("utf-8", "backslashreplace"))
    lib.sp_warm_lockdown.restype = ctypes.c_int
    lib.sp_warm_lockdown.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_char_p,
                                     ctypes.c_size_t]
    lib.sp_warm_prefork.restype = ctypes.c_int
    lib.sp_warm_prefork.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int,
                                    ctypes.POINTER(ctypes.c_int), ctypes.c_size_t,
                                    ctypes.POINTER(ctypes.c_int)]
    lib.runner_cgroup_seat_make.restype = ctypes.c_int
    lib.runner_cgroup_seat_make.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                            ctypes.c_char_p, ctypes.POINTER(ctypes.c_int),
                                            ctypes.POINTER(ctypes.c_int)]
    lib.sp_warm_give.restype = ctypes.c_int
    lib.sp_warm_give.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                 ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_int),
                                 ctypes.c_size_t]
    lib.runner_cgroup_seat_drop.restype = ctypes.c_int
    lib.runner_cgroup_seat_drop.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                            ctypes.c_char_p]
    lib.sp_warm_spare_check.restype = ctypes.c_int
    lib.sp_warm_spare_check.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_char_p,
                                        ctypes.c_size_t]
    lib.sp_warm_enter.restype = ctypes.c_int
    lib.sp_warm_enter.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t,
                                  ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t, ctypes.c_int,
                                  ctypes.POINTER(ctypes.c_int)]
    lib.sp_warm_populate.restype = None
    lib.sp_warm_populate.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t]
    lib.sp_warm_written.restype = ctypes.c_ssize_t
    lib.sp_warm_written.argtypes = [ctypes.c_int]
    lib.sp_warm_hand.restype = ctypes.c_int
    lib.sp_warm_hand.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_char_p,
                                 ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                 ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t,
                                 ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(ctypes.c_int),
                                 ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t)]


def lock_down():
    """This parent's own seccomp filter (runner-warm-filter.c: a deny list
    of what neither it, its spares nor their runs call), before it imports
    numpy and matplotlib; the spares and their runs inherit it. A parent
    that cannot load it serves no run: they start cold."""
    shared = dict(item.partition("=")[::2] for item in sys.argv[3].split(","))
    why = ctypes.create_string_buffer(MAX_REASON)
    if lib.sp_warm_lockdown(int(shared.get("namespaces") == "1"),
                            int(shared.get("network") == "1"), why, len(why)) != 0:
        broken(b"cannot load the warm parent's seccomp filter: " + why.value)


def open_helper():
    """sandpad-warm-init as an fd: opened here, as the runner's uid, because
    the spares' processes exec it once they are the run's uid (nobody under
    a root runner), which may not be able to reach the folder the runner is
    installed or built in."""
    global HELPER_FD
    try:
        HELPER_FD = os.open(sys.argv[2], os.O_PATH | os.O_CLOEXEC)
    except OSError as error:
        broken(str(error).encode("utf-8", "backslashreplace"))


MAX_PLAN = 65536
MAX_FDS = 7  # five pipes, two cgroups
MAX_REASON = 200
# How long a spare's supervisor and init may take to exec sandpad-warm-init:
# before the first "ready" and between runs; while a run waits (the runner
# gives up on an answer after 2 s).
SPARE_START_MS = 5000
HAND_START_MS = 1500
# How long a refill waits for the run that took a spare to end (serve).
REFILL_DEFER_S = 0.5
# How long the probe may take to draw its chart (learn_written).
PROBE_S = 30
# How many spares a parent keeps started (the runner may ask for fewer).
WANT_SPARES = int(sys.argv[4]) if len(sys.argv) > 4 else 1
# take()'s buffers, and its arguments when no spare is ready.
HAND_MSG = ctypes.create_string_buffer(MAX_PLAN)
HAND_LEN = ctypes.c_size_t()
HAND_FDS = (ctypes.c_int * MAX_FDS)()
HAND_N_FDS = ctypes.c_size_t()
NO_SPARE = (-1, -1, b"", 0, 0, -1, -1, b"")
FIRST_KEY = sys.argv[3].replace(",", "\0").encode() + b"\0"
# The runs' cgroups: their version (0: none), the runner's groups as fds.
_version, _, _pids = (sys.argv[5] if len(sys.argv) > 5 else "0:0").partition(":")
CGROUP_VERSION = int(_version)
CGROUP_MEMORY_FD = 4 if CGROUP_VERSION != 0 else -1
CGROUP_PIDS_FD = 5 if CGROUP_VERSION == 1 and _pids == "1" else -1
# Seats of spares no run took, to remove once empty; how often to try.
UNUSED_SEATS = []
SEAT_RETRY_S = 0.2
control = socket.socket(fileno=CONTROL_FD)
lib = HELPER_FD = None
load()
lock_down()
preload()
BASE_PATH = [p for p in sys.path[1:]]
BASE_PREFIXES = tuple(p.rstrip("/") + "/" for p in BASE_PATH if p.startswith("/"))
os.closerange(max(CONTROL_FD, CGROUP_MEMORY_FD, CGROUP_PIDS_FD) + 1, os.sysconf("SC_OPEN_MAX"))
open_helper()
# What shadows_preloaded compares a run's own modules with (after the
# last import here).
import importlib.machinery  # noqa: E402 (imported by preload() already)

SUFFIXES = tuple(importlib.machinery.all_suffixes())
LOADED = loaded_names()
LOADED_COUNT = len(sys.modules)
PRELUDE = load_prelude()
# Nothing the children share with us should be collected by them: frozen
# objects are not touched by their garbage collector (fewer copied pages).
gc.collect()
gc.freeze()
# What a chart run copies first, learnt once: after the freeze, so that the
# layout is the one every spare is forked with.
HOT = learn_written(draw_chart)
# What a spare copies while it waits after a pause (IDLE_COPY_MS, a
# processor free): the pages every run's own path writes (run_path; a
# paused print(1) took 305-345 copy-on-write and other faults from its run
# file to its exit without them, ~40 with them, ~4 ms less here) and a
# chart's. Overlapping ranges cost nothing: a page copied once is the
# spare's.
_RUN = learn_written(run_path)
IDLE = (HOT if _RUN is None else _RUN if HOT is None
        else (ctypes.c_uint64 * (len(HOT) + len(_RUN)))(*HOT, *_RUN))
# The first spare, known to start before this parent says it is ready.
first_spare = make_spare(FIRST_KEY)
if first_spare is not None and not first_spare.started(SPARE_START_MS) and first_spare.failed:
    first_spare.close()
    first_spare = None
control.send(b"ready %d" % vm_data())
serve(control, first_spare, FIRST_KEY)
