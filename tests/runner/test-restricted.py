"""Platforms that restrict user namespaces, simulated: a seccomp filter
(eperm-exec) makes the step such a platform refuses fail with EPERM for the
runner and everything it starts. Auto mode must land on a working sandbox
(fallback) and run; --sandbox namespaces --strict must refuse runs, saying
why.

Usage: test-restricted.py PATH-TO-SANDPAD-RUNNER PATH-TO-EPERM-EXEC [TEST-NAME...]
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from runnertest import Result, Runner, main  # noqa: E402

RUNNER = sys.argv[1]
EPERM_EXEC = sys.argv[2]

# What each platform refuses (the calls made to fail with EPERM).
PLATFORMS = {
    # Ubuntu 24.04 (apparmor_restrict_unprivileged_userns): unshare
    # succeeds, the namespace has no capabilities, so mounts fail.
    "apparmor": "mount,pivot_root",
    # A kernel that refuses unprivileged user namespaces outright.
    "hardened": "unshare",
    # Mounts work but pivot_root does not.
    "no_pivot": "pivot_root",
}


def start(platform, *args):
    cmd = [RUNNER, *args]
    if platform is not None:
        cmd = [EPERM_EXEC, PLATFORMS[platform]] + cmd
    r = Runner(*cmd)
    r.hello()
    return r


def run_hello(r, run_id):
    r.send(type="run", id=run_id, language="python", code="print('hello')")
    events = r.collect(run_id)
    started = next((e for e in events if e["type"] == "started"), {})
    return started.get("sandbox", {}).get("mode"), Result(events)


def host_namespaces():
    """The mode auto picks with nothing refused: the control."""
    r = start(None, "--sandbox", "auto")
    mode, _ = run_hello(r, "control")
    r.close()
    return mode


def check_platform(t, platform):
    r = start(platform, "--sandbox", "auto")
    mode, res = run_hello(r, "auto")
    r.close()
    t.ok(mode == "fallback" and res.stdout == "hello\n" and res.exited.get("end") == "exited",
         f"{platform} ({PLATFORMS[platform]} refused): auto mode picks fallback and runs",
         f"mode={mode} {res}")

    r = start(platform, "--sandbox", "namespaces", "--strict")
    _, res = run_hello(r, "strict")
    r.close()
    error = res.exited.get("error", "")
    t.ok(res.exited.get("end") == "failed" and "(strict)" in error and res.stdout == "",
         f"{platform}: --sandbox namespaces --strict refuses the run and says why",
         f"{res}")


def test_restricted(t):
    control = host_namespaces()
    if control != "namespaces":
        # Here nothing more is refused than the host already refuses: the
        # simulation would prove nothing about falling back.
        t.skip(f"this host gives no namespace mode (auto picks {control}): nothing to simulate")
        return
    print("# control: with nothing refused, auto mode picks namespaces", flush=True)
    for platform in PLATFORMS:
        check_platform(t, platform)


TESTS = {"restricted": test_restricted}

if __name__ == "__main__":
    names = sys.argv[3:] or list(TESTS)
    main([TESTS[n] for n in names])
