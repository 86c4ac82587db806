#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Black-box test of dsbridged's HTTP side on kept-alive HTTP/1.1 connections.

Written against PROTOCOL.md (the wire contract) (sections 1, 1.1, 1.2, 4, 7, 8), not against the
daemon's sources. Every rule is checked on the 2nd, 3rd... request of one TCP connection,
not only on a connection's first request: each case opens a connection, sends a normal
first request (GET /a.txt), reads its whole answer, then sends the request under test on
the same connection.

Cases that a server judging only a connection's FIRST request (its first request line /
head) fails, because there the follow-up is the request under test:
  1  static-dotdot *           `..` segments, plain and percent-encoded: a follow-up would be
                               resolved and served (200) instead of 404
  1b static-dotfile/symlink-*  dotfiles and symlinks leaving the web root (if those checks
                               are first-request-only too)
  2  static-backslash *, static-nul *
                               backslash / NUL on follow-ups (the trap file `sub\\a.txt`
                               exists in the web root; a NUL-truncating server serves a.txt)
  3  redirect *                the 301 Location must be the follow-up's own path as sent
                               (`/%73ub` -> `/%73ub/`, not the decoded `/sub/`)
  4  head /sub/..              a HEAD follow-up with a `..` segment
  5  pipeline ... /sub/.. ...  the 2nd pipelined request is judged by its own line
  7  error-order-*             405/403/401/413/400 decided per request, not per connection
  8  upgrade-*, get-dsbridge-* an upgrade (or a plain GET /dsbridge) as a follow-up
  10 close-*-followup          `Connection: close` / HTTP/1.0 of a follow-up honoured
The other cases (4 head /a.txt|/missing|/sub, 5 plain pipelining, 6 sync calls, 9 split
heads, 11 split bodies) check keep-alive framing in general: body bytes, request
boundaries, partial reads; 12 checks the body's deadline (PROTOCOL.md 1.3, revision 1.17):
408 at --body-timeout-ms counted from the request's own head, however the bytes trickle,
a close without a second answer after an early answer, and a GET's body read and dropped.
The `[first]` variants of cases 1-3 send the same request as a connection's first (and
only) request: they show whether a failure is specific to follow-ups.

Usage (from the repository root):
    python3 scripts/http_keepalive_test.py --daemon .build-release/release/dsbridged
    python3 scripts/http_keepalive_test.py --daemon .build/debug/dsbridged --tls   # over TLS

Prints `PASS name` / `FAIL name: why` per case (lines starting `#` are notes), then
`N passed, M failed`; exits 1 if any case failed. Starts its own daemon on 127.0.0.1
(free ports, --demo, a temporary web root, --max-message-bytes 1024) and stops it
(SIGTERM, then kill) whatever happens. Python 3 standard library only.
"""

import base64
import hashlib
import json
import os
import random
import shutil
import signal
import sys
import tempfile
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dsbtest.checks import Checks, Fail, check  # noqa: E402
from dsbtest.daemon import Daemon, demo_args, http_test_options, make_cert  # noqa: E402
from dsbtest.http import HOST, SOCK_TIMEOUT, Closed, Connection, clip_bytes as clip, tls_client_context  # noqa: E402
from dsbtest.page import OP_TEXT, frame  # noqa: E402

ADMIN_TOKEN = "keepalive-admin"
MAX_MESSAGE_BYTES = 1024
TOTAL_BUDGET = 110.0        # seconds for all cases; later cases are failed as "out of time"
HARD_ALARM = 118            # SIGALRM safety net for the whole script

A_TXT = b"A-TXT keepalive test file 0123456789\n"
ROOT_INDEX = b"<!doctype html><title>root</title><p>ROOT-INDEX</p>\n"
SUB_INDEX = b"<!doctype html><title>sub</title><p>SUB-INDEX</p>\n"
SENTINEL = b"SENTINEL-must-never-be-served-7f3a"
WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"



# The daemon's --body-timeout-ms here: short, so that a sync call can outlast it quickly.
BODY_TIMEOUT_MS = 1500


def Conn(port, timeout=SOCK_TIMEOUT):
    """A kept-alive connection to the daemon; with --tls the same cases over TLS, as a
    browser negotiates it (ALPN h2 and http/1.1 offered; the daemon picks http/1.1)."""
    return Connection(port, timeout, tls_client_context() if Env.tls else None)


class Env:
    tls = False
    port = 0
    admin_port = 0
    web = ""


def req(method, path, headers=(), body=b"", version="HTTP/1.1", host=True, content_length=None):
    if isinstance(body, str):
        body = body.encode()
    lines = ["%s %s %s" % (method, path, version)]
    if host:
        lines.append("Host: %s:%d" % (HOST, Env.port))
    lines.extend(headers)
    if content_length is not None:
        lines.append("Content-Length: %d" % content_length)
    elif body or method in ("POST", "PUT"):
        lines.append("Content-Length: %d" % len(body))
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def get_a(c, label="first request GET /a.txt"):
    """The normal request (first of a connection, or a keep-alive probe)."""
    c.send(req("GET", "/a.txt"))
    r = c.read_response(what="answering %s" % label)
    check(r.status == 200 and r.body == A_TXT, "%s: got %s (expected 200 with a.txt)" % (label, r.summary()))
    check(not r.wants_close(), "%s: the server asked to close the connection (Connection: close)" % label)
    return r


def opened(first=True):
    c = Conn(Env.port)
    if first:
        try:
            get_a(c)
        except BaseException:
            c.close()
            raise
    return c


# ---------------------------------------------------------------------------------------
# Cases

CHECKS = Checks()
START = time.time()


def out(line):
    CHECKS.out(line)


def case(name, fn, *args):
    if time.time() - START > TOTAL_BUDGET:
        CHECKS.check(False, name, "not run, out of time budget")
        return
    try:
        note = fn(*args)
        CHECKS.check(True, name)
        if note:
            CHECKS.note("  %s: %s" % (name, note))
    except (Fail, Closed) as e:
        CHECKS.check(False, name, str(e))
    except Exception as e:  # noqa: BLE001 - a test bug or an unexpected socket error
        CHECKS.check(False, name, "unexpected %s: %s" % (e.__class__.__name__, e))
        traceback.print_exc(file=sys.stderr)


def static_check(method, path, status, location=None, no_body=False, forbid=(SENTINEL,)):
    """Returns a function checking one answer to `method path`."""
    def judge(r, label):
        check(r.status == status, "%s %s %s: got %s (expected %d%s)"
              % (label, method, path, r.summary(), status,
                 " Location: %s" % location if location else ""))
        for f in forbid:
            check(f not in r.body, "%s %s %s: answer contains forbidden content %r" % (label, method, path, f))
        if location is not None:
            check(r.get("location") == location, "%s %s %s: Location %r (expected %r byte for byte)"
                  % (label, method, path, r.get("location"), location))
    return judge


def ordinal(n):
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, "%dth" % n)


def run_static(method, path, status, location=None, first=False, repeat=None):
    """Sends `method path` as a follow-up (2nd request; again as 4th after a GET /a.txt in
    3rd place when the connection stays open), or as the first request if first=True."""
    judge = static_check(method, path, status, location)
    c = opened(first=not first)

    def ask(label):
        try:
            c.send(req(method, path))
            r = c.read_response(head=(method == "HEAD"), what="answering the %s %s %s" % (label, method, path))
        except Closed as e:
            raise Fail("%s %s %s: %s (expected %d)" % (label, method, path, e, status))
        judge(r, label)
        return r
    try:
        n = 1 if first else 2
        label = "%s request" % ordinal(n)
        r = ask(label)
        if method == "HEAD":
            s = c.stray_bytes()
            check(not s, "HEAD answer followed by %d stray body bytes %r" % (len(s), clip(s, 40)))
        if r.wants_close():
            check(c.wait_closed() is True, "answer said Connection: close but the connection stayed open")
            return "%s answered %d, then the server closed (Connection: close)" % (label, r.status)
        if repeat is None:
            repeat = not first
        if not repeat:
            return None
        still_alive(c, r, "%s %s %s" % (label, method, path), n + 1)
        ask("%s request" % ordinal(n + 2))
        return None
    finally:
        c.close()


def c_head(path, status, size=None, location=None):
    """HEAD as a follow-up: status, Content-Length, no body bytes, and a 3rd request parses."""
    c = opened()
    try:
        c.send(req("HEAD", path))
        r = c.read_response(head=True, what="answering the 2nd request HEAD %s" % path)
        check(r.status == status, "2nd request HEAD %s: got %s (expected %d)" % (path, r.summary(), status))
        if size is not None:
            check(r.get("content-length") == str(size),
                  "HEAD %s: Content-Length %r (expected %d, the file's size)" % (path, r.get("content-length"), size))
        if location is not None:
            check(r.get("location") == location, "HEAD %s: Location %r (expected %r)" % (path, r.get("location"), location))
        s = c.stray_bytes()
        check(not s, "HEAD %s answer followed by %d stray body bytes %r" % (path, len(s), clip(s, 40)))
        check(not r.wants_close(), "HEAD %s answered with Connection: close" % path)
        get_a(c, "3rd request GET /a.txt after HEAD %s" % path)
        return None
    finally:
        c.close()


def c_static_headers():
    """Section 1.2: every answer carries Content-Type and nosniff — checked on follow-ups."""
    c = opened()
    try:
        problems = []
        for path, ctype_prefix in (("/a.txt", "text/plain"), ("/sub/", "text/html"),
                                   ("/missing.txt", None), ("/blob.weirdext", "application/octet-stream")):
            c.send(req("GET", path))
            r = c.read_response(what="answering GET %s" % path)
            if r.get("x-content-type-options", "").lower() != "nosniff":
                problems.append("GET %s (%d): X-Content-Type-Options %r" % (path, r.status, r.get("x-content-type-options")))
            ct = r.get("content-type")
            if ct is None:
                problems.append("GET %s (%d): no Content-Type" % (path, r.status))
            elif ctype_prefix and not ct.lower().startswith(ctype_prefix):
                problems.append("GET %s: Content-Type %r (expected %s)" % (path, ct, ctype_prefix))
            if r.wants_close():
                problems.append("GET %s answered with Connection: close" % path)
                break
        check(not problems, "; ".join(problems))
    finally:
        c.close()


def c_pipeline(reqs, expect, allow_close_after=None):
    """reqs: list of (method, path); expect: list of (status, body or None)."""
    c = opened(first=False)
    try:
        c.send(b"".join(req(m, p) for m, p in reqs))
        got = []
        note = None
        for i, ((m, p), (status, body)) in enumerate(zip(reqs, expect)):
            try:
                r = c.read_response(head=(m == "HEAD"), what="answering pipelined request %d %s %s" % (i + 1, m, p))
            except Closed as e:
                if allow_close_after is not None and i > allow_close_after and len(got) > allow_close_after:
                    note = ("the server closed after answering request %d (%s) — acceptable; answers %s"
                            % (allow_close_after + 1, " ".join(map(str, got)), got))
                    break
                raise Fail("answers so far %s; then %s" % (got, e))
            got.append(r.status)
            check(r.status == status, "pipelined request %d %s %s: got %s (expected %d); answers %s"
                  % (i + 1, m, p, r.summary(), status, got))
            if body is not None:
                check(r.body == body, "pipelined request %d %s %s: body %r (expected %r)" % (i + 1, m, p, clip(r.body), clip(body)))
            if m == "HEAD":
                check(r.get("content-length") == str(len(A_TXT)), "pipelined HEAD: Content-Length %r" % r.get("content-length"))
            if r.wants_close():
                if allow_close_after is not None and i == allow_close_after and i + 1 < len(reqs):
                    note = "the server answered request %d (%d) with Connection: close and closed" % (i + 1, r.status)
                    check(c.wait_closed() is True, "Connection: close but the connection stayed open")
                    break
                raise Fail("pipelined request %d answered with Connection: close; answers %s" % (i + 1, got))
        if note is None:
            s = c.stray_bytes(0.2)
            check(not s, "stray bytes after the last pipelined answer: %r" % clip(s))
        return note
    finally:
        c.close()


# --- sync calls (section 4) ------------------------------------------------------------

def new_session(c, label="POST /dsbridge/session"):
    c.send(req("POST", "/dsbridge/session", body=b""))
    r = c.read_response(what="answering %s" % label)
    check(r.status == 200, "%s: got %s (expected 200)" % (label, r.summary()))
    try:
        j = json.loads(r.body)
    except ValueError:
        raise Fail("%s: body is not JSON: %r" % (label, clip(r.body)))
    check(isinstance(j, dict) and isinstance(j.get("token"), str) and j["token"] and "session" in j,
          "%s: body %r lacks session/token" % (label, clip(r.body)))
    check(not r.wants_close(), "%s answered with Connection: close" % label)
    return j["token"]


def call_body(method, data):
    return json.dumps({"method": method, "arg": {"data": data}}, separators=(",", ":")).encode()


def sync_call(c, token, body, label, headers=()):
    hdrs = ["Content-Type: application/json"] + (["X-DSBridge-Token: " + token] if token else []) + list(headers)
    c.send(req("POST", "/dsbridge/call", hdrs, body))
    return c.read_response(what="answering %s" % label)


def expect_echo(r, data, label):
    check(r.status == 200, "%s: got %s (expected 200)" % (label, r.summary()))
    try:
        j = json.loads(r.body)
    except ValueError:
        raise Fail("%s: body is not JSON: %r" % (label, clip(r.body)))
    check(isinstance(j, dict) and j.get("code") == 0 and "data" in j and j["data"] == data,
          "%s: body %r (expected {\"code\":0,\"data\":%s})" % (label, clip(r.body), json.dumps(data)))
    check(not r.wants_close(), "%s answered with Connection: close" % label)


def c_sync_interleaved():
    c = opened()
    try:
        token = new_session(c, "2nd request POST /dsbridge/session")
        r = sync_call(c, token, call_body("echo.syn", "hi"), "3rd request echo.syn")
        expect_echo(r, "hi", "3rd request POST /dsbridge/call echo.syn")
        get_a(c, "4th request GET /a.txt")
        values = ["hi", 0, 1.5, None, True, {"k": [1, 2, "x"]}, [], "ünïcødé ✓", "", {"nested": {"a": None}}]
        for i in range(100):
            v = values[i % len(values)]
            if isinstance(v, str):
                v = "%s-%d" % (v, i)
            method = "echo.syn" if i % 3 else "test.echo"
            expect_echo(sync_call(c, token, call_body(method, v), "call %d" % (i + 1)), v,
                        "call %d/100 (%s, %d-th request of the connection)" % (i + 1, method, i + 5))
            if i % 25 == 24:
                get_a(c, "GET /a.txt after call %d" % (i + 1))
        # arg as a JSON string holding the envelope (what the original dsbridge.js sends)
        body = json.dumps({"method": "testSyn", "arg": json.dumps({"data": "s"})}).encode()
        expect_echo(sync_call(c, token, body, "testSyn string arg"), "s[ syn call]", "testSyn with a string envelope")
        get_a(c, "last request GET /a.txt")
    finally:
        c.close()


def c_sync_longer_than_body_timeout():
    """The body's deadline ends with the body: a sync call that runs longer than
    --body-timeout-ms is answered, and the connection serves the next request."""
    c = opened()
    try:
        token = new_session(c, "2nd request POST /dsbridge/session")
        ms = BODY_TIMEOUT_MS + 1500
        c.send(req("POST", "/dsbridge/call", ["Content-Type: application/json", "X-DSBridge-Token: " + token],
                   call_body("test.sleepSyn", ms)))
        c.timeout = ms / 1000 + SOCK_TIMEOUT
        c.sock.settimeout(c.timeout)
        r = c.read_response(what="answering a %d ms sync call (body timeout %d ms)" % (ms, BODY_TIMEOUT_MS))
        c.timeout = SOCK_TIMEOUT
        c.sock.settimeout(SOCK_TIMEOUT)
        expect_echo(r, ms, "3rd request test.sleepSyn %d" % ms)
        get_a(c, "4th request GET /a.txt")
    finally:
        c.close()


def c_sync_bare_arg():
    """The body `{"method":"echo.syn","arg":"hi"}`: a string arg that is not a JSON object is
    badArgument (section 2.2) — HTTP 200 with code -1 (section 4: it is a valid body)."""
    c = opened()
    try:
        token = new_session(c)
        r = sync_call(c, token, b'{"method":"echo.syn","arg":"hi"}', "bare string arg")
        check(r.status == 200, "got %s (expected 200 with code -1 badArgument)" % r.summary())
        j = json.loads(r.body)
        check(j.get("code") == -1 and (j.get("error") or {}).get("kind") == "badArgument",
              "body %r (expected code -1, error.kind badArgument)" % clip(r.body))
        get_a(c, "GET /a.txt after it")
    finally:
        c.close()


class ErrorOrder:
    """Section 4 error order, each check a follow-up on a kept-alive connection."""

    def __init__(self):
        self.c = None
        self.token = None

    def conn(self):
        if self.c is None:
            self.c = opened()
        return self.c

    def drop(self):
        if self.c is not None:
            self.c.close()
            self.c = None

    def setup(self):
        c = self.conn()
        self.token = new_session(c, "POST /dsbridge/session (follow-up)")

    def check(self, data, status, label):
        c = self.conn()
        try:
            c.send(data)
            r = c.read_response(what="answering %s" % label)
        except (Closed, OSError) as e:
            # (A broken connection is not reused by the next case.)
            self.drop()
            raise Fail("%s: %s (expected %d)" % (label, e, status))
        try:
            check(r.status == status, "%s: got %s (expected %d)" % (label, r.summary(), status))
        finally:
            if r.wants_close():
                closed = c.wait_closed()
                self.drop()
                check(closed is True, "%s: Connection: close but the connection stayed open" % label)
            elif c.stray_bytes(0.05):
                s = c.buf
                self.drop()
                raise Fail("%s: stray bytes after the answer %r" % (label, clip(s)))
        # The connection must still serve (else the server closed without saying so).
        if self.c is not None:
            try:
                get_a(c, "GET /a.txt after %s" % label)
            except Closed as e:
                self.drop()
                raise Fail("%s answered %d without Connection: close, then the next request: %s"
                           % (label, r.status, e))
        return "%d%s" % (r.status, ", then closed (Connection: close)" if self.c is None else ", connection kept")


def error_order_cases():
    eo = ErrorOrder()
    evil = "Origin: http://evil.example"
    big = b"x" * 65536
    over = b'{"method":"echo.syn","arg":{"data":"' + b"y" * (MAX_MESSAGE_BYTES + 200) + b'"}}'
    ok_origin = "Origin: %s://127.0.0.1:%d" % ("https" if Env.tls else "http", Env.port)
    tok = lambda: ["X-DSBridge-Token: " + (eo.token or "none")]  # noqa: E731
    J = "Content-Type: application/json"

    def setup():
        eo.setup()
    case("error-order-setup-session", setup)
    if eo.token is None:
        eo.token = "missing"
    cases = [
        ("error-order-405-put-call-big-body",
         lambda: req("PUT", "/dsbridge/call", [evil, J], big), 405),
        ("error-order-405-get-call",
         lambda: req("GET", "/dsbridge/call", [evil]), 405),
        ("error-order-405-delete-session",
         lambda: req("DELETE", "/dsbridge/session", [evil]), 405),
        ("error-order-403-evil-origin-no-token-oversize",
         lambda: req("POST", "/dsbridge/call", [evil, J], over), 403),
        ("error-order-403-evil-origin-valid-token",
         lambda: req("POST", "/dsbridge/call", [evil, J] + tok(), call_body("echo.syn", 1)), 403),
        ("error-order-403-session-evil-origin",
         lambda: req("POST", "/dsbridge/session", [evil], b""), 403),
        ("error-order-401-no-token-oversize-badjson",
         lambda: req("POST", "/dsbridge/call", [J], b"{" * (MAX_MESSAGE_BYTES + 10)), 401),
        ("error-order-401-wrong-token",
         lambda: req("POST", "/dsbridge/call", [J, "X-DSBridge-Token: " + eo.token + "x"], call_body("echo.syn", 1)), 401),
        ("error-order-413-oversize",
         lambda: req("POST", "/dsbridge/call", [J] + tok(), over), 413),
        ("error-order-413-oversize-badjson",
         lambda: req("POST", "/dsbridge/call", [J, "X-DSBridge-After: x"] + tok(), b"{" * (MAX_MESSAGE_BYTES + 10)), 413),
        ("error-order-400-not-json",
         lambda: req("POST", "/dsbridge/call", [J] + tok(), b"not json"), 400),
        ("error-order-400-no-method",
         lambda: req("POST", "/dsbridge/call", [J] + tok(), b'{"arg":{"data":1}}'), 400),
        ("error-order-400-after-leading-zero",
         lambda: req("POST", "/dsbridge/call", [J, "X-DSBridge-After: 01"] + tok(), call_body("echo.syn", 1)), 400),
        ("error-order-400-after-empty",
         lambda: req("POST", "/dsbridge/call", [J, "X-DSBridge-After:"] + tok(), call_body("echo.syn", 1)), 400),
        ("error-order-200-own-origin",
         lambda: req("POST", "/dsbridge/call", [J, ok_origin] + tok(), call_body("echo.syn", 1)), 200),
    ]
    for name, mk, status in cases:
        case(name, lambda mk=mk, status=status, name=name: eo.check(mk(), status, name))
    eo.drop()


# --- WebSocket upgrade (sections 1, 4) ---------------------------------------------------

def ws_upgrade_req(protocols="dsbridge.v1", origin=None):
    key = base64.b64encode(os.urandom(16)).decode()
    hdrs = ["Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Key: " + key, "Sec-WebSocket-Version: 13"]
    if protocols is not None:
        hdrs.append("Sec-WebSocket-Protocol: " + protocols)
    if origin:
        hdrs.append("Origin: " + origin)
    return req("GET", "/dsbridge", hdrs), key


def ws_send_text(c, text):
    c.send(frame(OP_TEXT, text, rng=random.Random()))


def ws_read_frame(c):
    while len(c.buf) < 2:
        c._fill("reading a WebSocket frame")
    b0, b1 = c.buf[0], c.buf[1]
    n = b1 & 0x7F
    off = 2
    if n == 126:
        while len(c.buf) < 4:
            c._fill("reading a WebSocket frame")
        n, off = int.from_bytes(c.buf[2:4], "big"), 4
    elif n == 127:
        while len(c.buf) < 10:
            c._fill("reading a WebSocket frame")
        n, off = int.from_bytes(c.buf[2:10], "big"), 10
    while len(c.buf) < off + n:
        c._fill("reading a WebSocket frame")
    payload = c.buf[off:off + n]
    c.buf = c.buf[off + n:]
    return b0 & 0x0F, payload


def c_upgrade_followup():
    c = opened()
    try:
        get_a(c, "2nd request GET /a.txt")
        data, key = ws_upgrade_req()
        c.send(data)
        r = c.read_response(what="answering the 3rd request (upgrade)")
        check(r.status == 101, "3rd request upgrade: got %s (expected 101 Switching Protocols)" % r.summary())
        accept = base64.b64encode(hashlib.sha1((key + WS_GUID).encode()).digest()).decode()
        check(r.get("sec-websocket-accept") == accept, "Sec-WebSocket-Accept %r (expected %r)" % (r.get("sec-websocket-accept"), accept))
        check(r.get("sec-websocket-protocol") == "dsbridge.v1", "Sec-WebSocket-Protocol %r" % r.get("sec-websocket-protocol"))
        ws_send_text(c, '{"t":"hello","v":1}')
        op, payload = ws_read_frame(c)
        check(op == 1, "first frame after hello: opcode %d %r (expected a text welcome)" % (op, clip(payload)))
        m = json.loads(payload)
        check(isinstance(m, dict) and m.get("t") == "welcome", "first frame %r (expected welcome)" % clip(payload))
        ws_send_text(c, '{"t":"call","id":1,"method":"echo.syn","arg":{"data":"ws"}}')
        op, payload = ws_read_frame(c)
        m = json.loads(payload)
        if isinstance(m, list):
            m = m[0]
        check(m.get("t") == "ret" and m.get("id") == 1 and m.get("data") == "ws", "ret %r" % clip(payload))
        return None
    finally:
        c.close()


def c_upgrade_refused(protocols, origin, status, plain=False):
    c = opened()
    try:
        if plain:
            data = req("GET", "/dsbridge")
        else:
            data, _ = ws_upgrade_req(protocols, origin)
        c.send(data)
        try:
            r = c.read_response(what="answering the 2nd request GET /dsbridge")
        except Closed as e:
            raise Fail("2nd request GET /dsbridge: %s (expected %d)" % (e, status))
        check(r.status == status, "2nd request GET /dsbridge: got %s (expected %d)" % (r.summary(), status))
        if r.wants_close():
            check(c.wait_closed() is True, "Connection: close but the connection stayed open")
            return "answered %d, then closed" % status
        still_alive(c, r, "2nd request GET /dsbridge", 3)
        return None
    finally:
        c.close()


# --- split requests and bodies -----------------------------------------------------------

def c_split_heads():
    c = Conn(Env.port)
    try:
        first = req("GET", "/a.txt")
        c.send_split(first, [2, 5, 9, 16, 17, 30, len(first) - 3, len(first) - 1])
        r = c.read_response(what="answering the split first request")
        check(r.status == 200 and r.body == A_TXT, "split 1st request GET /a.txt: got %s" % r.summary())
        second = req("GET", "/sub/", ["Accept: */*", "User-Agent: split-test"])
        c.send_split(second, 7)
        r = c.read_response(what="answering the split 2nd request")
        check(r.status == 200 and r.body == SUB_INDEX, "split 2nd request GET /sub/: got %s" % r.summary())
        third = req("GET", "/sub")
        c.send_split(third, [1, 3, 4, 6, len(third) - 2])
        r = c.read_response(what="answering the split 3rd request")
        check(r.status == 301 and r.get("location") == "/sub/", "split 3rd request GET /sub: got %s" % r.summary())
        # request line in one piece, then a blank line arriving separately
        fourth = req("HEAD", "/a.txt")
        c.send_split(fourth, [len(fourth) - 2])
        r = c.read_response(head=True, what="answering the split 4th request")
        check(r.status == 200 and r.get("content-length") == str(len(A_TXT)), "split 4th HEAD /a.txt: got %s" % r.summary())
        get_a(c, "5th request GET /a.txt")
    finally:
        c.close()


def c_split_body(body, data, piece=10, pause=0.1):
    c = opened()
    try:
        token = new_session(c, "2nd request POST /dsbridge/session")
        head = req("POST", "/dsbridge/call", ["Content-Type: application/json", "X-DSBridge-Token: " + token],
                   content_length=len(body))
        c.send(head)
        time.sleep(pause)
        c.send_split(body, piece, pause)
        r = c.read_response(what="answering the call with a body sent in %d-byte pieces" % piece)
        expect_echo(r, data, "3rd request POST /dsbridge/call, Content-Length %d in %d-byte pieces" % (len(body), piece))
        get_a(c, "4th request GET /a.txt")
        expect_echo(sync_call(c, token, call_body("echo.syn", "after"), "5th"), "after", "5th request echo.syn")
    finally:
        c.close()


# --- the body's deadline (PROTOCOL.md 1.3, revision 1.17) ----------------------------------

def timed_answer(c, label, within):
    """Reads an answer, returning it with the seconds it took; the read waits `within` s."""
    c.timeout = within
    c.sock.settimeout(within)
    t0 = time.time()
    try:
        r = c.read_response(what=label)
    finally:
        c.timeout = SOCK_TIMEOUT
        c.sock.settimeout(SOCK_TIMEOUT)
    return r, time.time() - t0


def expect_408_in_time(c, label, elapsed_before=0.0):
    """The 408 of a body not whole within --body-timeout-ms of its own head: not before the
    deadline, not much after it; announced as a close, and the connection then closes."""
    limit = BODY_TIMEOUT_MS / 1000
    r, took = timed_answer(c, "waiting for the 408 of %s" % label, limit + SOCK_TIMEOUT)
    took += elapsed_before
    check(r.status == 408, "%s: got %s (expected 408 once the body was not whole within %d ms)"
          % (label, r.summary(), BODY_TIMEOUT_MS))
    check(took >= limit - 0.25, "%s: 408 after %.2f s, before the %.1f s body timeout" % (label, took, limit))
    check(took <= limit + 1.5, "%s: 408 after %.2f s (body timeout %.1f s)" % (label, took, limit))
    check(r.wants_close(), "%s: the 408 did not announce Connection: close" % label)
    closed = c.wait_closed()
    check(closed is True, "%s: after the 408 the connection %s" % (label, closed_state(closed)))
    return "408 after %.2f s" % took


def c_body_late_408():
    """A body that does not come whole within the timeout gets 408 and the connection closes."""
    c = opened()
    try:
        body = call_body("echo.syn", "never-finished")
        c.send(req("POST", "/dsbridge/session", ["Content-Type: application/json"], content_length=len(body) + 20))
        c.send(body)
        return expect_408_in_time(c, "2nd request POST /dsbridge/session missing 20 body bytes")
    finally:
        c.close()


def c_body_dribbled_408():
    """Bytes trickling in do not extend the deadline: it counts from the request's head."""
    c = opened()
    try:
        token = new_session(c, "2nd request POST /dsbridge/session")
        body = call_body("echo.syn", "x" * 40)
        c.send(req("POST", "/dsbridge/call", ["Content-Type: application/json", "X-DSBridge-Token: " + token],
                   content_length=len(body)))
        t0 = time.time()
        # One byte every 100 ms: the whole body would take longer than the timeout.
        sent = 0
        while time.time() - t0 < BODY_TIMEOUT_MS / 1000 - 0.3 and sent < len(body) - 1:
            c.send(body[sent:sent + 1])
            sent += 1
            time.sleep(0.1)
        return expect_408_in_time(c, "3rd request POST /dsbridge/call dribbled a byte per 100 ms (%d of %d bytes)"
                                  % (sent, len(body)), time.time() - t0)
    finally:
        c.close()


def c_body_deadline_per_request():
    """The deadline is the late request's own: a connection that served requests for longer
    than the timeout still gives a new request's body the whole of it."""
    c = opened()
    try:
        for n in range(4):
            time.sleep(BODY_TIMEOUT_MS / 4000)
            get_a(c, "%s request GET /a.txt" % ordinal(n + 2))
        body = call_body("echo.syn", "late")
        c.send(req("POST", "/dsbridge/session", ["Content-Type: application/json"], content_length=len(body)))
        c.send(body[:5])
        return expect_408_in_time(c, "6th request POST /dsbridge/session after 4 requests over %.1f s"
                                  % (BODY_TIMEOUT_MS / 1000))
    finally:
        c.close()


def c_body_unread_answered_then_closed():
    """A request answered before its body (401: no token) is not answered twice: no 408 when
    the body never comes, the connection just closes."""
    c = opened()
    try:
        c.send(req("POST", "/dsbridge/call", ["Content-Type: application/json"], content_length=50))
        c.send(b'{"method":')
        r = c.read_response(what="answering the 2nd request POST /dsbridge/call without a token")
        check(r.status == 401, "2nd request POST /dsbridge/call without token: got %s (expected 401)" % r.summary())
        check(r.wants_close(), "the early 401 did not announce Connection: close")
        closed = c.wait_closed(BODY_TIMEOUT_MS / 1000 + 3.0)
        check(closed is True, "after the early 401 with its body missing, the connection %s" % closed_state(closed))
    finally:
        c.close()


def c_body_ignored_is_skipped():
    """A GET with a body: the body is read and dropped, the next request is served; a GET
    whose body never comes is answered once and the connection closes at the deadline."""
    c = opened()
    try:
        junk = b"GET /sub/.. HTTP/1.1\r\n\r\n"
        c.send(req("GET", "/a.txt", body=junk))
        r = c.read_response(what="answering the 2nd request GET /a.txt with a %d-byte body" % len(junk))
        check(r.status == 200 and r.body == A_TXT, "2nd request GET /a.txt with a body: got %s" % r.summary())
        still_alive(c, r, "2nd request GET /a.txt with a body", 3)
        c.send(req("GET", "/a.txt", content_length=30))
        r = c.read_response(what="answering the 4th request GET /a.txt, its 30-byte body never sent")
        check(r.status == 200 and r.body == A_TXT, "4th request GET /a.txt, body never sent: got %s" % r.summary())
        t0 = time.time()
        closed = c.wait_closed(BODY_TIMEOUT_MS / 1000 + 3.0)
        took = time.time() - t0
        check(closed is True, "after the 4th request's body never came, the connection %s (expected a close, "
              "no second answer)" % closed_state(closed))
        check(took >= BODY_TIMEOUT_MS / 1000 - 0.25, "closed after %.2f s, before the body timeout" % took)
        return "closed %.2f s after the answer" % took
    finally:
        c.close()


# --- closing ---------------------------------------------------------------------------

def closed_state(closed):
    return "stayed open for 2 s" if closed is False else "carried stray bytes %r" % clip(closed)


def still_alive(c, r, label, n):
    """After an answer that did not announce a close, the connection must serve the next
    request; a silent close is reported as such."""
    try:
        get_a(c, "%s request GET /a.txt" % ordinal(n))
    except Closed as e:
        raise Fail("%s answered %d %s without announcing a close (no Connection: close), then the "
                   "next request on the connection got: %s" % (label, r.status, r.version, e))


def answered_then_closed(c, data, label, body, after="the answer"):
    """Sends `data` on `c` (closed at the end): a 200 with `body`, then the connection closed
    within 2 s. `label` names the request in the messages, `after` its answer."""
    try:
        c.send(data)
        r = c.read_response(what="answering " + label)
        check(r.status == 200 and r.body == body, "%s: got %s" % (label, r.summary()))
        closed = c.wait_closed(2.0)
        check(closed is True, "after %s the connection %s" % (after, closed_state(closed)))
    finally:
        c.close()


def c_close_followup():
    answered_then_closed(opened(), req("GET", "/sub/", ["Connection: close"]),
                         "the 2nd request GET /sub/ with Connection: close", SUB_INDEX)


def c_http10_first():
    answered_then_closed(Conn(Env.port), req("GET", "/a.txt", version="HTTP/1.0"), "GET /a.txt HTTP/1.0", A_TXT,
                         "the HTTP/1.0 answer")


def c_http10_followup():
    answered_then_closed(opened(), req("GET", "/a.txt", version="HTTP/1.0"), "the 2nd request GET /a.txt HTTP/1.0",
                         A_TXT, "the HTTP/1.0 answer (no keep-alive)")


# ---------------------------------------------------------------------------------------
# Web root and daemon

def make_web_root(tmp):
    web = os.path.join(tmp, "web")
    os.makedirs(os.path.join(web, "sub"))
    os.makedirs(os.path.join(web, "noindex"))
    files = {
        "index.html": ROOT_INDEX,
        "a.txt": A_TXT,
        "sub/index.html": SUB_INDEX,
        "sub/b.txt": b"B\n",
        "noindex/listed-file.txt": b"L\n",
        ".hidden": SENTINEL + b" dotfile\n",
        "sub/.secret": SENTINEL + b" dot in sub\n",
        "sub\\a.txt": SENTINEL + b" backslash trap\n",   # a file literally named `sub\a.txt`
        "blob.weirdext": b"\x00\x01\x02",
    }
    for rel, data in files.items():
        with open(os.path.join(web, rel), "wb") as f:
            f.write(data)
    with open(os.path.join(tmp, "secret.txt"), "wb") as f:
        f.write(SENTINEL + b" outside the web root\n")
    os.symlink(os.path.join(tmp, "secret.txt"), os.path.join(web, "escape.txt"))
    os.symlink(tmp, os.path.join(web, "escdir"))
    return web


def start_daemon(binary, web, log_path):
    tls = make_cert(os.path.dirname(web)) if Env.tls else None
    return Daemon(binary, demo_args(web, ADMIN_TOKEN, tls=tls, admin_host=HOST, extra=[
        "--max-message-bytes", str(MAX_MESSAGE_BYTES), "--drain-ms", "1000", "--body-timeout-ms", str(BODY_TIMEOUT_MS)]),
        log_path, "keepalive", start_timeout=15)


def all_cases():
    # 1. `..` segments (follow-ups, then the same as first requests for contrast)
    dotdot = [("/sub/..", 404), ("/sub/%2e%2e", 404), ("/sub/%2E%2E/", 404), ("/%2e%2e/a.txt", 404),
              ("/sub/../a.txt", 404), ("/%2e%2e/secret.txt", 404), ("/sub/..%2f..%2fsecret.txt", 404),
              ("/sub/%2e%2e/%2e%2e/secret.txt", 404), ("/..", 404)]
    for p, s in dotdot:
        case("static-dotdot %s" % p, run_static, "GET", p, s)
    # 1b. other static rules on follow-ups
    case("static-dotfile /.hidden", run_static, "GET", "/.hidden", 404)
    case("static-dotfile /sub/.secret", run_static, "GET", "/sub/.secret", 404)
    case("static-symlink-escape /escape.txt", run_static, "GET", "/escape.txt", 404)
    case("static-symlink-escape /escdir/secret.txt", run_static, "GET", "/escdir/secret.txt", 404)
    case("static-no-listing /noindex/", c_no_listing)
    case("static-headers (Content-Type, nosniff)", c_static_headers)
    case("static-decoded-once /a%2etxt", run_static, "GET", "/a%2etxt", 200)
    # 2. backslash and NUL
    case("static-backslash /sub%5ca.txt", run_static, "GET", "/sub%5ca.txt", 404)
    case("static-backslash /sub%5Ca.txt", run_static, "GET", "/sub%5Ca.txt", 404)
    case("static-backslash /sub\\a.txt (raw)", run_static, "GET", "/sub\\a.txt", 404)
    case("static-nul /a.txt%00", run_static, "GET", "/a.txt%00", 404)
    case("static-nul /a.txt%00.html", run_static, "GET", "/a.txt%00.html", 404)
    # 3. directory redirect as sent
    case("redirect /sub?a=1&b=%20c", run_static, "GET", "/sub?a=1&b=%20c", 301, "/sub/?a=1&b=%20c")
    case("redirect /%73ub", run_static, "GET", "/%73ub", 301, "/%73ub/")
    case("redirect /sub", run_static, "GET", "/sub", 301, "/sub/")
    case("redirect /%73ub?x=%2F", run_static, "GET", "/%73ub?x=%2F", 301, "/%73ub/?x=%2F")
    # 1-3 as first requests (control)
    for p, s in dotdot[:5]:
        case("static-dotdot %s [first]" % p, run_static, "GET", p, s, None, True)
    case("static-backslash /sub%5ca.txt [first]", run_static, "GET", "/sub%5ca.txt", 404, None, True)
    case("static-backslash /sub\\a.txt (raw) [first]", run_static, "GET", "/sub\\a.txt", 404, None, True)
    case("static-nul /a.txt%00 [first]", run_static, "GET", "/a.txt%00", 404, None, True)
    case("redirect /sub?a=1&b=%20c [first]", run_static, "GET", "/sub?a=1&b=%20c", 301, "/sub/?a=1&b=%20c", True)
    case("redirect /%73ub [first]", run_static, "GET", "/%73ub", 301, "/%73ub/", True)
    # 4. HEAD on follow-ups
    case("head /a.txt", c_head, "/a.txt", 200, len(A_TXT))
    case("head /missing", c_head, "/missing", 404)
    case("head /sub", c_head, "/sub", 301, None, "/sub/")
    case("head /sub/..", run_static, "HEAD", "/sub/..", 404)
    # 5. pipelining
    case("pipeline GET /a.txt, HEAD /a.txt, GET /sub/", c_pipeline,
         [("GET", "/a.txt"), ("HEAD", "/a.txt"), ("GET", "/sub/")], [(200, A_TXT), (200, None), (200, SUB_INDEX)])
    case("pipeline GET /a.txt, GET /sub/.., GET /a.txt", c_pipeline,
         [("GET", "/a.txt"), ("GET", "/sub/.."), ("GET", "/a.txt")], [(200, A_TXT), (404, None), (200, A_TXT)], 1)
    case("pipeline GET /a.txt, GET /sub?q=1, GET /a.txt", c_pipeline,
         [("GET", "/a.txt"), ("GET", "/sub?q=1"), ("GET", "/a.txt")], [(200, A_TXT), (301, None), (200, A_TXT)])
    # 6. sync calls interleaved with static requests
    case("sync-calls-interleaved (100 calls)", c_sync_interleaved)
    case("sync-call-bare-string-arg", c_sync_bare_arg)
    case("sync-call-longer-than-the-body-timeout", c_sync_longer_than_body_timeout)
    # 7. error order on follow-ups
    error_order_cases()
    # 8. upgrades
    case("upgrade-after-http-requests", c_upgrade_followup)
    case("upgrade-without-dsbridge.v1 -> 400", c_upgrade_refused, "chat, other.v2", None, 400)
    case("upgrade-no-subprotocol -> 400", c_upgrade_refused, None, None, 400)
    case("upgrade-evil-origin -> 403", c_upgrade_refused, "dsbridge.v1", "http://evil.example", 403)
    case("get-dsbridge-without-upgrade -> 400", c_upgrade_refused, None, None, 400, True)
    # 9. split heads
    case("split-request-heads (50 ms pauses)", c_split_heads)
    # 10. closing
    case("close-connection-close-followup", c_close_followup)
    case("close-http10-first", c_http10_first)
    case("close-http10-followup", c_http10_followup)
    # 11. split bodies
    case("split-body Content-Length 30 in 10-byte pieces", c_split_body, b'{"method":"echo.syn","arg":{}}', None)
    body = call_body("echo.syn", "split-body-value")
    case("split-body Content-Length %d in 10-byte pieces" % len(body), c_split_body, body, "split-body-value")
    case("split-body Content-Length %d in 1-byte pieces" % len(body), c_split_body, body, "split-body-value", 1, 0.01)
    # 12. the body's deadline
    case("body-late -> 408 at the body timeout", c_body_late_408)
    case("body-dribbled -> 408 at the body timeout", c_body_dribbled_408)
    case("body-late-deadline-per-request -> 408", c_body_deadline_per_request)
    case("body-unread-after-early-401 -> closed, no 408", c_body_unread_answered_then_closed)
    case("body-of-a-get-skipped, or closed at the deadline", c_body_ignored_is_skipped)


def c_no_listing():
    c = opened()
    try:
        c.send(req("GET", "/noindex/"))
        r = c.read_response(what="answering the 2nd request GET /noindex/")
        check(not (200 <= r.status < 300), "2nd request GET /noindex/: got %s (a directory without index.html must not be listed)" % r.summary())
        check(b"listed-file" not in r.body, "the answer lists the directory: %r" % clip(r.body))
        return "answered %d" % r.status
    finally:
        c.close()


def main():
    args = http_test_options(__doc__, "run every case over TLS (--tls-cert, a throwaway certificate)")
    Env.tls = args.tls
    daemon = os.path.abspath(args.daemon)

    def on_alarm(signum, frame):
        raise SystemExit("# global time limit reached")
    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(HARD_ALARM)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda s, f: (_ for _ in ()).throw(SystemExit("# stopped by signal %d" % s)))

    tmp = tempfile.mkdtemp(prefix="dsb-keepalive-")
    log_path = os.path.join(tmp, "daemon.log")
    d = None
    try:
        web = make_web_root(tmp)
        try:
            d = start_daemon(daemon, web, log_path)
        except RuntimeError as e:
            CHECKS.check(False, "start", "no 'listening port=P admin-port=A' line: %s" % e)
        else:
            Env.port, Env.admin_port, Env.web = d.port, d.admin_port, web
            out("# daemon %s pid %d port %d admin-port %d web root %s" % (daemon, d.pid, d.port, d.admin_port, web))
            all_cases()
            alive = d.alive()
            CHECKS.check(alive, "daemon-alive-at-end", "" if alive else "exited with %s" % d.proc.returncode)
    except SystemExit as e:
        CHECKS.check(False, "run", str(e))
    except Exception as e:  # noqa: BLE001 - e.g. the daemon binary cannot be started
        CHECKS.check(False, "run", "%s: %s" % (e.__class__.__name__, e))
    finally:
        signal.alarm(0)
        code = d.stop(timeout=6) if d is not None else None
        if d is not None and code not in (0, None):
            out("# daemon exit after SIGTERM: %s" % code)
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            out("# kept %s" % tmp)
        exit_code = CHECKS.summary()
    sys.exit(exit_code)


if __name__ == "__main__":
    main()
