"""The desktop integration files agree with each other and with the
project: one application id everywhere, the launcher runs the installed
command, and the newest AppStream release is the version being built.

The launcher is D-Bus activatable, so the D-Bus service file must name the
id and start the installed command in GApplication's service mode.

Usage: test-ids.py APP-ID VERSION DESKTOP METAINFO GSCHEMA ICON SYMBOLIC-ICON DBUS-SERVICE
"""

import configparser
import os
import sys
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from datatap import Tap  # noqa: E402


def key_file_group(path, group):
    parser = configparser.RawConfigParser(interpolation=None, delimiters=("=",),
                                          comment_prefixes=("#",), strict=True)
    parser.optionxform = str  # keys are case-sensitive
    parser.read(path, encoding="utf-8")
    return parser[group]


def desktop_entry(path):
    return key_file_group(path, "Desktop Entry")


def main(argv):
    app_id, version, desktop, metainfo, gschema, icon, symbolic, service = argv[1:9]
    t = Tap()

    entry = desktop_entry(desktop)
    t.ok(os.path.basename(desktop) == app_id + ".desktop", "desktop file is named after the id",
         desktop)
    t.ok(entry.get("Icon") == app_id, "desktop Icon is the id", entry.get("Icon"))
    t.ok(entry.get("Exec", "").split()[:1] == ["sandpad"], "desktop Exec runs sandpad",
         entry.get("Exec"))

    t.ok(entry.get("DBusActivatable") == "true", "desktop file is D-Bus activatable",
         entry.get("DBusActivatable"))
    bus = key_file_group(service, "D-BUS Service")
    t.ok(os.path.basename(service) == app_id + ".service", "D-Bus service is named after the id",
         service)
    t.ok(bus.get("Name") == app_id, "D-Bus service Name is the id", bus.get("Name"))
    exec_args = bus.get("Exec", "").split()
    t.ok(len(exec_args) == 2 and os.path.basename(exec_args[0]) == "sandpad"
         and os.path.isabs(exec_args[0]) and exec_args[1] == "--gapplication-service",
         "D-Bus service runs sandpad --gapplication-service", bus.get("Exec"))

    component = ET.parse(metainfo).getroot()
    t.ok(component.findtext("id") == app_id, "metainfo id is the id", component.findtext("id"))
    launchable = component.find("launchable[@type='desktop-id']")
    t.ok(launchable is not None and launchable.text == app_id + ".desktop",
         "metainfo launches the desktop file",
         None if launchable is None else launchable.text)
    binaries = [b.text for b in component.findall("provides/binary")]
    t.ok("sandpad" in binaries, "metainfo provides the sandpad binary", binaries)
    releases = component.findall("releases/release")
    newest = releases[0].get("version") if releases else None
    t.ok(newest == version, f"newest metainfo release is the project version {version}",
         f"newest release: {newest}")

    schema = ET.parse(gschema).getroot().find("schema")
    t.ok(schema is not None and schema.get("id") == app_id, "schema id is the id",
         None if schema is None else schema.get("id"))
    want_path = "/" + app_id.replace(".", "/") + "/"
    t.ok(schema is not None and schema.get("path") == want_path, f"schema path is {want_path}",
         None if schema is None else schema.get("path"))

    t.ok(os.path.basename(icon) == app_id + ".svg", "app icon is named after the id", icon)
    t.ok(os.path.basename(symbolic) == app_id + "-symbolic.svg",
         "symbolic icon is named after the id", symbolic)
    return t.done()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
