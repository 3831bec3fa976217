#!/usr/bin/python3
"""The prelude's .pyc, compiled when the runner was built
(src/runner/languages/prelude-pyc.py), through the real runner in one sandbox
mode. A Python run finds it beside the prelude under its interpreter's
cache tag, and Python uses it exactly when it is a hash-checked .pyc of
this interpreter's magic number whose hash is the prelude source's
(PEP 552): so a stale or foreign file, which Python would ignore and pay
for compiling the source, fails here. The code it holds is the source's
own. Control: the hash tells another source apart.

Usage: test-prelude-cache.py SANDPAD-RUNNER (SANDPAD_TEST_SANDBOX: mode)."""

import os
import sys

from runnertest import Runner, main

RUNNER = sys.argv[1]
MODE = os.environ.get("SANDPAD_TEST_SANDBOX", "auto")

CHECK = r"""
import importlib.util, marshal, os, sys
prelude = sys.modules["sitecustomize"].__file__
cached = os.path.join(os.path.dirname(prelude), "__pycache__",
                      "sitecustomize.%s.pyc" % sys.implementation.cache_tag)
src = open(prelude, "rb").read()
try:
    pyc = open(cached, "rb").read()
except OSError as e:
    print("missing", e)
    sys.exit(0)
print("magic", pyc[:4] == importlib.util.MAGIC_NUMBER)
print("checked-hash", int.from_bytes(pyc[4:8], "little") == 3)
print("hash", pyc[8:16] == importlib.util.source_hash(src))
print("code", marshal.loads(pyc[16:]) == compile(src, prelude, "exec"))
print("control", pyc[8:16] != importlib.util.source_hash(src + b"#"))
"""


def test_prelude_cache(t):
    r = Runner(RUNNER, "--sandbox", MODE)
    res = r.run("check", CHECK)
    lines = dict(line.split(" ", 1) for line in res.stdout.splitlines() if " " in line)
    t.ok(res.exited.get("exit_code") == 0 and "missing" not in lines,
         "a Python run has the compiled prelude under its cache tag", res)
    t.eq(lines.get("magic"), "True", "it is for this interpreter's magic number", res)
    t.eq(lines.get("checked-hash"), "True", "it is a hash-checked .pyc (PEP 552)", res)
    t.eq(lines.get("hash"), "True", "its hash is the prelude source's, so Python uses it", res)
    t.eq(lines.get("code"), "True", "its code is the prelude source's, compiled", res)
    t.eq(lines.get("control"), "True", "control: the hash tells another source apart", res)
    res = r.run("plot", "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()\n")
    t.eq([f["path"] for f in res.exited["files"]], ["plot-1.png"],
         "the prelude still works from the .pyc: plt.show() leaves plot-1.png", res)
    r.close()


if __name__ == "__main__":
    main([test_prelude_cache])
