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

Every browser test runs in a BrowserRun, the one fixture for its parts and their teardown:

    with BrowserRun(max_seconds=600) as run:           # run.checks; a hard limit over it all
        run.start_daemon(binary, ["--grace-ms", "30000"], "/tmp/x.log", proxied=True)
        run.start_driver(window_size="800,600")        # run.driver, run.daemon, run.proxy
        run.scenarios([first, second], run)            # one that throws fails, the next runs
    return run.checks.summary()

An exception out of the block is a failure (`test aborted`), not a crash; leaving it stops
everything in reverse order (the console printed first when a check failed, or always with
console="always"; never with console="never", for a test that prints its pages' console
itself). A script may subclass BrowserRun for its scenarios' helpers.
"""

import os
import threading
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


class BrowserRun:
    """A browser test's daemon (or cluster), fault proxy, headless Chromium and their
    teardown (see the module's text)."""

    def __init__(self, checks=None, max_seconds=None, console="failed"):
        from .checks import Checks
        from .daemon import hard_limit
        self.checks = checks if checks is not None else Checks()
        self.console = console
        self.driver = self.daemon = self.proxy = self.cluster = None
        self._stops = []
        self._lock = threading.Lock()
        self._limit = None
        if max_seconds:
            def expired():
                print("hard limit of %.0f s reached: stopping everything" % max_seconds, flush=True)
                self.close()
            self._limit = hard_limit(max_seconds, expired)

    def __enter__(self):
        return self

    def __exit__(self, kind, e, trace):
        if e is not None and isinstance(e, Exception):
            self.checks.check(False, "test aborted: %s: %s" % (kind.__name__, e))
        self.close()
        return isinstance(e, Exception)

    def own(self, stop):
        """Calls stop() at the end (in reverse order of own)."""
        with self._lock:
            self._stops.append(stop)

    def close(self):
        """Stops everything owned, last first; again: nothing."""
        while True:
            with self._lock:
                if not self._stops:
                    break
                stop = self._stops.pop()
            try:
                stop()
            except Exception as e:  # noqa: BLE001 - one part that fails to stop must not keep the others
                print("teardown: %s: %s" % (type(e).__name__, e), flush=True)
        if self._limit is not None:
            self._limit.set()

    @staticmethod
    def require(binary):
        if not os.access(binary, os.X_OK):
            raise RuntimeError("no daemon binary at %s (build it, or pass --daemon / DSBRIDGED)" % binary)

    def start_proxy(self, seed=1):
        """A FaultProxy that cuts only when told (run.proxy.cut_all), pointed at the daemon
        by start_daemon."""
        from .fault_proxy import FaultProxy
        self.proxy = FaultProxy(0, seed=seed, faults=False)
        self.proxy.start()
        self.own(self.proxy.stop)
        return self.proxy

    def start_daemon(self, binary, extra=(), log_path=None, proxied=False, **kw):
        """The test's daemon (start_daemon's, `kw` to it); with `proxied`, behind a proxy
        whose origin it allows."""
        self.require(binary)
        extra = list(extra)
        if proxied:
            # The proxy's port must be known to start the daemon (allowed origin), and the
            # daemon's port to forward: the proxy first, pointed at the daemon after.
            self.start_proxy(kw.pop("proxy_seed", 1))
            extra += ["--allowed-origin", "http://127.0.0.1:%d" % self.proxy.port]
        d = self.daemon = start_daemon(binary, extra=extra, log_path=log_path, **kw)

        def stop():
            code = d.stop()
            print("daemon stopped (exit code %s); its log: %s" % (code, d.log_path), flush=True)
        self.own(stop)
        if proxied:
            self.proxy.target = ("127.0.0.1", d.port)
        print("daemon port %d, admin port %d%s" % (d.port, d.admin_port, ", proxy port %d" % self.proxy.port if proxied else ""),
              flush=True)
        return d

    def start_cluster(self, binary, log_dir, **kw):
        """Redis, nodes and HAProxy (dsbtest.cluster.Cluster, `kw` to it); their log tails
        are printed after the summary when a check failed (print_tails)."""
        import shutil
        from .cluster import Cluster
        self.require(binary)
        shutil.rmtree(log_dir, ignore_errors=True)
        c = self.cluster = Cluster(binary, log_dir=log_dir, **kw)

        def stop():
            self.tails = c.log_tails(1200) if self.checks.failed else ""
            print("cluster stopped (node exit codes %s)" % c.close(), flush=True)
        self.own(stop)
        print("cluster: HAProxy port %d, nodes %s; logs in %s"
              % (c.port, ", ".join("%s %d/%d" % (n.name, n.port, n.admin_port) for n in c.nodes.values()), log_dir),
              flush=True)
        return c

    def print_tails(self):
        if getattr(self, "tails", ""):
            print("---- log tails")
            print(self.tails)

    def start_driver(self, **kw):
        """Headless Chromium (make_driver's `kw`)."""
        driver = self.driver = make_driver(**kw)

        def stop():
            if self.console == "always" or (self.console == "failed" and self.checks.failed):
                print_console(driver)
            quit_driver(driver)
        self.own(stop)
        return driver

    def url(self, path, proxied=False):
        """`path` on the daemon, or through the proxy."""
        return "http://127.0.0.1:%d%s" % (self.proxy.port if proxied else self.daemon.port, path)

    def scenarios(self, steps, *args):
        """Runs each step(*args); one that throws is a failure, the next one runs."""
        for step in steps:
            try:
                step(*args)
            except Exception as e:  # noqa: BLE001 - one failing step must not hide the others
                self.checks.check(False, "%s aborted: %s: %s" % (getattr(step, "__name__", "step"), type(e).__name__, e))
