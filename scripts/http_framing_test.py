#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Black-box test of how dsbridged frames HTTP/1.1 requests an attacker shapes, on BOTH
ports (the page port and the admin listener), over raw sockets.

Written against PROTOCOL.md 1 and 6 (text revision 1.14) and RFC 9112, not against the
daemon's sources. Every case sends, in one write, a request of a shape a smuggling
attack uses, then a pipelined request behind it. A shape that must be refused gets
`400` with `Connection: close`, and then nothing: the pipelined request is never
answered (its bytes may be what a proxy in front took for the first request's body). A
shape that must be served gets its own answer, then the pipelined request gets exactly
its own answer, and nothing more comes.

Shapes (each on the page port, then on the admin listener):
  cl-conflict-0-then-N / N-then-0   two Content-Length lines that differ
  cl-list-conflict                  `Content-Length: 0, N`
  cl-hex, cl-plus, cl-minus, cl-overflow, cl-empty
                                    Content-Length not one decimal number
  cl-space-before-colon             `Content-Length : N` (RFC 9112 5.1)
  cl-with-te, te-with-cl            Content-Length and Transfer-Encoding together (6.1)
  upgrade-content-length            a WebSocket upgrade with a body (a masked frame)
  upgrade-chunked                   a WebSocket upgrade with a chunked body
  upgrade-http10                    an HTTP/1.0 upgrade (RFC 9110 7.8, RFC 6455 4.1)
  no-host, two-hosts, host-list     HTTP/1.1 without Host, with two (RFC 9112 3.2)
Controls (must keep working): a plain pipelined pair, equal repeated Content-Length,
an HTTP/1.0 request without Host (as HAProxy's health check sends), and on the admin
listener an upgrade (400, as before: it has no WebSocket endpoint).

Usage (from the repository root):
    python3 scripts/http_framing_test.py --daemon .build/debug/dsbridged
    python3 scripts/http_framing_test.py --daemon .build/debug/dsbridged --tls   # page port over TLS

Prints `PASS name` / `FAIL name: why` per case, then `N passed, M failed`; exits 1 if any
case failed. Starts its own daemon on 127.0.0.1 (free ports, a temporary web root) and
stops it whatever happens; a watchdog ends the run after 90 s. Python 3 standard library.
"""

import base64
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dsbtest.checks import Checks, Fail, check  # noqa: E402
from dsbtest.daemon import Daemon, demo_args, hard_limit, http_test_options, make_cert  # noqa: E402
from dsbtest.http import HOST, Closed, Connection, clip_bytes, tls_client_context  # noqa: E402
from dsbtest.page import OP_TEXT, frame  # noqa: E402

ADMIN_TOKEN = "framing-admin"
A_TXT = b"A-TXT framing test file\n"
WATCHDOG_SECONDS = 90
CHECKS = Checks()


class Port:
    """One listener under test: where it is, a path it serves with 200 and that answer's
    body, and a path only a smuggled request would ask for (with the answer it gets)."""

    def __init__(self, name, port, tls, ok_path, ok_body, hidden_path):
        self.name, self.port, self.tls = name, port, tls
        self.ok_path, self.ok_body, self.hidden_path = ok_path, ok_body, hidden_path

    def connect(self):
        return Connection(self.port, 3.0, tls_client_context() if self.tls else None)

    def host(self):
        return "Host: %s:%d" % (HOST, self.port)


def head(method, path, lines, version="HTTP/1.1"):
    return ("%s %s %s\r\n" % (method, path, version) + "".join(l + "\r\n" for l in lines) + "\r\n").encode("latin-1")


def ok_request(p):
    """The pipelined request: a GET the listener answers 200 with a known body."""
    return head("GET", p.ok_path, [p.host()])


def hidden_request(p):
    """A request that must never be answered: if it is, it was smuggled in a body."""
    return head("GET", p.hidden_path, [p.host()])


def upgrade_lines(p, path="/dsbridge"):
    key = base64.b64encode(os.urandom(16)).decode()
    return [p.host(), "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Version: 13",
            "Sec-WebSocket-Key: " + key, "Sec-WebSocket-Protocol: dsbridge.v1"], path


def expect_refused(p, data, status=400):
    """`data` (a refused request, then a pipelined one) gets `status` with Connection:
    close, then the connection ends with nothing more."""
    c = p.connect()
    try:
        c.send(data)
        try:
            r = c.read_response(what="answering the request under test")
        except Closed as e:
            raise Fail("closed without an answer (%s)" % e)
        check(r.status == status, "got %s, expected %d and a close" % (r.summary(), status))
        check(r.wants_close(), "the %d does not announce a close (Connection: close)" % r.status)
        closed = c.wait_closed(2.0)
        if closed is not True:
            extra = "stayed open for 2 s" if closed is False else "then sent %r" % clip_bytes(closed, 80)
            raise Fail("after %d the connection %s: the pipelined request must not be answered" % (r.status, extra))
        return "%d %s, closed, pipelined request not answered" % (r.status, r.reason)
    finally:
        c.close()


def expect_served(p, data, status=200, body=None, pipelined=True):
    """`data` gets `status` (and `body`); then the pipelined request gets exactly its own
    200 (unless the answer announced a close, after which nothing may come)."""
    c = p.connect()
    try:
        c.send(data)
        r = c.read_response(what="answering the request under test")
        check(r.status == status, "got %s, expected %d" % (r.summary(), status))
        if body is not None:
            check(r.body == body, "body %r, expected %r" % (clip_bytes(r.body), clip_bytes(body)))
        if r.wants_close() or not pipelined:
            closed = c.wait_closed(2.0)
            check(closed is True, "after a closing %d the connection %s" % (
                r.status, "stayed open" if closed is False else "sent %r" % clip_bytes(closed, 80)))
            return "%d, then closed" % r.status
        r2 = c.read_response(what="answering the pipelined GET %s" % p.ok_path)
        check(r2.status == 200 and r2.body == p.ok_body,
              "the pipelined GET %s got %s, expected 200 %r" % (p.ok_path, r2.summary(), p.ok_body))
        stray = c.stray_bytes(0.5)
        check(not stray, "a third answer came for two requests: %r" % clip_bytes(stray, 80))
        return "%d then the pipelined 200, nothing more" % r.status
    finally:
        c.close()


def smuggle_cases(p):
    """(name, data): a first request whose body (by one reading of the head) is a hidden
    request, then the pipelined request."""
    hidden = hidden_request(p)
    n = len(hidden)
    get = lambda lines: head("GET", p.ok_path, [p.host()] + lines)  # noqa: E731
    tail = hidden + ok_request(p)
    chunked = b"%x\r\n" % n + hidden + b"\r\n0\r\n\r\n"
    return [
        ("cl-conflict-0-then-N", get(["Content-Length: 0", "Content-Length: %d" % n]) + tail),
        ("cl-conflict-N-then-0", get(["Content-Length: %d" % n, "Content-Length: 0"]) + tail),
        ("cl-list-conflict", get(["Content-Length: 0, %d" % n]) + tail),
        ("cl-hex", get(["Content-Length: 0x%x" % n]) + tail),
        ("cl-plus", get(["Content-Length: +%d" % n]) + tail),
        ("cl-minus", get(["Content-Length: -1"]) + tail),
        ("cl-overflow", get(["Content-Length: 18446744073709551616%d" % n]) + tail),
        ("cl-empty", get(["Content-Length:"]) + tail),
        ("cl-space-before-colon", get(["Content-Length : %d" % n]) + tail),
        ("cl-with-te", get(["Content-Length: %d" % len(chunked), "Transfer-Encoding: chunked"]) + chunked + ok_request(p)),
        ("te-with-cl", get(["Transfer-Encoding: chunked", "Content-Length: %d" % len(chunked)]) + chunked + ok_request(p)),
    ]


def upgrade_cases(p):
    hello = frame(OP_TEXT, b'{"t":"hello","v":1}', mask=os.urandom(4))
    lines, path = upgrade_lines(p)
    chunked = b"%x\r\n" % len(hello) + hello + b"\r\n0\r\n\r\n"
    lines10, _ = upgrade_lines(p)
    return [
        ("upgrade-content-length", head("GET", path, lines + ["Content-Length: %d" % len(hello)]) + hello),
        ("upgrade-chunked", head("GET", path, lines + ["Transfer-Encoding: chunked"]) + chunked),
        ("upgrade-http10", head("GET", path, lines10, version="HTTP/1.0") + hello),
    ]


def host_cases(p):
    tail = ok_request(p)
    return [
        ("no-host", head("GET", p.ok_path, []) + tail),
        ("two-hosts", head("GET", p.ok_path, [p.host(), "Host: other.example"]) + tail),
        ("host-list", head("GET", p.ok_path, ["Host: %s:%d, other.example" % (HOST, p.port)]) + tail),
    ]


def run_port(p):
    tag = "%s%s" % (p.name, " (tls)" if p.tls else "")
    for name, data in smuggle_cases(p) + upgrade_cases(p) + host_cases(p):
        CHECKS.case("%s %s -> 400, close" % (tag, name), expect_refused, p, data)
    # Controls: what RFC-following clients send keeps working.
    CHECKS.case("%s control pipelined GET, GET" % tag, expect_served, p, ok_request(p) + ok_request(p), 200, p.ok_body)
    CHECKS.case("%s control Content-Length: 0 repeated equal" % tag, expect_served, p,
                head("GET", p.ok_path, [p.host(), "Content-Length: 0", "Content-Length: 0"]) + ok_request(p),
                200, p.ok_body)
    CHECKS.case("%s control HTTP/1.0 without Host" % tag, expect_served, p,
                head("GET", p.ok_path, [], version="HTTP/1.0"), 200, p.ok_body, False)
    if p.name == "admin":
        lines, path = upgrade_lines(p)
        CHECKS.case("%s upgrade -> 400, close (no WebSocket endpoint)" % tag, expect_refused, p,
                    head("GET", path, lines) + ok_request(p), 400)


def main():
    args = http_test_options(__doc__, "the page port over TLS (--tls-cert, a throwaway certificate)")
    tmp = tempfile.mkdtemp(prefix="dsb-framing-")
    web = os.path.join(tmp, "web")
    os.makedirs(web)
    with open(os.path.join(web, "a.txt"), "wb") as f:
        f.write(A_TXT)
    log_path = os.path.join(tmp, "daemon.log")
    state = {"daemon": None}

    def stop_all():
        if state["daemon"] is not None:
            state["daemon"].kill()
        print("# watchdog: %d s passed, daemon stopped" % WATCHDOG_SECONDS, flush=True)
    watchdog = hard_limit(WATCHDOG_SECONDS, stop_all)
    try:
        tls = make_cert(tmp) if args.tls else None
        try:
            d = Daemon(os.path.abspath(args.daemon), demo_args(web, ADMIN_TOKEN, demo=False, tls=tls, admin_host=HOST),
                       log_path, "framing", start_timeout=15)
        except RuntimeError as e:
            CHECKS.check(False, "start", str(e))
        else:
            state["daemon"] = d
            CHECKS.note("daemon pid %d port %d admin-port %d" % (d.pid, d.port, d.admin_port))
            run_port(Port("page", d.port, args.tls, "/a.txt", A_TXT, "/hidden-probe.txt"))
            run_port(Port("admin", d.admin_port, False, "/healthz", b"ok\n", "/admin/hidden-probe"))
            alive = d.alive()
            CHECKS.check(alive, "daemon-alive-at-end", "" if alive else "exited with %s" % d.proc.returncode)
    finally:
        if state["daemon"] is not None:
            state["daemon"].stop(timeout=6)
        watchdog.set()
        if args.keep:
            CHECKS.note("kept %s" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(CHECKS.summary())


if __name__ == "__main__":
    main()
