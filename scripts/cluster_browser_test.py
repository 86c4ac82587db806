#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Browser test of the cluster: the demo page through HAProxy survives the loss of its node.

Starts Redis, three dsbridged nodes (--demo, --redis) and HAProxy in front of them
(deploy/haproxy-dsbridged.cfg rendered for loopback, without affinity: the page's WebSocket and
its sync calls, POST /dsbridge/call, may each land on any node). Headless Chromium
(Debian's chromium and chromedriver, offline) opens the demo page through HAProxy and waits
until every row passes. Then:

  1. the node holding the page's session (GET /admin/sessions -> "node") is SIGKILLed;
  2. the page must resume on another node: a `connected` event with resumed:true, and the
     admin API (asked on a live node) lists the session on another node, connected;
  3. calls made after the kill complete: `echo.asyn` with a callback (over the WebSocket),
     `echo.syn` (a sync call, POST /dsbridge/call) and a native -> JS call of the page's
     `addValue` through the admin API of a node that is not the new owner;
  4. no page error: no `sessionLost` event, no uncaught error or unhandled rejection in the
     page, the demo rows still all pass, and no SEVERE console line but the connection
     failure of the killed node's socket.

Prints one line per check, then `N passed, M failed`; exits non-zero on any failure. Every
process it starts is stopped at the end.

    scripts/cluster_browser_test.py [--daemon .build/debug/dsbridged] [--screenshot PATH]
"""

import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dsbtest.browser import BrowserRun, console_errors, row_states, run_js, summary_of, wait_for  # noqa: E402
from dsbtest.checks import Checks  # noqa: E402
from dsbtest.daemon import binary_path, script_parser  # noqa: E402

PAGE = "/index.html?tick=100"
PAGE_TIMEOUT_S = 90

WATCH = """
window.__ev = window.__ev || [];
window.__errors = window.__errors || [];
if (!window.__watching) {
  window.__watching = true;
  ['connected', 'disconnected', 'sessionLost', 'callFailed'].forEach(function (name) {
    dsBridge.on(name, function (d) { window.__ev.push({name: name, detail: d || null, at: Date.now()}); });
  });
  window.addEventListener('error', function (e) { window.__errors.push('error: ' + (e.message || e)); });
  window.addEventListener('unhandledrejection', function (e) {
    window.__errors.push('unhandled rejection: ' + (e.reason && e.reason.message || e.reason));
  });
}
"""


def events(driver, name=None):
    return [e for e in driver.execute_script("return window.__ev || []") if name is None or e["name"] == name]


def run(driver, cluster, checks, screenshot):
    url = cluster.url(PAGE)
    driver.get(url)
    summary = wait_for(lambda: summary_of(driver), PAGE_TIMEOUT_S, 0.2)
    if not checks.check(bool(summary), "the demo page finishes through HAProxy (%s)" % url,
                        "" if summary else "rows: %s" % row_states(driver)):
        return
    bad = [r for r in summary["rows"] if r["status"] != "pass"]
    checks.check(not bad and summary["passed"] > 0, "every row of the demo page passes",
                 "%d passed, %d failed: %s" % (summary["passed"], summary["failed"], bad[:3]))
    driver.execute_script(WATCH)
    session = driver.execute_script("return dsBridge.session")
    line = driver.execute_script("return document.getElementById('connection').textContent")
    checks.check(line == "connected, session %s" % session, "the connection line reads as a first connection", repr(line))
    owner, listed = cluster.owner_of(session)
    if not checks.check(owner in cluster.nodes and listed.get("connected"),
                        "the admin API lists the page's session %s on a node, connected" % session,
                        "owner %s, %s" % (owner, listed)):
        return
    print("  session %s is on %s; killing it" % (session, owner), flush=True)

    # 1. Kill the node holding the session.
    connected_before = len(events(driver, "connected"))
    killed_at = time.monotonic()
    cluster.kill(owner)
    live = [n for n in cluster.nodes if n != owner]

    # 2. The page resumes on another node.
    resumed = wait_for(lambda: [e for e in events(driver, "connected")[connected_before:] if e["detail"].get("resumed")], 20)
    took = time.monotonic() - killed_at
    checks.check(bool(resumed) and resumed[0]["detail"].get("session") == session,
                 "the page resumes its session after the kill (connected, resumed:true)",
                 "after %.2f s: %s" % (took, resumed[:1] or events(driver)))
    line = driver.execute_script("return document.getElementById('connection').textContent")
    checks.check(line == "reconnected, session %s (resumed)" % session, "the connection line says the page reconnected",
                 repr(line))

    def moved():
        node, entry = cluster.owner_of(session, node=live[0])
        return (node, entry) if node in live and entry.get("connected") else None

    found = wait_for(moved, 20, 0.2)
    new_owner = found[0] if found else None
    checks.check(bool(found), "the admin API (asked on %s) lists the session on another node, connected" % live[0],
                 "on %s" % new_owner if found else "listed: %s" % (cluster.owner_of(session, node=live[0]),))

    # 3. Calls after the kill.
    value = {"after": "kill", "n": 1}
    got = run_js(driver, "dsBridge.call('echo.asyn', %s, function (v) { done(v); });" % json.dumps(value), timeout=20)
    checks.check(got == value, "echo.asyn with a callback after the kill completes", "got %s" % json.dumps(got))
    got = run_js(driver, "done(dsBridge.call('echo.syn', 'sync after kill'));", timeout=20)
    checks.check(got == "sync after kill", "echo.syn (sync, POST /dsbridge/call) after the kill answers", "got %s" % json.dumps(got))
    other = [n for n in live if n != new_owner] or live
    status, answer = cluster.admin("POST", "/admin/sessions/%s/call" % session,
                                   {"method": "addValue", "args": [3, 4], "timeoutMs": 10000}, node=other[0])
    checks.check(status == 200 and answer == {"data": 7, "progress": []},
                 "native -> JS addValue(3, 4) through the admin API of %s reaches the page" % other[0],
                 "HTTP %s %s" % (status, json.dumps(answer)))

    # 4. No page error.
    lost = events(driver, "sessionLost")
    checks.check(not lost, "no sessionLost event", "%s" % lost)
    failed = events(driver, "callFailed")
    checks.check(not failed, "no callFailed event", "%s" % failed)
    errors = driver.execute_script("return window.__errors")
    checks.check(not errors, "no uncaught error or unhandled rejection in the page", "%s" % errors)
    summary = summary_of(driver)
    checks.check(summary and summary["failed"] == 0, "the demo rows still all pass",
                 "%s failed" % (summary and summary["failed"]))
    severe = [m for m in console_errors(driver) if "WebSocket" not in m and "ERR_CONNECTION" not in m]
    checks.check(not severe, "no SEVERE console line (but the killed socket's)", "%s" % severe[:5])
    # 5. The admin page of a live node shows the cluster: the page's session with its node,
    #    and the charts of another node, chosen in its node selector.
    admin_page_across_nodes(driver, cluster, checks, session, live, new_owner)

    print("  resumed %.2f s after the kill, on %s; connection events: %s"
          % (took, new_owner, [(e["name"], e["detail"].get("resumed") if e["detail"] else None) for e in events(driver)]),
          flush=True)
    if screenshot:
        driver.save_screenshot(screenshot)
        print("  screenshot saved to %s" % screenshot)


def admin_page_across_nodes(driver, cluster, checks, session, live, owner):
    page_tab = driver.current_window_handle
    viewer = next((n for n in live if n != owner), live[0])
    other = owner if owner and owner != viewer else next(n for n in live if n != viewer)
    driver.switch_to.new_window("tab")
    driver.get("http://127.0.0.1:%d/admin/ui/" % cluster.nodes[viewer].admin_port)
    driver.execute_script("""
        document.getElementById('token').value = arguments[0];
        document.getElementById('login-form').requestSubmit();""", cluster.admin_token)
    row = wait_for(lambda: driver.execute_script("""
        var tr = document.querySelector('#sessions tbody tr[data-session="' + CSS.escape(arguments[0]) + '"]');
        return tr ? Array.prototype.map.call(tr.cells, function (td) { return td.textContent; }) : null;""", session), 10)
    checks.check(row is not None and row[1] == owner,
                 "the admin page of %s lists the page's session on %s" % (viewer, owner), "row %s" % row)
    options = wait_for(lambda: driver.execute_script("""
        var s = document.getElementById('node');
        return s.hidden ? null : Array.prototype.map.call(s.options, function (o) { return o.value; });"""), 10)
    # The killed node stays listed until its record in Redis expires (a few seconds).
    checks.check(options is not None and set(live) <= set(options) <= set(cluster.nodes),
                 "its node selector offers the live nodes", "options %s, live %s" % (options, live))
    driver.execute_script("""
        var s = document.getElementById('node');
        s.value = arguments[0];
        s.dispatchEvent(new Event('change'));""", other)
    note = wait_for(lambda: (lambda t: t if t and (other + "'s") in t else None)(
        driver.execute_script("return document.getElementById('charts-note').textContent")), 10)
    sessions_shown = wait_for(lambda: (lambda v: v if v not in (None, "—") else None)(driver.execute_script("""
        var out = null;
        document.querySelectorAll('figure.chart').forEach(function (f) {
          if (f.querySelector('figcaption span').textContent === 'Sessions connected') out = f.querySelector('figcaption strong').textContent;
        });
        return out;""")), 10)
    checks.check(note is not None and sessions_shown is not None,
                 "choosing %s there shows %s's metrics in the charts" % (other, other),
                 "note %r, sessions connected %r" % (note, sessions_shown))
    driver.close()
    driver.switch_to.window(page_tab)


def main():
    parser = script_parser(__doc__)
    parser.add_argument("--screenshot", metavar="PATH")
    parser.add_argument("--log-dir", default="/tmp/dsbridged-cluster-browser-test")
    parser.add_argument("--max-seconds", type=float, default=240)
    options = parser.parse_args()

    checks = Checks()
    binary = binary_path(options.daemon)
    with BrowserRun(checks, max_seconds=options.max_seconds) as fixture:
        cluster = fixture.start_cluster(binary, options.log_dir, nodes=3, affinity=False,
                                        extra=["--demo", "--demo-tick-ms", "50", "--grace-ms", "60000"])
        run(fixture.start_driver(), cluster, checks, options.screenshot)
    code = checks.summary()
    fixture.print_tails()
    return code


if __name__ == "__main__":
    sys.exit(main())
