# SPDX-License-Identifier: MIT
"""Raw HTTP/1.1 over loopback sockets, for requests no library would send.

- `http(port, method, path, headers, body)`: one request on a new connection, one answer
  (`Result`: status, headers, body, whether it was complete and whether the server closed);
  `http_request` builds the bytes and `http_exchange` sends any bytes.
- `Connection`: a kept-alive connection read answer by answer (`Response`), for pipelining,
  split heads and bodies and what the server does after an answer.
- `request_json(url, …)`: an ordinary JSON request through urllib (admin API, https).
- `tls_client_context()`: what a browser offers over TLS (ALPN h2 and http/1.1), trusting
  a given certificate or none.

Python standard library only; every read has a deadline.
"""

import json
import select
import socket
import ssl
import threading
import time
import urllib.error
import urllib.request

from .checks import Fail
from .page import HOST

SOCK_TIMEOUT = 3.0


class Closed(Exception):
    """The server ended the connection (EOF or reset) while an answer was awaited."""


def clip_bytes(b, n=120):
    """Bytes or text for a message: latin-1, CR and LF escaped, at most n characters."""
    if not isinstance(b, (bytes, str)):
        return repr(b)
    if isinstance(b, bytes):
        b = b.decode("latin-1")
    b = b.replace("\r", "\\r").replace("\n", "\\n")
    return b if len(b) <= n else b[:n] + "..."



class Result:
    def __init__(self):
        self.status = None
        self.reason = ""
        self.version = ""
        self.headers = []       # (lower-case name, value)
        self.body = b""
        self.complete = False   # status line, headers and the whole body (per its framing) read
        self.closed_after = None  # the server closed the connection after the response
        self.error = None
        self.raw = b""

    def header(self, name):
        for k, v in self.headers:
            if k == name.lower():
                return v
        return None

    def summary(self):
        if self.status is None:
            return "no response (%s)" % (self.error or "connection closed")
        return "%d%s" % (self.status, "" if self.complete else " (incomplete: %s)" % self.error)


def http_request(port, method, path, headers=(), body=b"", host=True, timeout=5.0):
    """Builds a request; headers is a list of 'Name: value' strings."""
    lines = ["%s %s HTTP/1.1" % (method, path)]
    if host:
        lines.append("Host: %s:%d" % (HOST, port))
    lines.extend(headers)
    if body and not any(h.lower().startswith("content-length:") or h.lower().startswith("transfer-encoding:")
                        for h in headers):
        lines.append("Content-Length: %d" % len(body))
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def http_exchange(port, data, timeout=5.0, head_request=False, wait_close=0.0, concurrent_send=False):
    """Sends raw request bytes, reads one response. With `concurrent_send` the bytes are
    written from a thread while the response is read (for early answers to big bodies).
    `wait_close`: seconds to wait for the server to close after the response."""
    r = Result()
    try:
        sock = socket.create_connection((HOST, port), timeout=timeout)
    except OSError as e:
        r.error = "connect failed: %s" % e
        return r
    sender = None
    try:
        if concurrent_send:
            def send():
                try:
                    sock.sendall(data)
                except OSError:
                    pass
            sender = threading.Thread(target=send, daemon=True)
            sender.start()
        else:
            try:
                sock.sendall(data)
            except OSError as e:
                r.error = "send failed: %s" % e
        deadline = time.monotonic() + timeout
        buf = bytearray()
        eof = False

        def more():
            nonlocal eof
            left = deadline - time.monotonic()
            if left <= 0 or eof:
                return False
            sock.settimeout(left)
            try:
                chunk = sock.recv(1 << 20)
            except socket.timeout:
                return False
            except OSError as e:
                r.error = r.error or "recv: %s" % e
                eof = True
                return False
            if not chunk:
                eof = True
                return False
            buf.extend(chunk)
            return True

        while b"\r\n\r\n" not in buf:
            if not more():
                r.raw = bytes(buf)
                r.error = r.error or ("connection closed before a complete header" if eof else "timeout waiting for the header")
                return r
        head, _, rest = bytes(buf).partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ", 2)
        r.version = parts[0]
        r.status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None
        r.reason = parts[2] if len(parts) > 2 else ""
        for line in lines[1:]:
            k, _, v = line.partition(":")
            r.headers.append((k.strip().lower(), v.strip()))
        buf = bytearray(rest)
        length = r.header("content-length")
        if head_request or r.status in (204, 304) or (r.status is not None and 100 <= r.status < 200):
            r.complete = True
        elif length is not None and length.isdigit():
            n = int(length)
            while len(buf) < n and more():
                pass
            r.body = bytes(buf[:n])
            r.complete = len(buf) >= n
            if not r.complete:
                r.error = "body: %d of %d bytes" % (len(buf), n)
        elif (r.header("transfer-encoding") or "").lower() == "chunked":
            body = bytearray()
            pos = 0
            while True:
                while b"\r\n" not in buf[pos:] and more():
                    pass
                line_end = buf.find(b"\r\n", pos)
                if line_end < 0:
                    r.error = "chunked body cut"
                    break
                size = int(bytes(buf[pos:line_end]).split(b";")[0] or b"0", 16)
                start = line_end + 2
                while len(buf) < start + size + 2 and more():
                    pass
                if len(buf) < start + size + 2:
                    r.error = "chunked body cut"
                    break
                body += buf[start:start + size]
                pos = start + size + 2
                if size == 0:
                    r.complete = True
                    break
            r.body = bytes(body)
        else:
            while more():
                pass
            r.body = bytes(buf)
            r.complete = eof
        r.raw = head + b"\r\n\r\n" + r.body
        if wait_close > 0:
            deadline = time.monotonic() + wait_close
            while not eof and more():
                pass
            r.closed_after = eof
        return r
    finally:
        try:
            sock.close()
        except OSError:
            pass


def http(port, method, path, headers=(), body=b"", timeout=5.0, wait_close=0.0, concurrent_send=False):
    return http_exchange(port, http_request(port, method, path, headers, body), timeout=timeout,
                         head_request=(method == "HEAD"), wait_close=wait_close, concurrent_send=concurrent_send)


class Response:
    def __init__(self, version, status, reason, headers, body, raw_head):
        self.version = version
        self.status = status
        self.reason = reason
        self.headers = headers          # list of (lower name, value)
        self.body = body
        self.raw_head = raw_head

    def get(self, name, default=None):
        name = name.lower()
        vals = [v for k, v in self.headers if k == name]
        return vals[-1] if vals else default

    def all(self, name):
        return [v for k, v in self.headers if k == name.lower()]

    def wants_close(self):
        """The answer announces the end of the connection: `Connection: close`, or an
        HTTP/1.0 answer without `Connection: keep-alive`."""
        tokens = ",".join(self.all("connection")).lower().replace(" ", "").split(",")
        if "close" in tokens:
            return True
        return self.version == "HTTP/1.0" and "keep-alive" not in tokens

    def summary(self):
        loc = self.get("location")
        s = "%d %s" % (self.status, self.reason)
        if loc is not None:
            s += " Location: %s" % loc
        if self.body:
            s += " body %r" % clip_bytes(self.body, 60)
        return s


class Connection:
    """One kept-alive HTTP/1.1 connection read answer by answer (`read_response`); a read
    that times out raises Fail, a connection the server ended raises Closed."""

    def __init__(self, port, timeout=SOCK_TIMEOUT, tls_context=None):
        raw = socket.create_connection((HOST, port), timeout=timeout)
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if tls_context is not None:
            raw = tls_context.wrap_socket(raw, server_hostname=HOST)
        self.sock = raw
        self.timeout = timeout
        self.sock.settimeout(timeout)
        self.buf = b""
        self.port = port
        self.eof = False

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def send(self, data):
        try:
            self.sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError) as e:
            raise Closed("sending failed: %s" % e.__class__.__name__)

    def send_split(self, data, pieces, pause=0.05):
        """Sends data cut at the given byte offsets (or into `pieces`-byte pieces if int)."""
        if isinstance(pieces, int):
            cuts = list(range(pieces, len(data), pieces))
        else:
            cuts = [c for c in pieces if 0 < c < len(data)]
        start = 0
        for c in cuts + [len(data)]:
            self.send(data[start:c])
            start = c
            if c != len(data):
                time.sleep(pause)

    def _fill(self, what):
        if self.eof:
            raise Closed("connection closed by the server %s (have %r)" % (what, clip_bytes(self.buf, 60)))
        try:
            chunk = self.sock.recv(65536)
        except socket.timeout:
            raise Fail("no answer within %.0f s %s (have %r)" % (self.timeout, what, clip_bytes(self.buf, 60)))
        except ConnectionResetError:
            self.eof = True
            raise Closed("connection reset by the server %s (have %r)" % (what, clip_bytes(self.buf, 60)))
        if not chunk:
            self.eof = True
            raise Closed("connection closed by the server %s (have %r)" % (what, clip_bytes(self.buf, 60)))
        self.buf += chunk

    def read_response(self, head=False, what="waiting for an answer"):
        while b"\r\n\r\n" not in self.buf:
            self._fill(what)
            if len(self.buf) > 1 << 20:
                raise Fail("answer head larger than 1 MiB")
        raw_head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = raw_head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
            raise Fail("bad status line %r (stray bytes before the answer?)" % clip_bytes(lines[0]))
        version, status, reason = parts[0], int(parts[1]), (parts[2] if len(parts) > 2 else "")
        headers = []
        for ln in lines[1:]:
            if ":" not in ln:
                raise Fail("bad header line %r" % clip_bytes(ln))
            k, v = ln.split(":", 1)
            headers.append((k.strip().lower(), v.strip()))
        r = Response(version, status, reason, headers, b"", raw_head)
        if head or 100 <= status < 200 or status in (204, 304):
            return r
        te = (r.get("transfer-encoding") or "").lower()
        if "chunked" in te:
            body = b""
            while True:
                while b"\r\n" not in self.buf:
                    self._fill("reading a chunk size")
                size_line, self.buf = self.buf.split(b"\r\n", 1)
                size = int(size_line.split(b";")[0].strip(), 16)
                if size == 0:
                    while b"\r\n" not in self.buf:
                        self._fill("reading the chunked trailer")
                    # no trailers expected
                    _, self.buf = self.buf.split(b"\r\n", 1)
                    break
                while len(self.buf) < size + 2:
                    self._fill("reading a chunk")
                body += self.buf[:size]
                self.buf = self.buf[size + 2:]
            r.body = body
        elif r.get("content-length") is not None:
            n = int(r.get("content-length"))
            while len(self.buf) < n:
                self._fill("reading a %d-byte body" % n)
            r.body, self.buf = self.buf[:n], self.buf[n:]
        else:
            # Body delimited by the close of the connection.
            try:
                while True:
                    self._fill("reading a close-delimited body")
            except Closed:
                pass
            r.body, self.buf = self.buf, b""
        return r

    def wait_closed(self, timeout=2.0):
        """True if the server closes (EOF or reset) within timeout with no further bytes;
        returns the stray bytes if it sends some; False if the connection stays open."""
        if self.buf:
            return self.buf
        if self.eof:
            return True
        deadline = time.time() + timeout
        while True:
            left = deadline - time.time()
            if left <= 0:
                return False
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                return False
            except ConnectionResetError:
                self.eof = True
                return True
            finally:
                self.sock.settimeout(self.timeout)
            if not chunk:
                self.eof = True
                return True
            self.buf += chunk
            return self.buf

    def stray_bytes(self, wait=0.3):
        """Bytes the server sent beyond the last parsed answer (waiting `wait` s for more)."""
        if not self.buf and not self.eof:
            r, _, _ = select.select([self.sock], [], [], wait)
            if r:
                try:
                    chunk = self.sock.recv(65536)
                    if chunk:
                        self.buf += chunk
                    else:
                        self.eof = True
                except ConnectionResetError:
                    self.eof = True
        return self.buf


def tls_client_context(cafile=None, alpn=("h2", "http/1.1")):
    """A client context as a browser negotiates (ALPN h2 and http/1.1 offered); it trusts
    `cafile`, or any certificate without one (the daemon's are throwaway)."""
    if cafile:
        ctx = ssl.create_default_context(cafile=cafile)
    else:
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    if alpn:
        ctx.set_alpn_protocols(list(alpn))
    return ctx


def request_json(url, method="GET", body=None, headers=None, timeout=10, context=None, raw_body=None):
    """An ordinary request through urllib: (status, decoded JSON answer, or its text when it
    is not JSON). `body` is sent as JSON, `raw_body` as it is."""
    data = json.dumps(body).encode() if body is not None else raw_body
    req = urllib.request.Request(url, data=data, method=method)
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    if body is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=timeout, context=context) as resp:
            raw = resp.read()
            status = resp.status
    except urllib.error.HTTPError as e:
        raw = e.read()
        status = e.code
    try:
        return status, json.loads(raw or b"null")
    except ValueError:
        return status, raw.decode("utf-8", "replace")
