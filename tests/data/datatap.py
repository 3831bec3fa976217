"""TAP output for the data tests: one check is one test point."""

import sys


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, desc, diag=None):
        self.n += 1
        if cond:
            print(f"ok {self.n} - {desc}", flush=True)
        else:
            self.failed += 1
            print(f"not ok {self.n} - {desc}", flush=True)
            if diag is not None:
                for line in str(diag).splitlines()[:60]:
                    print(f"#   {line}", flush=True)
        return bool(cond)

    def skip(self, desc, reason):
        self.n += 1
        print(f"ok {self.n} - {desc} # SKIP {reason}", flush=True)

    def done(self):
        print(f"1..{self.n}", flush=True)
        return 1 if self.failed else 0


def skip_all(reason):
    """The whole test is skipped: meson reports SKIP, not a pass. (An exit
    status of 77 would not do here: under protocol 'tap' meson reports any
    non-zero exit as ERROR.)"""
    print(f"1..0 # SKIP {reason}", flush=True)
    sys.exit(0)
