# SPDX-License-Identifier: MIT
"""Wire helpers of scripts/attack_suite.py: a raw WebSocket client (RFC 6455) that can send
anything, broken frames included, a raw HTTP/1.1 client, and the daemon process.

Python standard library only. Everything here is bounded in time: every read has a deadline.
"""

import base64
import json
import os
import signal
import socket
import struct
import subprocess
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOST = "127.0.0.1"

OP_CONT, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0, 1, 2, 8, 9, 10


def clip(value, n=160):
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= n else text[:n] + "…(%d chars)" % len(text)


def mask_payload(payload, mask):
    """XORs payload with the 4-byte mask, fast for megabytes (one big-integer operation)."""
    n = len(payload)
    if n == 0 or mask == b"\0\0\0\0":
        return bytes(payload)
    m = (mask * (n // 4 + 1))[:n]
    return (int.from_bytes(payload, "little") ^ int.from_bytes(m, "little")).to_bytes(n, "little")


def frame(opcode, payload=b"", fin=True, rng=None, mask=None, masked=True, rsv=0, length=None):
    """One client frame. `mask`: 4 bytes (default: random from rng, or zeros without rng);
    `masked=False` sends it unmasked (a protocol violation); `length` overrides the declared
    payload length (a lie)."""
    if isinstance(payload, str):
        payload = payload.encode("utf-8")
    header = bytearray([(0x80 if fin else 0) | (rsv << 4) | opcode])
    n = len(payload) if length is None else length
    bit = 0x80 if masked else 0
    if n < 126:
        header.append(bit | n)
    elif n < 65536:
        header.append(bit | 126)
        header += struct.pack("!H", n)
    else:
        header.append(bit | 127)
        header += struct.pack("!Q", n)
    if not masked:
        return bytes(header) + payload
    if mask is None:
        mask = bytes(rng.getrandbits(8) for _ in range(4)) if rng is not None else b"\0\0\0\0"
    return bytes(header) + mask + mask_payload(payload, mask)


def dumps(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


class UpgradeRefused(Exception):
    def __init__(self, status, head, body):
        super().__init__("upgrade refused: HTTP %s %s" % (status, clip(body, 80)))
        self.status = status
        self.head = head
        self.body = body


class WS:
    """A WebSocket client that records everything: messages (JSON-decoded, batches
    flattened), the close frame, and how the connection ended. It answers pings, and a
    close frame with a close frame, unless told not to."""

    def __init__(self, port, rng, origin=None, protocol="dsbridge.v1", path="/dsbridge", timeout=5.0,
                 extra_headers=(), auto_pong=True):
        self.rng = rng
        self.port = port
        self.auto_pong = auto_pong
        self.send_hook = None      # when set, control answers (pong, close) go through it
        self.sock = socket.create_connection((HOST, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = bytearray()
        self.fragments = None
        self.texts = []            # every text message received, raw
        self.inbox = []            # decoded messages not yet taken
        self.close_code = None     # from the server's close frame
        self.close_reason = None
        self.close_sent = False
        self.ended = None          # "eof", "reset", "error ..." once the TCP connection is over
        self.violations = []       # server frames that break RFC 6455
        self.nonjson = []
        key = base64.b64encode(bytes(rng.getrandbits(8) for _ in range(16))).decode()
        lines = ["GET %s HTTP/1.1" % path, "Host: %s:%d" % (HOST, port), "Upgrade: websocket",
                 "Connection: Upgrade", "Sec-WebSocket-Key: " + key, "Sec-WebSocket-Version: 13"]
        if protocol:
            lines.append("Sec-WebSocket-Protocol: " + protocol)
        if origin is not None:
            lines.append("Origin: " + origin)
        lines.extend(extra_headers)
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        deadline = time.monotonic() + timeout
        raw = bytearray()
        while b"\r\n\r\n" not in raw:
            if time.monotonic() > deadline:
                self.close()
                raise UpgradeRefused(None, bytes(raw), b"(no answer to the upgrade within %.0f s)" % timeout)
            try:
                chunk = self.sock.recv(65536)
            except OSError as e:
                self.close()
                raise UpgradeRefused(None, bytes(raw), ("(connection failed during the upgrade: %s)" % e).encode())
            if not chunk:
                self.close()
                raise UpgradeRefused(None, bytes(raw), b"(connection closed during the upgrade)")
            raw += chunk
        head, _, rest = bytes(raw).partition(b"\r\n\r\n")
        status_line = head.split(b"\r\n", 1)[0].decode("latin-1")
        parts = status_line.split(" ", 2)
        status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None
        self.head = head.decode("latin-1")
        if status != 101:
            body = bytearray(rest)
            self.sock.settimeout(0.5)
            try:
                while len(body) < 65536:
                    chunk = self.sock.recv(65536)
                    if not chunk:
                        break
                    body += chunk
            except OSError:
                pass
            self.close()
            raise UpgradeRefused(status, self.head, bytes(body))
        self.buf = bytearray(rest)
        self._parse_all()

    # -- sending ------------------------------------------------------------------------------

    def send_raw(self, data):
        """Sends bytes; False when the connection no longer takes them."""
        try:
            self.sock.sendall(data)
            return True
        except OSError:
            return False

    def send_frame(self, opcode, payload=b"", fin=True, **kw):
        return self.send_raw(frame(opcode, payload, fin=fin, rng=self.rng, **kw))

    def send_text(self, text):
        return self.send_frame(OP_TEXT, text)

    def send_json(self, obj):
        return self.send_text(dumps(obj))

    def _control(self, data):
        if self.send_hook is not None:
            self.send_hook(data)
        else:
            self.send_raw(data)

    def send_close(self, code=1000):
        if not self.close_sent:
            self.close_sent = True
            self._control(frame(OP_CLOSE, struct.pack("!H", code), rng=self.rng))

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    # -- receiving ----------------------------------------------------------------------------

    def pump(self, timeout):
        """Waits up to `timeout` for bytes and parses them. False once the connection is over."""
        if self.ended:
            return False
        try:
            self.sock.settimeout(max(0.001, timeout))
            chunk = self.sock.recv(1 << 20)
        except socket.timeout:
            return True
        except ConnectionResetError:
            self.ended = "reset"
            return False
        except OSError as e:
            self.ended = "error %s" % e
            return False
        if not chunk:
            self.ended = "eof"
            return False
        self.buf += chunk
        self._parse_all()
        return True

    def _parse_all(self):
        while True:
            b = self.buf
            if len(b) < 2:
                return
            fin, opcode = b[0] & 0x80, b[0] & 0x0F
            if b[0] & 0x70:
                self.violations.append("rsv bits set by the server")
            masked, n = b[1] & 0x80, b[1] & 0x7F
            i = 2
            if n == 126:
                if len(b) < 4:
                    return
                n = struct.unpack("!H", b[2:4])[0]
                i = 4
            elif n == 127:
                if len(b) < 10:
                    return
                n = struct.unpack("!Q", b[2:10])[0]
                i = 10
            if masked:
                self.violations.append("masked server frame")
                i += 4
            if len(b) < i + n:
                return
            payload = bytes(b[i:i + n])
            if masked:
                payload = mask_payload(payload, bytes(b[i - 4:i]))
            del b[:i + n]
            self._on_frame(bool(fin), opcode, payload)

    def _on_frame(self, fin, opcode, payload):
        if opcode == OP_PING:
            if self.auto_pong and not self.close_sent:
                self._control(frame(OP_PONG, payload, rng=self.rng))
        elif opcode == OP_PONG:
            pass
        elif opcode == OP_CLOSE:
            if self.close_code is None:
                self.close_code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005
                self.close_reason = payload[2:].decode("utf-8", "replace")
            if not self.close_sent:
                self.close_sent = True
                self._control(frame(OP_CLOSE, payload[:2], rng=self.rng))
        elif opcode in (OP_TEXT, OP_CONT):
            if opcode == OP_TEXT:
                if self.fragments is not None:
                    self.violations.append("new text frame inside a fragmented message")
                self.fragments = bytearray()
            if self.fragments is None:
                self.violations.append("continuation frame without a start")
                return
            self.fragments += payload
            if fin:
                data = bytes(self.fragments)
                self.fragments = None
                try:
                    text = data.decode("utf-8")
                except UnicodeDecodeError:
                    self.violations.append("server text frame is not UTF-8")
                    text = data.decode("utf-8", "replace")
                self.texts.append(text)
                try:
                    value = json.loads(text)
                except ValueError:
                    self.nonjson.append(text)
                    return
                for m in (value if isinstance(value, list) else [value]):
                    self.inbox.append(m)
        else:
            self.violations.append("server frame with opcode %d" % opcode)

    def take(self):
        out, self.inbox = self.inbox, []
        return out

    def next_message(self, timeout, pred=None):
        """The next received message matching `pred` (others are kept in `skipped`)."""
        deadline = time.monotonic() + timeout
        while True:
            while self.inbox:
                m = self.inbox.pop(0)
                if pred is None or pred(m):
                    return m
            if self.close_code is not None or self.ended:
                return None
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self.pump(min(left, 0.2))

    def wait_close(self, timeout):
        """Reads until a close frame or the end of the connection; (code, reason)."""
        deadline = time.monotonic() + timeout
        while self.close_code is None and not self.ended:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            self.pump(min(left, 0.2))
        return self.close_code, self.close_reason

    def wait_end(self, timeout):
        """Reads until the TCP connection is over (after a close frame); True if it ended."""
        deadline = time.monotonic() + timeout
        while not self.ended and time.monotonic() < deadline:
            self.pump(min(0.2, max(0.001, deadline - time.monotonic())))
        return bool(self.ended)

    def hello(self, timeout=5.0, **fields):
        """Sends hello and returns the welcome (None if the server answered otherwise)."""
        msg = {"t": "hello", "v": 1}
        msg.update(fields)
        self.send_json(msg)
        return self.next_message(timeout, lambda m: isinstance(m, dict) and m.get("t") == "welcome")

    def ended_summary(self):
        if self.close_code is not None:
            return "close %s %r" % (self.close_code, self.close_reason)
        return "no close frame (%s)" % (self.ended or "still open")


# -----------------------------------------------------------------------------------------------
# HTTP

class HTTPResult:
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
    r = HTTPResult()
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


# -----------------------------------------------------------------------------------------------
# The daemon

class Daemon:
    """The daemon process; stop() always ends it (SIGTERM, then SIGKILL)."""

    def __init__(self, binary, args, log_path, name="daemon"):
        self.name = name
        self.log_path = log_path
        self.log = open(log_path, "wb")
        self.proc = subprocess.Popen([binary] + args, stdout=subprocess.PIPE, stderr=self.log, cwd=ROOT)
        self.pid = self.proc.pid
        self.exit_code = None
        try:
            line = self._first_line(30)
            fields = dict(p.split("=", 1) for p in line.split()[1:] if "=" in p)
            if not line.startswith("listening ") or "port" not in fields or "admin-port" not in fields:
                raise RuntimeError("unexpected first line from the daemon: %r" % line)
            self.port = int(fields["port"])
            self.admin_port = int(fields["admin-port"])
        except BaseException:
            self.stop()
            raise
        threading.Thread(target=self._drain, daemon=True).start()

    def _first_line(self, timeout):
        result = []
        t = threading.Thread(target=lambda: result.append(self.proc.stdout.readline().decode("utf-8", "replace").strip()),
                             daemon=True)
        t.start()
        t.join(timeout)
        if not result or not result[0]:
            raise RuntimeError("the daemon printed no `listening` line within %d s (exit code %s); see %s"
                               % (timeout, self.proc.poll(), self.log_path))
        return result[0]

    def _drain(self):
        try:
            for _ in self.proc.stdout:
                pass
        except (OSError, ValueError):
            pass

    def alive(self):
        return self.proc.poll() is None

    def rss_kib(self):
        try:
            with open("/proc/%d/status" % self.pid) as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1])
        except OSError:
            return None
        return None

    def threads(self):
        try:
            with open("/proc/%d/status" % self.pid) as f:
                for line in f:
                    if line.startswith("Threads:"):
                        return int(line.split()[1])
        except OSError:
            return None
        return None

    def open_fds(self):
        try:
            return len(os.listdir("/proc/%d/fd" % self.pid))
        except OSError:
            return None

    def healthz(self, timeout=3.0):
        r = http(self.admin_port, "GET", "/healthz", ["Connection: close"], timeout=timeout)
        return r

    def stop(self, timeout=10):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        if not self.log.closed:
            self.log.close()
        self.exit_code = self.proc.returncode
        return self.exit_code

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
