# Sandpad's JavaScript session relay: the session's interpreter process
# for runs that name a session in JavaScript.
#
# The runner hands each session run's stdin, stdout and stderr to the
# interpreter as three fds over its private SOCK_SEQPACKET channel (fd 3),
# exactly as for a Python session (runner-session-driver.py). node cannot
# receive fds over a socket, so this process does, and keeps one node
# (runner-session-node.js, the REPL-like loop that holds the state) as its
# child for the session's life: node's stdout and stderr are pipes to
# here, copied to the run's fds while a run goes; node is told the run's
# directory and answers with its result on a pipe of their own. Both are
# in the session's one sandbox (the same spawn, layers and tree watch as
# any run); this adds no way in or out. SIGINT reaches node directly (the
# runner signals the whole process group), so this process ignores it.
# A run's stdin is node's to read: it opens this process's fd of it
# through /proc (the run's pipe itself, not a copy), see
# runner-session-node.js.
#
#   python3 runner-session-node.py NODE-ARGV...
import fcntl
import json
import os
import select
import signal
import socket
import subprocess
import sys


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


def _main():
    # A handler, not SIG_IGN: node must start with SIGINT at its default
    # (ignored dispositions survive exec, handlers do not).
    signal.signal(signal.SIGINT, lambda signo, frame: None)
    channel = socket.socket(fileno=3)
    devnull = os.open("/dev/null", os.O_RDWR)
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    to_node_r, to_node_w = os.pipe()
    from_node_r, from_node_w = os.pipe()
    for fd in (out_r, err_r, from_node_r):
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
    # --expose-internals: the driver takes node's own REPL rewrite for
    # top-level await (internal/repl/await), as node's REPL does. It opens
    # no way out of the sandbox: a snippet runs any code node can already.
    argv = sys.argv[1:2] + ["--expose-internals"] + sys.argv[2:] + [str(to_node_r),
                                                                   str(from_node_w)]
    node = subprocess.Popen(argv, stdin=devnull, stdout=out_w, stderr=err_w,
                            pass_fds=(to_node_r, from_node_w), close_fds=True)
    for fd in (out_w, err_w, to_node_r, from_node_w):
        os.close(fd)
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
        request = {"dir": message.decode("utf-8", "surrogateescape"), "stdin": run_in}
        _write_all(to_node_w, json.dumps(request).encode() + b"\n")
        result = None
        alive = True
        while result is None and alive:
            try:
                ready, _, _ = select.select([out_r, err_r, from_node_r], [], [])
            except InterruptedError:
                continue
            if out_r in ready:
                _pump(out_r, run_out)
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
        # node wrote everything before its answer (pipes are synchronous
        # in node on Linux): what is in the pipes now is all of this run's.
        _pump(out_r, run_out)
        _pump(err_r, run_err)
        os.close(run_in)
        os.close(run_out)
        os.close(run_err)
        if result is None:
            # node is gone (process.exit(), a crash): so is the session.
            status = node.wait()
            return status if status >= 0 else 128 - status
        channel.send(result)


sys.exit(_main())
