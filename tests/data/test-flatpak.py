"""The Flatpak manifest: it parses, builds Sandpad and the libraries the
runtime lacks from pinned sources, bundles the Python packages runs use
(numpy, matplotlib, pandas and what they need) as pinned cp312 wheels for
each architecture, and grants the app a window and nothing more. (CI cannot
build it: no Flathub access; see flatpak/README.md.)

Usage: test-flatpak.py MANIFEST.json
"""

import json
import os
import re
import sys

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from datatap import Tap  # noqa: E402

APP_ID = "io.github.sandpad.Sandpad"

# A window, and nothing else.
REQUIRED_ARGS = ["--share=ipc", "--socket=wayland", "--socket=fallback-x11", "--device=dri"]


def forbidden(arg):
    """Why a finish-arg must not be granted, or None."""
    name, _, value = arg.partition("=")
    base = value.split(":", 1)[0]
    if arg == "--share=network":
        return "network: user code would reach the network whatever the runner does"
    if name == "--filesystem" and (base in ("host", "host-os", "host-etc", "home", "~", "~/")):
        return "host or home files: runs could read and write the user's files"
    if arg in ("--socket=session-bus", "--socket=system-bus"):
        return "a whole message bus: a way out of the sandbox"
    if name in ("--talk-name", "--system-talk-name") and (
            value == "org.freedesktop.Flatpak" or value.startswith("org.freedesktop.Flatpak.")):
        return "org.freedesktop.Flatpak runs commands on the host"
    if arg == "--device=all":
        return "every device node"
    return None


# The runtime's Python (GNOME 47: freedesktop-sdk 24.08, Python 3.12) and
# the architectures Flathub builds.
PYTHON_TAG = "cp312"
ARCHES = ("x86_64", "aarch64")

# What runs import (issue 25, and the prelude's matplotlib capture), and
# what each needs at run time: the Requires-Dist of the pinned versions
# without extras or markers that exclude Python 3.12 on Linux, as
# marimo's uv.lock records them (flatpak/README.md). A package added to
# the wheels needs its own line here.
WANTED = ("numpy", "matplotlib", "pandas")
RUNTIME_DEPS = {
    "numpy": (),
    "matplotlib": ("contourpy", "cycler", "fonttools", "kiwisolver", "numpy", "packaging",
                   "pillow", "pyparsing", "python-dateutil"),
    "pandas": ("numpy", "python-dateutil", "pytz", "tzdata"),
    "contourpy": ("numpy",),
    "python-dateutil": ("six",),
    "cycler": (), "fonttools": (), "kiwisolver": (), "packaging": (), "pillow": (),
    "pyparsing": (), "pytz": (), "six": (), "tzdata": (),
}

HEX64 = re.compile(r"[0-9a-f]{64}")


def modules(manifest, base="."):
    """Every module, nested ones and those in included files (a string in
    a modules list names a JSON file, relative to the file that lists it)
    included, in build order; plus the included files that could not be
    read, as (path, error)."""
    missing = []

    def walk(mods, here):
        for m in mods:
            if isinstance(m, str):
                path = os.path.join(here, m)
                try:
                    with open(path, encoding="utf-8") as f:
                        m = json.load(f)
                except (OSError, ValueError) as e:
                    missing.append((path, e))
                    continue
                here_m = os.path.dirname(path)
            else:
                here_m = here
            if isinstance(m, dict):
                yield from walk(m.get("modules", []), here_m)
                yield m
    return list(walk(manifest.get("modules", []), base)), missing


def wheel_name(url):
    """The distribution name of a wheel's URL, normalized (PEP 503), and
    its file name; (None, name) for what is not a wheel."""
    name = url.rsplit("/", 1)[-1]
    if not name.endswith(".whl"):
        return None, name
    return re.sub(r"[-_.]+", "-", name.split("-", 1)[0]).lower(), name


def closure(names):
    """names and everything they need at run time."""
    seen, todo = set(), list(names)
    while todo:
        n = todo.pop()
        if n not in seen:
            seen.add(n)
            todo.extend(RUNTIME_DEPS.get(n, ()))
    return seen


def unpinned(module):
    """Sources of a module that could change under the same manifest."""
    bad = []
    for src in module.get("sources", []):
        kind = src.get("type")
        if kind == "git" and not src.get("commit"):
            bad.append(src)
        elif kind in ("archive", "file") and "url" in src and not src.get("sha256"):
            bad.append(src)
    return bad


def main(argv):
    path = argv[1]
    t = Tap()
    try:
        with open(path, encoding="utf-8") as f:
            manifest = json.load(f)
    except (OSError, ValueError) as e:
        t.ok(False, "manifest parses as JSON", e)
        return t.done()
    if not t.ok(isinstance(manifest, dict), "manifest parses as a JSON object", type(manifest)):
        return t.done()

    ids = [manifest.get(k) for k in ("id", "app-id") if k in manifest]
    t.ok(ids == [APP_ID], f"app id is {APP_ID} (given once, as id or app-id)", ids)
    t.ok(manifest.get("command") == "sandpad", "command is sandpad", manifest.get("command"))
    t.ok(manifest.get("runtime") == "org.gnome.Platform" and manifest.get("sdk") == "org.gnome.Sdk",
         "GNOME runtime and Sdk", (manifest.get("runtime"), manifest.get("sdk")))
    t.ok(isinstance(manifest.get("runtime-version"), str) and manifest.get("runtime-version"),
         "runtime version given as a string", manifest.get("runtime-version"))

    mods, missing = modules(manifest, os.path.dirname(os.path.abspath(path)))
    t.ok(not missing, "every included module file parses", missing)
    by_name = {m.get("name"): m for m in mods}
    app = by_name.get("sandpad")
    t.ok(app is not None and app.get("buildsystem") == "meson",
         "a module named sandpad, built with meson", app)
    t.ok(app is not None and any(s.get("type") == "dir" and s.get("path") == ".."
                                 for s in app.get("sources", [])),
         "sandpad is built from this repository (dir source '..')", app and app.get("sources"))
    t.ok(bool(mods) and mods[-1].get("name") == "sandpad", "sandpad is built last, after its libraries",
         [m.get("name") for m in mods])
    t.ok("jansson" in by_name, "jansson is built (the GNOME runtime does not ship it)",
         sorted(by_name))
    # freedesktop-sdk, which the GNOME runtime is built on, puts libseccomp
    # in its Platform (and its headers in the Sdk): a second copy in /app
    # would only shadow it. See flatpak/README.md.
    t.ok("libseccomp" not in by_name, "libseccomp is not built again (the runtime ships it)",
         sorted(by_name))
    for m in mods:
        bad = unpinned(m)
        t.ok(not bad, f"module {m.get('name')}: every downloaded source is pinned "
             "(git commit or sha256)", bad)

    args = manifest.get("finish-args", [])
    t.ok(isinstance(args, list) and all(isinstance(a, str) for a in args),
         "finish-args is a list of strings", args)
    for want in REQUIRED_ARGS:
        t.ok(want in args, f"finish-args grant {want}", args)
    for arg in args:
        why = forbidden(arg)
        t.ok(why is None, f"finish-arg {arg} is allowed", why)
    for probe in ("--share=network", "--filesystem=host", "--filesystem=home",
                  "--socket=session-bus", "--socket=system-bus",
                  "--talk-name=org.freedesktop.Flatpak", "--device=all"):
        t.ok(probe not in args, f"finish-args do not grant {probe}", args)

    check_python(t, manifest, mods)

    build_args = list(manifest.get("build-options", {}).get("build-args", []))
    for m in mods:
        build_args += m.get("build-options", {}).get("build-args", [])
    t.ok("--share=network" not in build_args, "no module builds with network access",
         build_args)
    return t.done()


def check_python(t, manifest, mods):
    """The wheels for runs: included from flatpak/python3-modules.json,
    every one pinned by URL and sha256, one per architecture where it has
    compiled code, covering numpy, matplotlib, pandas and their needs."""
    t.ok("python3-modules.json" in manifest.get("modules", []),
         "the manifest includes python3-modules.json (the wheels runs import)",
         [m if isinstance(m, str) else m.get("name") for m in manifest.get("modules", [])])
    names = [m.get("name") for m in mods]
    t.ok("sandpad" in names and all(
        names.index(n) < names.index("sandpad") for n in names if n and n.startswith("python3-")),
        "the Python modules are built before sandpad", names)

    wheels = {}  # name -> {"any"} or the arches with a wheel
    for m in mods:
        for src in m.get("sources", []):
            if src.get("type") != "file" or "url" not in src:
                continue
            url, sha = src.get("url", ""), src.get("sha256", "")
            t.ok(url.startswith("https://files.pythonhosted.org/") and isinstance(sha, str)
                 and HEX64.fullmatch(sha) is not None,
                 f"{url.rsplit('/', 1)[-1]}: a PyPI https URL and a sha256 of 64 hex digits",
                 (url, sha))
            dist, file = wheel_name(url)
            if dist is None:
                continue
            tags = file[:-4].split("-")[-3:]  # python, abi, platform
            arches = src.get("only-arches")
            if tags[2] == "any":
                t.ok(arches is None, f"{file}: a pure wheel is for every architecture", arches)
                wheels.setdefault(dist, set()).add("any")
                continue
            platform_arches = [a for a in ARCHES if a in tags[2]]
            t.ok(tags[0] == PYTHON_TAG and tags[1] == PYTHON_TAG
                 and "manylinux" in tags[2] and "musllinux" not in tags[2],
                 f"{file}: a {PYTHON_TAG} manylinux wheel (the runtime's Python)", tags)
            t.ok(isinstance(arches, list) and len(arches) == 1 and arches == platform_arches,
                 f"{file}: only-arches names the one architecture it is built for",
                 (arches, platform_arches))
            if isinstance(arches, list):
                wheels.setdefault(dist, set()).update(arches)

    need = closure(WANTED)
    for dist in sorted(need):
        have = wheels.get(dist, set())
        t.ok("any" in have or all(a in have for a in ARCHES),
             f"{dist} has a wheel for every architecture ({', '.join(ARCHES)})",
             sorted(have))
    t.ok(not set(wheels) - need, "no wheel that nothing needs", sorted(set(wheels) - need))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
