# Sandpad's session relay for JavaScript, R and Java: the session's
# interpreter process for runs that name a session in one of them.
#
# The runner hands each session run's stdin, stdout and stderr to the
# interpreter as three fds over its private SOCK_SEQPACKET channel (fd 3),
# exactly as for a Python session (runner-session-driver.py). Neither node
# nor R can receive fds over a socket, so this process does, and keeps one
# interpreter (runner-session-node.js, or languages/runner-r-driver.R with
# --session: the loop that holds the state) as its child for the
# session's life: its stdout and stderr are pipes to here, copied to the
# run's fds while a run goes; it is told of each run and answers with its
# result, one JSON line. Both are in the session's one sandbox (the same
# spawn, layers and tree watch as any run); this adds no way in or out.
# SIGINT reaches the child directly (the runner signals the whole process
# group), so this process ignores it.
#
# node reads the run's directory and the number of this process's fd of
# the run's stdin on a pipe, and opens that stdin through /proc (the run's
# pipe itself, not a copy; see runner-session-node.js). R cannot take an
# fd by number at all: it is told of a run on a FIFO in the session's
# /tmp, as one line of percent-encoded fields made here from run.json,
# and answers on a second FIFO; its fd 0 stays /dev/null, so an R
# session's run reads no stdin.
#
#   python3 runner-session-node.py node NODE-ARGV...
#   python3 runner-session-node.py r RSCRIPT-ARGV...
import fcntl
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import urllib.parse


def _write_all(fd, data):
    while data:
        try:
            n = os.write(fd, data)
        except InterruptedError:
            continue
        except OSError:
            return  # the run's reader is gone: its output is dropped
        data = data[n:]


def _pump(src, dst):
    """Copies what src holds now; False at EOF."""
    while True:
        try:
            data = os.read(src, 65536)
        except BlockingIOError:
            return True
        except InterruptedError:
            continue
        if not data:
            return False
        _write_all(dst, data)


def _fifo_request(run_dir):
    """The line that tells the R or Java driver of a run: the snippet, the number
    of arguments, the arguments, then the variables as name and value, each
    percent-encoded (no space, no newline), separated by spaces."""
    with open(os.path.join(run_dir, "run.json"), encoding="utf-8") as f:
        request = json.load(f)
    args = request.get("args") or []
    fields = [request["file"], str(len(args))] + args
    for name, value in (request.get("env") or {}).items():
        fields += [name, value]
    return " ".join(urllib.parse.quote(x, safe="") for x in fields)


def _start(kind, argv, devnull, out_w, err_w):
    """The child and its two channels: (process, to_child, from_child);
    from_child is non-blocking."""
    if kind == "fifo":
        fifos = tempfile.mkdtemp(prefix="sandpad-session-")
        to_path = os.path.join(fifos, "run")
        from_path = os.path.join(fifos, "result")
        os.mkfifo(to_path, 0o600)
        os.mkfifo(from_path, 0o600)
        # Read and write here, so neither open waits for the child's, and
        # its opens find the other end open.
        to_child = os.open(to_path, os.O_RDWR)
        from_child = os.open(from_path, os.O_RDWR | os.O_NONBLOCK)
        child = subprocess.Popen(argv + ["--session", to_path, from_path], stdin=devnull,
                                 stdout=out_w, stderr=err_w, close_fds=True)
        return child, to_child, from_child
    to_node_r, to_child = os.pipe()
    from_child, from_node_w = os.pipe()
    fcntl.fcntl(from_child, fcntl.F_SETFL, fcntl.fcntl(from_child, fcntl.F_GETFL) | os.O_NONBLOCK)
    # --expose-internals: the driver takes node's own REPL rewrite for
    # top-level await (internal/repl/await), as node's REPL does. It opens
    # no way out of the sandbox: a snippet runs any code node can already.
    argv = argv[:1] + ["--expose-internals"] + argv[1:] + [str(to_node_r), str(from_node_w)]
    child = subprocess.Popen(argv, stdin=devnull, stdout=out_w, stderr=err_w,
                             pass_fds=(to_node_r, from_node_w), close_fds=True)
    os.close(to_node_r)
    os.close(from_node_w)
    return child, to_child, from_child


def _main():
    # A handler, not SIG_IGN: the child must start with SIGINT at its
    # default (ignored dispositions survive exec, handlers do not).
    signal.signal(signal.SIGINT, lambda signo, frame: None)
    kind = sys.argv[1]
    channel = socket.socket(fileno=3)
    devnull = os.open("/dev/null", os.O_RDWR)
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    for fd in (out_r, err_r):
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
    node, to_node_w, from_node_r = _start(kind, sys.argv[2:], devnull, out_w, err_w)
    os.close(out_w)
    os.close(err_w)
    pending = b""
    while True:
        try:
            message, fds, _flags, _addr = socket.recv_fds(channel, 4096, 3)
        except InterruptedError:
            continue
        if not message:
            node.kill()
            return 0  # the runner is gone
        if len(fds) != 3:
            for fd in fds:
                os.close(fd)
            continue
        run_in, run_out, run_err = fds
        # node opens the run's stdin itself, through /proc/<this>/fd/N (the
        # same pipe, so the runner's input_wait sees node read it); this
        # holds it open until node's answer, and never reads it.
        run_dir = message.decode("utf-8", "surrogateescape")
        if kind == "fifo":
            line = _fifo_request(run_dir).encode()
        else:
            line = json.dumps({"dir": run_dir, "stdin": run_in}).encode()
        _write_all(to_node_w, line + b"\n")
        result = None
        alive = True
        while result is None and alive:
            try:
                ready, _, _ = select.select([out_r, err_r, from_node_r], [], [])
            except InterruptedError:
                continue
            # The child's stdout at its end: it is gone (its result FIFO
            # is held open here too, so that never ends by itself). node's
            # end is its answer pipe's.
            if out_r in ready and not _pump(out_r, run_out) and kind == "fifo":
                alive = False
            if err_r in ready:
                _pump(err_r, run_err)
            if from_node_r in ready:
                try:
                    data = os.read(from_node_r, 4096)
                except (BlockingIOError, InterruptedError):
                    data = None
                if data == b"":
                    alive = False
                elif data:
                    pending += data
                    if b"\n" in pending:
                        line, pending = pending.split(b"\n", 1)
                        result = line
        # The child wrote everything before its answer (pipes are
        # synchronous in node on Linux; R writes its output unbuffered to
        # a pipe, the Java driver flushes System.out and System.err before
        # it answers): what is in the pipes now is all of this run's.
        _pump(out_r, run_out)
        _pump(err_r, run_err)
        os.close(run_in)
        os.close(run_out)
        os.close(run_err)
        if result is None:
            # The child is gone (process.exit(), q(), a crash): so is the
            # session.
            status = node.wait()
            return status if status >= 0 else 128 - status
        channel.send(result)


sys.exit(_main())
