#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Hotwire Native bridge components in headless Chromium against a real dsbridged (PROTOCOL.md 9.4).

Runs hotwire-native-demo's three bridge pages (web/tests/hotwire/, rendered from its views
and layout, its controllers bundled with the real @hotwired/hotwire-native-bridge 1.0.0,
@hotwired/stimulus 3.2.2 and @hotwired/turbo 8.0.2 by scripts/build-hotwire-fixture.sh),
unchanged but for the script tag of web/hotwire.js, against the daemon's --demo components;
the native side (the app's buttons and menus) is the admin API
(GET /admin/sessions/ID/components, POST /admin/sessions/ID/components/NAME/reply):
- form: `connect` with submitTitle "Submit"; a reply clicks the submit button (Turbo submits
  the form), a second reply clicks it again; Turbo's submit-start/end send submitDisabled and
  submitEnabled.
- menu: the trigger sends `display` with the title and the items; {"selectedIndex": 1} clicks item 1.
- overflow-menu: `connect` with the label; a reply clicks the element (which opens the menu).
- the library's bridge object created before hotwire.js ran (bridge-form-bridge-first.html)
  and after it (the other pages); dsbridge.js and hotwire.js on one page (one session);
- a reply to a message whose controller disconnected: taken, acknowledged, clicks nothing;
- a reply made while the page's socket is cut (through scripts/dsbtest/fault_proxy.py, the
  reply held in flight) arrives once after the resume;
- hotwire.js added after the bundle ran, or its written scripts refused: it says components
  cannot load;
- a daemon with no registered component: no bridge component loads (the library's rule).
Prints one line per check, then `N passed, M failed`.

    scripts/hotwire_browser_test.py [--daemon .build/debug/dsbridged]
"""

import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dsbtest.browser import ADMIN_TOKEN, BrowserRun, session_ready, sessions, wait_for  # noqa: E402
from dsbtest.daemon import Daemon, binary_path, demo_args, script_parser  # noqa: E402

PAGES = "/tests/hotwire/"
DEMO_COMPONENTS = ["form", "menu", "overflow-menu"]

# Test instrumentation (added by the test, not by the page): counts Turbo's form submissions.
WATCH_SUBMISSIONS = """
  window.__starts = 0; window.__ends = [];
  document.addEventListener('turbo:submit-start', function () { window.__starts++; });
  document.addEventListener('turbo:submit-end', function (e) {
    var r = e.detail.fetchResponse;
    window.__ends.push(r ? r.statusCode : null);
  });
"""


class Run(BrowserRun):
    """The fixture (run.driver, run.daemon, run.proxy, run.checks) and the scenarios' helpers."""

    def url(self, page, proxied=False):
        return super().url(PAGES + page, proxied)

    def open_page(self, page, proxied=False, daemon=None):
        """Loads `page`; returns its session once the server lists it ready."""
        daemon = daemon or self.daemon
        self.driver.get(self.url(page, proxied) if daemon is self.daemon else
                        "http://127.0.0.1:%d%s%s" % (daemon.port, PAGES, page))
        session = wait_for(lambda: self.driver.execute_script(
            "return window.hotwireBridge && window.hotwireBridge.session"), 15)
        ready = bool(session) and bool(wait_for(lambda: session_ready(daemon, session), 10))
        self.checks.check(ready, "%s: the page opened a session that became ready" % page)
        return session if ready else None

    def components(self, session, daemon=None):
        status, body = (daemon or self.daemon).admin("GET", "/admin/sessions/%s/components" % session)
        return body.get("components", {}) if status == 200 and isinstance(body, dict) else {}

    def received(self, session, component, event, timeout=10, after_id=None):
        """The last `event` message of `component` (with an id above `after_id`), waited for."""
        def look():
            m = self.components(session).get(component, {}).get(event)
            if m and (after_id is None or int(m["id"]) > int(after_id)):
                return m
            return None
        return wait_for(look, timeout, 0.1)

    def reply(self, session, component, event, data=None):
        body = {"event": event}
        if data is not None:
            body["data"] = data
        return self.daemon.admin("POST", "/admin/sessions/%s/components/%s/reply" % (session, component), body)

    def js(self, expression):
        return self.driver.execute_script("return " + expression)


def check_adapter(run, page):
    """What the library sees of hotwire.js: the user agent, <html>'s attributes, the adapter."""
    ua = run.js("navigator.userAgent")
    run.checks.check(ua.endswith(" bridge-components: [form menu overflow-menu]"),
                     "%s: the user agent names the server's components (%s)" % (page, ua[-60:]))
    attrs = run.js("[document.documentElement.dataset.bridgePlatform, document.documentElement.dataset.bridgeComponents]")
    run.checks.check(attrs == ["web", "form menu overflow-menu"],
                     "%s: the library set data-bridge-platform web and the components on <html> (%s)" % (page, attrs))


def form(run, page="bridge-form.html"):
    session = run.open_page(page)
    if not session:
        return
    check_adapter(run, page)
    connect = run.received(session, "form", "connect")
    url = run.url(page)
    run.checks.check(bool(connect) and connect["data"] == {"submitTitle": "Submit", "metadata": {"url": url}},
                     "%s: connect arrives with submitTitle Submit and metadata.url (%s)" % (page, json.dumps(connect)))
    if not connect:
        return
    run.driver.execute_script(WATCH_SUBMISSIONS)
    status, answer = run.reply(session, "form", "connect")
    run.checks.check(status == 200 and answer.get("replied", {}).get("id") == connect["id"],
                     "%s: the admin reply to connect answers 200 with the message (%s %s)" % (page, status, answer))
    ended = wait_for(lambda: len(run.js("window.__ends")) >= 1, 10)
    run.checks.check(bool(ended) and run.js("window.__starts") == 1,
                     "%s: the reply clicked submit: Turbo submitted the form once (ends %s)" % (page, run.js("window.__ends")))
    disabled = run.received(session, "form", "submitDisabled")
    enabled = run.received(session, "form", "submitEnabled")
    run.checks.check(bool(disabled) and bool(enabled) and int(disabled["id"]) < int(enabled["id"]),
                     "%s: submitDisabled then submitEnabled arrive around the submission (%s, %s)"
                     % (page, disabled and disabled["id"], enabled and enabled["id"]))
    if not enabled:
        return
    status, _ = run.reply(session, "form", "connect")
    ended = wait_for(lambda: len(run.js("window.__ends")) >= 2, 10)
    run.checks.check(status == 200 and bool(ended) and run.js("window.__starts") == 2,
                     "%s: a second reply to the same connect clicks submit again (starts %s)" % (page, run.js("window.__starts")))
    again = run.received(session, "form", "submitEnabled", after_id=enabled["id"])
    run.checks.check(bool(again), "%s: the second submission sent submitEnabled again (%s)" % (page, again and again["id"]))
    time.sleep(0.5)
    run.checks.check(run.js("window.__starts") == 2, "%s: each reply clicked once (starts %s)" % (page, run.js("window.__starts")))


def form_bridge_first(run):
    """The library's bridge object exists (and web-bridge:ready was sent) before hotwire.js runs."""
    form(run, "bridge-form-bridge-first.html")


def result_text(run):
    """The demo menu's result line, whitespace folded (the item's text keeps its indentation)."""
    return " ".join(run.js("document.querySelector('.result').textContent").split())


def menu(run):
    page = "bridge-menu.html"
    session = run.open_page(page)
    if not session:
        return
    check_adapter(run, page)
    run.driver.find_element("css selector", "button[data-action*='bridge--menu#show']").click()
    display = run.received(session, "menu", "display")
    items = [{"title": t, "index": i} for i, t in enumerate(["Option One", "Option Two", "Option Three", "Option Four"])]
    run.checks.check(bool(display) and display["data"].get("title") == "Select an option" and display["data"].get("items") == items,
                     "%s: the trigger sends display with the title and the enabled items (%s)" % (page, json.dumps(display)[:300]))
    dialog = run.js("getComputedStyle(document.querySelector('.dialog')).display")
    run.checks.check(dialog == "none", "%s: the web menu stays closed (the bridge component took the click): %s" % (page, dialog))
    status, _ = run.reply(session, "menu", "display", {"selectedIndex": 1})
    result = wait_for(lambda: (lambda t: t if "selected" in t else None)(result_text(run)), 10)
    run.checks.check(status == 200 and result == "Option Two was selected",
                     "%s: a reply with selectedIndex 1 clicks item 1 (%r)" % (page, result))


def overflow_menu(run):
    page = "bridge-overflow.html"
    session = run.open_page(page)
    if not session:
        return
    connect = run.received(session, "overflow-menu", "connect")
    run.checks.check(bool(connect) and connect["data"].get("label") == "Options",
                     "%s: connect arrives with the label Options (%s)" % (page, json.dumps(connect)))
    run.checks.check(run.received(session, "menu", "display", timeout=0.5) is None, "%s: no display before the click" % page)
    status, _ = run.reply(session, "overflow-menu", "connect")
    display = run.received(session, "menu", "display")
    run.checks.check(status == 200 and bool(display) and len(display["data"].get("items", [])) == 4,
                     "%s: the reply clicks the element, whose click sends the menu's display (%s)" % (page, display and display["id"]))
    if display:
        run.reply(session, "menu", "display", {"selectedIndex": 2})
        result = wait_for(lambda: (lambda t: t if "selected" in t else None)(result_text(run)), 10)
        run.checks.check(result == "Option Three was selected", "%s: then the menu's reply selects item 2 (%r)" % (page, result))


def with_dsbridge(run):
    """A page that also uses the DSBridge API (dsbridge.js before hotwire.js): one session."""
    page = "bridge-form-with-dsbridge.html"
    before = {s["session"] for s in sessions(run.daemon)}
    session = run.open_page(page)
    if not session:
        return
    opened = {s["session"] for s in sessions(run.daemon)} - before
    run.checks.check(opened == {session} and run.js("dsBridge.session") == session,
                     "%s: one session for both APIs (new sessions %s)" % (page, sorted(opened)))
    run.checks.check(run.js("dsBridge.call('testSyn', 'x')") == "x[ syn call]", "%s: dsBridge.call works" % page)
    connect = run.received(session, "form", "connect")
    run.checks.check(bool(connect) and connect["data"].get("submitTitle") == "Submit", "%s: the form's connect arrives" % page)


def disconnected(run):
    """A reply to a message whose controller has disconnected reaches the page and does
    nothing (the library dropped the callback); nothing is left pending on either side."""
    page = "bridge-overflow.html"
    session = run.open_page(page)
    if not session or not run.checks.check(bool(run.received(session, "overflow-menu", "connect")), "%s: connect arrived" % page):
        return
    run.driver.execute_script("""
        window.__clicks = 0;
        var button = document.querySelector('[data-controller="bridge--overflow-menu"]');
        window.addEventListener('click', function (e) { if (e.target === button) window.__clicks++; }, true);
        button.removeAttribute('data-controller');   // Stimulus disconnects the bridge controller
    """)
    status, _ = run.reply(session, "overflow-menu", "connect")
    settled = wait_for(lambda: any(s.get("session") == session and s.get("queued") == 0 for s in sessions(run.daemon)), 10)
    time.sleep(0.5)
    run.checks.check(status == 200 and bool(settled) and run.js("window.__clicks") == 0,
                     "%s: after the controller disconnected a reply is taken and acknowledged, and clicks nothing (clicks %s)"
                     % (page, run.js("window.__clicks")))
    run.checks.check(run.received(session, "menu", "display", timeout=0.5) is None, "%s: no display followed" % page)


def across_cut(run):
    """A reply made while it cannot reach the page (held in the proxy, then the socket cut)
    arrives once, after the resume."""
    page = "bridge-overflow.html"
    session = run.open_page(page, proxied=True)
    if not session or not run.received(session, "overflow-menu", "connect"):
        run.checks.check(False, "%s via the proxy: connect arrived" % page)
        return
    # Counted in the capture phase: the element's own bridge--menu#show action stops the event.
    run.driver.execute_script("""
        window.__clicks = 0;
        var button = document.querySelector('[data-controller="bridge--overflow-menu"]');
        window.addEventListener('click', function (e) { if (e.target === button) window.__clicks++; }, true);
    """)
    run.proxy.hold_downstream = True
    status, _ = run.reply(session, "overflow-menu", "connect")
    time.sleep(0.3)
    clicks_before = run.js("window.__clicks")
    cuts = run.proxy.cut_all("cut", websocket_only=True)
    run.proxy.hold_downstream = False
    run.checks.check(status == 200 and clicks_before == 0 and cuts >= 1,
                     "the reply was made and held in flight, then the socket cut (%s, clicks %s, cuts %d)" % (status, clicks_before, cuts))
    clicked = wait_for(lambda: run.js("window.__clicks") >= 1, 15)
    time.sleep(1.0)
    run.checks.check(bool(clicked) and run.js("window.__clicks") == 1,
                     "after the resume the reply arrived once (clicks %s)" % run.js("window.__clicks"))
    run.checks.check(run.js("window.hotwireBridge.session") == session, "the session survived the cut")


def late(run):
    """hotwire.js added after the library's module was evaluated: components cannot load; it says so."""
    page = "bridge-form-late.html"
    run.driver.get(run.url(page))
    wait_for(lambda: run.js("!!(window.Strada && window.Strada.web)"), 10)
    run.driver.get_log("browser")  # drop earlier lines
    run.driver.execute_script("var s = document.createElement('script'); s.src = '/hotwire.js'; document.head.appendChild(s);")
    session = wait_for(lambda: run.js("window.hotwireBridge && window.hotwireBridge.session"), 15)
    lines = wait_for(lambda: [e["message"] for e in run.driver.get_log("browser") if "will not load" in e["message"]], 5)
    run.checks.check(bool(session) and bool(lines), "%s: hotwire.js added late warns that components will not load (%s)"
                     % (page, (lines or [""])[0][:160]))
    time.sleep(0.5)
    run.checks.check(run.components(session) == {} if session else False,
                     "%s: nothing reached the server's components (the controllers never loaded)" % page)


def write_refused(run):
    """A browser that refuses the scripts hotwire.js writes (as Chrome may for other sites'
    scripts on slow connections; simulated with a document.write that does nothing): the
    channel is loaded once the document is parsed, too late for components, and it says so."""
    page = "bridge-form.html"
    added = run.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                                       {"source": "document.write = function () {};"})
    try:
        run.driver.get_log("browser")  # drop earlier lines
        run.driver.get(run.url(page))
        session = wait_for(lambda: run.js("window.hotwireBridge && window.hotwireBridge.session"), 15)
    finally:
        run.driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": added["identifier"]})
    lines = wait_for(lambda: [e["message"] for e in run.driver.get_log("browser") if "will not load" in e["message"]], 5)
    run.checks.check(bool(session) and bool(lines),
                     "%s with document.write refused: a session all the same, and the warning that components will not load" % page)
    time.sleep(0.5)
    run.checks.check(bool(session) and run.components(session) == {}, "%s with document.write refused: no component loaded" % page)


def no_components(run, binary):
    """A server without registered components: the user agent is left alone and, by the
    library's own rule, no bridge component loads (the form works as a web form)."""
    bare = Daemon(binary, demo_args("web", ADMIN_TOKEN, demo=False), "/tmp/dsbridged-hotwire-bare.log", "bare")
    try:
        session = run.open_page("bridge-form.html", daemon=bare)
        if not session:
            return
        ua = run.js("navigator.userAgent")
        run.checks.check("bridge-components" not in ua, "no components: the user agent is unchanged")
        run.checks.check(run.js("window.hotwireBridge.components") == [] and
                         run.js("document.documentElement.dataset.bridgeComponents") == "",
                         "no components: the adapter supports none")
        loaded = run.js("Stimulus.getControllerForElementAndIdentifier(document.querySelector('form'), 'bridge--form') !== null")
        run.checks.check(loaded is False, "no components: the bridge--form controller did not load")
        time.sleep(0.5)
        run.checks.check(run.components(session, bare) == {}, "no components: no message reached the server")
    finally:
        bare.stop()


def main():
    parser = script_parser(__doc__)
    parser.add_argument("--max-seconds", type=int, default=600, help="the whole test's bound")
    o = parser.parse_args()
    binary = binary_path(o.daemon)

    def no_registered_component(run):
        no_components(run, binary)

    scenarios = [form, form_bridge_first, menu, overflow_menu, with_dsbridge, disconnected, across_cut, late,
                 write_refused, no_registered_component]
    with Run(max_seconds=o.max_seconds) as run:
        run.start_daemon(binary, ["--grace-ms", "30000"], "/tmp/dsbridged-hotwire-browser-test.log", proxied=True)
        run.start_driver()
        run.scenarios(scenarios, run)
    return run.checks.summary()


if __name__ == "__main__":
    sys.exit(main())
