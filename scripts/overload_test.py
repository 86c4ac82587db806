#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Daemon-wide limits (PROTOCOL.md 2.6), tested as an independent client would: descriptors.

Starts dsbridged under a real descriptor limit (`prlimit --nofile=512:512`), opens 1,000
WebSocket pages against it at once (upgrade + hello, raw sockets), and checks:

- the daemon never spins: its CPU over a 2 s window while 1,000 pages wait stays low;
- its log stays bounded (at most about one "paused" line a second);
- the admin listener keeps answering (/healthz 200) throughout;
- every page it could take got a welcome, the rest wait in the listen backlog (none is
  refused or reset);
- it recovers by itself: when 200 welcomed pages leave, 200 waiting pages get their welcome,
  and once all leave a new page is served at once;
- a `warning:` line on stderr said the `--max-sessions` asked for (100,000, given on purpose:
  unset, it would be derived from the limit and fit) does not fit under the limit;
- SIGTERM exits 0.

    scripts/overload_test.py [--daemon .build/debug/dsbridged]

Prints a line per check and `N passed, M failed`; exits non-zero on any failure. Every
socket is on 127.0.0.1; the daemon and the run are bounded in time.
"""

import json
import os
import resource
import selectors
import socket
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dsbtest.checks import Checks  # noqa: E402
from dsbtest.daemon import Daemon, ROOT, binary_path, demo_args, checks_limit, script_parser  # noqa: E402
from dsbtest.page import HOST, OP_TEXT, dumps, frame, server_frames, split_head, upgrade_request  # noqa: E402

LIMIT = 512
PAGES = 1000
ADMIN_TOKEN = "overload"


class Page:
    """One non-blocking WebSocket page: upgrade, hello, then waits for its welcome (the
    toolkit's bytes: upgrade_request, frame, split_head, server_frames)."""

    __slots__ = ("sock", "buf", "sent", "upgraded", "welcomed", "closed", "violations")

    def __init__(self, port):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setblocking(False)
        self.buf = bytearray()
        self.sent = False
        self.upgraded = False
        self.welcomed = False
        self.closed = False
        self.violations = []
        self.sock.connect_ex((HOST, port))

    def request(self, port):
        # The hello rides right behind the upgrade (the server reads it once upgraded).
        return upgrade_request(port) + frame(OP_TEXT, dumps({"t": "hello", "v": 1}))

    def on_readable(self):
        try:
            data = self.sock.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self.closed = True
            return
        self.buf += data
        if not self.upgraded:
            answer = split_head(self.buf)
            if answer is None:
                return
            self.upgraded = answer[0] == 101
        for _, opcode, payload in server_frames(self.buf, self.violations) if self.upgraded else ():
            if opcode == OP_TEXT and json.loads(payload).get("t") == "welcome":
                self.welcomed = True


class Run:
    def __init__(self, daemon):
        self.daemon = daemon
        self.checks = Checks()
        self.sel = selectors.DefaultSelector()
        self.pages = []

    def check(self, ok, name, detail):
        self.checks.check(ok, name, detail)

    def pump(self, seconds, until=None):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            for key, events in self.sel.select(timeout=0.05):
                page = key.data
                if events & selectors.EVENT_WRITE and not page.sent:
                    try:
                        page.sock.send(page.request(self.port))
                        page.sent = True
                        self.sel.modify(page.sock, selectors.EVENT_READ, page)
                    except BlockingIOError:
                        pass
                    except OSError:
                        page.closed = True
                if events & selectors.EVENT_READ:
                    page.on_readable()
                if page.closed:
                    self.sel.unregister(page.sock)
            if until is not None and until():
                return True
        return until() if until is not None else True

    def open_page(self):
        page = Page(self.port)
        self.pages.append(page)
        self.sel.register(page.sock, selectors.EVENT_WRITE | selectors.EVENT_READ, page)
        return page

    def close_page(self, page):
        if not page.closed:
            self.sel.unregister(page.sock)
        page.sock.close()
        page.closed = True

    def welcomed(self):
        return sum(1 for p in self.pages if p.welcomed and not p.closed)

    def healthz(self):
        try:
            with urllib.request.urlopen("http://%s:%d/healthz" % (HOST, self.admin_port), timeout=1.0) as r:
                return r.status
        except Exception as e:  # noqa: BLE001
            return str(e)

    def cpu_seconds(self):
        return self.d.cpu_seconds()

    def run(self):
        self.log_path = "/tmp/dsbridged-overload.log"
        try:
            self.d = Daemon(self.daemon, demo_args(os.path.join(ROOT, "web"), ADMIN_TOKEN, admin_host=HOST,
                                                   extra=["--log-level", "info", "--max-sessions", "100000"]),
                            self.log_path, "overload", wrapper=["prlimit", "--nofile=%d:%d" % (LIMIT, LIMIT), "--"])
        except Exception as e:  # noqa: BLE001
            self.check(False, "start", "no 'listening port=...' line from the daemon: %s" % e)
            return
        try:
            self.port, self.admin_port = self.d.port, self.d.admin_port
            self.steps()
        finally:
            for p in self.pages:
                if not p.closed:
                    p.sock.close()
            if self.d.alive():
                code = self.d.stop(timeout=15)
                self.check(code == 0, "sigterm", "exit code %s" % code)

    def steps(self):
        for _ in range(PAGES):
            self.open_page()
        self.pump(6.0, until=lambda: False)
        taken = self.welcomed()
        waiting = sum(1 for p in self.pages if not p.welcomed and not p.closed)
        # The daemon holds about LIMIT - reserve (128) - its own descriptors; the rest wait.
        self.check(250 <= taken <= LIMIT - 128 and waiting == PAGES - taken,
                   "saturated", "%d pages welcomed, %d waiting in the backlog, %d refused or reset"
                   % (taken, waiting, PAGES - taken - waiting))
        c0 = self.cpu_seconds()
        t0 = time.monotonic()
        statuses = []
        while time.monotonic() - t0 < 2.0:
            statuses.append(self.healthz())
            self.pump(0.2, until=lambda: False)
        cpu = (self.cpu_seconds() - c0) / (time.monotonic() - t0)
        self.check(cpu < 0.25, "no-busy-loop", "daemon CPU %.0f%% of a core while %d pages wait" % (cpu * 100, waiting))
        self.check(all(s == 200 for s in statuses), "admin-answers", "/healthz: %s" % sorted(set(map(str, statuses))))

        leaving = [p for p in self.pages if p.welcomed and not p.closed][:200]
        for p in leaving:
            self.close_page(p)
        recovered = self.pump(10.0, until=lambda: self.welcomed() >= taken)
        self.check(recovered, "recovers", "after 200 pages left, %d of %d slots filled again by waiting pages"
                   % (self.welcomed(), taken))

        for p in list(self.pages):
            self.close_page(p)
        self.pages = []
        self.pump(1.0, until=lambda: False)
        late = self.open_page()
        served = self.pump(5.0, until=lambda: late.welcomed)
        self.check(served, "new-page-after", "a new page is welcomed once the others left")

        lines = self.d.log_text().splitlines()
        paused = [l for l in lines if "page listener paused" in l]
        self.check(1 <= len(paused) <= 25, "bounded-log", "%d 'paused' lines, %d lines in all" % (len(paused), len(lines)))
        self.check(len(lines) < 400, "log-size", "%d log lines in the whole run" % len(lines))
        self.check(any(l.startswith("warning: the descriptor limit") for l in lines), "warning-line",
                   "stderr says --max-sessions 100000 does not fit under %d descriptors" % LIMIT)


def main():
    p = script_parser(__doc__)
    o = p.parse_args()
    daemon = binary_path(o.daemon)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = PAGES + 200
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard) if hard != resource.RLIM_INFINITY else want, hard))
    run = Run(daemon)

    checks_limit(120, run.checks, lambda: [getattr(run, "d", None)])
    run.run()
    return run.checks.summary()


if __name__ == "__main__":
    sys.exit(main())
