#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The page client as an ES module (web/dsbridge.mjs, package "dsbridged-client") in headless
Chromium against a real dsbridged.

Starts the daemon on free loopback ports with the demo interfaces (web root web/, which serves
/dsbridge.mjs), then loads each page of web/tests/esm/: its import map resolves the package
name to /dsbridge.mjs, the page does `import * as client from 'dsbridged-client'` and
web/tests/esm/page.mjs calls through it. The pages: the module alone; after a plain
<script src="/dsbridge.js">; after the original npm "dsbridge" 3.1.4 (its dist file,
web/tests/vendor/, as a plain script); and before it (the original evaluated right after the
module, wrapped as a bundler wraps a CommonJS module). On each page:

  - page -> native through the module: a sync call, `call`, hasNativeMethod, a callback,
    invoke with progress values, a namespaced async method, an unknown method's error kind;
    through the original library too on the pages that have it;
  - who owns window.dsBridge (the original when it came first, else the module), one session
    for everything on the page, listed ready by the admin API;
  - native -> page through the admin API (POST /admin/sessions/ID/call): methods registered
    through the module (sync, async, a namespace, progress values) and through the original;
  - no uncaught error or unhandled rejection; window.close() ends the session.

Prints one line per check, then `N passed, M failed`; exits non-zero on any failure. The daemon
and the browser are stopped at the end, and everything within --max-seconds.

    scripts/esm_browser_test.py [--daemon .build/debug/dsbridged] [--page NAME ...]
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dsbtest.browser import BrowserRun, native_call, session_ready, sessions, wait_for  # noqa: E402
from dsbtest.checks import Checks  # noqa: E402
from dsbtest.daemon import binary_path, script_parser  # noqa: E402

# (page, what the page loads, who owns window.dsBridge, whether the original library is there)
PAGES = [
    ("module.html", "the module alone", "module", False),
    ("script-first.html", "/dsbridge.js, then the module", "module", False),
    ("original-first.html", "the original 3.1.4, then the module", "original", True),
    ("module-first.html", "the module, then the original 3.1.4", "module", True),
]
PAGE_TIMEOUT_S = 20

# What web/tests/esm/page.mjs sees, with the daemon's --demo interfaces (PROTOCOL.md 8).
EXPECTED = {
    "exports": [],
    "defaultIsDsBridge": True,
    "syn": "Hello[ syn call]",
    "echoSyn": {"msg": "hi", "tag": 1},
    "hasAsyn": True,
    "hasMissing": False,
    "asyn": "hi [ asyn call]",
    "progress": {"final": 0, "values": [10, 9, 8, 7, 6, 5, 4, 3, 2, 1]},
    "swift": "x[Swift async call:test]",
    "notFound": "methodNotFound",
    "sameSession": True,
}
EXPECTED_ORIGINAL = {
    "originalSyn": "orig[ syn call]",
    "originalAsyn": "orig [ asyn call]",
    "originalHas": True,
}

# Native -> page calls: (method, args, the admin API's 200 answer).
NATIVE = [
    ("addValue", [3, 4], {"data": 7, "progress": []}),
    ("append", ["I", "love", "you"], {"data": "I love you", "progress": []}),
    ("esm.echo", [{"a": [1, "two"], "b": None}], {"data": {"a": [1, "two"], "b": None}, "progress": []}),
    ("countdown", [3], {"data": 0, "progress": [3, 2, 1]}),
    ("_hasJavascriptMethod", ["esm.echo", "all"], {"data": True, "progress": []}),
]
NATIVE_ORIGINAL = [
    ("originalEcho", ["x"], {"data": {"from": "original", "x": "x"}, "progress": []}),
]


def check_page(driver, daemon, checks, page, what, owner, with_original):
    name = page
    before = {s["session"] for s in sessions(daemon)}
    driver.get(daemon.url("/tests/esm/" + page))
    state = wait_for(lambda: driver.execute_script("return window.esm && window.esm.done ? window.esm : null"),
                     PAGE_TIMEOUT_S)
    if not checks.check(bool(state), "%s (%s): the page ran its calls within %d s" % (name, what, PAGE_TIMEOUT_S),
                        "" if state else json.dumps(driver.execute_script("return window.esm || null"))[:400]):
        return
    if not checks.check(state["error"] is None, "%s: the page's calls threw nothing" % name, state["error"]):
        return
    results = state["results"]
    expected = dict(EXPECTED, owner=owner)
    if with_original:
        expected.update(EXPECTED_ORIGINAL)
    for key, value in expected.items():
        checks.check(results.get(key) == value, "%s: %s" % (name, key),
                     "expected %s, got %s" % (json.dumps(value), json.dumps(results.get(key))))

    session = results.get("session")
    if not checks.check(bool(session), "%s: the module reports its session id" % name):
        return
    new = {s["session"] for s in sessions(daemon)} - before
    checks.check(new == {session}, "%s: one session for the whole page" % name, "new sessions: %s" % sorted(new))
    checks.check(bool(wait_for(lambda: session_ready(daemon, session), 10)),
                 "%s: the session is ready (_dsb.dsinit arrived)" % name)
    connected = [e for e in state["events"] if e[0] == "connected"]
    if results.get("scriptSession") is None:  # else the script's socket was welcomed before the module listened
        # (resumed: true when the page's first sync call made the session, POST /dsbridge/session)
        checks.check(len(connected) == 1 and connected[0][1].get("session") == session,
                     "%s: one `connected` event, for that session" % name, json.dumps(state["events"]))
    else:
        checks.check(results["scriptSession"] == session, "%s: the module uses the script's session" % name)
    others = [e for e in state["events"] if e[0] != "connected"]
    checks.check(not others, "%s: no sessionLost or callFailed event" % name, json.dumps(others))

    for method, args, answer in NATIVE + (NATIVE_ORIGINAL if with_original else []):
        status, got = native_call(daemon, session, method, args)
        checks.check(status == 200 and got == answer, "%s: native -> page %s %s" % (name, method, json.dumps(args)),
                     "expected 200 %s, got %s %s" % (json.dumps(answer), status, json.dumps(got)))

    errors = driver.execute_script("return window.pageErrors")
    checks.check(errors == [], "%s: no uncaught error or unhandled rejection" % name, json.dumps(errors))

    driver.execute_script("window.close()")
    ended = wait_for(lambda: all(s.get("session") != session for s in sessions(daemon)), 5)
    checks.check(bool(ended), "%s: window.close() ends the session" % name)


def main():
    parser = script_parser(__doc__)
    parser.add_argument("--page", action="append", help="run only these pages of web/tests/esm/ (e.g. module.html)")
    parser.add_argument("--max-seconds", type=float, default=180)
    options = parser.parse_args()

    checks = Checks()
    binary = binary_path(options.daemon)
    with BrowserRun(checks, max_seconds=options.max_seconds) as run:
        daemon = run.start_daemon(binary, [], "/tmp/dsbridged-esm-browser-test.log")
        driver = run.start_driver()
        for page, what, owner, with_original in PAGES:
            if options.page and page not in options.page:
                continue
            try:
                check_page(driver, daemon, checks, page, what, owner, with_original)
            except Exception as e:  # noqa: BLE001 - a page that throws is a failure, the next one runs
                checks.check(False, "%s aborted: %s: %s" % (page, type(e).__name__, e))
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())
