#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Browser end-to-end tests: dsbridged + web/ pages in headless Chromium.

Starts the daemon on free ports with the demo interfaces, loads each test page in headless
Chromium (selenium, Debian's /usr/bin/chromium and /usr/bin/chromedriver, fully offline),
waits for the page's summary element, then calls the page's JavaScript handlers from the
native side through the admin API (DSBridge's native -> JS demo calls) and ends the session
with window.close(). Then runs the page-side robustness cases of scripts/browser_robustness.py
(their own daemons, small limits). Prints one line per page, per case and per failing row, then
`N passed, M failed`; exits non-zero on any failure.

    scripts/browser_test.py [--daemon .build/debug/dsbridged] [--screenshot /tmp/dsbridged-demo.png]
                            [--page PATH ...] [--case NAME ...] [--tls]

With --tls the daemon serves https:// and wss:// with a throwaway certificate; Chromium
offers h2 by ALPN as browsers do, so this also checks that the daemon stays on HTTP/1.1.
"""

import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dsbtest.browser import BrowserRun, console_errors, row_states, summary_of, wait_for  # noqa: E402
from dsbtest.checks import Checks  # noqa: E402
from dsbtest.daemon import binary_path, make_cert, script_parser  # noqa: E402
from dsbtest.demo import to_native, to_page  # noqa: E402

PAGES = [
    # (path, what it is)
    ("/index.html?tick=100", "demo page (our dsbridge.js)"),
    ("/tests/dsbridge-style.html?tick=100", "DSBridge-style page (our dsbridge.js)"),
    ("/tests/original-hook.html?tick=100", "original dsbridge.js 3.1.4 over window._dsbridge"),
]
PAGE_TIMEOUT_S = 60

# Native -> JS calls of DSBridge's demo (reference 3.2): (method, args, expected answer).
# The expected answer is {"data": …, "progress": […]} or {"status": HTTP status}. The demo
# rows but the last are web/demo-rows.json's toPage.
NATIVE_CALLS = [(r["method"], r["args"], {"data": r["result"], "progress": r["progress"]}) for r in to_page()] + [
    ("notRegistered", [], {"status": 422}),
]


def run_page(driver, daemon, path, title, totals, screenshot):
    url = daemon.url(path)
    before = (totals.passed, totals.failed)
    try:
        check_page(driver, daemon, url, path, totals, screenshot)
    finally:
        passed, failed = totals.passed - before[0], totals.failed - before[1]
        print("%s %s — %s: %d passed, %d failed" % ("PASS" if not failed else "FAIL", path, title, passed, failed),
              flush=True)


def check_page(driver, daemon, url, path, totals, screenshot):
    try:
        driver.get(url)
    except Exception as e:  # noqa: BLE001
        totals.check(False, "%s: cannot load: %s" % (path, e))
        return
    summary = wait_for(lambda: summary_of(driver), PAGE_TIMEOUT_S)
    if not summary:
        partial = row_states(driver)
        totals.check(False, "%s: no summary within %d s; rows: %s" % (path, PAGE_TIMEOUT_S, partial))
        for message in console_errors(driver):
            print("    console: %s" % message)
        return
    for row in summary["rows"]:
        ok = row["status"] == "pass"
        totals.check(ok, "%s: %s — expected %s, got %s" % (path, row["name"], row["expected"], row["actual"]))
    if path.startswith("/index.html"):
        missing = [r["method"] for r in to_native()
                   if not any(row["name"].startswith(r["method"] + "(") for row in summary["rows"])]
        totals.check(not missing, "%s: the page has a row for every toNative row of /demo-rows.json (missing %s)"
                     % (path, missing))
        # A first load reads as one, though its socket attached to a session its first sync
        # call had made (the connected event's resumed is true then).
        line = driver.execute_script("return document.getElementById('connection').textContent")
        totals.check(line == "connected, session %s" % summary.get("session"),
                     "%s: the connection line of a first load reads 'connected, session ID' (got %r)" % (path, line))
    if summary["failed"]:
        for message in console_errors(driver):
            print("    console: %s" % message)

    # Native -> JS: call the page's handlers from the server side.
    session = summary.get("session")
    if not session:
        totals.check(False, "%s: the page reported no session id" % path)
        return
    for method, args, expected in NATIVE_CALLS:
        status, answer = daemon.admin("POST", "/admin/sessions/%s/call" % session,
                                      {"method": method, "args": args, "timeoutMs": 5000})
        if "status" in expected:
            ok = status == expected["status"]
        else:
            ok = status == 200 and answer == expected
        totals.check(ok, "%s: native→JS %s %s — expected %s, got HTTP %s %s"
                   % (path, method, json.dumps(args), json.dumps(expected), status, json.dumps(answer)))
    if screenshot:
        try:
            driver.save_screenshot(screenshot)
            print("  screenshot saved to %s" % screenshot)
        except Exception as e:  # noqa: BLE001
            print("  screenshot failed: %s" % e)

    # window.close() -> _dsb.closePage ends the session.
    status, sessions = daemon.admin("GET", "/admin/sessions")
    listed = status == 200 and any(s.get("session") == session for s in sessions)
    totals.check(listed, "%s: session %s should be listed by the admin API before window.close()" % (path, session))
    try:
        driver.execute_script("window.close()")
    except Exception as e:  # noqa: BLE001
        totals.check(False, "%s: window.close() threw: %s" % (path, e))
        return

    def ended():
        status, sessions = daemon.admin("GET", "/admin/sessions")
        return status == 200 and all(s.get("session") != session for s in sessions)

    ok = bool(wait_for(ended, 5))
    totals.check(ok, "%s: window.close() should end session %s" % (path, session))


def main():
    parser = script_parser(__doc__)
    parser.add_argument("--web-root", default="web")
    parser.add_argument("--screenshot", metavar="PATH", help="save a screenshot of the demo page")
    parser.add_argument("--page", action="append", help="run only these page paths (and no robustness case)")
    parser.add_argument("--case", action="append",
                        help="run only these robustness cases of scripts/browser_robustness.py (and no page)")
    parser.add_argument("--tls", action="store_true",
                        help="serve https:// and wss:// with a throwaway certificate (--tls-cert/--tls-key)")
    options = parser.parse_args()

    binary = binary_path(options.daemon)
    totals = Checks(quiet=True)

    with BrowserRun(totals, console="never") as run:
        tls = make_cert(tempfile.mkdtemp(prefix="dsbridged-browser-tls-")) if options.tls else None
        daemon = run.start_daemon(binary, log_path="/tmp/dsbridged-browser-test.log", web_root=options.web_root, tls=tls)
        driver = run.start_driver(tls=bool(tls))
        for path, title in PAGES:
            if options.case and not options.page:
                break  # only robustness cases were asked for
            if options.page and not any(path.startswith(p) for p in options.page):
                continue
            shot = options.screenshot if path.startswith("/index.html") else None
            run_page(driver, daemon, path, title, totals, shot)
        if options.page and not options.case:
            options.case = ["none"]
        import browser_robustness  # noqa: E402 - the page-side robustness cases (issue 14)
        browser_robustness.run_cases(driver, binary, options.web_root, totals, options.case)
    return totals.summary()


if __name__ == "__main__":
    sys.exit(main())
