# SPDX-License-Identifier: MIT
"""The page side of the wire protocol (docs/PROTOCOL.md) over a raw WebSocket (RFC 6455).

`WS` is a client that can send anything, broken frames included, and records everything it
receives: messages (JSON-decoded, batches flattened), the close frame, how the connection
ended, and server frames that break RFC 6455. On top of it are the protocol's messages:
hello/welcome (`WS.hello`), calls (`call_message`, `WS.call`, `WS.expect_ret`), acks
(`WS.ack`) and the answers to invokes (`return_value`, sent as a `_dsb.returnValue` call).
`AsyncWS` is the same page on asyncio streams (thousands of pages at once: the bench
scripts); `upgrade_request`, `frame`, `split_head` and `server_frames` are the bytes both
use, for a script that drives its own sockets (overload_test.py's non-blocking pages). The
page that keeps its session across cuts and checks every answer is session.py's.

Python standard library only. Everything here is bounded in time: every read of WS has a
deadline (AsyncWS' reads take the caller's asyncio.wait_for).
"""

import base64
import json
import random
import socket
import struct
import time

HOST = "127.0.0.1"
PROTOCOL = "dsbridge.v1"
NO_DATA = object()  # call_message without arg.data

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


def upgrade_request(port, rng=None, protocol=PROTOCOL, path="/dsbridge", origin=None, extra_headers=()):
    """The bytes of a WebSocket upgrade request to 127.0.0.1:`port` (a random key from rng)."""
    rng = rng if rng is not None else random.Random()
    key = base64.b64encode(bytes(rng.getrandbits(8) for _ in range(16))).decode()
    lines = ["GET %s HTTP/1.1" % path, "Host: %s:%d" % (HOST, port), "Upgrade: websocket",
             "Connection: Upgrade", "Sec-WebSocket-Key: " + key, "Sec-WebSocket-Version: 13"]
    if protocol:
        lines.append("Sec-WebSocket-Protocol: " + protocol)
    if origin is not None:
        lines.append("Origin: " + origin)
    lines.extend(extra_headers)
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def server_frames(buf, violations):
    """The complete frames at the start of `buf` (a bytearray of server bytes), each taken
    out of it before it is yielded: (fin, opcode, payload). What breaks RFC 6455 is added to
    `violations`; a partial frame stays in `buf`."""
    while True:
        b = buf
        if len(b) < 2:
            return
        fin, opcode = b[0] & 0x80, b[0] & 0x0F
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
        if len(b) < i + (4 if masked else 0) + n:
            return
        if b[0] & 0x70:
            violations.append("rsv bits set by the server")
        if masked:
            violations.append("masked server frame")
            i += 4
        payload = bytes(b[i:i + n])
        if masked:
            payload = mask_payload(payload, bytes(b[i - 4:i]))
        del b[:i + n]
        yield bool(fin), opcode, payload


def split_head(buf):
    """The HTTP answer's head at the start of `buf` (a bytearray), taken out of it with its
    blank line: (status or None, head text); None while the head is not complete."""
    if b"\r\n\r\n" not in buf:
        return None
    head, _, rest = bytes(buf).partition(b"\r\n\r\n")
    buf[:] = rest
    parts = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ", 2)
    return (int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None), head.decode("latin-1")


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

    def __init__(self, port, rng=None, origin=None, protocol=PROTOCOL, path="/dsbridge", timeout=5.0,
                 extra_headers=(), auto_pong=True, tls_context=None):
        """Connects to 127.0.0.1:`port` and upgrades; raises UpgradeRefused unless the answer
        is 101. `rng` draws the key and masks (a seeded random.Random for repeatable runs);
        `tls_context`: an ssl.SSLContext for wss://."""
        self.rng = rng if rng is not None else random.Random()
        self.port = port
        self.auto_pong = auto_pong
        self.send_hook = None      # when set, control answers (pong, close) go through it
        self.sock = socket.create_connection((HOST, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if tls_context is not None:
            self.sock = tls_context.wrap_socket(self.sock, server_hostname=HOST)
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
        self.sock.sendall(upgrade_request(port, self.rng, protocol, path, origin, extra_headers))
        deadline = time.monotonic() + timeout
        raw = bytearray()
        answer = None
        while answer is None:
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
            answer = split_head(raw)
        status, self.head = answer
        self.status = status
        if status != 101:
            body = raw
            self.sock.settimeout(0.5)
            length = None
            for line in self.head.split("\r\n")[1:]:
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length" and value.strip().isdigit():
                    length = int(value.strip())
            try:
                # Until the body is complete (a proxy keeps the connection open after an
                # error answer with a Content-Length), or the server closes, or 0.5 s.
                while len(body) < 65536 and (length is None or len(body) < length):
                    chunk = self.sock.recv(65536)
                    if not chunk:
                        break
                    body += chunk
            except OSError:
                pass
            self.close()
            raise UpgradeRefused(status, self.head, bytes(body))
        self.buf = raw
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
        for fin, opcode, payload in server_frames(self.buf, self.violations):
            self._on_frame(fin, opcode, payload)

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
        """The decoded messages received and not taken yet."""
        out, self.inbox = self.inbox, []
        return out

    def take_texts(self):
        """The raw text messages received since the last take_texts()."""
        out, self.texts = self.texts, []
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

    # -- the protocol (PROTOCOL.md 2) ----------------------------------------------------------

    def call(self, cid, method, data=NO_DATA, stub=None, **extra):
        """Sends {"t":"call"} (see call_message); False when the connection is gone."""
        return self.send_json(call_message(cid, method, data, stub, **extra))

    def ack(self, seq):
        return self.send_json({"t": "ack", "seq": seq})

    def expect_ret(self, cid, timeout=5.0):
        """The ret of call `cid` (other messages are dropped), or None."""
        return self.next_message(timeout, lambda m: isinstance(m, dict) and m.get("t") == "ret" and m.get("id") == cid)

    def session(self, timeout=5.0, **fields):
        """hello, and the welcome; raises ProtocolError without one."""
        w = self.hello(timeout, **fields)
        if w is None:
            raise ProtocolError("no welcome: %s" % self.ended_summary())
        return w


class ProtocolError(Exception):
    pass



def call_message(cid, method, data=NO_DATA, stub=None, **extra):
    """{"t":"call","id":cid,"method":method,"arg":{"data":data,"_dscbstub":stub}} (no `data`
    without one, no `_dscbstub` without a stub); `extra` fields are added to the message."""
    arg = {}
    if data is not NO_DATA:
        arg["data"] = data
    if stub is not None:
        arg["_dscbstub"] = stub
    msg = {"t": "call", "id": cid, "method": method, "arg": arg}
    msg.update(extra)
    return msg


def return_value(callback_id, data=None, complete=True, error=None):
    """The argument of a `_dsb.returnValue` call: a page's answer to invoke `callback_id`
    (a progress value while complete is False; `error` instead of data refuses it)."""
    if error is not None:
        return {"id": callback_id, "complete": True, "error": error}
    return {"id": callback_id, "data": data, "complete": complete}


def ack_due(highest, acked, unacked_since, every, delay_s):
    """Whether a page that processed seqs up to `highest` and acknowledged up to `acked`
    acknowledges now: `every` messages or more are unacknowledged, or the first of them came
    `delay_s` seconds ago or more (`unacked_since`, time.monotonic(); None: none waits)."""
    return (highest - acked >= every
            or (unacked_since is not None and time.monotonic() - unacked_since >= delay_s))


class AsyncWS:
    """A page's WebSocket on asyncio streams, for thousands of pages at once: the upgrade,
    masked text frames out, messages in (pings answered; a close frame ends it).

        ws = await AsyncWS.open(port)
        ws.send_json({"t": "hello", "v": 1})
        for m in await ws.messages(): ...          # the next text message's (a batch: several)
    """

    def __init__(self, reader, writer, buf):
        self.reader, self.writer = reader, writer
        self.rng = random.Random()
        self.buf = buf
        self.fragments = None
        self.violations = []

    @classmethod
    async def open(cls, port, protocol=PROTOCOL, path="/dsbridge"):
        """Connects to 127.0.0.1:`port` and upgrades; raises UpgradeRefused unless 101."""
        import asyncio
        reader, writer = await asyncio.open_connection(HOST, port)
        writer.write(upgrade_request(port, protocol=protocol, path=path))
        buf = bytearray()
        answer = None
        while answer is None:
            chunk = await reader.read(65536)
            if not chunk:
                writer.close()
                raise UpgradeRefused(None, bytes(buf), b"(connection closed during the upgrade)")
            buf += chunk
            answer = split_head(buf)
        if answer[0] != 101:
            writer.close()
            raise UpgradeRefused(answer[0], answer[1], bytes(buf))
        return cls(reader, writer, buf)

    def send_json(self, obj):
        self.writer.write(frame(OP_TEXT, dumps(obj), rng=self.rng))

    async def messages(self):
        """The next text message's messages (a batch gives several); ConnectionError once
        the server closes."""
        while True:
            for fin, opcode, payload in server_frames(self.buf, self.violations):
                if opcode == OP_PING:
                    self.writer.write(frame(OP_PONG, payload, rng=self.rng))
                elif opcode == OP_CLOSE:
                    raise ConnectionError("closed by the server: %r" % payload[:80])
                elif opcode in (OP_TEXT, OP_CONT):
                    self.fragments = (self.fragments or b"") + payload if opcode == OP_CONT else payload
                    if fin:
                        decoded, self.fragments = json.loads(self.fragments), None
                        return decoded if isinstance(decoded, list) else [decoded]
            chunk = await self.reader.read(1 << 16)
            if not chunk:
                raise ConnectionError("connection ended")
            self.buf += chunk

    def abort(self):
        self.writer.transport.abort()

    async def close(self, code=1000):
        self.writer.write(frame(OP_CLOSE, struct.pack("!H", code), rng=self.rng))
        self.writer.close()
        try:
            await self.writer.wait_closed()
        except (ConnectionError, OSError):
            pass


def connect(port, **kw):
    """A WS with a welcome: (ws, welcome). Keyword arguments go to WS and hello."""
    hello_fields = {k: kw.pop(k) for k in ("token", "ack", "auth", "v") if k in kw}
    ws = WS(port, **kw)
    try:
        return ws, ws.session(**hello_fields)
    except BaseException:
        ws.close()
        raise
