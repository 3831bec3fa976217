#!/usr/bin/env python3
"""Every translation catalogue has an entry for every string the sources
mark for translation: po/LINGUAS's .po files against a template made now
from po/POTFILES.in (what `meson compile sandpad-update-po` merges).

    test-po-current.py SOURCE_ROOT XGETTEXT MSGCMP

An entry left untranslated or fuzzy counts (a new string waits for its
translator); a missing one fails, naming it: the catalogue is stale.
"""

import os
import subprocess
import sys
import tempfile

from datatap import Tap, skip_all

ROOT, XGETTEXT, MSGCMP = sys.argv[1:4]

# The keywords of meson's i18n 'glib' preset (po/meson.build uses it):
# only these decide which strings are extracted.
KEYWORDS = ["_", "N_", "C_:1c,2", "NC_:1c,2", "g_dcgettext:2", "g_dngettext:2,3",
            "g_dpgettext2:2c,3"]


def lines(path):
    with open(path, encoding="utf-8") as f:
        return [l.strip() for l in f if l.strip() and not l.lstrip().startswith("#")]


def main():
    if not XGETTEXT or not MSGCMP:
        skip_all("xgettext or msgcmp (gettext) not found")
    t = Tap()
    po = os.path.join(ROOT, "po")
    with tempfile.TemporaryDirectory(prefix="sp-po-") as tmp:
        pot = os.path.join(tmp, "sandpad.pot")
        made = subprocess.run([XGETTEXT, "--from-code=UTF-8", "--package-name=sandpad",
                               "--files-from", os.path.join(po, "POTFILES.in"),
                               "--directory", ROOT, "--output", pot]
                              + ["--keyword=" + k for k in KEYWORDS],
                              capture_output=True, text=True)
        if not t.ok(made.returncode == 0 and os.path.exists(pot),
                    "a template from po/POTFILES.in", made.stderr):
            return t.done()
        for lang in lines(os.path.join(po, "LINGUAS")):
            cmp = subprocess.run([MSGCMP, "--use-fuzzy", "--use-untranslated",
                                  os.path.join(po, lang + ".po"), pot],
                                 capture_output=True, text=True)
            t.ok(cmp.returncode == 0,
                 f"po/{lang}.po has every string of the sources (stale: run "
                 "`meson compile -C BUILD sandpad-update-po`)", cmp.stderr)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
