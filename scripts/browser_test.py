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

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

os.environ.setdefault("SE_OFFLINE", "true")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGES = [
    # (path, what it is)
    ("/index.html?tick=100", "demo page (our dsbridge.js)"),
    ("/tests/dsbridge-style.html?tick=100", "DSBridge-style page (our dsbridge.js)"),
    ("/tests/original-hook.html?tick=100", "original dsbridge.js 3.1.4 over window._dsbridge"),
]
PAGE_TIMEOUT_S = 60
ADMIN_TOKEN = "test"

# Native -> JS calls of DSBridge's demo (reference 3.2): (method, args, expected answer).
# The expected answer is {"data": …, "progress": […]} or {"status": HTTP status}.
NATIVE_CALLS = [
    ("addValue", [3, 4], {"data": 7, "progress": []}),
    ("append", ["I", "love", "you"], {"data": "I love you", "progress": []}),
    ("startTimer", [], {"data": 5, "progress": [0, 1, 2, 3, 4]}),
    ("syn.addValue", [5, 6], {"data": 11, "progress": []}),
    ("syn.getInfo", [], {"data": {"tag": "syn", "value": 8}, "progress": []}),
    ("asyn.addValue", [5, 6], {"data": 11, "progress": []}),
    ("asyn.getInfo", [], {"data": {"tag": "asyn", "value": 8}, "progress": []}),
    ("_hasJavascriptMethod", ["addValue", "all"], {"data": True, "progress": []}),
    ("_hasJavascriptMethod", ["XX", "all"], {"data": False, "progress": []}),
    ("_hasJavascriptMethod", ["asyn.addValue", "all"], {"data": True, "progress": []}),
    ("_hasJavascriptMethod", ["asyn.XX", "all"], {"data": False, "progress": []}),
    ("notRegistered", [], {"status": 422}),
]


class Totals:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def add(self, ok, line):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print("  FAIL " + line, flush=True)


class Daemon:
    """The daemon process; stop() always ends it (SIGTERM, then SIGKILL after 5 s)."""

    def __init__(self, binary, web_root, extra=(), log_path="/tmp/dsbridged-browser-test.log", tls=None):
        cmd = [
            binary, "--host", "127.0.0.1", "--port", "0", "--admin-port", "0",
            "--admin-token", ADMIN_TOKEN, "--web-root", web_root, "--demo",
            "--demo-tick-ms", "50",
        ] + list(extra)
        if tls:
            cmd += ["--tls-cert", tls[0], "--tls-key", tls[1]]
        self.scheme = "https" if tls else "http"
        self.log_path = log_path
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=self.log, cwd=ROOT)
        self.port = self.admin_port = None
        try:
            line = self._first_line(15)
            parts = dict(p.split("=", 1) for p in line.split()[1:] if "=" in p)
            if not line.startswith("listening ") or "port" not in parts or "admin-port" not in parts:
                raise RuntimeError("unexpected first line from the daemon: %r" % line)
            self.port = int(parts["port"])
            self.admin_port = int(parts["admin-port"])
        except BaseException:
            self.stop()
            raise
        # Keep draining stdout so the daemon never blocks on a full pipe.
        threading.Thread(target=self._drain, daemon=True).start()

    def _first_line(self, timeout):
        result = []

        def read():
            result.append(self.proc.stdout.readline().decode("utf-8", "replace").strip())

        t = threading.Thread(target=read, daemon=True)
        t.start()
        t.join(timeout)
        if not result or not result[0]:
            raise RuntimeError("the daemon printed no `listening` line (waited up to %d s; exit code %s); see %s"
                               % (timeout, self.proc.poll(), self.log_path))
        return result[0]

    def _drain(self):
        try:
            for _ in self.proc.stdout:
                pass
        except (OSError, ValueError):
            pass

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.log.close()
        return self.proc.returncode

    def admin(self, method, path, body=None, timeout=40):
        url = "http://127.0.0.1:%d%s" % (self.admin_port, path)
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(url, data=data, method=method)
        req.add_header("Authorization", "Bearer " + ADMIN_TOKEN)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return resp.status, json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as e:
            raw = e.read()
            try:
                return e.code, json.loads(raw)
            except ValueError:
                return e.code, raw.decode("utf-8", "replace")


def make_cert(folder):
    """A throwaway self-signed certificate for 127.0.0.1 (Chromium is told to accept it)."""
    cert, key = os.path.join(folder, "cert.pem"), os.path.join(folder, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                    "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True, timeout=60)
    return cert, key


def make_driver(tls=False):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1200,2400"):
        options.add_argument(arg)
    if tls:
        # The daemon's throwaway certificate. Chromium offers h2 by ALPN like any browser.
        options.add_argument("--ignore-certificate-errors")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(30)
    driver.set_script_timeout(30)
    return driver


def wait_for(predicate, timeout, interval=0.2):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(interval)


def summary_of(driver):
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


def browser_errors(driver):
    try:
        entries = driver.get_log("browser")
    except Exception:  # noqa: BLE001 - logs are a diagnostic only
        return []
    return [e.get("message", "") for e in entries if e.get("level") == "SEVERE"]


def run_page(driver, daemon, path, title, totals, screenshot):
    url = "%s://127.0.0.1:%d%s" % (daemon.scheme, daemon.port, path)
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
        totals.add(False, "%s: cannot load: %s" % (path, e))
        return
    summary = wait_for(lambda: summary_of(driver), PAGE_TIMEOUT_S)
    if not summary:
        partial = driver.execute_script(
            "return Array.prototype.map.call(document.querySelectorAll('tr.row'),"
            "function(tr){return tr.getAttribute('data-status')+' '+tr.querySelector('td').textContent})")
        totals.add(False, "%s: no summary within %d s; rows: %s" % (path, PAGE_TIMEOUT_S, partial))
        for message in browser_errors(driver):
            print("    console: %s" % message)
        return
    for row in summary["rows"]:
        ok = row["status"] == "pass"
        totals.add(ok, "%s: %s — expected %s, got %s" % (path, row["name"], row["expected"], row["actual"]))
    if summary["failed"]:
        for message in browser_errors(driver):
            print("    console: %s" % message)

    # Native -> JS: call the page's handlers from the server side.
    session = summary.get("session")
    if not session:
        totals.add(False, "%s: the page reported no session id" % path)
        return
    for method, args, expected in NATIVE_CALLS:
        status, answer = daemon.admin("POST", "/admin/sessions/%s/call" % session,
                                      {"method": method, "args": args, "timeoutMs": 5000})
        if "status" in expected:
            ok = status == expected["status"]
        else:
            ok = status == 200 and answer == expected
        totals.add(ok, "%s: native→JS %s %s — expected %s, got HTTP %s %s"
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
    totals.add(listed, "%s: session %s should be listed by the admin API before window.close()" % (path, session))
    try:
        driver.execute_script("window.close()")
    except Exception as e:  # noqa: BLE001
        totals.add(False, "%s: window.close() threw: %s" % (path, e))
        return

    def ended():
        status, sessions = daemon.admin("GET", "/admin/sessions")
        return status == 200 and all(s.get("session") != session for s in sessions)

    ok = bool(wait_for(ended, 5))
    totals.add(ok, "%s: window.close() should end session %s" % (path, session))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--daemon", default=os.environ.get("DSBRIDGED", ".build/debug/dsbridged"))
    parser.add_argument("--web-root", default="web")
    parser.add_argument("--screenshot", metavar="PATH", help="save a screenshot of the demo page")
    parser.add_argument("--page", action="append", help="run only these page paths (and no robustness case)")
    parser.add_argument("--case", action="append",
                        help="run only these robustness cases of scripts/browser_robustness.py (and no page)")
    parser.add_argument("--tls", action="store_true",
                        help="serve https:// and wss:// with a throwaway certificate (--tls-cert/--tls-key)")
    options = parser.parse_args()

    binary = os.path.join(ROOT, options.daemon) if not os.path.isabs(options.daemon) else options.daemon
    if not os.access(binary, os.X_OK):
        print("error: no daemon binary at %s (build it, or pass --daemon / DSBRIDGED)" % binary)
        print("0 passed, 1 failed")
        return 1

    totals = Totals()
    daemon = None
    driver = None
    try:
        tls = make_cert(tempfile.mkdtemp(prefix="dsbridged-browser-tls-")) if options.tls else None
        daemon = Daemon(binary, options.web_root, tls=tls)
        print("daemon: port %d, admin port %d" % (daemon.port, daemon.admin_port), flush=True)
        driver = make_driver(tls=bool(tls))
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
    except Exception as e:  # noqa: BLE001 - any setup failure is a test failure
        totals.add(False, "test run aborted: %s: %s" % (type(e).__name__, e))
    finally:
        if driver is not None:
            try:
                driver.quit()
            except Exception:  # noqa: BLE001
                pass
        if daemon is not None:
            code = daemon.stop()
            print("daemon stopped (exit code %s); its log: %s" % (code, daemon.log_path))
    print("%d passed, %d failed" % (totals.passed, totals.failed), flush=True)
    return 1 if totals.failed else 0


if __name__ == "__main__":
    sys.exit(main())
