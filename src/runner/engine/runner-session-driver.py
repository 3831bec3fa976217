# Sandpad's session driver: one Python interpreter that runs snippet after
# snippet in the same __main__ namespace, for runs that name a session.
#
# It is started by the runner through the same sandbox as any run and never
# leaves it. Fd 3 is its private channel to the runner, a SOCK_SEQPACKET
# socket: each message from the runner names a run directory (the snippet
# and run.json, under the session's read-only code directory) and carries
# that run's stdin, stdout and stderr as three fds; the driver makes them
# its 0, 1 and 2, runs the snippet, flushes, puts /dev/null back on 0-2 (so
# the runner sees the run's pipes end) and answers with one JSON message:
# {"exit": N} or {"signal": N}, and "cpu_ns". Between runs SIGINT is
# ignored; during a run it raises KeyboardInterrupt, which is how the runner
# interrupts a run that passed its time or was cancelled.
import builtins
import io
import json
import os
import signal
import socket
import sys
import types

_DRIVER_FILE = __file__


def _text_stream(fd, mode, errors):
    raw = io.FileIO(fd, mode, closefd=False)
    if mode == "r":
        return io.TextIOWrapper(io.BufferedReader(raw), encoding="utf-8", errors=errors)
    # Line buffered, as Python makes them for a terminal: print() writes its
    # text and then its end separately, and unbuffered (python3 -u) each is
    # its own write(), so a parent's and a forked child's lines mixed
    # mid-line on the pipe. Here a line is one write(); a partial line
    # shows when it ends, on flush() or input(), or when the run ends.
    return io.TextIOWrapper(io.BufferedWriter(raw), encoding="utf-8", errors=errors,
                            line_buffering=True)


def _attach():
    sys.stdin = sys.__stdin__ = _text_stream(0, "r", "surrogateescape")
    sys.stdout = sys.__stdout__ = _text_stream(1, "w", "surrogateescape")
    sys.stderr = sys.__stderr__ = _text_stream(2, "w", "backslashreplace")


def _detach(idle):
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except Exception:
            pass
    for fd in (0, 1, 2):
        os.dup2(idle, fd)


def _user_traceback(tb, path):
    # The driver's own frame (where exec is called) is not the snippet's,
    # nor the prelude's that runs it: from the snippet's first frame on,
    # as a cold run shows it.
    if path is not None:
        # The prelude's own frames past the snippet's go as in a cold run.
        prelude = getattr(sys.modules.get("sitecustomize"), "_sandpad_user_traceback", None)
        if prelude is not None:
            return prelude(tb, path)
        start = tb
        while start is not None and start.tb_frame.f_code.co_filename != path:
            start = start.tb_next
        return start
    while tb is not None and tb.tb_frame.f_code.co_filename == _DRIVER_FILE:
        tb = tb.tb_next
    return tb


def _report_exception(error, path=None):
    error.__traceback__ = _user_traceback(error.__traceback__, path)
    try:
        sys.excepthook(type(error), error, error.__traceback__)
    except Exception:
        pass


def _exit_status(error):
    # What python3 does with SystemExit at the end of a script.
    code = error.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        print(code, file=sys.stderr)
    except Exception:
        pass
    return 1


def _save_plots():
    # The prelude saves figures left open when a script ends; a session
    # run "ends" here, so its figures are saved now, through the prelude's
    # plt.show.
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None and pyplot.get_fignums():
        pyplot.show()


def _cpu_ns(before):
    now = os.times()
    used = sum(now[:4]) - sum(before[:4])
    return max(0, int(used * 1e9))


def _set_env(values):
    """Sets each variable (None: unset); answers what they were."""
    was = {}
    for name, value in values.items():
        was[name] = os.environ.get(name)
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    return was


def _run(run_dir, namespace):
    with open(os.path.join(run_dir, "run.json"), encoding="utf-8") as f:
        request = json.load(f)
    # The run's env over the session's, for this run only (E2B's per-call
    # envs): put back after it, whatever the snippet did with them.
    was = _set_env(request.get("env") or {})
    try:
        return _run_request(request, namespace)
    finally:
        _set_env(was)


def _run_request(request, namespace):
    path = request["file"]
    sys.argv = [path] + list(request.get("args", []))
    namespace["__file__"] = path
    before = os.times()
    result = {"exit": 0}
    try:
        try:
            # The prelude runs it, as in a cold run (a trailing
            # expression's value, top-level await, dedent).
            run_snippet = sys.modules["sitecustomize"]._sandpad_run_snippet
            signal.signal(signal.SIGINT, signal.default_int_handler)
            run_snippet(path, namespace)
        finally:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
    except SystemExit as error:
        result = {"exit": _exit_status(error)}
    except KeyboardInterrupt as error:
        _report_exception(error, path)
        result = {"signal": int(signal.SIGINT)}
    except BaseException as error:
        _report_exception(error, path)
        result = {"exit": 1}
    try:
        _save_plots()
    except BaseException as error:
        _report_exception(error)
        result = {"exit": 1}
    result["cpu_ns"] = _cpu_ns(before)
    return result


def _main():
    channel = socket.socket(fileno=3)
    idle = os.dup(0)
    driver = os.getpid()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A fresh __main__ for the snippets: the driver's globals are its own.
    main = types.ModuleType("__main__")
    main.__dict__["__builtins__"] = builtins
    sys.modules["__main__"] = main
    while True:
        try:
            message, fds, _flags, _addr = socket.recv_fds(channel, 4096, 3)
        except InterruptedError:
            continue
        if not message:
            return  # the runner is gone
        if len(fds) != 3:
            for fd in fds:
                os.close(fd)
            continue
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        _attach()
        try:
            result = _run(message.decode("utf-8", "surrogateescape"), main.__dict__)
        except BaseException as error:
            _report_exception(error)
            result = {"exit": 1, "cpu_ns": 0}
        if os.getpid() != driver:
            # A child the snippet forked ran to the snippet's end, as it
            # would in a script; it must not become a second driver.
            _detach(idle)
            os._exit(result.get("exit", 1))
        _detach(idle)
        channel.send(json.dumps(result).encode())


_main()
