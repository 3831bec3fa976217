"""The app icons: well-formed SVG of the right size, self-contained, and a
symbolic icon that GTK can recolour.

Usage: test-icons.py SCALABLE.svg SYMBOLIC.svg RSVG-CONVERT|''
"""

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from datatap import Tap  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"
XLINK = "{http://www.w3.org/1999/xlink}"
SYMBOLIC_COLOUR = "#2e3436"


def parse(t, path):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        t.ok(False, f"{os.path.basename(path)} is well-formed XML", e)
        return None
    t.ok(root.tag == SVG + "svg", f"{os.path.basename(path)} is an SVG document", root.tag)
    return root


def check_size(t, root, name, size):
    want = f"0 0 {size} {size}"
    t.ok(root.get("viewBox") == want, f"{name}: viewBox is {want}", root.get("viewBox"))
    t.ok(root.get("width") == str(size) and root.get("height") == str(size),
         f"{name}: {size}x{size}", (root.get("width"), root.get("height")))


def check_self_contained(t, root, name):
    """No raster images, text (fonts differ between systems), scripts or
    links outside the file; every url(#id) names an element of the file."""
    banned = {"image", "text", "script", "foreignObject", "use"}
    found = sorted({el.tag.replace(SVG, "") for el in root.iter()} & banned)
    t.ok(not found, f"{name}: no {', '.join(sorted(banned))} elements", found)
    ids = {el.get("id") for el in root.iter() if el.get("id")}
    refs = set()
    external = []
    for el in root.iter():
        for key, value in el.attrib.items():
            refs.update(re.findall(r"url\(#([^)]+)\)", value))
            if key in ("href", XLINK + "href") and not value.startswith("#"):
                external.append(value)
    t.ok(not external, f"{name}: no links outside the file", external)
    t.ok(refs <= ids, f"{name}: every url(#id) is defined", sorted(refs - ids))


def check_symbolic(t, root, name):
    """GTK recolours a symbolic icon by filling its shapes with the theme's
    colour: strokes, gradients, styles and other colours would stay as drawn."""
    shapes = [el for el in root.iter() if el.tag.replace(SVG, "") in
              ("path", "rect", "circle", "ellipse", "polygon")]
    t.ok(shapes, f"{name}: draws something", None)
    others = sorted({el.tag.replace(SVG, "") for el in root.iter()}
                    - {"svg", "g", "path", "rect", "circle", "ellipse", "polygon"})
    t.ok(not others, f"{name}: only plain shapes", others)
    bad = [(el.tag.replace(SVG, ""), dict(el.attrib)) for el in shapes
           if el.get("fill", "").lower() != SYMBOLIC_COLOUR]
    t.ok(not bad, f"{name}: every shape is filled with {SYMBOLIC_COLOUR}", bad)
    styled = [dict(el.attrib) for el in root.iter()
              if {"stroke", "style", "class", "opacity", "fill-opacity"} & set(el.attrib)]
    t.ok(not styled, f"{name}: no strokes, styles, classes or opacity", styled)


def check_renders(t, rsvg, path, name, size):
    if not rsvg:
        t.skip(f"{name}: renders", "rsvg-convert not found when meson configured the build")
        return
    proc = subprocess.run([rsvg, "-w", str(size), "-h", str(size), path],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    t.ok(proc.returncode == 0 and proc.stdout.startswith(b"\x89PNG") and not proc.stderr,
         f"{name}: rsvg-convert renders it at {size}px",
         f"exit {proc.returncode}\n{proc.stderr.decode(errors='replace')}")


def main(argv):
    scalable, symbolic, rsvg = argv[1], argv[2], argv[3]
    t = Tap()
    root = parse(t, scalable)
    if root is not None:
        name = os.path.basename(scalable)
        check_size(t, root, name, 128)
        check_self_contained(t, root, name)
        check_renders(t, rsvg, scalable, name, 128)
        check_renders(t, rsvg, scalable, name, 32)
    root = parse(t, symbolic)
    if root is not None:
        name = os.path.basename(symbolic)
        check_size(t, root, name, 16)
        check_self_contained(t, root, name)
        check_symbolic(t, root, name)
        check_renders(t, rsvg, symbolic, name, 16)
    return t.done()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
