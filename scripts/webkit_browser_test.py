#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Browser end-to-end tests of web/webkit.js (PROTOCOL.md 9.2, 9.3): pages written for
WKWebView script message handlers, in headless Chromium against a real dsbridged --demo.

- The message-handler demo page (/webkit-demo.html): its rows (postMessage resolves and
  rejects, bodies that are not JSON, the wadInterface and nativeApp round trips).
- /tests/webkit-page.html (webkit.js alone): postMessage from the page; _page.callFunction by
  path through the admin API (POST /admin/sessions/ID/call), a promise result, `this`, errors
  (not a function, own properties only, functions that run source text, a throwing or
  rejecting function), webkitBridge.allowFunctionCalls(false) and prefixes.
- dsbridge.js and webkit.js on one page, in both orders: one session, both APIs.
- Inside a real WKWebView (window.webkit.messageHandlers already there) it steps aside.
- Replay across socket cuts (scripts/dsbtest/fault_proxy.py): postMessage calls and a page function
  call in flight while the page's WebSocket is cut; each settles once, the session stays.

Prints one line per check, then `N passed, M failed`; exits non-zero on any failure.

    scripts/webkit_browser_test.py [--daemon .build/debug/dsbridged]
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dsbtest.browser import BrowserRun, console_errors, native_call, run_js, summary_of, wait_for, wait_session  # noqa: E402
from dsbtest.daemon import binary_path, script_parser  # noqa: E402


def ready_session(driver, daemon, timeout=10):
    """The page's session id once the admin API lists it as ready (webkit.js sent dsinit)."""
    return wait_session(driver, daemon, timeout=timeout, expr="window.webkitBridge && webkitBridge.session")


def call_page(daemon, session, args, timeout_ms=5000):
    return native_call(daemon, session, "_page.callFunction", args, timeout_ms)


POST = """
var h = window.webkit.messageHandlers;
function settle(p) {
  return p.then(function (v) { return {ok: v}; },
                function (e) { return {error: e.kind || null, name: e.name, message: e.message}; });
}
"""


def check_demo_page(driver, daemon, t):
    driver.get(daemon.url("/webkit-demo.html"))
    summary = wait_for(lambda: summary_of(driver), 30)
    if not t.check(summary, "demo page: all rows settle"):
        for message in console_errors(driver):
            print("    console: %s" % message)
        return
    for row in summary["rows"]:
        t.check(row["status"] == "pass", "demo page: %s (expected %s, got %s)"
                % (row["name"], row["expected"], row["actual"]))
    session = summary.get("session")
    status, answer = call_page(daemon, session, ["bridge.sayHello"])
    t.check(status == 200 and answer == {"data": "hello from the page", "progress": []},
            "demo page: admin _page.callFunction bridge.sayHello answers (HTTP %s %s)" % (status, answer))
    linked = driver.execute_script("""
        return fetch('/index.html').then(function (r) { return r.text(); })
    """)
    t.check(linked and 'href="webkit-demo.html"' in linked, "the DSBridge demo page links the message-handler demo")


def check_alone(driver, daemon, t):
    driver.get(daemon.url("/tests/webkit-page.html"))
    session = ready_session(driver, daemon)
    if not t.check(session, "webkit.js alone: the page opens a session and reports ready"):
        return
    globals_ = driver.execute_script(
        "return {dsBridge: typeof window.dsBridge, close: window.close.toString().indexOf('[native code]') > 0,"
        " inApp: webkitBridge.inApp, hook: !!(window._dsbridge && window._dsbridge.__channelOnly)}")
    t.check(globals_ == {"dsBridge": "undefined", "close": True, "inApp": False, "hook": True},
            "webkit.js alone loads dsbridge.js as a channel only: no DSBridge globals (%s)" % globals_)

    got = run_js(driver, POST + """
        Promise.all([settle(h.echo.postMessage({a: [1, 'x"\\\\', null]})),
                     settle(h.nope.postMessage(1)),
                     settle(h.wadInterface.postMessage({action: 'echo'})),
                     settle(h.nativeApp.postMessage({name: 'n'}))]).then(done);
    """)
    t.check(got[0] == {"ok": {"a": [1, 'x"\\', None]}}, "postMessage to echo resolves with the body (%s)" % got[0])
    t.check(got[1].get("error") == "methodNotFound", "postMessage to a name without handler rejects methodNotFound (%s)" % got[1])
    t.check(got[2].get("error") == "failed", "postMessage to a failing handler rejects failed (%s)" % got[2])
    t.check(got[3] == {"ok": {"received": {"name": "n"}}}, "nativeApp replies {received: body} (%s)" % got[3])

    got = run_js(driver, POST + """
        var c = {}; c.c = c;
        var before = performance.now(), results = [];
        var ps = [undefined, function () {}, Symbol('s'), NaN, new Map(), c].map(function (b) { return settle(h.echo.postMessage(b)); });
        Promise.all(ps).then(function (r) { done({r: r, ms: performance.now() - before}); });
    """)
    t.check(all(r.get("name") == "TypeError" and r.get("error") == "badArgument" for r in got["r"]),
            "bodies that are not JSON reject with TypeError at once (%s)" % [r.get("message") for r in got["r"]])

    # _page.callFunction through the admin API.
    cases = [
        (["bridge.sayHello"], 200, "hello from the page"),
        (["app.add", 2, 3], 200, 5),
        (["app.self"], 200, True),
        (["app.nested.deeper.fn", {"k": "v"}], 200, [{"k": "v"}]),
        (["app.later", "v", 50], 200, {"later": "v"}),
        (["app.missing"], 422, "not a function app.missing"),
        (["app.nothing"], 422, "not a function app.nothing"),
        (["app"], 422, "not a function app"),
        (["app.add.constructor"], 422, "not a function app.add.constructor"),
        (["__sayHelloFromProto.inherited"], 422, "not a function __sayHelloFromProto.inherited"),
        (["app..add"], 422, "not a function app..add"),
        (["eval", "window.__evaluated = 1"], 422, "not callable by path (it runs source text): eval"),
        (["setTimeout", "window.__evaluated = 1", 0], 422, "not callable by path (it runs source text): setTimeout"),
        (["app.fails"], 422, "app.fails threw"),
        (["app.rejects"], 422, "app.rejects rejected"),
    ]
    for args, status_expected, expected in cases:
        status, answer = call_page(daemon, session, args)
        want = {"data": expected, "progress": []} if status_expected == 200 else {"error": expected, "progress": []}
        t.check(status == status_expected and answer == want,
                "_page.callFunction %s → %s %s (got HTTP %s %s)" % (args, status_expected, expected, status, answer))
    t.check(driver.execute_script("return window.__evaluated === undefined"), "no source text was evaluated")
    t.check(driver.execute_script("return window.__calls[0]") == "sayHello", "the page saw bridge.sayHello()")

    driver.execute_script("webkitBridge.allowFunctionCalls(false)")
    status, answer = call_page(daemon, session, ["app.add", 1, 2])
    t.check(status == 422 and answer.get("error") == "function calls are forbidden by the page: app.add",
            "allowFunctionCalls(false) forbids every call (HTTP %s %s)" % (status, answer))
    driver.execute_script("webkitBridge.allowFunctionCalls(['wadInterface.', 'bridge.'])")
    status, answer = call_page(daemon, session, ["bridge.sayHello"])
    t.check(status == 200 and answer.get("data") == "hello from the page", "a path under an allowed prefix runs (%s)" % answer)
    status, answer = call_page(daemon, session, ["app.add", 1, 2])
    t.check(status == 422 and str(answer.get("error", "")).startswith("function call not allowed by the page: app.add"),
            "a path outside the prefixes is refused (HTTP %s %s)" % (status, answer))
    threw = driver.execute_script("try { webkitBridge.allowFunctionCalls('bridge.'); return null; } catch (e) { return e.name; }")
    t.check(threw == "TypeError", "allowFunctionCalls with a bad rule throws TypeError (%s)" % threw)
    driver.execute_script("webkitBridge.allowFunctionCalls(true)")

    # The demo round trips, seen from the page's functions.
    driver.execute_script("window.__calls = []")
    got = run_js(driver, POST + """
        settle(h.wadInterface.postMessage({callbackId: 41, action: 'echo', actionArgs: {x: [1]}})).then(function (reply) {
          var wait = setInterval(function () {
            if (window.__calls.length) { clearInterval(wait); done({reply: reply, calls: window.__calls}); }
          }, 10);
        });
    """)
    t.check(got.get("reply") == {"ok": None} and got.get("calls") == [{"callbackId": 41, "ok": True, "args": {"x": [1]}}],
            "wadInterface: reply null, then wadInterface.fromNative(41, true, args) (%s)" % got)
    driver.execute_script("window.__calls = []")
    got = run_js(driver, POST + """
        settle(h.wadInterface.postMessage({callbackId: 42, action: 'fly', actionArgs: 1})).then(function (reply) {
          var wait = setInterval(function () {
            if (window.__calls.length) { clearInterval(wait); done({reply: reply, calls: window.__calls}); }
          }, 10);
        });
    """)
    t.check(got.get("calls") == [{"callbackId": 42, "ok": False, "args": {"error": "unknown action"}}],
            "wadInterface unknown action: fromNative(42, false, {error}) (%s)" % got)
    driver.execute_script("window.__calls = []")
    got = run_js(driver, POST + """
        settle(h.nativeApp.postMessage({name: 'hello'})).then(function (reply) {
          var wait = setInterval(function () {
            if (window.__calls.length) { clearInterval(wait); done({reply: reply, calls: window.__calls}); }
          }, 10);
        });
    """)
    t.check(got.get("reply") == {"ok": {"received": {"name": "hello"}}} and got.get("calls") == ["sayHello"],
            "nativeApp hello: reply {received}, then bridge.sayHello() (%s)" % got)


def check_both(driver, daemon, t, page, title, path_to_call):
    driver.get(daemon.url(page))
    session = ready_session(driver, daemon)
    if not t.check(session, "%s: the page opens a session" % title):
        return
    same = driver.execute_script("return dsBridge.session === webkitBridge.session && !window._dsbridge.__channelOnly")
    t.check(same, "%s: dsbridge.js and webkit.js share one session channel" % title)
    sockets = driver.execute_script(
        "return performance.getEntriesByType('resource').filter(function (e) { return /dsbridge\\.js/.test(e.name); }).length")
    t.check(sockets == 1, "%s: dsbridge.js was loaded once (%s)" % (title, sockets))
    text = driver.execute_script("return dsBridge.call('testSyn', 'both')")
    t.check(text == "both[ syn call]", "%s: dsBridge.call works (%r)" % (title, text))
    got = run_js(driver, POST + "settle(h.echo.postMessage({both: true})).then(done);")
    t.check(got == {"ok": {"both": True}}, "%s: postMessage works (%s)" % (title, got))
    status, answer = call_page(daemon, session, path_to_call[0])
    t.check(status == 200 and answer.get("data") == path_to_call[1],
            "%s: _page.callFunction %s works (HTTP %s %s)" % (title, path_to_call[0], status, answer))
    status, answer = daemon.admin("POST", "/admin/sessions/%s/call" % session,
                                  {"method": "_hasJavascriptMethod", "args": ["testSyn", "all"], "timeoutMs": 5000})
    t.check(status == 200, "%s: DSBridge's own invoke path still answers (HTTP %s %s)" % (title, status, answer))


def check_in_app(driver, daemon, t):
    """Inside a real WKWebView (messageHandlers already there) webkit.js steps aside."""
    driver.get(daemon.url("/webkit-in-app-test"))  # any page of the origin (a 404)
    got = run_js(driver, """
        var native = {posted: [], postMessage: function (b) { native.posted.push(b); }};
        window.webkit = {messageHandlers: {nativeApp: native}};
        window.__sockets = 0;
        var RealWS = window.WebSocket;
        window.WebSocket = function (u, p) { window.__sockets++; return new RealWS(u, p); };
        var s = document.createElement('script');
        s.src = '/webkit.js';
        s.onload = function () {
          setTimeout(function () {
            window.webkit.messageHandlers.nativeApp.postMessage({name: 'hello'});
            done({same: window.webkit.messageHandlers.nativeApp === native, posted: native.posted,
                  other: typeof window.webkit.messageHandlers.other, inApp: webkitBridge.inApp,
                  sockets: window.__sockets, scripts: document.querySelectorAll('script[src*="dsbridge"]').length,
                  noop: webkitBridge.allowFunctionCalls(false) === undefined});
          }, 300);
        };
        document.documentElement.appendChild(s);
    """)
    t.check(got == {"same": True, "posted": [{"name": "hello"}], "other": "undefined", "inApp": True, "sockets": 0,
                    "scripts": 0, "noop": True},
            "inside a real WKWebView webkit.js steps aside: the app's handlers stay, no socket, no dsbridge.js (%s)" % got)


def check_cuts(driver, t, binary):
    with BrowserRun(t) as cut:  # a daemon of its own behind a proxy, for the same browser
        daemon = cut.start_daemon(binary, ["--grace-ms", "30000"], "/tmp/dsbridged-webkit-cut-test.log", proxied=True,
                                  proxy_seed=3)
        proxy = cut.proxy
        driver.get("http://127.0.0.1:%d/tests/webkit-page.html" % proxy.port)
        session = ready_session(driver, daemon)
        if not t.check(session, "cuts: the page opens a session through the proxy"):
            return
        # Answers are held in the proxy from here until the cut: the 300 calls below are
        # surely in flight when it comes (their answers are lost with the socket).
        proxy.hold_downstream = True
        driver.execute_script("""
            window.__ev = [];
            ['connected', 'sessionLost'].forEach(function (name) {
              window._dsbridge.on(name, function (d) { window.__ev.push({name: name, detail: d || null}); });
            });
            window.__got = []; window.__order = [];
            var h = window.webkit.messageHandlers;
            for (var i = 0; i < 300; i++) (function (i) {
              h.echo.postMessage({i: i, pad: 'x'.repeat(200)}).then(function (v) { window.__got.push(v.i); },
                                                                   function (e) { window.__got.push('error ' + e.kind); });
            })(i);
        """)
        before_cut = driver.execute_script("return window.__got.length")
        first = proxy.cut_all("cut", websocket_only=True)
        proxy.hold_downstream = False
        wait_for(lambda: len(driver.execute_script("return window.__ev")) >= 1, 10)
        # A page function call in flight while the socket is cut again.
        import threading
        answer = {}

        def call():
            answer["r"] = call_page(daemon, session, ["app.later", "across", 400], timeout_ms=15000)
        th = threading.Thread(target=call)
        th.start()
        time.sleep(0.2)
        second = proxy.cut_all("reset", websocket_only=True)
        th.join(20)
        got = wait_for(lambda: (lambda g: g if len(g) >= 300 else None)(driver.execute_script("return window.__got")), 20)
        time.sleep(0.3)
        got = driver.execute_script("return window.__got")
        t.check(first >= 1 and second >= 1 and before_cut < 300, "cuts: the proxy cut the page's WebSocket twice (%d, %d sockets; %d of 300 "
                "postMessage promises had settled at the first cut)" % (first, second, before_cut))
        t.check(len(got) == 300 and sorted(got, key=str) == sorted(range(300), key=str),
                "cuts: 300 postMessage promises resolved exactly once each (%d settled, errors: %s)"
                % (len(got), [g for g in got if isinstance(g, str)][:3]))
        t.check(answer.get("r") == (200, {"data": {"later": "across"}, "progress": []}),
                "cuts: a page function call across a cut answers once (%s)" % (answer.get("r"),))
        ev = driver.execute_script("return window.__ev")
        t.check(not [e for e in ev if e["name"] == "sessionLost"], "cuts: no sessionLost (%s)" % ev)
        t.check(all(e["detail"].get("resumed") for e in ev if e["name"] == "connected") and len(ev) >= 2,
                "cuts: each reconnection resumed the session (%s)" % ev)
        t.check(driver.execute_script("return webkitBridge.session") == session, "cuts: the session id stayed %s" % session)


def main():
    parser = script_parser(__doc__)
    o = parser.parse_args()
    binary = binary_path(o.daemon)
    with BrowserRun() as run:
        daemon = run.start_daemon(binary, log_path="/tmp/dsbridged-webkit-browser-test.log")
        driver = run.start_driver()
        t = run.checks
        run.scenarios([lambda: check_demo_page(driver, daemon, t),
                       lambda: check_alone(driver, daemon, t),
                       lambda: check_both(driver, daemon, t, "/tests/webkit-both.html", "dsbridge.js then webkit.js",
                                          (["bridge.sayHello"], "hello from the page")),
                       lambda: check_both(driver, daemon, t, "/tests/webkit-both-late.html", "webkit.js then dsbridge.js",
                                          (["app.add", 20, 22], 42)),
                       lambda: check_in_app(driver, daemon, t),
                       lambda: check_cuts(driver, t, binary)])
    return run.checks.summary()


if __name__ == "__main__":
    sys.exit(main())
