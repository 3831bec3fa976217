#!/usr/bin/python3
"""test-jsonrpc.py: sandpad-mcp's framing and JSON-RPC error paths, on the wire.

    test-jsonrpc.py SANDPAD_MCP

Bytes go to the real server in awkward pieces (split lines, many lines in
one write, an oversize line, a NUL, invalid UTF-8); every request must get
its answer with the right JSON-RPC code, notifications and stray responses
none, and the server must keep serving (a ping after each case) and exit
cleanly at EOF. TAP on stdout."""
import json
import os
import select
import subprocess
import sys
import time

SERVER = sys.argv[1]
WAIT = 60  # generous: the machine is shared; a hang fails, slowness does not

count = 0
failures = 0


def ok(cond, what, detail=None):
    global count, failures
    count += 1
    print(("ok" if cond else "not ok") + f" {count} - {what}")
    if not cond:
        failures += 1
        if detail is not None:
            print("  # " + repr(detail)[:2000])
    sys.stdout.flush()


class Server:
    def __init__(self):
        args = [SERVER]
        if os.environ.get("SANDPAD_TEST_SANDBOX"):
            args += ["--sandbox", os.environ["SANDPAD_TEST_SANDBOX"]]
        # No run journal: this test makes runs only to see them answered.
        args += ["--journal-max", "0"]
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.buf = b""
        self.next_ping = 1000

    def write(self, data, pieces=1):
        step = max(1, len(data) // pieces)
        for i in range(0, len(data), step):
            self.proc.stdin.write(data[i:i + step])
            self.proc.stdin.flush()

    def send(self, obj):
        self.write(json.dumps(obj).encode() + b"\n")

    def read(self):
        """The next message, or None after WAIT seconds of silence."""
        deadline = time.monotonic() + WAIT
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if not ready:
                return None
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            if not chunk:
                return None
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def ping(self):
        """True when a ping is the very next answer: nothing stray came before."""
        self.next_ping += 1
        self.send({"jsonrpc": "2.0", "id": self.next_ping, "method": "ping"})
        msg = self.read()
        return msg == {"jsonrpc": "2.0", "id": self.next_ping, "result": {}}, msg

    def peak_kib(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
        return -1


def expect_error(srv, data, code, msg_id, what, pieces=1):
    srv.write(data, pieces)
    msg = srv.read()
    good = (msg is not None and msg.get("jsonrpc") == "2.0" and msg.get("id") == msg_id
            and msg.get("error", {}).get("code") == code
            and isinstance(msg["error"].get("message"), str))
    ok(good, f"{what}: error {code}", msg)
    alive, pong = srv.ping()
    ok(alive, f"{what}: the server still serves", pong)


def main():
    srv = Server()
    srv.send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "t", "version": "1"}}})
    init = srv.read()
    ok(init and init.get("result", {}).get("protocolVersion") == "2025-11-25", "initialize", init)
    srv.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    alive, pong = srv.ping()
    ok(alive, "notifications/initialized gets no answer", pong)

    expect_error(srv, b"this is not json\n", -32700, None, "garbage")
    expect_error(srv, b'{"jsonrpc":"2.0","id":2,"method":"ping"\n', -32700, None, "cut JSON")
    expect_error(srv, b'{"jsonrpc":"2.0","id":3,"id":4,"method":"ping"}\n', -32700, None,
                 "a duplicated key")
    expect_error(srv, b'{"jsonrpc":"2.0","id":5,"method":"p\xffng"}\n', -32700, None,
                 "invalid UTF-8")
    expect_error(srv, b'{"jsonrpc":"2.0","id":5,\0"method":"ping"}\n', -32700, None, "a NUL byte")
    expect_error(srv, b"[" * 100000 + b"]" * 100000 + b"\n", -32700, None, "deep nesting")
    expect_error(srv, b"[1,2]\n", -32600, None, "a batch")
    expect_error(srv, b"42\n", -32600, None, "a number")
    expect_error(srv, b'{"jsonrpc":"1.0","id":6,"method":"ping"}\n', -32600, 6, "jsonrpc 1.0")
    expect_error(srv, b'{"id":7,"method":"ping"}\n', -32600, 7, "no jsonrpc")
    expect_error(srv, b'{"jsonrpc":"2.0","id":null,"method":"ping"}\n', -32600, None, "a null id")
    expect_error(srv, b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}\n', -32600, None,
                 "an object id")
    expect_error(srv, b'{"jsonrpc":"2.0","id":8,"method":42}\n', -32600, 8, "a number method")
    expect_error(srv, b'{"jsonrpc":"2.0","id":9}\n', -32600, 9, "no method")
    expect_error(srv, b'{"jsonrpc":"2.0","id":10,"method":"resources/list"}\n', -32601, 10,
                 "an unknown method")
    expect_error(srv, b'{"jsonrpc":"2.0","id":"s","method":"tools/list","params":[1]}\n', -32602,
                 "s", "params that are not an object")
    expect_error(srv, b'{"jsonrpc":"2.0","id":11,"method":"initialize","params":{}}\n', -32602, 11,
                 "initialize without protocolVersion")
    expect_error(srv, b'{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"rm"}}\n',
                 -32602, 12, "an unknown tool")
    expect_error(srv, b'{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{}}\n', -32602, 13,
                 "tools/call without a name")
    expect_error(srv, b'{"jsonrpc":"2.0","id":14,"method":"tools/call",'
                 b'"params":{"name":"execute_code","arguments":"print(1)"}}\n', -32602, 14,
                 "arguments that are not an object")
    expect_error(srv, b'{"jsonrpc":"2.0","id":"ce","method":"tools/call",'
                 b'"params":{"name":"code_execution","arguments":[1]}}\n', -32602, "ce",
                 "code_execution's arguments that are not an object")
    # Without a workspace these are not offered, so not callable either.
    expect_error(srv, b'{"jsonrpc":"2.0","id":"ec","method":"tools/call",'
                 b'"params":{"name":"execute_command","arguments":{"command":"true"}}}\n',
                 -32602, "ec", "execute_command, not offered without a workspace")

    # Every tool tools/list offers is one tools/call answers (one table).
    srv.send({"jsonrpc": "2.0", "id": "tl", "method": "tools/list"})
    listed = [t["name"] for t in ((srv.read() or {}).get("result") or {}).get("tools", [])]
    answered = []
    for name in listed:
        srv.send({"jsonrpc": "2.0", "id": "call-" + name, "method": "tools/call",
                  "params": {"name": name, "arguments": {"no_such_argument": 1}}})
        msg = srv.read() or {}
        unknown = "unknown tool" in json.dumps(msg.get("error", {}))
        answered.append(msg.get("id") == "call-" + name and not unknown)
    ok(len(listed) >= 5 and all(answered),
       f"each listed tool is answered, none as unknown ({', '.join(listed)})",
       list(zip(listed, answered)))

    # An oversize line is dropped as it arrives, never held whole.
    big = b'{"jsonrpc":"2.0","id":15,"method":"ping","params":{"x":"' + b"a" * (12 << 20) + b'"}}\n'
    expect_error(srv, big, -32700, None, "a 12 MiB line", pieces=200)
    peak = srv.peak_kib()
    ok(0 < peak < 64 * 1024, "the oversize line was not buffered (peak RSS under 64 MiB)", peak)

    # Things that get no answer at all.
    srv.write(b"\n\r\n   \n")
    srv.send({"jsonrpc": "2.0", "method": "notifications/unknown", "params": {"a": 1}})
    srv.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 999}})
    srv.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": [1]})
    srv.send({"jsonrpc": "2.0", "id": 16, "result": {}})
    srv.send({"jsonrpc": "2.0", "id": 17, "error": {"code": 1, "message": "x"}})
    alive, pong = srv.ping()
    ok(alive, "blank lines, notifications and stray responses get no answer", pong)

    # Framing: one byte per write, CRLF, many messages in one write.
    srv.write(b'{"jsonrpc":"2.0","id":"bytes","method":"ping"}\n', pieces=10**6)
    msg = srv.read()
    ok(msg == {"jsonrpc": "2.0", "id": "bytes", "result": {}}, "a line sent byte by byte", msg)
    srv.write(b'{"jsonrpc":"2.0","id":"crlf","method":"ping"}\r\n')
    msg = srv.read()
    ok(msg == {"jsonrpc": "2.0", "id": "crlf", "result": {}}, "a CRLF line", msg)
    srv.write(b"".join(b'{"jsonrpc":"2.0","id":%d,"method":"ping"}\n' % i for i in range(50)))
    ids = [(srv.read() or {}).get("id") for _ in range(50)]
    ok(ids == list(range(50)), "50 messages in one write, answered in order", ids)

    # A tool call with bad arguments is a result the model can read.
    srv.send({"jsonrpc": "2.0", "id": 18, "method": "tools/call",
              "params": {"name": "execute_code", "arguments": {"language": "python", "code": 5}}})
    msg = srv.read() or {}
    result = msg.get("result", {})
    ok(result.get("isError") is True and '"code"' in result["content"][0]["text"],
       "a wrongly typed field is an isError result naming it", msg)

    # EOF: a call still running is answered, then the server exits 0.
    srv.send({"jsonrpc": "2.0", "id": 19, "method": "tools/call",
              "params": {"name": "execute_code",
                         "arguments": {"language": "bash", "code": "sleep 1; echo late"}}})
    srv.proc.stdin.close()
    msg = srv.read() or {}
    ok(msg.get("id") == 19 and msg["result"]["structuredContent"]["stdout"] == "late\n",
       "a call made before EOF is still answered", msg)
    try:
        status = srv.proc.wait(WAIT)
    except subprocess.TimeoutExpired:
        srv.proc.kill()
        status = "hung"
    ok(status == 0, "the server exits 0 at EOF", status)

    print(f"1..{count}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
