#!/usr/bin/python3
"""bench/mcp.py: one tools/call round trip of sandpad-mcp against sandpad-run.

An assistant keeps one sandpad-mcp and calls execute_code; what it waits
for is the call's round trip. This starts one sandpad-mcp and, N times, in
turn (so both see the same load), times a cold `sandpad-run t.py` of
`print(1)` (process start, sandbox, interpreter) and the same snippet as a
tools/call, from the request to its response. Prints medians and the ratio.
A measurement to compare over time, not a test.

Usage: bench/mcp.py [BUILD-DIR] [N]     (default _build, 60)
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(TOP, "_build")
N = int(sys.argv[2]) if len(sys.argv) > 2 else 60
CODE = "print(1)"


class Mcp:
    def __init__(self, state):
        env = dict(os.environ, XDG_STATE_HOME=state)
        self.proc = subprocess.Popen([os.path.join(BUILD, "src/mcp/sandpad-mcp")],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self.seq = 0
        self.call("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                 "clientInfo": {"name": "bench", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg):
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()

    def call(self, method, params):
        self.seq += 1
        self.send({"jsonrpc": "2.0", "id": self.seq, "method": method, "params": params})
        while True:
            msg = json.loads(self.proc.stdout.readline())
            if msg.get("id") == self.seq:
                return msg

    def round_trip(self):
        start = time.perf_counter()
        answer = self.call("tools/call", {"name": "execute_code",
                                          "arguments": {"language": "python", "code": CODE}})
        elapsed = time.perf_counter() - start
        if answer["result"]["structuredContent"]["stdout"] != "1\n":
            sys.exit(f"unexpected answer: {answer}")
        return elapsed

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def cold_run(script):
    start = time.perf_counter()
    subprocess.run([os.path.join(BUILD, "src/runner/sandpad-run"), script],
                   stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


with tempfile.TemporaryDirectory() as tmp:
    script = os.path.join(tmp, "t.py")
    with open(script, "w") as f:
        f.write(CODE + "\n")
    mcp = Mcp(tmp)
    times = {"sandpad-run": [], "sandpad-mcp": []}
    for i in range(N + 5):
        samples = {"sandpad-run": cold_run(script), "sandpad-mcp": mcp.round_trip()}
        if i >= 5:  # warm-up
            for key, value in samples.items():
                times[key].append(value)
    mcp.close()

run = statistics.median(times["sandpad-run"])
call = statistics.median(times["sandpad-mcp"])
print(f"sandpad-run (cold): median {run * 1000:.1f} ms over {N} runs")
print(f"sandpad-mcp tools/call / sandpad-run: {call / run:.2f}x "
      f"({call * 1000:.1f} ms vs {run * 1000:.1f} ms)")
