# SPDX-License-Identifier: GPL-2.0
"""TAP output for the Python tests, host and guest alike (tap.h's twin):
one "ok"/"not ok" line per check, details of a failure as comments, the
plan at the end."""


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def check(self, cond, desc, detail=None):
        self.n += 1
        if not cond:
            self.failed += 1
        print(("ok" if cond else "not ok") + " %d - %s" % (self.n, desc), flush=True)
        if not cond and detail is not None:
            for line in str(detail).splitlines():
                print("#   " + line, flush=True)
        return cond

    def eq(self, got, want, desc):
        return self.check(got == want, desc, "got %r, want %r" % (got, want))

    def diag(self, text):
        for line in str(text).splitlines():
            print("# " + line, flush=True)

    def done(self):
        """Print the plan; the exit status: 1 when a check failed."""
        print("1..%d" % self.n, flush=True)
        return 1 if self.failed else 0
