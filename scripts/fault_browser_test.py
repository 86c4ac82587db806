#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Browser resume test: a real page's WebSocket is cut in the middle of a callProgress.

Starts the fault proxy (scripts/dsbtest/fault_proxy.py) (faults off) and dsbridged behind it (--demo, --demo-tick-ms 100,
--allowed-origin http://127.0.0.1:PROXYPORT), loads a page of the proxy's origin in headless
Chromium, adds /dsbridge.js to it, runs dsBridge.call("callProgress", cb) and cuts the page's
WebSocket twice while the values come (once with FIN, once with RST). The page must still see
10..0 exactly once and in order, `connected` must fire again with resumed:true after each cut,
and `sessionLost` must not fire. Prints one line per check, then `N passed, M failed`.

    scripts/fault_browser_test.py [--daemon .build/debug/dsbridged]
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dsbtest.browser import BrowserRun, wait_for  # noqa: E402
from dsbtest.daemon import binary_path, script_parser  # noqa: E402

INSTALL = """
window.__ev = []; window.__vals = []; window.__loaded = false;
var s = document.createElement('script');
s.src = '/dsbridge.js';
s.onload = function () {
  ['connected', 'disconnected', 'sessionLost'].forEach(function (name) {
    dsBridge.on(name, function (d) { window.__ev.push({name: name, detail: d || null, at: Date.now()}); });
  });
  window.__loaded = true;
};
s.onerror = function () { window.__loadError = true; };
document.documentElement.appendChild(s);
"""


def run(driver, proxy, daemon, checks):
    base = "http://127.0.0.1:%d" % proxy.port
    # Any page of the proxy's origin will do (this one is a 404); the shim is added to it.
    driver.get(base + "/fault-browser-test")
    driver.execute_script(INSTALL)
    if not checks.check(bool(wait_for(lambda: driver.execute_script("return window.__loaded || window.__loadError"), 10))
                        and not driver.execute_script("return !!window.__loadError"),
                        "the page loads /dsbridge.js through the proxy"):
        return

    def events(name=None):
        ev = driver.execute_script("return window.__ev")
        return [e for e in ev if name is None or e["name"] == name]

    def values():
        return driver.execute_script("return window.__vals")

    checks.check(bool(wait_for(lambda: events("connected"), 10)), "the page connects (a `connected` event)")
    first = events("connected")[:1]
    # (The shim's dsinit goes over the socket, so the first welcome opens a new session and
    # says resumed:false; a page whose first call is synchronous creates its session with
    # POST /dsbridge/session, and then even its first welcome says resumed:true: PROTOCOL 2.1.)
    session = driver.execute_script("return dsBridge.session")
    checks.check(bool(first) and first[0]["detail"].get("session") == session and session,
                 "the first `connected` names the page's session %s (%s)" % (session, first[0]["detail"] if first else None))

    driver.execute_script("dsBridge.call('callProgress', function (v) { window.__vals.push(v); })")
    cuts = []
    for action, after in (("cut", 3), ("reset", 6)):
        wait_for(lambda: len(values()) >= after, 10)
        n = proxy.cut_all(action, websocket_only=True)
        cuts.append((action, len(values()), n))
        # Wait for the reconnection before the next cut, so each cut hits a live socket.
        want = len(cuts) + 1
        wait_for(lambda: len(events("connected")) >= want, 10)
    print("  cuts: %s" % ", ".join("%s after %d values (%d sockets)" % c for c in cuts), flush=True)
    checks.check(all(c[2] >= 1 for c in cuts) and proxy.counters()["websocket_faults"] >= 2,
                 "the proxy cut the page's WebSocket twice mid-callProgress (FIN, then RST)")
    checks.check(len(cuts) == 2 and all(c[1] < 11 for c in cuts), "both cuts happened before the last value")

    got = wait_for(lambda: (lambda v: v if len(v) >= 11 else None)(values()), 20) or values()
    time.sleep(0.5)  # anything extra (a duplicate) would show up here
    got = values()
    checks.check(got == list(range(10, -1, -1)), "callProgress delivered 10..0 exactly once and in order (got %s)" % got)

    connected = events("connected")
    resumed = [e for e in connected[1:] if e["detail"].get("resumed") is True]
    checks.check(len(connected) >= 3 and len(resumed) == len(connected) - 1,
                 "`connected` fired again with resumed:true after each cut (%d connected events, %d resumed)"
                 % (len(connected), len(resumed)))
    checks.check(len(events("disconnected")) >= 2, "`disconnected` fired for each cut (%d)" % len(events("disconnected")))
    checks.check(not events("sessionLost"), "no `sessionLost` (%s)" % events("sessionLost"))
    checks.check(driver.execute_script("return dsBridge.session") == session, "the session id stayed %s" % session)
    text = driver.execute_script("return dsBridge.call('testSyn', 'after cuts')")
    checks.check(text == "after cuts[ syn call]", "a sync call works after the resumes (got %r)" % text)
    got2 = driver.execute_async_script("""
        var done = arguments[arguments.length - 1], vals = [];
        dsBridge.call('echo.asyn', {k: 'v'}, function (v) { vals.push(v); });
        setTimeout(function () { done(vals); }, 1000);
    """)
    checks.check(got2 == [{"k": "v"}], "an async call works after the resumes (got %s)" % got2)


def main():
    parser = script_parser(__doc__)
    o = parser.parse_args()
    binary = binary_path(o.daemon)
    with BrowserRun(console="always") as fixture:
        fixture.start_daemon(binary, ["--grace-ms", "30000"], "/tmp/dsbridged-fault-browser-test.log", proxied=True,
                             tick_ms=100)
        fixture.start_driver(window_size="800,600")
        run(fixture.driver, fixture.proxy, fixture.daemon, fixture.checks)
    return fixture.checks.summary()


if __name__ == "__main__":
    sys.exit(main())
