#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""TLS end to end: a throwaway self-signed certificate, the daemon with --tls-cert/--tls-key,
then https:// static files and POST endpoints and a wss:// session, all verified against that
certificate. Prints one line per check and a final `N passed, M failed`."""
import argparse
import json
import os
import socket
import ssl
import subprocess
import sys
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dsbtest.checks import Checks  # noqa: E402
from dsbtest.daemon import Daemon, binary_path, demo_args, make_cert  # noqa: E402
from dsbtest.http import tls_client_context  # noqa: E402
from dsbtest.page import WS, UpgradeRefused  # noqa: E402

checks = Checks()


def check(name, ok, detail=""):
    checks.check(ok, name, "" if ok else detail)


def wss_session(port, context, origin=None):
    """A wss:// upgrade: (WS or None, the status line)."""
    try:
        ws = WS(port, origin=origin, tls_context=context)
        return ws, ws.head.split("\r\n", 1)[0]
    except UpgradeRefused as e:
        return None, (e.head or "").split("\r\n", 1)[0] or str(e)


def open_descriptors(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def descriptors_per_connection(daemon, port, context, count=50):
    """Opens `count` wss:// sessions (each says hello and has a call answered): how many
    descriptors the daemon holds for each, and how many it holds once they have closed."""
    import time
    # The descriptors of earlier checks' connections close in their own time: counted once
    # the number has held still for half a second.
    before, still_since = open_descriptors(daemon.pid), time.monotonic()
    while time.monotonic() - still_since < 0.5:
        time.sleep(0.05)
        now = open_descriptors(daemon.pid)
        if now != before:
            before, still_since = now, time.monotonic()
    pages = []
    try:
        for i in range(count):
            ws, status = wss_session(port, context, origin=f"https://127.0.0.1:{port}")
            if not ws or not ws.hello() or not ws.call(1, "testSyn", str(i)) or not ws.expect_ret(1):
                return None, f"page {i}: {status}"
            pages.append(ws)
        during = open_descriptors(daemon.pid)
    finally:
        for ws in pages:
            ws.close()
    deadline = time.monotonic() + 5
    while open_descriptors(daemon.pid) > before and time.monotonic() < deadline:
        time.sleep(0.05)
    return (during - before) / count, open_descriptors(daemon.pid) - before


def large_answers_to_a_slow_reader(port, context, calls=40, size=150_000):
    """A wss:// page sends `calls` calls of `size` bytes each from a thread of its own and
    reads nothing for a second (the daemon's answers back up behind TLS, its reads of the
    page pause), then reads: every answer arrives, whole and in order. `None` or what went
    wrong."""
    import threading
    import time
    ws, status = wss_session(port, context, origin=f"https://127.0.0.1:{port}")
    if not ws or not ws.hello():
        return f"no session: {status}"
    # A small receive window, so that most of the 6 MB waits on the daemon's side.
    ws.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
    payloads = [(chr(ord("a") + i % 26) * size) for i in range(calls)]
    sent = []
    sender = threading.Thread(target=lambda: sent.extend(ws.call(i + 1, "testSyn", p) for i, p in enumerate(payloads)))
    try:
        sender.start()
        time.sleep(1.0)
        for i, p in enumerate(payloads):
            ret = ws.expect_ret(i + 1, timeout=10)
            if not ret or ret.get("data") != p + "[ syn call]":
                return f"call {i + 1}: {str(ret)[:80] if ret else ws.ended_summary()}"
        sender.join(10)
        return None if len(sent) == calls and all(sent) else f"{sum(map(bool, sent))} of {calls} calls sent"
    finally:
        ws.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--daemon", default=os.environ.get("DSBRIDGED", ".build/debug/dsbridged"))
    args = ap.parse_args()
    cert, key = make_cert()
    daemon = Daemon(binary_path(args.daemon), demo_args("web", None, tls=(cert, key)), name="tls")
    try:
        port = daemon.port
        context = ssl.create_default_context(cafile=cert)
        with urllib.request.urlopen(f"https://127.0.0.1:{port}/index.html", context=context, timeout=5) as r:
            check("https:// serves static files with the certificate", r.status == 200 and r.headers["Content-Type"].startswith("text/html"))
        req = urllib.request.Request(f"https://127.0.0.1:{port}/dsbridge/session", data=b"", method="POST")
        with urllib.request.urlopen(req, context=context, timeout=5) as r:
            token = json.load(r)["token"]
            check("POST /dsbridge/session over https", bool(token))
        body = json.dumps({"method": "testSyn", "arg": {"data": "tls"}}).encode()
        req = urllib.request.Request(f"https://127.0.0.1:{port}/dsbridge/call", data=body, method="POST",
                                     headers={"X-DSBridge-Token": token, "Content-Type": "application/json"})
        with urllib.request.urlopen(req, context=context, timeout=5) as r:
            check("POST /dsbridge/call over https", json.load(r) == {"code": 0, "data": "tls[ syn call]"})
        # Browsers offer h2 by ALPN; our answers are HTTP/1.1, so the daemon must pick http/1.1.
        alpn = tls_client_context(cafile=cert)
        with alpn.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=5), server_hostname="127.0.0.1") as s:
            check("ALPN: offered h2 and http/1.1, the daemon picks http/1.1", s.selected_alpn_protocol() == "http/1.1",
                  s.selected_alpn_protocol())
        for path, method in (("/index.html", "GET"), ("/dsbridge/session", "POST")):
            body = ["--data", ""] if method == "POST" else []
            curl = subprocess.run(["curl", "-sS", "--http2", "--cacert", cert, *body, "-o", "/dev/null",
                                   "-w", "%{http_version} %{http_code}", "--max-time", "5",
                                   f"https://127.0.0.1:{port}{path}"], capture_output=True, text=True)
            check(f"curl --http2 {method} {path} gets an HTTP/1.1 200", curl.stdout == "1.1 200",
                  (curl.stdout + " " + curl.stderr).strip())
        ws, status = wss_session(port, context, origin=f"https://127.0.0.1:{port}")
        check("wss:// upgrade from the https origin", status.startswith("HTTP/1.1 101"), status)
        welcome = ws.hello() if ws else None
        check("hello gets welcome over wss://", bool(welcome), welcome or (ws.ended_summary() if ws else status))
        ret = ws.expect_ret(1) if ws and ws.call(1, "testSyn", "wss") else None
        check("a call is answered over wss://", bool(ret) and ret.get("data") == "wss[ syn call]", ret)
        if ws:
            ws.close()
        problem = large_answers_to_a_slow_reader(port, context)
        check("40 answers of 150 KB to a wss:// page that reads late arrive whole, in order", problem is None, problem)
        # TLS is terminated in-process: one descriptor per connection, no socket pair.
        per_page, left = descriptors_per_connection(daemon, port, context)
        # One each (the socket pair made it three); a descriptor of the daemon's own may come
        # or go meanwhile (a lingering connection of an earlier check), hence ± 0.1.
        if per_page is None:
            check("one descriptor per wss:// page (50 pages open)", False, left)
        else:
            check("one descriptor per wss:// page (50 pages open)", abs(per_page - 1) <= 0.1, f"{per_page} per page")
            check("their descriptors are closed after them", left <= 0, f"{left} left open")
        _, status = wss_session(port, context, origin=f"http://127.0.0.1:{port}")
        check("the plain-http origin is not an own origin under TLS (403)", " 403" in status, status)
        try:
            plain = socket.create_connection(("127.0.0.1", port), timeout=3)
            plain.sendall(b"GET /index.html HTTP/1.1\r\nHost: x\r\n\r\n")
            answer = plain.recv(100)
            check("plain HTTP on the TLS port is not served", not answer.startswith(b"HTTP/1.1 200"), answer[:40])
        except OSError:
            check("plain HTTP on the TLS port is not served", True)
        untrusted = ssl.create_default_context()
        try:
            urllib.request.urlopen(f"https://127.0.0.1:{port}/index.html", context=untrusted, timeout=5)
            check("a client that does not trust the certificate refuses it", False, "connected")
        except (ssl.SSLError, urllib.error.URLError):
            check("a client that does not trust the certificate refuses it", True)
    finally:
        code = daemon.stop()
        check("daemon exits 0 on SIGTERM", code == 0, code)
    return checks.summary()

if __name__ == "__main__":
    sys.exit(main())
