# Sandpad's warm parent (see runner-warm.c). It imports the heavy modules
# once, then forks one sandboxed child per run through sandpad-warm.so; it
# never runs a user's code itself. Embedded in the runner at build time.
#
# fd 3 is a SOCK_SEQPACKET socket to the runner, the only fd it keeps:
#   -> "ready VMDATA_BYTES" once warm
#   <- a plan (NUL-separated key=value) with the run's five pipes
#   -> "ok" with a pidfd of the run's supervisor, or "error TEXT"
import array
import ctypes
import os
import signal
import socket
import sys

CONTROL_FD = 3
MAX_PLAN = 65536


def preload():
    # What a plot needs, except pyplot itself: the prelude hooks its import
    # in each run, and what pyplot adds over these is small (~10 ms).
    for name in ("numpy", "matplotlib", "matplotlib.figure",
                 "matplotlib.backends.backend_agg", "matplotlib.font_manager",
                 "PIL.Image", "json", "traceback", "importlib.util", "types"):
        try:
            __import__(name)
        except Exception:  # a module this system lacks only costs speed
            pass


def vm_data():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmData:"):
                return int(line.split()[1]) * 1024
    return 0


def receive(sock):
    fds = array.array("i")
    msg, ancdata, flags, _ = sock.recvmsg(MAX_PLAN, socket.CMSG_SPACE(5 * fds.itemsize))
    for level, kind, data in ancdata:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[: len(data) - len(data) % fds.itemsize])
    if flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC):
        for fd in fds:
            os.close(fd)
        return msg, None
    return msg, list(fds)


def reap():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def run_child(sock, plan):
    """In the run's program, every layer applied: become the cold run."""
    # The C side closed every fd but 0-2; the socket object must not close
    # its old number again, which the snippet may reuse.
    sock.detach()
    ctypes.pythonapi.PyOS_AfterFork_Child()
    # The program's last steps reset every signal; python3 itself starts
    # with these, so a cold run has them too.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    import json
    import importlib

    with open(plan["py.run"], encoding="utf-8") as f:
        run = json.load(f)
    os.environ.clear()
    for item in run["env"]:
        name, _, value = item.partition("=")
        os.environ[name] = value
    code_path = run["code"]
    sys.argv[:] = [code_path] + run["args"]
    extra = [p for p in os.environ.get("PYTHONPATH", "").split(":") if p]
    sys.path[:] = [os.path.dirname(code_path)] + extra + BASE_PATH
    sys.path_importer_cache.clear()
    importlib.invalidate_caches()
    # matplotlib resolved its config and cache directories in the parent
    # (the parent's own, which no run can reach): forget them.
    mpl = sys.modules.get("matplotlib")
    if mpl is not None:
        for getter in ("get_configdir", "get_cachedir", "get_data_path"):
            forget(getattr(mpl, getter, None))
    # As a cold run, the prelude is this run's sitecustomize.
    sys.modules.pop("sitecustomize", None)
    try:
        import sitecustomize  # noqa: F401
    except ImportError:
        pass
    except Exception:
        import traceback

        print("Error in sitecustomize; set PYTHONVERBOSE for traceback:", file=sys.stderr)
        traceback.print_exc()
    run_main(code_path)


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


def run_main(code_path):
    import builtins
    import types

    main = types.ModuleType("__main__")
    main.__file__ = code_path
    main.__builtins__ = builtins
    main.__cached__ = None
    sys.modules["__main__"] = main
    try:
        with open(code_path, "rb") as f:
            source = f.read()
        code = compile(source, code_path, "exec", dont_inherit=True)
        del source
        exec(code, main.__dict__)
    except SystemExit as done:
        finish(exit_status(done))
    except BaseException as error:
        tb = error.__traceback__
        # Drop this driver's frame: the traceback starts in the snippet, as
        # a cold run's does (a SyntaxError has no snippet frame at all).
        while tb is not None and tb.tb_frame.f_code.co_filename != code_path:
            tb = tb.tb_next
        error.__traceback__ = tb
        interrupted = isinstance(error, KeyboardInterrupt)
        sys.excepthook(type(error), error, tb)
        del error, tb
        finish(1, interrupted)
    finish(0)


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


def finish(status, interrupted=False):
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
    os._exit(status)


def serve(lib, sock):
    while True:
        plan_bytes, fds = receive(sock)
        reap()
        if not plan_bytes:
            os._exit(0)
        if fds is None or len(fds) != 5:
            for fd in fds or ():
                os.close(fd)
            sock.send(b"error bad request")
            continue
        plan = {}
        for item in plan_bytes.rstrip(b"\0").split(b"\0"):
            key, _, value = item.decode("utf-8", "surrogateescape").partition("=")
            plan[key] = value
        ctypes.pythonapi.PyOS_BeforeFork()
        pid = lib.sp_warm_spawn(plan_bytes, len(plan_bytes), *fds)
        if pid == 0:
            run_child(sock, plan)
            os._exit(127)  # not reached: run_child ends in finish()
        ctypes.pythonapi.PyOS_AfterFork_Parent()
        for fd in fds:
            os.close(fd)
        if pid < 0:
            sock.send(b"error " + os.strerror(ctypes.get_errno()).encode())
            continue
        # A pidfd, taken before any reap, so the pid cannot be another's.
        pidfd = os.pidfd_open(pid)
        sock.sendmsg([b"ok"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                array.array("i", [pidfd]))])
        os.close(pidfd)
        del plan, plan_bytes


preload()
BASE_PATH = [p for p in sys.path[1:]]
lib = ctypes.PyDLL(sys.argv[1], use_errno=True)
lib.sp_warm_spawn.restype = ctypes.c_int
lib.sp_warm_spawn.argtypes = [ctypes.c_char_p, ctypes.c_size_t] + [ctypes.c_int] * 5
control = socket.socket(fileno=CONTROL_FD)
os.closerange(CONTROL_FD + 1, os.sysconf("SC_OPEN_MAX"))
# Nothing the children share with us should be collected by them: frozen
# objects are not touched by their garbage collector (fewer copied pages).
import gc  # noqa: E402

gc.collect()
gc.freeze()
control.send(b"ready %d" % vm_data())
serve(lib, control)
