"""bench/benchrunner.py: one sandpad-runner spoken to over its protocol
(docs/protocol.md), for the benchmarks that time runs as a client of a
long-lived runner sees them (warm-pool.py, concurrent-live.py, session.py,
warm.py). Not a benchmark itself."""

import json
import subprocess


class Runner:
    def __init__(self, path, mode, *args, hello=True):
        """Starts the runner at path in sandbox mode (strict). With hello,
        says hello and waits for ready: the runner then keeps its warm
        pool, as for the app (without, it is a batch's runner)."""
        self.proc = subprocess.Popen([path, "--sandbox", mode, "--strict", *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.seq = 0
        if hello:
            self.send({"type": "hello", "client": "bench"})
            while self.recv()["type"] != "ready":
                pass

    def send(self, msg):
        self.proc.stdin.write((json.dumps({"v": 1, **msg}) + "\n").encode())
        self.proc.stdin.flush()

    def recv(self):
        return json.loads(self.proc.stdout.readline())

    def next_id(self):
        self.seq += 1
        return f"r{self.seq}"

    def release(self, run_id):
        """Releases an ended run and waits until the runner says so."""
        self.send({"type": "release", "id": run_id})
        while self.recv()["type"] != "released":
            pass

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()
