#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""WebViewJavascriptBridge pages in headless Chromium against a real dsbridged (PROTOCOL.md 9.1).

Runs WebViewJavascriptBridge's own pages, unchanged but for their script tag
(web/tests/wvjb/ExampleApp.html and echo.html), and replays the scenarios of the original's
Tests/WebViewJavascriptBridgeTests/BridgeTests.m, native side through the admin API
(POST /admin/sessions/ID/call with method _wvjb.handle): echo before and after the page's
setup, object encoding, the page calling native inside its handler (with and without the
alert-box safety timeout); then the example app's two directions, a page loading dsbridge.js
and wvjb.js together (one session), and calls in both directions across socket cuts (through
scripts/dsbtest/fault_proxy.py). Prints one line per check, then `N passed, M failed`.

    scripts/wvjb_browser_test.py [--daemon .build/debug/dsbridged]
"""

import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dsbtest.browser import BrowserRun, native_call, session_ready, sessions, wait_for  # noqa: E402
from dsbtest.daemon import binary_path, script_parser  # noqa: E402

# Values BridgeTests.m's testObjectEncoding sends through echoHandler (and back).
OBJECTS = ["A string sent over the wire", "A string with '\"'/\\", [1, 2, 3], {"a": 1, "b": 2}, None]

# Makes the page wait for the test before it counts as ready: one more ready hold
# (dsbridge.js's window._dsbridgeReadyHolds), released with window._dsbridge.releaseReady().
HOLD_READY = "window._dsbridgeReadyHolds = (window._dsbridgeReadyHolds | 0) + 1;"


class Run(BrowserRun):
    """The fixture (run.driver, run.daemon, run.proxy, run.checks, run.url) and the
    scenarios' helpers."""

    def sessions(self):
        return sessions(self.daemon)

    def open_page(self, path, proxied=False, hold=False):
        """Loads `path`; returns its session id (the page's own, read from window._dsbridge)."""
        added = None
        if hold:
            added = self.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": HOLD_READY})
        try:
            self.driver.get(self.url(path, proxied))
        finally:
            if added:
                self.driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument",
                                            {"identifier": added["identifier"]})
        session = wait_for(lambda: self.driver.execute_script(
            "return window._dsbridge && window._dsbridge.__dsbridged && window._dsbridge.session"), 15)
        self.checks.check(bool(session), "%s: the page opened a session" % path)
        return session

    def ready(self, session):
        return session_ready(self.daemon, session)

    def handle(self, session, handler, data, timeout_ms=5000):
        """The native side's callHandler: an invoke of _wvjb.handle through the admin API."""
        return native_call(self.daemon, session, "_wvjb.handle", [{"handlerName": handler, "data": data}], timeout_ms)

    def expect_answer(self, what, got, data):
        status, answer = got
        self.checks.check(status == 200 and answer == {"data": data, "progress": []},
                          "%s — expected 200 %s, got %s %s" % (what, json.dumps(data), status, json.dumps(answer)))


def echo_before_setup(run):
    """testEchoHandler / testObjectEncoding: native calls made before the page is ready are
    held and reach the handler the page registers in its setup callback."""
    scripts = []
    session = run.open_page("/tests/wvjb/echo.html", hold=True)
    if not session:
        return
    run.checks.check(not run.ready(session), "echo.html held by the test: not ready yet")
    answers = [None] * (1 + len(OBJECTS))

    def call(i, data):
        answers[i] = run.handle(session, "echoHandler", data, timeout_ms=15000)

    values = ["testEchoHandler"] + OBJECTS
    for i, data in enumerate(values):
        t = threading.Thread(target=call, args=(i, data))
        t.start()
        scripts.append(t)
    time.sleep(0.5)  # the admin calls are made (and held) before the page is ready
    run.checks.check(all(a is None for a in answers), "native calls made before the page is ready wait")
    run.driver.execute_script("window._dsbridge.releaseReady()")
    for t in scripts:
        t.join(20)
    for data, got in zip(values, answers):
        run.expect_answer("echo before setup: echoHandler %s" % json.dumps(data), got or (0, None), data)


def echo_after_setup(run):
    """testEchoHandlerAfterSetup, testObjectEncoding, testJavascriptReceiveResponse(+WithoutSafetyTimeout)."""
    session = run.open_page("/tests/wvjb/echo.html")
    if not session or not run.checks.check(bool(wait_for(lambda: run.ready(session), 10)), "echo.html becomes ready"):
        return
    run.expect_answer("echo after setup: echoHandler", run.handle(session, "echoHandler", "testEchoHandler"),
                      "testEchoHandler")
    for data in OBJECTS:
        run.expect_answer("object encoding: echoHandler %s" % json.dumps(data), run.handle(session, "echoHandler", data),
                          data)
    # The page's handler calls native objcEchoToJs (a demo handler) and answers with what it got.
    run.expect_answer("the page calls native inside its handler (safety timeout on)",
                      run.handle(session, "jsRcvResponseTest", None), "Response from JS")
    run.expect_answer("disableJavscriptAlertBoxSafetyTimeout from native",
                      run.handle(session, "_disableJavascriptAlertBoxSafetyTimeout", None), None)
    run.expect_answer("the page calls native inside its handler (safety timeout off)",
                      run.handle(session, "jsRcvResponseTest", None), "Response from JS")
    status, answer = run.handle(session, "noSuchHandler", 1)
    run.checks.check(status == 422 and answer.get("error") == "no handler noSuchHandler",
                     "a handler the page lacks: 422 `no handler NAME` (got %s %s)" % (status, json.dumps(answer)))
    # Page -> native: a name no native handler has gets no callback (ret methodNotFound).
    got = run.driver.execute_async_script("""
        var done = arguments[arguments.length - 1], out = [];
        WebViewJavascriptBridge.callHandler('no such native handler', 1, function (r) { out.push(['missing', r]); });
        WebViewJavascriptBridge.callHandler('ObjC Echo', {'quote': "'\\"\\\\"}, function (r) { out.push(['echo', r]); });
        WebViewJavascriptBridge.callHandler('ObjC Echo', function (r) { out.push(['noData', r]); });
        setTimeout(function () { done(out); }, 1000);
    """)
    run.checks.check(got == [["echo", {"quote": "'\"\\"}], ["noData", None]],
                     "page -> native: handler names with spaces, data unchanged, omitted data is null, "
                     "no callback for a missing handler (got %s)" % json.dumps(got))


def example_app(run):
    """ExampleApp.html: native calls testJavascriptHandler; the button calls testObjcCallback."""
    session = run.open_page("/tests/wvjb/ExampleApp.html")
    if not session or not run.checks.check(bool(wait_for(lambda: run.ready(session), 10)), "ExampleApp.html becomes ready"):
        return
    run.expect_answer("ExampleApp: native → testJavascriptHandler",
                      run.handle(session, "testJavascriptHandler", {"foo": "before ready"}),
                      {"Javascript Says": "Right back atcha!"})
    run.driver.execute_script("document.querySelector('#buttons button').click()")
    text = wait_for(lambda: "Response from testObjcCallback" in (run.driver.execute_script(
        "return document.getElementById('log').textContent") or ""), 5)
    log = run.driver.execute_script("return document.getElementById('log').textContent")
    run.checks.check(bool(text) and "ObjC called testJavascriptHandler with" in log,
                     "ExampleApp: the log shows both directions (got %r)" % log[:300])
    errors = run.driver.execute_script("return Array.prototype.filter.call(document.querySelectorAll('.logLine'),"
                                       "function (l) { return l.textContent.indexOf('window.onerror') >= 0 }).length")
    run.checks.check(errors == 0, "ExampleApp: no window.onerror line in its log")


def combined(run):
    """dsbridge.js and wvjb.js on one page share one session."""
    before = {s["session"] for s in run.sessions()}
    session = run.open_page("/tests/wvjb/combined.html")
    if not session:
        return
    results = wait_for(lambda: (lambda r: r if r and "wvjb" in r and "testAsyn" in r else None)(
        run.driver.execute_script("return window.results")), 10)
    run.checks.check(results == {"testSyn": "sync[ syn call]", "testAsyn": "async [ asyn call]", "wvjb": {"from": "wvjb"}},
                     "combined page: DSBridge sync and async calls and a WVJB call (got %s)" % json.dumps(results))
    new = {s["session"] for s in run.sessions()} - before
    run.checks.check(new == {session}, "combined page: one session for both APIs (new sessions: %s)" % sorted(new))
    run.checks.check(run.driver.execute_script("return dsBridge.session") == session, "dsBridge.session is that session")
    run.expect_answer("combined page: native → WVJB handler", run.handle(session, "pageEcho", [1, "two"]), [1, "two"])
    run.expect_answer("combined page: native → DSBridge method",
                      run.daemon.admin("POST", "/admin/sessions/%s/call" % session,
                                       {"method": "addValue", "args": [3, 4], "timeoutMs": 5000}), 7)


def across_cuts(run):
    """Calls in both directions while the page's socket is cut: each answered once, in order."""
    session = run.open_page("/tests/wvjb/echo.html", proxied=True)
    if not session or not run.checks.check(bool(wait_for(lambda: run.ready(session), 10)), "echo.html via the proxy is ready"):
        return
    n = 1000
    # Answers are held in the proxy until the first cut: the calls are surely in flight then.
    run.proxy.hold_downstream = True
    run.driver.execute_script("""
        window.__got = [];
        for (var i = 0; i < %d; i++) {
          WebViewJavascriptBridge.callHandler('echoHandler', {i: i}, function (r) { window.__got.push(r.i); });
        }
    """ % n)
    cuts = 0
    for action in ("cut", "reset"):
        cuts += run.proxy.cut_all(action, websocket_only=True)  # the first while the calls are in flight
        run.proxy.hold_downstream = False
        seen = len(run.driver.execute_script("return window.__got"))
        print("  %s after %d responses" % (action, seen), flush=True)
        if action == "cut":
            run.checks.check(seen < n, "the first cut came with calls in flight (%d of %d answered)" % (seen, n))
        answers = {}

        def call(i):
            answers[i] = run.handle(session, "echoHandler", {"native": i}, timeout_ms=20000)

        threads = [threading.Thread(target=call, args=(i,)) for i in range(5)]
        for t in threads:
            t.start()
        wait_for(lambda: run.driver.execute_script("return window._dsbridge.session") and
                 any(s.get("session") == session and s.get("connected") for s in run.sessions()), 15)
        for t in threads:
            t.join(25)
        run.checks.check(all(answers.get(i) == (200, {"data": {"native": i}, "progress": []}) for i in range(5)),
                         "native → page across a %s: every call answered (%s)" % (action, json.dumps(answers)[:300]))
    run.checks.check(cuts >= 2, "the proxy cut the page's socket twice (%d)" % cuts)
    got = wait_for(lambda: (lambda g: g if g and len(g) >= n else None)(run.driver.execute_script("return window.__got")),
                   20)
    got = got or run.driver.execute_script("return window.__got")
    run.checks.check(got == list(range(n)), "page → native across the cuts: %d responses, each once, in order (got %d)"
                     % (n, len(got or [])))
    run.checks.check(run.driver.execute_script("return window._dsbridge.session") == session,
                     "the session survived the cuts")


def main():
    parser = script_parser(__doc__)
    o = parser.parse_args()
    binary = binary_path(o.daemon)
    with Run() as run:
        run.start_daemon(binary, ["--grace-ms", "30000"], "/tmp/dsbridged-wvjb-browser-test.log", proxied=True)
        run.start_driver()
        run.scenarios([echo_before_setup, echo_after_setup, example_app, combined, across_cuts], run)
    return run.checks.summary()


if __name__ == "__main__":
    sys.exit(main())
