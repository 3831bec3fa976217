"""The Flatpak manifest: it parses, builds Sandpad and the libraries the
runtime lacks from pinned sources, and grants the app a window and nothing
more. (CI cannot build it: no Flathub access; see flatpak/README.md.)

Usage: test-flatpak.py MANIFEST.json
"""

import json
import os
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


def modules(manifest):
    """Every module, nested ones included, in build order."""
    def walk(mods):
        for m in mods:
            if isinstance(m, dict):
                yield from walk(m.get("modules", []))
                yield m
    return list(walk(manifest.get("modules", [])))


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

    mods = modules(manifest)
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

    build_args = list(manifest.get("build-options", {}).get("build-args", []))
    for m in mods:
        build_args += m.get("build-options", {}).get("build-args", [])
    t.ok("--share=network" not in build_args, "no module builds with network access",
         build_args)
    return t.done()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
