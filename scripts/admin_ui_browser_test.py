#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The admin web page (GET /admin/ui/, PROTOCOL.md 6) in headless Chromium against a real
dsbridged with its demo page open in another tab.

Signs in with a wrong token (refused, nothing shown, the token in no URL or storage), then
the right one; finds the demo page's session in the live list (origin, ready, calls and calls
per second); opens its detail and sees the page's recent calls to native (a method name
holding markup shown as text); calls the page's `addValue` and `startTimer` from the call
form (result, and startTimer's progress values); calls a group the page joined; sees the
charts fill from /metrics; takes a screenshot (--screenshot, e.g. docs/images/admin-ui.png for
the README); reads the state column of sessions in each state the API reports (a raw socket
that said hello but never dsinit: connected, not ready; a second demo page: ready; both gone
during their grace period: no socket, as `"connected": false` says, and as many listed
connected as the "Sessions connected" chart shows); then drains the daemon (SIGTERM while a
call is in flight) and sees the page say so. Prints one line per check, then `N passed, M failed`.

    scripts/admin_ui_browser_test.py [--daemon .build/debug/dsbridged] [--screenshot FILE]
"""

import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dsbtest.browser import ADMIN_TOKEN, BrowserRun, summary_of, wait_for, wait_session  # noqa: E402
from dsbtest.daemon import binary_path, script_parser  # noqa: E402
from dsbtest.page import WS  # noqa: E402

# The state column's words for each state of a listed session (Sources/DSBridgeServer/AdminUI/sessions.js).
STATE_WORDS = {"ready": "ready", "connected": "connected, not ready", "away": "no socket"}


class AdminPage:
    """The admin tab: reads and drives the page through its DOM, as an operator would."""

    def __init__(self, driver, handle):
        self.driver = driver
        self.handle = handle

    def js(self, script, *args):
        self.driver.switch_to.window(self.handle)
        return self.driver.execute_script(script, *args)

    def sign_in(self, token):
        self.js("""
            document.getElementById('token').value = arguments[0];
            document.getElementById('login-form').requestSubmit();
        """, token)

    def text(self, selector):
        return self.js("var e = document.querySelector(arguments[0]); return e ? e.textContent : null", selector)

    def hidden(self, element_id):
        return self.js("return document.getElementById(arguments[0]).hidden", element_id)

    def row(self, session):
        """The cells of the session's row in the list (None while it is not listed)."""
        return self.js("""
            var tr = document.querySelector('#sessions tbody tr[data-session="' + CSS.escape(arguments[0]) + '"]');
            return tr ? Array.prototype.map.call(tr.cells, function (td) { return td.textContent; }) : null;
        """, session)

    def state(self, session):
        """(data-state, text) of the session's state cell (None while it is not listed)."""
        return self.js("""
            var tr = document.querySelector('#sessions tbody tr[data-session="' + CSS.escape(arguments[0]) + '"]');
            var cell = tr && tr.querySelector('.state');
            return cell ? [cell.dataset.state, cell.textContent] : null;
        """, session)

    def connected_rows(self):
        """How many listed sessions the table shows with a socket (ready or connected)."""
        return self.js("""
            return Array.prototype.filter.call(document.querySelectorAll('#sessions tbody .state'), function (c) {
              return c.dataset.state !== 'away';
            }).length;""")

    def click_row(self, session):
        self.js("document.querySelector('#sessions tbody tr[data-session=\"' + CSS.escape(arguments[0]) + '\"]').click()",
                session)

    def submit(self, form_id, fields):
        self.js("""
            var form = document.getElementById(arguments[0]);
            for (var name in arguments[1]) form.elements[name].value = arguments[1][name];
            form.requestSubmit();
        """, form_id, fields)

    def result(self, box_id):
        """{status, progress, data, error} of a call's result box once it is not pending."""
        return self.js("""
            var box = document.getElementById(arguments[0]);
            var status = box.dataset.status;
            if (!status || status === 'pending') return null;
            function text(sel) { var e = box.querySelector(sel); return e ? e.textContent : null; }
            return {status: status, progress: text('pre.progress'), data: text('pre.data'), error: text('pre.error'),
                    html: box.innerHTML};
        """, box_id)

    def recent_calls(self):
        return self.js("""
            return Array.prototype.map.call(document.querySelectorAll('#calls tbody tr'), function (tr) {
              return {method: tr.cells[1].textContent, outcome: tr.cells[2].textContent,
                      elements: tr.cells[1].children.length};
            });""")

    def chart_values(self):
        return self.js("""
            var out = {};
            document.querySelectorAll('figure.chart').forEach(function (f) {
              out[f.querySelector('figcaption span').textContent] = f.querySelector('figcaption strong').textContent;
            });
            return out;""")


def api_state(daemon, session):
    """The state the admin API gives `session`: ready, connected (not ready) or away (no
    socket), from its `connected` and `ready` (None while it is not listed)."""
    status, listed = daemon.admin("GET", "/admin/sessions")
    entry = next((s for s in listed if s.get("session") == session), None) if status == 200 else None
    if entry is None:
        return None
    if not entry.get("connected"):
        return "away"
    return "ready" if entry.get("ready") else "connected"


def shows_api_state(page, daemon, checks, session, expected, what):
    """Waits (the page reads the list every 2 s) until the API gives `session` the state
    `expected`, then until the page's row shows it; one check."""
    api = wait_for(lambda: api_state(daemon, session) == expected, 8)
    shown = wait_for(lambda: (lambda s: s if s == [expected, STATE_WORDS[expected]] else None)(page.state(session)), 6)
    checks.check(api and shown, "%s: the API says %s and the page shows %s (%s)"
                 % (what, api_state(daemon, session), STATE_WORDS[expected], page.state(session)))


def state_column(driver, daemon, checks, page, admin_tab):
    """The state column against the API for connected, ready and away sessions, and against
    the "Sessions connected" chart."""
    raw = WS(daemon.port)
    try:
        welcome = raw.hello()
        raw_session = welcome and welcome.get("session")
        checks.check(bool(raw_session), "a raw socket says hello and gets a session (%s)" % welcome)
        if raw_session:
            shows_api_state(page, daemon, checks, raw_session, "connected", "a socket that never sent dsinit")
    finally:
        raw.close()  # the connection drops, as a page's does when its network goes
    driver.switch_to.new_window("tab")
    second_tab = driver.current_window_handle
    driver.get(daemon.url("/index.html"))
    second = wait_session(driver, daemon, timeout=15)
    checks.check(bool(second), "a second demo page has a ready session (%s)" % second)
    if second:
        shows_api_state(page, daemon, checks, second, "ready", "a second demo page")
    # The page goes away: its session waits for it during the grace period (60 s).
    driver.switch_to.window(second_tab)
    driver.close()
    driver.switch_to.window(admin_tab)
    if second:
        shows_api_state(page, daemon, checks, second, "away", "a closed page in its grace period")
    if raw_session:
        shows_api_state(page, daemon, checks, raw_session, "away", "a closed socket that was never ready")

    def agree():
        figure = page.chart_values().get("Sessions connected")
        rows = page.connected_rows()
        return (figure, rows) if figure == str(rows) else None
    agreed = wait_for(agree, 6)
    checks.check(bool(agreed), "the table lists as many sessions with a socket as the chart shows (chart, rows: %s)"
                 % (agreed or (page.chart_values().get("Sessions connected"), page.connected_rows()),))


def run_page_calls(driver, handle, script):
    driver.switch_to.window(handle)
    return driver.execute_async_script("var done = arguments[arguments.length - 1];" + script)


def scenario(driver, daemon, checks, screenshot):
    driver.get(daemon.url("/index.html"))
    demo_tab = driver.current_window_handle
    session = wait_session(driver, daemon, timeout=15)
    if not checks.check(bool(session), "the demo page has a ready session (%s)" % session):
        return
    # The demo page runs its own examples first (dozens of calls at once): let them end, so
    # that the calls this test makes stay in the page's recent calls (the last 50).
    checks.check(bool(wait_for(lambda: summary_of(driver), 40)), "the demo page ran its examples")
    driver.switch_to.new_window("tab")
    admin_tab = driver.current_window_handle
    driver.get("http://127.0.0.1:%d/admin/ui" % daemon.admin_port)
    page = AdminPage(driver, admin_tab)
    checks.check(driver.current_url.endswith("/admin/ui/"), "/admin/ui redirects to /admin/ui/ (got %s)" % driver.current_url)
    checks.check(wait_for(lambda: page.text("#health") == "serving", 5), "the header shows the daemon serving (/healthz)")

    # A wrong token: refused, nothing of the console shown.
    page.sign_in("not-the-token")
    error = wait_for(lambda: page.text("#login-error"), 5)
    checks.check(error and "401" in error and page.hidden("console"), "a wrong token is refused (%r)" % error)
    checks.check(page.js("return document.querySelectorAll('#sessions tbody tr').length") == 0,
                 "no session is listed after a refused token")

    page.sign_in(ADMIN_TOKEN)
    checks.check(wait_for(lambda: not page.hidden("console"), 5), "the right token signs in")
    checks.check(page.hidden("node") and page.text("#charts-title") == "This node",
                 "a node alone: no node selector, the charts are this node's")
    stored = page.js("return [location.href, document.cookie, JSON.stringify(localStorage), JSON.stringify(sessionStorage),"
                     " document.getElementById('token').value]")
    checks.check(not any(ADMIN_TOKEN in s for s in stored[:1]) and stored[1:] == ["", "{}", "{}", ""],
                 "the token is in no URL, cookie, storage or field (%s)" % stored)

    # The demo page in the list, then busy: calls per second.
    row = wait_for(lambda: page.row(session), 5)
    checks.check(row and "127.0.0.1" in row[2] and row[3] == "ready", "the demo page's session is listed (%s)" % row)
    page.click_row(session)
    checks.check(wait_for(lambda: page.text("#detail-id") == session, 3) and page.hidden("detail-gone"),
                 "a click opens the session's detail")
    # Recorded once the detail has asked for them (and for a minute after each look).
    wait_for(lambda: page.js("return document.getElementById('calls').dataset.session") == session, 5)
    run_page_calls(driver, demo_tab, "dsBridge.call('<img src=x onerror=window.__xss=1>', 1); done(true);")
    markup = wait_for(lambda: [c for c in page.recent_calls() if c["method"].startswith("<img")], 8)
    checks.check(markup and markup[0]["outcome"] == "methodNotFound" and markup[0]["elements"] == 0
                 and not page.js("return window.__xss === 1"),
                 "the detail lists the page's recent calls; a method name holding markup is shown as text (%s)" % markup)
    run_page_calls(driver, demo_tab, "window.__busy = setInterval(function () { dsBridge.call('testSyn', 'x'); }, 50); done(true);")
    calls = wait_for(lambda: [c for c in page.recent_calls() if c["method"] == "testSyn" and c["outcome"] == "ok"], 8)
    checks.check(bool(calls), "a busy page's calls show as they come (testSyn ok)")
    rate = wait_for(lambda: (lambda r: r and r[7] not in ("—", "0") and r)(page.row(session)), 8)
    checks.check(bool(rate), "the list shows the page's calls and calls per second (%s)" % rate)

    # Native -> page calls from the form.
    page.submit("call-form", {"method": "addValue", "args": "[3, 4]", "timeout": "5000"})
    got = wait_for(lambda: page.result("call-result"), 8)
    checks.check(got and got["status"] == "200" and got["data"] == "7", "the call form calls addValue(3, 4): 7 (%s)" % got)
    page.submit("call-form", {"method": "noSuchMethod", "args": "[]", "timeout": "1500"})
    got = wait_for(lambda: page.result("call-result"), 6)
    checks.check(got and got["status"] == "422" and got["error"] == 'method "noSuchMethod" is not registered',
                 "a method the page lacks: 422 and the page's error (%s)" % got)
    page.submit("call-form", {"method": "addValue", "args": "{\"a\": 1}", "timeout": "5000"})
    got = wait_for(lambda: page.result("call-result"), 3)
    checks.check(got and got["status"] == "invalid" and "JSON array" in got["html"],
                 "arguments that are not a JSON array are refused in the form (%s)" % got)
    page.submit("call-form", {"method": "startTimer", "args": "[]", "timeout": "10000"})
    pending = wait_for(lambda: page.js("return document.getElementById('call-result').dataset.status") == "pending", 2, 0.01)
    got = wait_for(lambda: page.result("call-result"), 10)
    checks.check(pending and got and got["status"] == "200" and got["progress"] == "0\n1\n2\n3\n4" and got["data"] == "5",
                 "startTimer shows the wait, then its progress 0…4 and result 5 (%s)" % got)

    # A group the page joined.
    run_page_calls(driver, demo_tab, "dsBridge.call('test.setTags', ['room:admin-test'], function () { done(true); });")
    page.submit("group-form", {"tag": "room:admin-test", "method": "addValue", "args": "[1, 2]", "timeout": "5000"})
    got = wait_for(lambda: page.result("group-result"), 8)
    checks.check(got and got["status"] == "200" and session in (got["data"] or "") and "{\"data\":3" in (got["data"] or ""),
                 "the group form reaches the tagged page (%s)" % got)

    # Charts from /metrics.
    charts = wait_for(lambda: (lambda v: v.get("Calls to native", "—") not in ("—", "0 /s") and v)(page.chart_values()), 10)
    checks.check(charts and charts.get("Sessions connected") == "1", "the charts show live figures (%s)" % charts)
    time.sleep(6)  # a few more points on the charts for the picture
    if screenshot:
        driver.switch_to.window(admin_tab)
        driver.set_window_size(1280, 1400)
        os.makedirs(os.path.dirname(os.path.abspath(screenshot)), exist_ok=True)
        checks.check(driver.save_screenshot(screenshot), "screenshot saved to %s" % screenshot)
    run_page_calls(driver, demo_tab, "clearInterval(window.__busy); done(true);")

    state_column(driver, daemon, checks, page, admin_tab)

    # The drain: a call in flight keeps it going long enough to see.
    run_page_calls(driver, demo_tab, "dsBridge.call('test.sleepSyn', 6000, function () {}); setTimeout(function () { done(true); }, 200);")
    daemon.proc.send_signal(signal.SIGTERM)
    badge = wait_for(lambda: page.js("return document.getElementById('health').dataset.state") == "draining", 5)
    checks.check(badge, "a drain shows in the header (%s)" % page.text("#health"))
    page.js("document.getElementById('sign-out').click()")
    checks.check(not page.hidden("login") and page.hidden("console"), "signing out shows the sign-in form again")


def main():
    parser = script_parser(__doc__)
    parser.add_argument("--screenshot", default=".build/admin-ui.png", help="where the page's picture goes ('' for none)")
    o = parser.parse_args()
    with BrowserRun() as run:
        run.start_daemon(binary_path(o.daemon), ["--drain-ms", "8000"], "/tmp/dsbridged-admin-ui-test.log")
        run.start_driver(window_size="1280,1400")
        scenario(run.driver, run.daemon, run.checks, o.screenshot)
    return run.checks.summary()


if __name__ == "__main__":
    sys.exit(main())
