# SPDX-License-Identifier: MIT
"""A healthy session: one well-behaved page that runs beside an attack (scripts/attack_suite.py)
and checks every reply.

It keeps a few echo.syn calls in flight (unique payloads, each reply compared), asks the
daemon for native-initiated calls with test.pushInvokes (each invoke must arrive exactly
once, callbackIds in order, and is answered with _dsb.returnValue), answers the daemon's
demo sequence (asked for with test.nativeDemo) like DSBridge's demo page (each demoReport must say pass:true), acknowledges
seqs and checks they have no gaps, answers pings. Any anomaly is recorded as a problem;
checkpoint() waits until the session has caught up and hands over the problems since the
previous checkpoint.
"""

import random
import threading
import time

from .demo import JS_METHODS as DEMO_JS_METHODS, page_answers
from .page import WS, ack_due, call_message, dumps, return_value

WINDOW = 3                 # calls in flight at once
PUSH_EVERY = 15            # a test.pushInvokes every N echo calls
PUSH_COUNT = 3
CALL_TIMEOUT_S = 5.0       # a reply later than this is a problem (a stall)
ACK_EVERY = 64
ACK_DELAY_S = 0.3
JS_METHODS = DEMO_JS_METHODS | {"healthPing"}


class Healthy(threading.Thread):
    def __init__(self, port, seed):
        super().__init__(daemon=True, name="healthy-session")
        self.port = port
        self.rng = random.Random("%s/healthy" % seed)
        self.cond = threading.Condition()
        self.stop_event = threading.Event()
        self.problems = []
        self.reported = 0
        # Global counters (over reconnects).
        self.serial = 0              # calls issued (work calls: echo.syn and pushInvokes)
        self.answered = 0
        self.max_answered_serial = 0
        self.outstanding_serials = set()
        self.ping_expected = 0
        self.ping_received = 0
        self.demo_reports = 0
        self.demo_failed = 0
        self.sessions = 0
        self.window_max_latency = 0.0
        self.total_max_latency = 0.0
        self.session_id = None

    # -- bookkeeping --------------------------------------------------------------------------

    def problem(self, text):
        with self.cond:
            if len(self.problems) < 200:
                self.problems.append(text)
            self.cond.notify_all()

    def checkpoint(self, timeout=8.0):
        """Waits until a call issued after now has been answered, every call issued before it
        too, and every native-initiated call asked for so far has arrived. Returns (problems
        since the last checkpoint, max latency in that window)."""
        deadline = time.monotonic() + timeout
        with self.cond:
            target = self.serial + 1
            pings = self.ping_expected
            while True:
                caught_up = (self.max_answered_serial >= target
                             and all(s > target for s in self.outstanding_serials)
                             and self.ping_received >= pings)
                if caught_up or not self.is_alive():
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self.cond.wait(min(left, 0.1))
            new = self.problems[self.reported:]
            self.reported = len(self.problems)
            if not caught_up:
                late = sorted(s for s in self.outstanding_serials if s <= target)
                new = new + ["not caught up within %.0f s: calls %s of %d without a reply, %d of %d invokes"
                             % (timeout, late[:5] or "(none issued yet)", target, self.ping_received, pings)]
            latency = self.window_max_latency
            self.window_max_latency = 0.0
        return new, latency

    def stop(self):
        self.stop_event.set()

    # -- the session --------------------------------------------------------------------------

    def run(self):
        while not self.stop_event.is_set():
            try:
                self.session()
            except Exception as e:  # noqa: BLE001 - reported as a problem, then a new session
                self.problem("healthy session error: %s: %s" % (type(e).__name__, e))
            if not self.stop_event.is_set():
                time.sleep(0.2)

    def session(self):
        ws = WS(self.port, self.rng, timeout=5.0)
        self.sessions += 1
        try:
            welcome = ws.hello(timeout=5.0)
            if welcome is None:
                raise RuntimeError("no welcome: %s" % ws.ended_summary())
            self.session_id = welcome.get("session")
            st = {"next_id": 1, "highest": 0, "acked": 0, "unacked_since": None, "calls": {},
                  "last_cb": 0, "since_push": 0, "last_send": 0.0}
            # The demo sequence runs only when asked (PROTOCOL.md 8); asked before dsinit, so
            # its first two invokes are held until then.
            self._call(ws, st, "test.nativeDemo", None, expect="", work=False)
            self._call(ws, st, "_dsb.dsinit", None, expect="", work=False)
            while True:
                if self.stop_event.is_set():
                    self._ack(ws, st, force=True)
                    ws.send_close(1000)
                    ws.wait_close(3.0)
                    return
                now = time.monotonic()
                work = sum(1 for c in st["calls"].values() if c["work"])
                if work < WINDOW and now - st["last_send"] >= 0.003:
                    st["last_send"] = now
                    if st["since_push"] >= PUSH_EVERY:
                        st["since_push"] = 0
                        k = self.rng.randrange(1 << 30)
                        with self.cond:
                            self.ping_expected += PUSH_COUNT
                        self._call(ws, st, "test.pushInvokes",
                                   {"method": "healthPing", "count": PUSH_COUNT, "args": [k]}, expect=PUSH_COUNT)
                    else:
                        st["since_push"] += 1
                        payload = {"n": self.serial, "r": self.rng.randrange(1 << 40),
                                   "s": "".join(self.rng.choice("abc€😀\"\\ \n") for _ in range(self.rng.randint(0, 40)))}
                        self._call(ws, st, "echo.syn", payload, expect=payload)
                ws.pump(0.01)
                for m in ws.take():
                    self._on_message(ws, st, m)
                if ws.nonjson:
                    self.problem("healthy session: non-JSON text from the server: %r" % ws.nonjson[:1])
                    ws.nonjson.clear()
                if ws.violations:
                    self.problem("healthy session: RFC 6455 violations: %s" % ws.violations[:3])
                    ws.violations.clear()
                now = time.monotonic()
                for c in st["calls"].values():
                    if not c["late"] and now - c["t"] > CALL_TIMEOUT_S:
                        c["late"] = True
                        self.problem("healthy session: call %d %s without a reply for %.0f s"
                                     % (c["id"], c["method"], CALL_TIMEOUT_S))
                self._ack(ws, st, force=False)
                if ws.close_code is not None or ws.ended:
                    raise RuntimeError("the server ended the healthy session (%s) with %d calls unanswered"
                                       % (ws.ended_summary(), len(st["calls"])))
        finally:
            with self.cond:
                # Calls of a dead session will never be answered: stop waiting for them.
                self.outstanding_serials.clear()
                self.cond.notify_all()
            ws.close()

    def _call(self, ws, st, method, data, expect, work=True):
        cid = st["next_id"]
        st["next_id"] += 1
        serial = None
        if work:
            with self.cond:
                self.serial += 1
                serial = self.serial
                self.outstanding_serials.add(serial)
        st["calls"][cid] = {"id": cid, "method": method, "expect": expect, "t": time.monotonic(),
                            "serial": serial, "work": work, "late": False}
        ws.send_text(dumps(call_message(cid, method, data)))

    def _ack(self, ws, st, force):
        if st["highest"] <= st["acked"]:
            return
        if force or ack_due(st["highest"], st["acked"], st["unacked_since"], ACK_EVERY, ACK_DELAY_S):
            ws.ack(st["highest"])
            st["acked"] = st["highest"]
            st["unacked_since"] = None

    def _on_message(self, ws, st, m):
        if not isinstance(m, dict):
            self.problem("healthy session: message is not an object: %r" % (m,))
            return
        t = m.get("t")
        if t == "hb":
            return
        seq = m.get("seq")
        if not isinstance(seq, int):
            self.problem("healthy session: %s without an integer seq: %s" % (t, m))
            return
        if seq != st["highest"] + 1:
            self.problem("healthy session: seq %d after %d (%s)" % (seq, st["highest"],
                                                                  "gap: messages lost" if seq > st["highest"] else "duplicate"))
        st["highest"] = max(st["highest"], seq)
        if st["unacked_since"] is None:
            st["unacked_since"] = time.monotonic()
        if t == "ret":
            self._on_ret(st, m)
        elif t == "invoke":
            self._on_invoke(ws, st, m)
        else:
            self.problem("healthy session: unexpected message %s" % m)

    def _on_ret(self, st, m):
        c = st["calls"].pop(m.get("id"), None)
        if c is None:
            self.problem("healthy session: ret for an unknown or already answered call: %s" % m)
            return
        latency = time.monotonic() - c["t"]
        if m.get("code") != 0:
            self.problem("healthy session: call %d %s failed: %s" % (c["id"], c["method"], m))
        elif c["expect"] is not None and m.get("data") != c["expect"]:
            self.problem("healthy session: call %d %s answered %r, expected %r"
                         % (c["id"], c["method"], m.get("data"), c["expect"]))
        with self.cond:
            self.window_max_latency = max(self.window_max_latency, latency)
            self.total_max_latency = max(self.total_max_latency, latency)
            if c["serial"] is not None:
                self.answered += 1
                self.outstanding_serials.discard(c["serial"])
                self.max_answered_serial = max(self.max_answered_serial, c["serial"])
            self.cond.notify_all()

    def _on_invoke(self, ws, st, m):
        cid = m.get("callbackId")
        method = m.get("method")
        args = m.get("args") or []
        if not isinstance(cid, int) or cid != st["last_cb"] + 1:
            self.problem("healthy session: invoke callbackId %r after %d: %s" % (cid, st["last_cb"], m))
        if isinstance(cid, int):
            st["last_cb"] = max(st["last_cb"], cid)

        def answer(data, complete=True, error=None):
            self._call(ws, st, "_dsb.returnValue", return_value(cid, data, complete, error), expect=None, work=False)

        demo = page_answers(method, args, JS_METHODS)
        if method == "healthPing":
            with self.cond:
                self.ping_received += 1
                self.cond.notify_all()
            answer(args[0] if args else None)
        elif demo is not None:
            for value, complete in demo:
                answer(value, complete)
        elif method == "demoReport":
            entry = args[0] if args and isinstance(args[0], dict) else {}
            with self.cond:
                self.demo_reports += 1
                if not entry.get("pass"):
                    self.demo_failed += 1
            if not entry.get("pass"):
                self.problem("healthy session: the daemon's demo step %r failed: %s" % (entry.get("label"), entry))
            answer(None)
        else:
            answer(None, error="not registered")
