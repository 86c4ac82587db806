# SPDX-License-Identifier: MIT
"""Checks and reporting: one way for every test script to record a result and end.

    checks = Checks()
    checks.check(ok, "name", "detail")         # one line: PASS name: detail / FAIL name: detail
    checks.case("name", fn, *args)              # runs fn; Fail or any exception fails the case,
                                                # a returned string is the detail of a pass
    sys.exit(checks.summary())                  # `N passed, M failed`; 0 when nothing failed

Inside a case, `check(cond, text)` raises Fail(text). Lines starting with `#` are
information (`checks.note`). Thread-safe: background cases may record from their threads.
"""

import sys
import threading
import traceback


class Fail(Exception):
    """A check inside a case failed; the message says what was expected and what came."""


def check(cond, text):
    """Raises Fail(text) unless cond."""
    if not cond:
        raise Fail(text)


def describe_error(e):
    """An unexpected exception of a case, with the last lines of its trace."""
    return "case error %s: %s | %s" % (type(e).__name__, e, traceback.format_exc().strip().splitlines()[-3:])


def outcome(fn, *args, **kwargs):
    """Runs fn(*args, **kwargs) as a case: (True, its return value) or (False, why it failed)."""
    try:
        return True, fn(*args, **kwargs)
    except Fail as e:
        return False, str(e)
    except Exception as e:  # noqa: BLE001 - a crash of the case is a failure with its trace
        return False, describe_error(e)


class Checks:
    """Results of one run. `quiet=True` prints only failures (pages with hundreds of rows)."""

    def __init__(self, quiet=False, stream=None):
        self.quiet = quiet
        self.stream = stream or sys.stdout
        self.results = []          # (ok, name, detail)
        self.lock = threading.Lock()

    @property
    def passed(self):
        return sum(1 for r in self.results if r[0])

    @property
    def failed(self):
        return sum(1 for r in self.results if not r[0])

    def out(self, line):
        with self.lock:
            print(line, file=self.stream, flush=True)

    def note(self, line):
        self.out("# " + line)

    def check(self, ok, name, detail=""):
        """Records one result and prints its line; returns ok (as a bool)."""
        ok = bool(ok)
        detail = "" if detail is None else str(detail)
        with self.lock:
            self.results.append((ok, name, detail))
        if not ok or not self.quiet:
            self.out("%s %s%s" % ("PASS" if ok else "FAIL", name, ": " + detail if detail else ""))
        return ok

    def case(self, name, fn, *args, **kwargs):
        """Runs fn(*args, **kwargs) as one case; its return value (if any) is the detail."""
        ok, detail = outcome(fn, *args, **kwargs)
        return self.check(ok, name, detail)

    def summary(self):
        """Prints `N passed, M failed`; returns the exit code (1 on any failure)."""
        self.out("%d passed, %d failed" % (self.passed, self.failed))
        return 1 if self.failed else 0
