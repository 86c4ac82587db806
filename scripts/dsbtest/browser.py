# SPDX-License-Identifier: MIT
"""Headless Chromium through Selenium (Debian's /usr/bin/chromium and /usr/bin/chromedriver,
fully offline), and what the browser tests do with it.

    driver = make_driver(tls=False)        # --ignore-certificate-errors with tls=True
    run_js(driver, "done(1 + 1)")          # an async script; {timedOut: true} after `timeout`
    wait_for(lambda: ..., 10)              # polls until truthy or the time is up
    summary_of(driver)                     # the #summary of a web/tests/harness.js page
    wait_session(driver, daemon)           # the page's session once the server lists it ready
    native_call(daemon, session, "addValue", [3, 4])   # native -> JS through the admin API
    console_errors(driver)                 # SEVERE (and WARNING) lines of the console
"""

import os
import time

os.environ.setdefault("SE_OFFLINE", "true")

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def make_driver(tls=False, window_size="1200,2400"):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=" + window_size):
        options.add_argument(arg)
    if tls:
        # The daemon's throwaway certificate. Chromium offers h2 by ALPN like any browser.
        options.add_argument("--ignore-certificate-errors")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    driver.set_script_timeout(30)
    return driver


def quit_driver(driver):
    if driver is not None:
        try:
            driver.quit()
        except Exception:  # noqa: BLE001 - quitting is best effort
            pass


def wait_for(predicate, timeout, interval=0.05):
    """predicate()'s first truthy value, or its last value once `timeout` s have passed."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(interval)


def run_js(driver, body, timeout=20):
    """Runs `body` (which calls done(value)) as an async script; a timeout yields
    {timedOut: true}, an exception {threw: message}."""
    driver.set_script_timeout(timeout + 5)
    return driver.execute_async_script(
        "var done = arguments[arguments.length - 1];"
        "var __t = setTimeout(function () { done({timedOut: true}); }, %d);"
        "var __done = done; done = function (v) { clearTimeout(__t); __done(v); };"
        "try { %s } catch (e) { done({threw: String(e && e.message || e)}); }" % (int(timeout * 1000), body))


def summary_of(driver):
    """The summary of a page of web/tests/harness.js once it is done (else None): passed,
    failed, session and every row (status, name, expected, actual)."""
    return driver.execute_script(
        """
        var s = document.getElementById('summary');
        if (!s || s.getAttribute('data-done') !== 'true') return null;
        var rows = Array.prototype.map.call(document.querySelectorAll('tr.row'), function (tr) {
          var td = tr.querySelectorAll('td');
          return {status: tr.getAttribute('data-status'), name: td[0].textContent,
                  expected: td[1].textContent, actual: td[2].textContent};
        });
        return {passed: +s.getAttribute('data-passed'), failed: +s.getAttribute('data-failed'),
                session: s.getAttribute('data-session'), rows: rows};
        """
    )


def row_states(driver):
    """`status name` of every row of a harness page so far (for a page that never finished)."""
    return driver.execute_script(
        "return Array.prototype.map.call(document.querySelectorAll('tr.row'),"
        "function(tr){return tr.getAttribute('data-status')+' '+tr.querySelector('td').textContent})")


def console_errors(driver, levels=("SEVERE",)):
    try:
        entries = driver.get_log("browser")
    except Exception:  # noqa: BLE001 - logs are a diagnostic only
        return []
    return [e.get("message", "") for e in entries if e.get("level") in levels]


def print_console(driver, levels=("SEVERE", "WARNING")):
    for message in console_errors(driver, levels):
        print("    console: %s" % message, flush=True)


def sessions(daemon):
    """The admin API's session list ([] when it does not answer 200)."""
    status, listed = daemon.admin("GET", "/admin/sessions")
    return listed if status == 200 else []


def session_ready(daemon, session):
    return any(s.get("session") == session and s.get("ready") for s in sessions(daemon))


def wait_session(driver, daemon, frame="window", timeout=10, expr=None):
    """The session id of the page in `frame` (a JavaScript expression for its window: dsBridge's
    or window._dsbridge's session; or read with the JavaScript `expr`) once the server lists
    it as ready (its dsinit arrived)."""
    expr = expr or ("(function (w) { return (w.dsBridge && w.dsBridge.session) || (w._dsbridge && w._dsbridge.session)"
                    " || null; })(%s)" % frame)

    def ready():
        session = driver.execute_script("return " + expr)
        if session and session_ready(daemon, session):
            return session
        return None
    return wait_for(ready, timeout, 0.1)


def native_call(daemon, session, method, args, timeout_ms=5000):
    """A native -> JS call of the page through the admin API: (status, answer)."""
    return daemon.admin("POST", "/admin/sessions/%s/call" % session,
                        {"method": method, "args": args, "timeoutMs": timeout_ms})


ADMIN_TOKEN = "test"


def start_daemon(binary, web_root="web", extra=(), log_path=None, tls=None, tick_ms=50, name="browser"):
    """The daemon of a browser test: demo interfaces, `tick_ms` demo ticks, admin token
    ADMIN_TOKEN, `extra` flags; `tls` is (cert, key) for https:// and wss://."""
    from .daemon import Daemon, demo_args
    return Daemon(binary, demo_args(web_root, ADMIN_TOKEN, tls=tls, extra=["--demo-tick-ms", str(tick_ms)] + list(extra)),
                  log_path, name)
