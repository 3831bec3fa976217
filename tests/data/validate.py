"""Run one validator on one of the desktop integration files, as TAP.

Usage: validate.py NAME PROGRAM [--silent] -- ARGS...

PROGRAM is the validator's path as meson found it, or '' when meson did
not find it: the test then reports SKIP, never a pass. With --silent any
output counts as a failure too, for validators that print warnings and
hints but still exit 0 (desktop-file-validate, glib-compile-schemas).
"""

import os
import subprocess
import sys

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from datatap import Tap, skip_all  # noqa: E402


def main(argv):
    sep = argv.index("--")
    opts, args = argv[1:sep], argv[sep + 1:]
    name, program = opts[0], opts[1]
    silent = "--silent" in opts[2:]
    if not program:
        skip_all(f"{name} not found when meson configured the build "
                 f"(install it, then meson setup --reconfigure)")
    proc = subprocess.run([program, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, env={**os.environ, "LC_ALL": "C.UTF-8"})
    out = proc.stdout.strip()
    t = Tap()
    what = f"{name} {' '.join(os.path.basename(a) for a in args)}"
    t.ok(proc.returncode == 0, f"{what}: exit status 0",
         f"exit status {proc.returncode}\n{out}")
    if silent:
        t.ok(out == "", f"{what}: no warnings or hints", out)
    elif out and proc.returncode == 0:
        for line in out.splitlines():
            print(f"# {line}")
    return t.done()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
