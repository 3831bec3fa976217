"""A run's environment (a Python venv, a node_modules) with the real runner
and the real interpreters: detection, the venv's interpreter and packages,
read-only at run time in both sandbox modes, and venvs that are refused.

Usage: test-env.py SANDPAD-RUNNER SANDPAD-RUN [TEST-NAME...]
"""

import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from envtest import (NOBODY, RUN_UID, SYSTEM_PYTHON, Workspace, as_run_uid,  # noqa: E402
                     make_module)
from runnertest import Runner, main  # noqa: E402

RUNNER = sys.argv[1]
SANDPAD_RUN = os.path.abspath(sys.argv[2])
MODE = os.environ.get("SANDPAD_TEST_SANDBOX", "namespaces")

PROBE = ("import sys\n"
         "print('prefix', sys.prefix)\n"
         "import envprobe\n"
         "print('module', envprobe.WORD)\n")

WRITE = ("import os, sys\n"
         "target = sys.argv[1]\n"
         "try:\n"
         "    with open(os.path.join(target, 'planted.py'), 'w') as f:\n"
         "        f.write('x = 1')\n"
         "    print('WROTE')\n"
         "except OSError as e:\n"
         "    print('refused', e.errno)\n")


def runner(ws, *extra):
    return Runner(RUNNER, "--sandbox", MODE, "--strict", "--allow-environment", ws.root,
                  *extra)


def test_venv_used(t):
    """A run naming the venv runs its interpreter: sys.prefix is the venv,
    its own packages import, Debian's (system site packages) too; the
    started event names it. Control: the same code without it fails."""
    ws = Workspace()
    make_module(ws.site_packages(), "envprobe", "WORD = 'from-the-venv'\n")
    r = runner(ws)
    r.hello()
    res = r.run("a", PROBE + "import numpy\nprint('numpy ok')\n", environment=ws.venv)
    t.eq(res.exited.get("exit_code"), 0, "a run in the venv exits 0", res)
    t.ok(f"prefix {ws.venv}\n" in res.stdout, "sys.prefix is the venv", res)
    t.ok("module from-the-venv" in res.stdout, "the venv's own package imports", res)
    t.ok("numpy ok" in res.stdout, "Debian's numpy stays importable (system site packages)", res)
    t.eq(res.started and res.started.get("environment"), ws.venv,
         "started names the environment")
    ctl = r.run("b", PROBE)
    t.ok(ctl.exited.get("exit_code") != 0 and "ModuleNotFoundError" in ctl.stderr,
         "control: without the environment the package is missing", ctl)
    t.ok(ctl.started is not None and "environment" not in ctl.started,
         "control: started names no environment without one")
    r.close()
    ws.remove()


def test_read_only(t):
    """A run cannot write into its environment, which belongs to the run's
    uid: not at its own path, and not through a working directory that
    holds it. Control: the same uid writes there outside the sandbox."""
    ws = Workspace()
    ctl = subprocess.run([SYSTEM_PYTHON, "-c", WRITE, ws.site_packages()],
                         capture_output=True, text=True, preexec_fn=as_run_uid())
    t.ok("WROTE" in ctl.stdout, "control: the run's uid can write into the venv unsandboxed",
         ctl.stdout + ctl.stderr)
    os.unlink(os.path.join(ws.site_packages(), "planted.py"))

    r = runner(ws, "--allow-cwd", ws.root)
    r.hello()
    res = r.run("a", WRITE, environment=ws.venv, args=[ws.site_packages()])
    t.ok("refused" in res.stdout and "WROTE" not in res.stdout,
         "a run cannot write into its venv's site-packages", res)
    res = r.run("b", WRITE, environment=ws.venv, args=[os.path.join(ws.venv, "bin")])
    t.ok("refused" in res.stdout, "a run cannot write into its venv's bin", res)
    # The workspace as the run's cwd: the venv inside it is writable
    # through the cwd unless the sandbox prevents it.
    inner = "/work/.venv/lib" if MODE == "namespaces" else os.path.join(ws.venv, "lib")
    r.send(type="run", id="c", language="python", code=WRITE, environment=ws.venv,
           cwd=ws.root, args=[inner])
    ev = r.recv()
    while ev["type"] in ("queued", "started", "output") and ev.get("id") != "c":
        ev = r.recv()
    if MODE == "namespaces":
        events = [ev] + r.collect("c") if ev["type"] != "exited" else [ev]
        out = "".join(e.get("data", "") for e in events if e["type"] == "output")
        t.ok("refused" in out and "WROTE" not in out,
             "namespaces: with the workspace as cwd, the venv under /work is read-only", out)
    else:
        t.ok(ev["type"] == "error" and ev["code"] == "invalid_value"
             and "fallback mode" in ev["message"],
             "fallback: a venv inside the run's cwd is refused with a reason", ev)
    t.ok(not os.path.exists(os.path.join(ws.venv, "lib", "planted.py"))
         and not os.path.exists(os.path.join(ws.site_packages(), "planted.py")),
         "nothing was planted in the venv")
    r.close()
    ws.remove()


def test_detect_nested(t):
    """sandpad-run finds .venv from a file two directories below the
    workspace, and stops at the workspace: a venv above it is not used."""
    ws = Workspace()
    make_module(ws.site_packages(), "envprobe", "WORD = 'detected'\n")
    nested = os.path.join(ws.root, "a", "b")
    os.makedirs(nested)
    script = os.path.join(nested, "probe.py")
    with open(script, "w") as f:
        f.write(PROBE)
    os.chmod(os.path.join(ws.root, "a"), 0o755)
    os.chmod(nested, 0o755)
    os.chmod(script, 0o644)
    res = subprocess.run([SANDPAD_RUN, "--sandbox", MODE, "--strict", script],
                         capture_output=True, text=True, cwd=ws.root)
    t.ok(res.returncode == 0 and "module detected" in res.stdout
         and f"prefix {ws.venv}" in res.stdout,
         "a nested file runs in the workspace's .venv", res.stdout + res.stderr)
    res = subprocess.run([SANDPAD_RUN, "--sandbox", MODE, "--workspace", nested, script],
                         capture_output=True, text=True, cwd=ws.root)
    t.ok(res.returncode != 0 and "ModuleNotFoundError" in res.stderr,
         "the search stops at --workspace (the venv above is not used)",
         res.stdout + res.stderr)
    res = subprocess.run([SANDPAD_RUN, "--sandbox", MODE, "--no-environment", script],
                         capture_output=True, text=True, cwd=ws.root)
    t.ok(res.returncode != 0 and "ModuleNotFoundError" in res.stderr,
         "--no-environment runs the system's interpreter", res.stdout + res.stderr)
    ws.remove()


def test_refused(t):
    """A venv whose base is not a system interpreter is refused with a
    clear message: a copied binary, a link to a binary elsewhere, a home
    outside the system's directories; and one outside the allowed
    directories."""
    ws = Workspace()
    r = runner(ws)
    r.hello()
    elsewhere = tempfile.mkdtemp(prefix="sandpad-env-bin-")
    os.chmod(elsewhere, 0o755)
    fake = os.path.join(elsewhere, "python3")
    shutil.copy(os.path.realpath(SYSTEM_PYTHON), fake)
    python = os.path.join(ws.venv, "bin", "python")
    target = os.readlink(python)

    def refusal(run_id, what):
        r.send(type="run", id=run_id, language="python", code="print(1)",
               environment=ws.venv)
        ev = r.recv()
        t.ok(ev["type"] == "error" and ev["code"] == "invalid_value"
             and "environment" in ev["message"], what, ev)
        return ev

    os.unlink(python)
    os.symlink(fake, python)
    ev = refusal("a", "bin/python linking to an interpreter outside /usr/bin is refused")
    t.ok("not one of the system's interpreters" in ev.get("message", ""),
         "the message says why", ev)
    os.unlink(python)
    shutil.copy(fake, python)
    refusal("b", "a copied interpreter (venv --copies) is refused")
    os.unlink(python)
    os.symlink(target, python)
    cfg = os.path.join(ws.venv, "pyvenv.cfg")
    text = open(cfg).read()
    with open(cfg, "w") as f:
        f.write(text.replace("home = /usr/bin", f"home = {elsewhere}"))
    ev = refusal("c", "a pyvenv.cfg home outside the system's directories is refused")
    t.ok("not one of the system's interpreter directories" in ev.get("message", ""),
         "the message names the home", ev)
    with open(cfg, "w") as f:
        f.write(text)
    res = r.run("d", "print('fine')", environment=ws.venv)
    t.ok(res.stdout == "fine\n", "control: the restored venv runs", res)
    r.close()

    r = Runner(RUNNER, "--sandbox", MODE, "--allow-environment", elsewhere)
    r.hello()
    r.send(type="run", id="e", language="python", code="print(1)", environment=ws.venv)
    ev = r.recv()
    t.ok(ev["type"] == "error" and "outside the directories" in ev.get("message", ""),
         "a venv outside the allowed directories is refused", ev)
    r.send(type="run", id="f", language="python", code="print(1)", environment="venv")
    ev = r.recv()
    t.ok(ev["type"] == "error" and ev["code"] == "invalid_value",
         "a relative environment is refused", ev)
    r.close()
    shutil.rmtree(elsewhere, ignore_errors=True)
    ws.remove()


def test_node_modules(t):
    """A workspace's node_modules: require('x') of a local package works
    with it, fails without it, and the run cannot write into it."""
    ws = Workspace(venv=False)
    modules = os.path.join(ws.root, "node_modules")
    pkg = os.path.join(modules, "leftpad-local")
    os.makedirs(pkg)
    with open(os.path.join(pkg, "package.json"), "w") as f:
        f.write('{"name": "leftpad-local", "version": "1.0.0", "main": "index.js"}\n')
    with open(os.path.join(pkg, "index.js"), "w") as f:
        f.write("module.exports = (s, n) => s.padStart(n, '*');\n")
    ws.give_to_run_uid()
    code = ("const pad = require('leftpad-local');\n"
            "console.log(pad('ok', 5));\n"
            "const fs = require('fs');\n"
            "try { fs.writeFileSync(process.argv[2] + '/planted.js', 'x');"
            " console.log('WROTE'); }\n"
            "catch (e) { console.log('refused', e.code); }\n")
    r = runner(ws)
    r.hello()
    res = r.run("a", code, language="javascript", environment=modules, args=[pkg])
    t.ok("***ok" in res.stdout, "require() finds the workspace's package", res)
    t.ok("refused" in res.stdout and "WROTE" not in res.stdout,
         "a node run cannot write into node_modules", res)
    res = r.run("b", code, language="javascript", args=[pkg])
    t.ok("Cannot find module" in res.stderr, "control: without it require() fails", res)
    r.close()
    ws.remove()


def test_bash_venv(t):
    """A bash run (a command) with a venv gets it activated, as `source
    .venv/bin/activate` would: its python first on PATH, VIRTUAL_ENV set,
    the venv read-only. `python` alone is python3 in every run (issue 25).
    Control: the same command without the venv cannot import its package."""
    ws = Workspace()
    make_module(ws.site_packages(), "envprobe", "WORD = 'from-the-venv'\n")
    r = runner(ws)
    r.hello()
    code = ("python -c 'import envprobe, sys; print(envprobe.WORD, sys.prefix)'\n"
            "echo \"venv=$VIRTUAL_ENV\"\n"
            "command -v python\n"
            "touch \"$VIRTUAL_ENV/planted\" 2>/dev/null && echo WROTE || echo refused\n")
    res = r.run("a", code, language="bash", environment=ws.venv)
    lines = res.stdout.splitlines()
    t.eq(lines[:2], [f"from-the-venv {ws.venv}", f"venv={ws.venv}"],
         "the venv's python runs and VIRTUAL_ENV names it", res)
    t.eq(lines[2:3], [f"{ws.venv}/bin/python"], "its bin/ comes first on PATH", res)
    t.eq(lines[3:], ["refused"], "the venv stays read-only to the run", res)
    t.ok(not os.path.exists(os.path.join(ws.venv, "planted")), "nothing was planted")
    res = r.run("b", code, language="bash")
    t.ok("ModuleNotFoundError" in res.stderr and "venv=\n" in res.stdout,
         "control: without the venv the package does not import", res)
    own = "/.sandpad/prelude/bin/python" if MODE == "namespaces" else "/.sandpad/bin/python"
    t.ok(res.stdout.splitlines()[1].endswith(own),
         "without a venv `python` is the run's own alias", res)
    res = r.run("c", "import subprocess\n"
                "print(subprocess.run(['python', '-c', 'import sys; print(sys.version_info[0])'],"
                " capture_output=True, text=True).stdout.strip())\n")
    t.eq(res.stdout, "3\n", "`python` is python3 from a Python run too", res)
    r.close()
    ws.remove()


def test_session(t):
    """A session run naming an environment gets it as a cold run does: the
    session's interpreter is the venv's (its sys.prefix, its packages),
    the venv read-only, and started names it; JavaScript sessions get a
    node_modules. The environment is the interpreter's, fixed at its start
    like memory_mib: a later run naming another one (or none) is refused
    with the field named. Control: a session without it cannot import the
    venv's package."""
    ws = Workspace()
    make_module(ws.site_packages(), "envprobe", "WORD = 'from-the-venv'\n")
    other = Workspace()
    r = runner(ws, "--allow-environment", other.root)
    r.hello()
    res = r.run("a", PROBE + "x = 1\n", environment=ws.venv, session="s")
    t.eq(res.exited.get("exit_code"), 0, "a session's first run in the venv exits 0", res)
    t.ok(f"prefix {ws.venv}\n" in res.stdout, "the session's sys.prefix is the venv", res)
    t.ok("module from-the-venv" in res.stdout, "the venv's own package imports in it", res)
    t.eq(res.started and res.started.get("environment"), ws.venv,
         "started names the environment")
    res = r.run("b", WRITE + "print(envprobe.WORD, x)\n", environment=ws.venv, session="s",
                args=[ws.site_packages()])
    lines = res.stdout.splitlines()
    t.ok(len(lines) == 2 and lines[0].startswith("refused") and lines[1] == "from-the-venv 1",
         "the next run keeps the state and the venv, which it cannot write", res)
    t.ok("WROTE" not in res.stdout
         and not os.path.exists(os.path.join(ws.site_packages(), "planted.py")),
         "nothing was planted in the venv", res)
    for rid, env in (("c", other.venv), ("d", None)):
        fields = dict(type="run", id=rid, language="python", code="print(1)", session="s")
        if env is not None:
            fields["environment"] = env
        r.send(**fields)
        ev = r.recv_type("error")
        t.ok(ev is not None and ev.get("code") == "invalid_value"
             and "environment" in ev.get("message", ""),
             f"a run naming {'another environment' if env else 'no environment'} in the "
             "session is refused, naming the field", ev)
    ctl = r.run("e", PROBE, session="t")
    t.ok(ctl.exited.get("exit_code") != 0 and "ModuleNotFoundError" in ctl.stderr,
         "control: a session without the environment cannot import its package", ctl)
    r.close()
    ws.remove()
    other.remove()


TESTS = {f.__name__[5:]: f for f in (test_venv_used, test_read_only, test_detect_nested,
                                     test_refused, test_node_modules, test_bash_venv,
                                     test_session)}

if __name__ == "__main__":
    names = sys.argv[3:] or list(TESTS)
    main([TESTS[n] for n in names])
