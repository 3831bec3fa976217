#!/usr/bin/python3
"""A scripted stand-in for sandpad-runner that misbehaves on purpose, to
test how the app's side copes. Never a stand-in for the real runner's
work: it only answers the handshake, then does what it was told.

Usage: fake-runner.py --fd 3 --behave crash-after-ready|garbage|stall|oversize|ok
       [--count-file PATH --ok-after N]  (behave "ok" after N starts)
"""
import json
import os
import socket
import sys
import time

args = sys.argv[1:]
fd = int(args[args.index("--fd") + 1])
behave = args[args.index("--behave") + 1]
if "--count-file" in args:
    path = args[args.index("--count-file") + 1]
    count = int(open(path).read() or 0) + 1 if os.path.exists(path) else 1
    open(path, "w").write(str(count))
    if count > int(args[args.index("--ok-after") + 1]):
        behave = "ok"

sock = socket.socket(fileno=fd)
reader = sock.makefile("rb")
writer = sock.makefile("wb", buffering=0)


def send(obj):
    writer.write((json.dumps(obj) + "\n").encode())


ready = {"v": 1, "type": "ready", "runner_version": "fake", "protocol": 1,
         "languages": [{"name": "python", "path": "/usr/bin/python3", "version": "3",
                        "extensions": ["py"]}],
         "limits": {"timeout_ms": {"default": 30000, "max": 300000},
                    "memory_mib": {"default": 512, "max": 16384},
                    "output_limit": {"default": 1048576, "max": 67108864},
                    "max_concurrent": 1, "max_frame": 4194304},
         "sandbox": {"mode": "fake", "layers": []}}

for line in reader:
    msg = json.loads(line)
    if msg["type"] == "hello":
        if behave == "stall":
            time.sleep(60)
            sys.exit(0)
        send(ready)
        if behave == "garbage":
            writer.write(b"this is not json\n")
        if behave == "oversize":
            writer.write(b"x" * (5 * 1024 * 1024) + b"\n")
    elif msg["type"] == "run":
        if behave == "crash-after-ready":
            os._exit(3)
        rid = msg["id"]
        send({"v": 1, "type": "queued", "id": rid, "position": 0})
        send({"v": 1, "type": "output", "id": rid, "stream": "stdout", "data": "fake\n"})
        send({"v": 1, "type": "exited", "id": rid, "end": "exited", "exit_code": 0, "t_ms": 1,
              "wall_ms": 1, "cpu_ms": 1, "peak_memory_bytes": 1, "stdout_bytes": 5,
              "stderr_bytes": 0, "stdout_truncated": False, "stderr_truncated": False,
              "files": [], "files_truncated": False})
