#!/usr/bin/python3
"""sandpad_client.py: a complete small host for sandpad-runner, standard
library only (docs/embedding.md).

A desktop app ships sandpad-runner as a sidecar and talks to it over its
stdin/stdout: one JSON object per line (docs/protocol.md). This client
shows the whole of it: the handshake, a run whose output is streamed as
it comes, plots saved from the run's result, and a cancel.

    python3 sandpad_client.py RUNNER [OUT_DIR]

(the plots go to OUT_DIR, or to a new temporary folder it names)

runs three demonstrations against the runner binary RUNNER and exits 0
when each behaved as the protocol says (CI runs it so: meson test
example-client). Import it to use RunnerClient in your own host.
"""
import base64
import json
import os
import subprocess
import sys
import tempfile
import threading
import queue


class RunnerClient:
    """One sandpad-runner child process and the runs it serves."""

    def __init__(self, runner, extra_args=()):
        # The runner gets nothing from the host but its own arguments: no
        # paths of a run, no environment of ours beyond what it needs.
        self.proc = subprocess.Popen(
            [runner, *extra_args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=sys.stderr, bufsize=0)
        self.events = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.send({"v": 1, "type": "hello", "client": "sandpad_client.py"})
        self.ready = self.wait(lambda e: e["type"] in ("ready", "error"))
        if self.ready["type"] != "ready":
            raise RuntimeError(f"the runner refused the handshake: {self.ready}")
        self.next_id = 0

    def _read(self):
        for line in self.proc.stdout:
            try:
                self.events.put(json.loads(line))
            except ValueError:
                self.events.put({"type": "bad_line", "line": line[:200]})
        self.events.put({"type": "closed"})

    def send(self, message):
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def wait(self, match, timeout=120):
        while True:
            event = self.events.get(timeout=timeout)
            if event["type"] == "closed":
                raise RuntimeError("the runner exited")
            if match(event):
                return event

    def start(self, language, code, **options):
        """Submits a run; returns its id. options: timeout_ms, memory_mib,
        stdin, args, env (a dict), return_base64, ..."""
        self.next_id += 1
        run_id = f"run-{self.next_id}"
        self.send({"v": 1, "type": "run", "id": run_id, "language": language,
                   "code": code, **options})
        return run_id

    def events_of(self, run_id, on_output=None):
        """Follows one run to its end: calls on_output(stream, text) for
        each piece of output as the program writes it, returns exited."""
        while True:
            event = self.wait(lambda e: e.get("id") == run_id)
            if event["type"] == "output" and on_output is not None:
                on_output(event["stream"], event["data"])
            elif event["type"] == "error":
                raise RuntimeError(f"the runner refused {run_id}: {event['message']}")
            elif event["type"] == "exited":
                # Its directory (and files) go once released.
                self.send({"v": 1, "type": "release", "id": run_id})
                return event

    def cancel(self, run_id):
        self.send({"v": 1, "type": "cancel", "id": run_id})

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def save_images(exited, out_dir):
    """Writes the images a run returned (run with return_base64) to out_dir,
    under names of our own: a run's file names are its own data, so they
    never become host paths."""
    saved = []
    for i, f in enumerate(exited.get("files", [])):
        if "base64" not in f:
            continue
        ext = {"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif"}.get(f["mime"])
        if ext is None:
            continue
        path = os.path.join(out_dir, f"plot-{i}{ext}")
        with open(path, "wb") as out:
            out.write(base64.b64decode(f["base64"]))
        saved.append(path)
    return saved


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    runner = sys.argv[1]
    out_dir = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="sandpad-plots-")
    extra = ["--sandbox", os.environ["SANDPAD_TEST_SANDBOX"]] \
        if os.environ.get("SANDPAD_TEST_SANDBOX") else []
    client = RunnerClient(runner, extra)
    failures = 0

    def check(cond, what, detail=None):
        nonlocal failures
        print(("ok - " if cond else "not ok - ") + what)
        if not cond:
            failures += 1
            print(f"  # {json.dumps(detail)[:1000]}")

    print(f"# runner {client.ready.get('runner_version')}, "
          f"languages {[lang['name'] for lang in client.ready.get('languages', [])]}")

    # 1. A run whose output streams: each line arrives before the run ends.
    pieces = []
    run = client.start("python", "import time\nfor i in range(3):\n"
                                 "    print('line', i)\n    time.sleep(0.2)\n")
    exited = client.events_of(run, lambda stream, text: pieces.append((stream, text)))
    check(exited["end"] == "exited" and exited["exit_code"] == 0
          and "".join(t for s, t in pieces) == "line 0\nline 1\nline 2\n" and len(pieces) >= 2,
          "output streams as the program writes it", {"exited": exited, "pieces": pieces})

    # 2. A plot, saved from the run's result.
    run = client.start("python", "import matplotlib.pyplot as plt\nplt.plot([1, 4, 2])\n"
                                 "plt.show()\n", return_base64=True)
    exited = client.events_of(run)
    saved = save_images(exited, out_dir)
    with open(saved[0], "rb") if saved else open(os.devnull, "rb") as f:
        magic = f.read(8)
    check(len(saved) == 1 and magic == b"\x89PNG\r\n\x1a\n",
          "a matplotlib figure is saved as a PNG", {"saved": saved, "exited": exited})

    # 3. A cancel: the run ends as cancelled long before its timeout.
    run = client.start("python", "import time\nprint('started', flush=True)\ntime.sleep(60)\n",
                       timeout_ms=120000)
    client.wait(lambda e: e.get("id") == run and e["type"] == "output")
    client.cancel(run)
    exited = client.events_of(run)
    check(exited.get("cancelled") not in (None, "none") and exited["wall_ms"] < 60000,
          "a cancelled run ends as cancelled", exited)

    client.close()
    print(f"1..3")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
