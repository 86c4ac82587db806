# SPDX-License-Identifier: MIT
"""Thousands of WebSocket connections from one thread (non-blocking sockets and a selector)
(scripts/attack_suite.py): each one finishes the upgrade and then never sends a byte,
and we record how and when the daemon ends it."""

import errno
import selectors
import socket
import struct
import time

from .page import HOST, OP_CLOSE, frame, upgrade_request


class Conn:
    __slots__ = ("sock", "state", "buf", "t_open", "t_upgraded", "t_closed", "code", "reason", "ended", "status")

    def __init__(self, sock):
        self.sock = sock
        self.state = "connecting"
        self.buf = bytearray()
        self.t_open = time.monotonic()
        self.t_upgraded = None
        self.t_closed = None
        self.code = None
        self.reason = None
        self.ended = None
        self.status = None


def no_hello_connections(port, count, rng, deadline, in_flight=200, on_progress=None):
    """Opens `count` upgraded WebSockets that never send hello; returns the list of Conn once
    every one has ended or at `deadline` (monotonic). At most `in_flight` handshakes at once."""
    sel = selectors.DefaultSelector()
    conns = []
    opened = 0
    handshaking = 0
    live = 0

    def request():
        return upgrade_request(port, rng)

    def finish(c, why):
        nonlocal live, handshaking
        if c.state in ("connecting", "upgrading"):
            handshaking -= 1
        if c.state != "done":
            live -= 1
        c.state = "done"
        c.ended = c.ended or why
        c.t_closed = c.t_closed or time.monotonic()
        try:
            sel.unregister(c.sock)
        except (KeyError, ValueError):
            pass
        c.sock.close()

    try:
        while time.monotonic() < deadline:
            while opened < count and handshaking < in_flight:
                s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                s.setblocking(False)
                err = s.connect_ex((HOST, port))
                c = Conn(s)
                conns.append(c)
                opened += 1
                handshaking += 1
                live += 1
                if err not in (0, errno.EINPROGRESS):
                    finish(c, "connect failed: %s" % errno.errorcode.get(err, err))
                    continue
                sel.register(s, selectors.EVENT_WRITE, c)
            if live == 0 and opened >= count:
                break
            for key, _ in sel.select(timeout=0.05):
                c = key.data
                if c.state == "connecting":
                    err = c.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                    if err:
                        finish(c, "connect failed: %s" % errno.errorcode.get(err, err))
                        continue
                    try:
                        c.sock.send(request())
                    except OSError as e:
                        finish(c, "send failed: %s" % e)
                        continue
                    c.state = "upgrading"
                    sel.modify(c.sock, selectors.EVENT_READ, c)
                    continue
                try:
                    chunk = c.sock.recv(65536)
                except BlockingIOError:
                    continue
                except OSError as e:
                    finish(c, "reset" if isinstance(e, ConnectionResetError) else "error %s" % e)
                    continue
                if not chunk:
                    finish(c, "eof")
                    continue
                c.buf += chunk
                if c.state == "upgrading":
                    if b"\r\n\r\n" not in c.buf:
                        continue
                    head, _, rest = bytes(c.buf).partition(b"\r\n\r\n")
                    parts = head.split(b"\r\n", 1)[0].split(b" ")
                    c.status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None
                    if c.status != 101:
                        finish(c, "upgrade refused: %s" % c.status)
                        continue
                    c.state = "open"
                    c.t_upgraded = time.monotonic()
                    handshaking -= 1
                    c.buf = bytearray(rest)
                    if on_progress:
                        on_progress(opened)
                # Server frames: pings are ignored (this peer is silent); a close ends it.
                while len(c.buf) >= 2:
                    op, n, i = c.buf[0] & 0x0F, c.buf[1] & 0x7F, 2
                    if n == 126:
                        if len(c.buf) < 4:
                            break
                        n, i = struct.unpack("!H", c.buf[2:4])[0], 4
                    elif n == 127:
                        if len(c.buf) < 10:
                            break
                        n, i = struct.unpack("!Q", c.buf[2:10])[0], 10
                    if len(c.buf) < i + n:
                        break
                    payload = bytes(c.buf[i:i + n])
                    del c.buf[:i + n]
                    if op == OP_CLOSE and c.code is None:
                        c.code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005
                        c.reason = payload[2:].decode("utf-8", "replace")
                        c.t_closed = time.monotonic()
                        try:
                            c.sock.send(frame(OP_CLOSE, payload[:2], rng=rng))
                        except OSError:
                            pass
                if c.code is not None:
                    # Close handshake done on our side; the server ends the TCP connection.
                    c.state = "closing" if c.state == "open" else c.state
        return conns
    finally:
        for c in conns:
            if c.state != "done":
                c.ended = c.ended or "still open at the deadline"
                try:
                    sel.unregister(c.sock)
                except (KeyError, ValueError):
                    pass
                c.sock.close()
        sel.close()
