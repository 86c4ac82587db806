# SPDX-License-Identifier: MIT
"""A loopback TCP proxy that injects connection faults, driven by a seed.

Sits between a client and dsbridged and forwards bytes both ways. After a random number of
forwarded bytes (log-uniform between --min-bytes and --max-bytes) (counted over both directions of one connection) it does one of:

  cut     forwards only part of the current chunk (so usually in the middle of a WebSocket
          frame), then closes both sides normally (FIN);
  reset   the same, but closes both sides with SO_LINGER 0, so both peers get an RST;
  blackhole  closes only the client's side: the daemon's side stays open and whatever the
          daemon sends is read and thrown away for a random hold time (--hold-ms), so the
          daemon believes its old socket is alive when the client's new one attaches (the
          case of a dropped mobile/NAT connection: the old socket gets 4009 into the void);
  stall   stops forwarding in that direction for a random short time, then goes on (and
          draws a new byte budget).

Each connection draws its faults from its own random.Random(f"{seed}/{n}") where n is the
connection's accept number, so a seed fixes the sequence of decisions of every connection
(the exact bytes hit still depend on how the peers batch their messages).

As a library:

    proxy = FaultProxy(target_port=8080, seed=7, cut_rate=1.0)
    port = proxy.start()          # listens on 127.0.0.1:port
    ...
    proxy.set_faults(False)       # forward only, from now on
    proxy.counters()              # {'connections':…, 'cuts':…, 'resets':…, 'stalls':…, …}
    proxy.cut_all("cut")          # cut every open connection now (e.g. only WebSockets)
    proxy.stop()

From the command line (runs until Ctrl-C, prints the counters every few seconds):

    scripts/fault_proxy.py --listen-port 9090 --target-port 8080 --seed 7 --cut-rate 0.5
"""

import math
import random
import socket
import struct
import sys
import threading
import time

CHUNK = 65536


class _Conn:
    """One proxied connection: client socket, upstream socket, two pump threads."""

    def __init__(self, proxy, number, client, upstream):
        self.proxy = proxy
        self.number = number
        self.client = client
        self.upstream = upstream
        self.rng = random.Random("%s/%d" % (proxy.seed, number))
        self.lock = threading.Lock()
        self.closed = False
        self.blackholed = False
        self.websocket = False  # the client's request was a GET /dsbridge upgrade
        self.first_bytes = b""
        self.budget = None
        self._draw_budget()

    # Decisions -----------------------------------------------------------------------------

    def _draw_budget(self):
        """Bytes to forward before the next fault, or None for no fault on this connection."""
        p = self.proxy
        if self.rng.random() >= p.cut_rate:
            self.budget = None
            return
        # Log-uniform between min_bytes and max_bytes: many small budgets (cuts in the
        # handshake, in the hello, in the first frames) and a fair share of large ones, so a
        # resume whose replay is one big frame still gets through now and then.
        lo, hi = max(1, p.min_bytes), max(1, p.min_bytes, p.max_bytes)
        self.budget = int(round(math.exp(self.rng.uniform(math.log(lo), math.log(hi)))))

    def _draw_action(self):
        p = self.proxy
        total = p.weight_cut + p.weight_reset + p.weight_stall + p.weight_blackhole
        x = self.rng.random() * total
        if x < p.weight_cut:
            return "cut"
        if x < p.weight_cut + p.weight_reset:
            return "reset"
        if x < p.weight_cut + p.weight_reset + p.weight_blackhole:
            return "blackhole"
        return "stall"

    # Pumping -------------------------------------------------------------------------------

    def start(self):
        for src, dst, name in ((self.client, self.upstream, "up"), (self.upstream, self.client, "down")):
            t = threading.Thread(target=self._pump, args=(src, dst, name), daemon=True,
                                 name="fault-proxy-%d-%s" % (self.number, name))
            t.start()

    def _pump(self, src, dst, direction):
        try:
            while not self.closed:
                try:
                    data = src.recv(CHUNK)
                except OSError:
                    data = b""
                if self.blackholed:
                    if direction == "up" or not data:
                        if not data and direction == "down":
                            self.close("eof", rst=False, count=False)
                        return
                    # The daemon's bytes go nowhere. Note a close frame with code 4009 (the
                    # daemon replaced this socket by the client's new one), as information.
                    i = data.find(b"\x88")
                    while i >= 0:
                        if data[i + 2:i + 4] == b"\x0f\xa9":
                            self.proxy._count("blackhole_4009")
                            self.proxy._log("conn %d: the daemon closed the held side with 4009" % self.number)
                            break
                        i = data.find(b"\x88", i + 1)
                    continue
                if not data:
                    self.close("eof", rst=False, count=False)
                    return
                # A test may hold what the daemon sends (hold_downstream) so that calls are
                # surely in flight when it cuts: held bytes are lost with the connection.
                while direction == "down" and self.proxy.hold_downstream and not self.closed:
                    time.sleep(0.005)
                if direction == "up" and len(self.first_bytes) < 64:
                    self.first_bytes += data[:64]
                    if self.first_bytes.startswith(b"GET /dsbridge"):
                        self.websocket = True
                while data and not self.closed:
                    action, keep = self._plan(len(data))
                    if action is None:
                        self._send(dst, data)
                        self.proxy._add_bytes(direction, len(data))
                        data = b""
                        break
                    head, data = data[:keep], data[keep:]
                    if head:
                        self._send(dst, head)
                        self.proxy._add_bytes(direction, len(head))
                    if action == "stall":
                        ms = self.rng.randint(self.proxy.stall_min_ms, self.proxy.stall_max_ms)
                        self.proxy._count("stalls")
                        self.proxy._log("conn %d %s: stall %d ms" % (self.number, direction, ms))
                        time.sleep(ms / 1000.0)
                        continue  # forward the rest of the chunk under a new budget
                    self.proxy._log("conn %d %s: %s after %d bytes of a %d-byte chunk"
                                    % (self.number, direction, action, keep, keep + len(data)))
                    if action == "blackhole":
                        self._blackhole()
                        if direction == "up":
                            return
                        continue
                    self.close(action, rst=(action == "reset"), count=True)
                    return
        except OSError:
            self.close("error", rst=False, count=False)

    def _plan(self, n):
        """(None, n) to forward all n bytes, or (action, bytes to forward first)."""
        with self.lock:
            if not self.proxy.faults_enabled or self.budget is None:
                return None, n
            if self.budget >= n:
                self.budget -= n
                return None, n
            keep = self.budget
            action = self._draw_action()
            if action == "stall":
                self._draw_budget()
            else:
                self.budget = None
            return action, keep

    def _blackhole(self):
        with self.lock:
            if self.closed or self.blackholed:
                return
            self.blackholed = True
        try:
            self.client.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        try:
            self.client.close()
        except OSError:
            pass
        self.proxy._count("blackholes")
        if self.websocket:
            self.proxy._count("websocket_faults")
        hold = self.rng.randint(self.proxy.hold_min_ms, self.proxy.hold_max_ms) / 1000.0
        self.proxy._log("conn %d: daemon side held open %.3f s" % (self.number, hold))

        def later():
            deadline = time.monotonic() + hold
            while time.monotonic() < deadline and not self.closed and not self.proxy._stopping:
                time.sleep(0.05)
            self.close("hold over", rst=False, count=False)

        threading.Thread(target=later, daemon=True).start()

    @staticmethod
    def _send(sock, data):
        sock.sendall(data)

    def close(self, why, rst, count):
        with self.lock:
            if self.closed:
                return
            self.closed = True
        for s in (self.client, self.upstream):
            try:
                if rst:
                    # Linger 0: close() sends an RST. SHUT_RD (which sends nothing) wakes the
                    # other pump thread if it is blocked in recv() on this socket; without
                    # it the close would wait for that recv and never reach the peer.
                    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    s.shutdown(socket.SHUT_RD)
                else:
                    s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            try:
                s.close()
            except OSError:
                pass
        if count:
            self.proxy._count("cuts" if why == "cut" else "resets")
            if self.websocket:
                self.proxy._count("websocket_faults")
        self.proxy._forget(self)


class FaultProxy:
    """See the module docstring. All counters are totals since start()."""

    def __init__(self, target_port, seed=1, listen_port=0, target_host="127.0.0.1",
                 cut_rate=1.0, min_bytes=16, max_bytes=65536,
                 weight_cut=0.45, weight_reset=0.35, weight_stall=0.20, weight_blackhole=0.0,
                 stall_min_ms=5, stall_max_ms=150, hold_min_ms=100, hold_max_ms=3000, faults=True, verbose=False, log=None):
        self.target = (target_host, target_port)
        self.listen_port = listen_port
        self.seed = seed
        self.cut_rate = cut_rate
        self.min_bytes = min_bytes
        self.max_bytes = max_bytes
        self.weight_cut = weight_cut
        self.weight_reset = weight_reset
        self.weight_stall = weight_stall
        self.weight_blackhole = weight_blackhole
        self.hold_min_ms = hold_min_ms
        self.hold_max_ms = hold_max_ms
        self.stall_min_ms = stall_min_ms
        self.stall_max_ms = stall_max_ms
        self.faults_enabled = faults
        self.verbose = verbose
        self.log = log
        self._lock = threading.Lock()
        self._conns = set()
        self._counters = {"connections": 0, "cuts": 0, "resets": 0, "stalls": 0,
                          "websocket_faults": 0, "blackholes": 0, "blackhole_4009": 0, "bytes_up": 0, "bytes_down": 0, "connect_failures": 0}
        self._listener = None
        self._thread = None
        self._stopping = False
        # While True, nothing the daemon sends is forwarded (a test's way to keep answers
        # in flight until it cuts).
        self.hold_downstream = False

    # Public API --------------------------------------------------------------------------

    def start(self):
        """Starts listening on 127.0.0.1; returns the port."""
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", self.listen_port))
        s.listen(128)
        s.settimeout(0.2)
        self._listener = s
        self.port = s.getsockname()[1]
        self._thread = threading.Thread(target=self._accept_loop, daemon=True, name="fault-proxy-accept")
        self._thread.start()
        return self.port

    def stop(self):
        self._stopping = True
        if self._thread is not None:
            self._thread.join(2)
        if self._listener is not None:
            try:
                self._listener.close()
            except OSError:
                pass
        for c in list(self._conns):
            c.close("stop", rst=False, count=False)

    def set_faults(self, enabled):
        self.faults_enabled = enabled

    def counters(self):
        with self._lock:
            c = dict(self._counters)
        c["faults"] = c["cuts"] + c["resets"] + c["blackholes"]
        c["open"] = len(self._conns)
        return c

    def cut_all(self, action="cut", websocket_only=True):
        """Cuts (or resets) every open connection now; returns how many."""
        n = 0
        for c in list(self._conns):
            if (websocket_only and not c.websocket) or c.blackholed:
                continue
            self._log("conn %d: explicit %s" % (c.number, action))
            c.close(action, rst=(action == "reset"), count=True)
            n += 1
        return n

    # Internals ---------------------------------------------------------------------------

    def _accept_loop(self):
        number = 0
        while not self._stopping:
            try:
                client, _ = self._listener.accept()
            except socket.timeout:
                continue
            except OSError:
                if self._stopping:
                    return
                time.sleep(0.01)
                continue
            client.settimeout(None)
            number += 1
            try:
                upstream = socket.create_connection(self.target, timeout=5)
                upstream.settimeout(None)
            except OSError as e:
                self._count("connect_failures")
                self._log("conn %d: cannot reach the target: %s" % (number, e))
                client.close()
                continue
            for s in (client, upstream):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            conn = _Conn(self, number, client, upstream)
            with self._lock:
                self._conns.add(conn)
                self._counters["connections"] += 1
            conn.start()

    def _forget(self, conn):
        with self._lock:
            self._conns.discard(conn)

    def _count(self, name, n=1):
        with self._lock:
            self._counters[name] += n

    def _add_bytes(self, direction, n):
        self._count("bytes_" + direction, n)

    def _log(self, line):
        if self.log is not None:
            self.log(line)
        elif self.verbose:
            print("fault-proxy: " + line, file=sys.stderr, flush=True)
