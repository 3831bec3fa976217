"""Helpers for the environment and install tests: a workspace with a real
venv (made by the system's python3, as Sandpad's "Create environment"
does), owned by the uid runs get, so that only the sandbox stands between
a run and its environment."""

import glob
import os
import shutil
import subprocess
import tempfile

SYSTEM_PYTHON = "/usr/bin/python3"
NOBODY = 65534
# The uid the runner gives programs: nobody under a root runner, else ours.
RUN_UID = NOBODY if os.geteuid() == 0 else os.geteuid()


def as_run_uid():
    """A preexec_fn that becomes the run's uid (None when we already are)."""
    if os.geteuid() == RUN_UID:
        return None

    def drop():
        os.setgroups([])
        os.setresgid(RUN_UID, RUN_UID, RUN_UID)
        os.setresuid(RUN_UID, RUN_UID, RUN_UID)
    return drop


class Workspace:
    """A temporary workspace directory, with .venv in it unless venv=False;
    `pip` makes the venv with its own pip (slower), for installs."""

    def __init__(self, venv=True, pip=False):
        self.root = os.path.realpath(tempfile.mkdtemp(prefix="sandpad-env-ws-"))
        os.chmod(self.root, 0o755)
        self.venv = os.path.join(self.root, ".venv")
        if venv:
            args = [SYSTEM_PYTHON, "-m", "venv", "--system-site-packages"]
            if not pip:
                args.append("--without-pip")
            subprocess.run(args + [self.venv], check=True)
        self.give_to_run_uid()

    def give_to_run_uid(self):
        for dirpath, dirnames, filenames in os.walk(self.root):
            for name in [dirpath] + [os.path.join(dirpath, n) for n in dirnames + filenames]:
                os.lchown(name, RUN_UID, RUN_UID)
                if not os.path.islink(name):
                    os.chmod(name, os.stat(name).st_mode | 0o755 if os.path.isdir(name)
                             else os.stat(name).st_mode | 0o644)

    def site_packages(self):
        return glob.glob(os.path.join(self.venv, "lib", "python3*", "site-packages"))[0]

    def remove(self):
        shutil.rmtree(self.root, ignore_errors=True)


def make_module(directory, name, text):
    path = os.path.join(directory, name + ".py")
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o644)
    os.chown(path, RUN_UID, RUN_UID)
    return path
