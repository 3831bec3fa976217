#!/usr/bin/python3
"""bench/mcp.py: one tools/call round trip of sandpad-mcp against sandpad-run.

An assistant keeps one sandpad-mcp and calls execute_code; what it waits
for is the call's round trip. This starts one sandpad-mcp and, N times, in
turn (so both see the same load), times a cold `sandpad-run t.py` of
`print(1)` (process start, sandbox, interpreter) and the same snippet as a
tools/call, from the request to its response; then the same for a
matplotlib chart (plt.show(), its PNG in the answer). The server's Python
runs start warm (from its warm interpreter, ready some time after
initialize): timing starts once one has, and the count of warm calls is
printed. Prints medians and the ratios. A measurement to compare over
time, not a test.

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
CHART = ("import matplotlib.pyplot as plt\n"
         "plt.bar(['a', 'b', 'c'], [3, 1, 2])\n"
         "plt.show()\n")


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

    def round_trip(self, code=CODE):
        """Seconds from request to answer, and whether the run was warm."""
        start = time.perf_counter()
        answer = self.call("tools/call", {"name": "execute_code",
                                          "arguments": {"language": "python", "code": code}})
        elapsed = time.perf_counter() - start
        result = answer["result"]["structuredContent"]
        if code == CODE and result["stdout"] != "1\n":
            sys.exit(f"unexpected answer: {answer}")
        if code == CHART and not any(c["type"] == "image" for c in answer["result"]["content"]):
            sys.exit(f"the chart came back without its image: {result}")
        return elapsed, result["sandbox"]["warm"]

    def wait_warm(self, timeout=120):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.round_trip()[1]:
                return
            time.sleep(0.2)
        sys.exit("no call started warm")

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
    chart = os.path.join(tmp, "chart.py")
    with open(chart, "w") as f:
        f.write(CHART)
    mcp = Mcp(tmp)
    mcp.wait_warm()
    times = {"print run": [], "print call": [], "chart run": [], "chart call": []}
    warm = 0
    for i in range(N + 5):
        print_call, print_warm = mcp.round_trip()
        chart_call, chart_warm = mcp.round_trip(CHART)
        samples = {"print run": cold_run(script), "print call": print_call,
                   "chart run": cold_run(chart), "chart call": chart_call}
        if i >= 5:  # warm-up
            warm += print_warm + chart_warm
            for key, value in samples.items():
                times[key].append(value)
    mcp.close()

med = {key: statistics.median(values) for key, values in times.items()}
print(f"{N} runs each; {warm} of {2 * N} tools/calls started warm")
for what in ("print", "chart"):
    call, run = med[f"{what} call"], med[f"{what} run"]
    print(f"{what}: sandpad-mcp tools/call / cold sandpad-run: {call / run:.2f}x "
          f"({call * 1000:.1f} ms vs {run * 1000:.1f} ms)")
