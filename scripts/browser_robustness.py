#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Page-side robustness cases of web/dsbridge.js (issue 14), run by scripts/browser_test.py.

Each case loads web/tests/robust-frame.html (or iframes of it) in headless Chromium against a
real dsbridged started for these cases on 127.0.0.1 (small limits: --max-message-bytes 65536,
--max-depth 16; a second one with --auth-token and --max-sessions 1), and checks what the page
and the server see. Every wait is bounded; every daemon is stopped at the end.

    scripts/browser_test.py --case oversized --case order ...   (run some; --case none: skip)
"""

import json
import socket
import time

from dsbtest.browser import run_js, start_daemon, wait_for, wait_session
from dsbtest.browser import native_call as _native_call

MAX_MESSAGE_BYTES = 65536
MAX_DEPTH = 16
AUTH = "s3cret"


class Case:
    """Checks of one case; each becomes one PASS/FAIL row in the totals (a dsbtest Checks)."""

    def __init__(self, name, totals):
        self.name = name
        self.totals = totals
        self.passed = self.failed = 0

    def check(self, ok, text):
        ok = bool(ok)
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        self.totals.check(ok, "robustness %s: %s" % (self.name, text))
        return ok


def page_url(daemon, **query):
    parts = "&".join("%s=%s" % (k, v) for k, v in query.items())
    return daemon.url("/tests/robust-frame.html?%s" % parts)


def ready_page(driver, daemon, c, what="the page's session is ready", **query):
    """Loads page_url(daemon, **query); its session once ready, else None (a failed check)."""
    driver.get(page_url(daemon, **query))
    session = wait_session(driver, daemon)
    return session if c.check(session, what) else None


def native_call(daemon, session, method, args, timeout_ms=3000):
    return _native_call(daemon, session, method, args, timeout_ms)


def connects(driver, frame_expr="window"):
    return driver.execute_script(
        "return %s.__ev.filter(function (e) { return e.name === 'connected'; }).length;" % frame_expr)


# ------------------------------------------------------------------------------------------
# 1, 2: calls the server refuses are failed, never resent in a loop

def case_oversized(driver, daemons, c):
    """Point 1: frames are capped by bytes; a call above maxMessageBytes fails alone."""
    d = daemons["limits"]
    driver.get(page_url(d))
    r = run_js(driver, """
        var big = new Array(3001).join('x'), huge = new Array(%d).join('y');
        var r = {ok: 0, wrong: 0, huge: null, after: null, bad: []};
        var all = [];
        for (var i = 0; i < 40; i++) (function (i) {
          all.push(dsBridge.invoke('echo.asyn', big + i).then(function (v) {
            if (v === big + i) { r.ok++; return; }
            r.wrong++;
            r.bad.push({call: i, answer: typeof v === 'string' ? v.length + ' chars, ending ' + v.slice(-8) : String(v)});
          }, function (e) { r.wrong++; r.bad.push({call: i, rejected: e && (e.kind + ': ' + e.message)}); }));
        })(i);
        all.push(dsBridge.invoke('echo.asyn', huge).then(function () { r.huge = 'resolved'; },
                                                          function (e) { r.huge = e.kind; }));
        all.push(dsBridge.invoke('echo.asyn', 'after').then(function (v) { r.after = v; },
                                                            function (e) { r.after = 'rejected: ' + e.kind; }));
        Promise.all(all).then(function () { done(r); });
    """ % (MAX_MESSAGE_BYTES + 40000), timeout=15)
    # (`bad`: each call answered otherwise, with its answer's length and end or the rejection.)
    c.check(r and r.get("ok") == 40 and not r.get("wrong"),
            "40 calls of 3 kB queued together (over %d bytes in all) are all answered: %s"
            % (MAX_MESSAGE_BYTES, {k: v for k, v in (r or {}).items() if k != "huge"}))
    c.check(r and r.get("huge") == "tooLarge",
            "a single call above maxMessageBytes rejects with kind tooLarge (got %s)" % (r or {}).get("huge"))
    c.check(r and r.get("after") == "after", "the call queued behind it is answered (got %s)" % (r or {}).get("after"))
    n = connects(driver)
    time.sleep(1.0)
    n2 = connects(driver)
    # 3 expected; a close frame lost to a reset (1006) costs a retry or two (3 strikes).
    c.check(n <= 8 and n2 == n, "no reconnect loop: %d connects, none in the next second (%d)" % (n, n2))
    # The same call made before the socket is up, followed by a sync call: it goes over HTTP.
    driver.get(page_url(d, run="huge"))
    huge = wait_for(lambda: driver.execute_script("return window.__huge"), 8)
    c.check(huge == "tooLarge", "queued before a sync call, it goes over HTTP, gets 413: kind tooLarge (got %s)" % huge)
    sync = driver.execute_script("return window.__hugeSync")
    # On a failure, the page's own warnings say which step gave up (dsbridge.js warns before
    # a sync call returns '': no session, HTTP status, network error).
    said = "" if sync == "after huge[ syn call]" else "; the page said: %s" % [
        e.get("message", "") for e in driver.get_log("browser") if "[dsbridge]" in e.get("message", "")][-5:]
    c.check(sync == "after huge[ syn call]", "the sync call after it answers (got %r)%s" % (sync, said))
    n = connects(driver)
    time.sleep(0.5)
    c.check(n <= 2 and connects(driver) == n, "no reconnect loop (%d connects)" % n)


def case_bad_data(driver, daemons, c):
    """Point 2: a number as method name, an argument nested too deep."""
    d = daemons["limits"]
    driver.get(page_url(d))
    r = run_js(driver, """
        var deep = 'leaf';
        for (var i = 0; i < %d; i++) deep = [deep];
        var r = {called: false};
        dsBridge.call(123, function () { r.called = true; });
        var a = dsBridge.invoke(123).then(function () { r.number = 'resolved'; }, function (e) { r.number = e.kind; });
        var b = dsBridge.invoke('echo.asyn', deep).then(function () { r.deep = 'resolved'; },
                                                        function (e) { r.deep = e.kind; });
        var c = dsBridge.invoke('echo.asyn', 'fine').then(function (v) { r.fine = v; },
                                                          function (e) { r.fine = 'rejected: ' + e.kind; });
        Promise.all([a, b, c]).then(function () {
          setTimeout(function () {
            r.failedEvents = __ev.filter(function (e) { return e.name === 'callFailed'; })
              .map(function (e) { return e.detail.kind + ':' + e.detail.method; });
            done(r);
          }, 300);
        });
    """ % (MAX_DEPTH + 4), timeout=15)
    r = r or {}
    c.check(r.get("number") == "methodNotFound",
            "dsBridge.invoke(123) is a call of \"123\": methodNotFound (got %s)" % r.get("number"))
    c.check(r.get("called") is False and "methodNotFound:123" in (r.get("failedEvents") or []),
            "dsBridge.call(123, cb): callback not called, callFailed event methodNotFound (got %s)" % r)
    c.check(r.get("deep") == "rejected",
            "an argument nested deeper than maxDepth rejects with kind rejected (got %s)" % r.get("deep"))
    c.check(r.get("fine") == "fine", "the other call of the same turn is answered (got %s)" % r.get("fine"))
    n = connects(driver)
    time.sleep(1.0)
    c.check(n <= 4 and connects(driver) == n, "no reconnect loop after the 4000 (%d connects)" % n)


# ------------------------------------------------------------------------------------------
# 3, 9, 10: native -> page calls

def case_unserializable(driver, daemons, c):
    """Point 3: a handler result that is not JSON loses nothing else; values are copied when sent."""
    d = daemons["limits"]
    session = ready_page(driver, d, c, run="handlers")
    if not session:
        return
    status, answer = native_call(d, session, "circular", [])
    c.check(status == 422 and "not JSON" in json.dumps(answer),
            "a handler returning a cycle answers native with an error (HTTP %s %s)" % (status, answer))
    unrelated = wait_for(lambda: driver.execute_script("return window.__unrelated || null"), 5)
    c.check(unrelated == "unrelated", "a call made in the same turn is not lost (got %r)" % unrelated)
    status, answer = native_call(d, session, "bigint", [])
    c.check(status == 422, "a handler returning a BigInt answers native with an error (HTTP %s %s)" % (status, answer))
    status, answer = native_call(d, session, "mutating", [])
    c.check(status == 200 and answer == {"data": {"n": 3}, "progress": [{"n": 1}, {"n": 2}]},
            "progress sent as one mutated object arrives as 1, 2, 3 (HTTP %s %s)" % (status, answer))
    start = time.monotonic()
    text = driver.execute_script("return dsBridge.call('testSyn', 'then')")
    took = time.monotonic() - start
    c.check(text == "then[ syn call]" and took < 4, "a sync call afterwards answers at once (%r in %.1f s)" % (text, took))


def case_handler_errors(driver, daemons, c):
    """Point 9: exceptions of registered handlers reach console.error and window.onerror."""
    d = daemons["limits"]
    for order in ("ours", "original,ours"):
        session = ready_page(driver, d, c, "[%s] the page's session is ready" % order, order=order, run="handlers")
        if not session:
            continue
        for method, text in (("boom", "boom from a sync handler"), ("boomAsyn", "boom from an async handler")):
            if order != "ours" and method == "boomAsyn":
                continue  # the original library calls async handlers the same way
            status, answer = native_call(d, session, method, [])
            c.check(status == 422 and text in json.dumps(answer),
                    "[%s] native gets the error of %s (HTTP %s %s)" % (order, method, status, answer))
            seen = wait_for(lambda: text in driver.execute_script("return window.__errors"), 3)
            c.check(seen, "[%s] window.onerror sees %r (errors: %s)"
                    % (order, text, driver.execute_script("return window.__errors")))
        logs = [e.get("message", "") for e in driver.get_log("browser")]
        c.check(any("[dsbridge]" in m and "boom from a sync handler" in m for m in logs),
                "[%s] console.error names the handler's exception" % order)


def case_wrapped_entry(driver, daemons, c):
    """Point 10: native -> page calls pass through window._handleMessageFromNative."""
    d = daemons["limits"]
    session = ready_page(driver, d, c, run="handlers,wrap")
    if not session:
        return
    status, answer = native_call(d, session, "mark", ["wrapped"])
    c.check(status == 200 and answer.get("data") == "wrapped", "native mark('wrapped') is answered (HTTP %s %s)"
            % (status, answer))
    wrapped = driver.execute_script("return window.__wrapped")
    c.check("mark" in wrapped, "the page's wrapper of _handleMessageFromNative saw it (got %s)" % wrapped)


# ------------------------------------------------------------------------------------------
# 4, 5: the session's opening and its end

def host_page(driver, daemon):
    driver.get(page_url(daemon, order=""))


def add_frame(driver, frame_id, src, allow=None):
    driver.execute_script("""
        var f = document.createElement('iframe');
        f.id = arguments[0]; f.src = arguments[1];
        if (arguments[2]) f.setAttribute('allow', arguments[2]);
        document.body.appendChild(f);
    """, frame_id, src, allow)
    return "document.getElementById('%s').contentWindow" % frame_id


def case_dsinit(driver, daemons, c):
    """Point 4: the page becomes ready with sync XHR forbidden (Permissions-Policy sync-xhr)."""
    d = daemons["limits"]
    host_page(driver, d)
    frame = add_frame(driver, "f", page_url(d, run="handlers"), "sync-xhr 'none'")
    session = wait_session(driver, d, frame, timeout=10)
    if c.check(session, "the frame's session becomes ready (dsinit over the socket)"):
        status, answer = native_call(d, session, "addValue", [3, 4])
        c.check(status == 200 and answer.get("data") == 7, "native addValue(3, 4) reaches the frame (HTTP %s %s)"
                % (status, answer))
    text = driver.execute_script("return %s.dsBridge.call('testSyn', 'x')" % frame)
    c.check(text in ("", None), "sync XHR is really forbidden in the frame (a sync call gave %r)" % text)


def case_stopped(driver, daemons, c):
    """Point 5: after 4029, 1008 and close() calls fail at once; reconnect() starts again."""
    d = daemons["auth"]
    host_page(driver, d)
    a = add_frame(driver, "a", page_url(d, auth=AUTH, run="handlers"))
    if not c.check(wait_session(driver, d, a), "page A (right secret) gets the only session"):
        return
    b = add_frame(driver, "b", page_url(d, auth=AUTH, run="early"))
    wrong = add_frame(driver, "w", page_url(d, auth="wrong", run="early"))

    def early(frame):
        return wait_for(lambda: driver.execute_script("return %s.__early" % frame), 8)

    def stop_events(frame):
        return driver.execute_script(
            "return %s.__ev.filter(function (e) { return e.name === 'disconnected'; })"
            ".map(function (e) { return [e.detail.code, e.detail.reconnecting]; })" % frame)

    c.check(early(b) == {"kind": "closed"}, "page B: 4029, its early call rejects with kind closed (got %s)" % early(b))
    c.check([4029, False] in stop_events(b), "page B: `disconnected` 4029, reconnecting false (%s)" % stop_events(b))
    c.check(early(wrong) == {"kind": "closed"},
            "page with a wrong secret: 1008, its early call rejects with kind closed (got %s)" % early(wrong))
    c.check([1008, False] in stop_events(wrong), "wrong secret: `disconnected` 1008 (%s)" % stop_events(wrong))

    r = run_js(driver, """
        var w = %s;
        w.dsBridge.close();
        var t0 = performance.now();
        w.dsBridge.invoke('echo.asyn', 'after close').then(function (v) { done({value: v}); },
          function (e) { done({kind: e.kind, ms: performance.now() - t0}); });
    """ % a, timeout=8)
    c.check(r and r.get("kind") == "closed" and r.get("ms", 9999) < 1000,
            "page A: a call after close() rejects at once with kind closed (got %s)" % r)

    def a_gone():
        status, sessions = d.admin("GET", "/admin/sessions")
        return status == 200 and not sessions
    wait_for(a_gone, 5)
    r = run_js(driver, """
        var w = %s;
        w.dsBridge.reconnect();
        w.dsBridge.invoke('echo.asyn', 'again').then(function (v) { done({value: v}); },
                                                      function (e) { done({kind: e.kind}); });
    """ % b, timeout=8)
    c.check(r == {"value": "again"}, "page B: after A closed, dsBridge.reconnect() and a call works (got %s)" % r)
    c.check(wait_session(driver, d, b, timeout=5),
            "page B's new session is ready: dsinit was sent to it (admin: %s)" % (d.admin("GET", "/admin/sessions"),))
    # The page with the wrong secret fixes it and reconnects: auth passes now, and with B
    # holding the only session it is refused for room (4029) instead.
    driver.execute_script("var w = %s; w.DSBRIDGE_AUTH = arguments[0]; w.dsBridge.reconnect();" % wrong, AUTH)
    codes = wait_for(lambda: (lambda e: e if [4029, False] in e else None)(stop_events(wrong)), 5) or stop_events(wrong)
    c.check(codes[-1:] == [[4029, False]],
            "wrong secret fixed + reconnect(): the hello carries the new secret (then 4029: %s)" % codes)


# ------------------------------------------------------------------------------------------
# 6, 7: load order and the real WebView

def case_load_order(driver, daemons, c):
    """Point 6: ours first, then the original library (a bundled npm module)."""
    d = daemons["limits"]
    driver.get(page_url(d, order="ours,original"))
    r = run_js(driver, """
        var r = {original: typeof bridge.invoke === 'undefined' && bridge !== dsBridge};
        r.sync = bridge.call('testSyn', 'a');
        bridge.register('addValue', function (x, y) { return x + y; });
        bridge.call('testAsyn', 'b', function (v) { r.async = v; done(r); });
    """, timeout=10)
    c.check(r and r.get("original"), "window.bridge is the original library's object (%s)" % r)
    c.check(r and r.get("sync") == "a[ syn call]", "the original's sync call returns the value (got %s)"
            % (r or {}).get("sync"))
    c.check(r and r.get("async") == "b [ asyn call]", "the original's async call gets its callback (got %s)"
            % (r or {}).get("async"))
    session = wait_session(driver, d)
    if c.check(session, "the session is ready"):
        status, answer = native_call(d, session, "addValue", [3, 4])
        c.check(status == 200 and answer.get("data") == 7,
                "native reaches a handler the original registered (HTTP %s %s)" % (status, answer))


def case_app_webview(driver, daemons, c):
    """Point 7: inside a DSBridge WebView (Android _dsbridge, iOS _dswk) ours steps aside."""
    d = daemons["limits"]
    for env, prefix, called in (("android", "android:", "testSyn"), ("ios", "ios:", "_dsbridge=testSyn")):
        driver.get(page_url(d, env=env))
        r = driver.execute_script("""
            var r = {api: typeof window.dsBridge === 'object' && typeof dsBridge.call === 'function'};
            if (!r.api) return r;
            r.sync = dsBridge.call('testSyn', 'x');
            dsBridge.register('addValue', function (a, b) { return a + b; });
            window._handleMessageFromNative({method: 'addValue', callbackId: 7, data: '[3,4]'});
            r.calls = __appCalls.map(function (c) { return c[0] + ' ' + c[1]; });
            return r;
        """)
        c.check(r.get("api"), "[%s] window.dsBridge exists" % env)
        c.check(r.get("sync") == prefix + called,
                "[%s] dsBridge.call goes to the app's bridge (got %s)" % (env, r.get("sync")))
        c.check('%s {"data":"x"}' % called in (r.get("calls") or []),
                "[%s] the app saw the call (calls %s)" % (env, r.get("calls")))
        answer = ("_dsbridge=" if env == "ios" else "") + '_dsb.returnValue {"data":{"id":7,"complete":true,"data":7}}'
        c.check(answer in (r.get("calls") or []), "[%s] a native call is answered through the app (calls %s)"
                % (env, r.get("calls")))
        time.sleep(0.5)
        opened = driver.execute_script("return __wsOpened.length")
        c.check(opened == 0, "[%s] no WebSocket to dsbridged (%d opened)" % (env, opened))


# ------------------------------------------------------------------------------------------
# 8, 11: order and reconnect timing

def case_order(driver, daemons, c):
    """Point 8: a sync call made at page start after an async call starts after it."""
    d = daemons["limits"]
    driver.get(page_url(d, run="handlers,order"))
    marks = wait_for(lambda: (lambda m: m if m and len(m) >= 2 else None)(driver.execute_script("return window.__marks")), 8)
    c.check(driver.execute_script("return window.__syncAnswer") == 1, "the sync call answered 1")
    c.check(marks == ["async first", "sync second"], "native saw the async call first (marks %s)" % marks)
    # Socket up, but more calls than the page keeps unanswered on it (1000): the ones still
    # queued in the page go out before the sync call.
    r = run_js(driver, """
        var answered = 0;
        for (var i = 0; i < 1200; i++) dsBridge.call('echo.asyn', i, function () { answered++; });
        dsBridge.call('test.pushInvokes', {method: 'mark', count: 1, args: ['async 1201st']}, function () {});
        var n = dsBridge.call('test.pushInvokes', {method: 'mark', count: 1, args: ['sync 1202nd']});
        var t = setInterval(function () {
          if (__marks.length >= 4 && answered === 1200) { clearInterval(t); done({n: n, marks: __marks.slice(2)}); }
        }, 50);
    """, timeout=20)
    c.check(r == {"n": 1, "marks": ["async 1201st", "sync 1202nd"]},
            "with 1201 async calls ahead of it, native still sees the sync call last (%s)" % r)
    # Socket up, nothing queued: the async call is still in this turn's outbox.
    r = run_js(driver, """
        var t0 = performance.now();
        dsBridge.call('test.pushInvokes', {method: 'mark', count: 1, args: ['async']}, function () {});
        var n = dsBridge.call('test.pushInvokes', {method: 'mark', count: 1, args: ['sync']});
        var ms = Math.round(performance.now() - t0);
        var t = setInterval(function () {
          if (__marks.length >= 6) { clearInterval(t); done({n: n, fast: ms < 2000, marks: __marks.slice(4)}); }
        }, 50);
    """, timeout=15)
    c.check(r == {"n": 1, "fast": True, "marks": ["async", "sync"]},
            "an async call then a sync call in one turn: in order, no wait for X-DSBridge-After (%s)" % r)


def case_jitter(driver, daemons, c):
    """Point 11: pages cut off together do not reconnect in lockstep."""
    d = daemons["limits"]
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    dead = probe.getsockname()[1]
    probe.close()  # nothing listens there: every attempt is refused at once
    host_page(driver, d)
    frames = [add_frame(driver, "j%d" % i, page_url(d, server="http://127.0.0.1:%d" % dead)) for i in range(3)]
    wait_for(lambda: all(driver.execute_script("return (%s.__wsOpened || []).length" % f) >= 5 for f in frames), 10)
    gaps = []
    for f in frames:
        t = driver.execute_script("return %s.__wsOpened.slice(0, 5)" % f)
        gaps.append([round(t[i + 1] - t[i]) for i in range(len(t) - 1)])
    print("  reconnect gaps (ms) of 3 pages: %s" % gaps, flush=True)
    ok = all(len(g) == 4 for g in gaps)
    c.check(ok, "each page tried 5 times within 10 s")
    if not ok:
        return
    # The first gap also holds the pages' own start; the later ones are the backoff alone.
    spreads = [max(g[i] for g in gaps) - min(g[i] for g in gaps) for i in range(1, 4)]
    c.check(max(spreads) > 40, "the pages' delays differ (spread of attempts 2-4: %s ms)" % spreads)
    c.check(all(125 * 2 ** i - 20 <= g[i] <= 250 * 2 ** i + 500 for g in gaps for i in range(4)),
            "every delay is within half to all of its backoff step (250, 500, 1000, 2000 ms)")


CASES = [
    ("oversized", case_oversized),
    ("bad-data", case_bad_data),
    ("unserializable", case_unserializable),
    ("dsinit", case_dsinit),
    ("stopped", case_stopped),
    ("load-order", case_load_order),
    ("app-webview", case_app_webview),
    ("order", case_order),
    ("handler-errors", case_handler_errors),
    ("wrapped-entry", case_wrapped_entry),
    ("jitter", case_jitter),
]


def run_cases(driver, binary, web_root, totals, only=None):
    if only and "none" in only:
        return
    daemons = {}
    try:
        daemons["limits"] = start_daemon(binary, web_root, ["--max-message-bytes", str(MAX_MESSAGE_BYTES),
                                                            "--max-depth", str(MAX_DEPTH)],
                                         "/tmp/dsbridged-browser-robustness.log")
        daemons["auth"] = start_daemon(binary, web_root, ["--auth-token", AUTH, "--max-sessions", "1"],
                                       "/tmp/dsbridged-browser-robustness-auth.log")
        for name, fn in CASES:
            if only and name not in only:
                continue
            c = Case(name, totals)
            try:
                fn(driver, daemons, c)
            except Exception as e:  # noqa: BLE001 - a broken case is a failed case
                c.check(False, "aborted: %s: %s" % (type(e).__name__, e))
            print("%s robustness %s — %s: %d passed, %d failed"
                  % ("PASS" if not c.failed else "FAIL", name, fn.__doc__.strip().split("\n")[0], c.passed, c.failed),
                  flush=True)
    finally:
        for d in daemons.values():
            d.stop()
