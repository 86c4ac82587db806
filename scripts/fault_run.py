#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Fault-injection run: proves that session resume loses, duplicates and reorders nothing.

Starts dsbridged (--demo) and the fault proxy (scripts/dsbtest/fault_proxy.py) in front of it, then runs scripted page
clients (one thread and one session each, raw sockets and a minimal WebSocket client of our
own) through the proxy while it cuts, resets and stalls their connections at random byte
offsets (mostly in the middle of frames). Each client implements the page side of resume as
PROTOCOL.md 2.1-2.3 says:

  - on a cut it reconnects with {"t":"hello","v":1,"token":T,"ack":A}, A being the highest
    seq it has processed (with probability --stale-ack-rate, the last ack it sent instead,
    which is lower or equal: legal, and makes the server replay messages already processed,
    so the seq dedupe is exercised);
  - messages with seq <= the highest processed are replays: counted, not processed again;
  - after a welcome it resends, in id order, every call with id > lastCall that has no ret;
  - it acks at least every 64 messages and within 200 ms of unacknowledged traffic.

Workload per session: sync calls (echo.syn with unique payloads, testSyn), async calls with
repeated completions (callProgress: 10..0, echo.asyn), native-initiated calls
(test.pushInvokes of startTimer, answered with _dsb.returnValue progress 0..4 then 5) and the
daemon's demo sequence of invokes, asked for with test.nativeDemo (addValue, append, startTimer, syn.*, asyn.*,
_hasJavascriptMethod, demoReport), answered like DSBridge's demo page; every demoReport
must say pass:true, i.e. the native side got every answer right despite the cuts.

Checks: every call gets exactly one ret with the expected data; each stub gets exactly its
expected cb values, in order, after its ret; every invoke arrives once, callbackIds in
increasing order; seq after dedupe is exactly previous+1 (a gap is a lost message).

Prints progress lines, then the summary line

    sent N, received N, lost 0, duplicated 0, out-of-order 0

then one line per check and `N passed, M failed`, and exits non-zero if lost/duplicated/out-of-order are not 0, received != sent, any other
check failed, or fewer than --cuts faults (cuts + resets) happened during the workload.
On an anomaly the last wire events (frames sent/received, proxy faults) are written to
--wire-log for evidence.

    scripts/fault_run.py [--seed 1] [--cuts 200] [--sessions 2] [--daemon .build/debug/dsbridged]
"""

import argparse
import collections
import json
import os
import random
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dsbtest.checks import Checks  # noqa: E402
from dsbtest.daemon import Daemon, binary_path, demo_args  # noqa: E402
from dsbtest.demo import DEMO_INVOKES, DEMO_STEPS, JS_METHODS, page_answers  # noqa: E402
from dsbtest.fault_proxy import FaultProxy  # noqa: E402
from dsbtest.page import WS, UpgradeRefused, call_message, dumps, return_value  # noqa: E402

ADMIN_TOKEN = "t"
ACK_EVERY = 64
ACK_DELAY_S = 0.2


class Closed(Exception):
    """The connection is gone; code/reason from a close frame, if any."""

    def __init__(self, why, code=None, reason=""):
        super().__init__(why)
        self.code = code
        self.reason = reason


class SessionFatal(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# Wire log: one ring buffer for all threads, snapshots around anomalies.

class WireLog:
    def __init__(self, size=6000):
        self.lock = threading.Lock()
        self.ring = collections.deque(maxlen=size)
        self.t0 = time.monotonic()
        self.snapshots = []

    def add(self, who, text):
        with self.lock:
            self.ring.append("%9.3f %-6s %s" % (time.monotonic() - self.t0, who, text))

    def snapshot(self, title, last=500):
        with self.lock:
            if len(self.snapshots) >= 10:
                return
            self.snapshots.append((title, list(self.ring)[-last:]))

    def write(self, path):
        with open(path, "w", encoding="utf-8") as f:
            for title, lines in self.snapshots:
                f.write("==== %s\n" % title)
                for line in lines:
                    f.write(line + "\n")
            f.write("==== last events of the run\n")
            with self.lock:
                for line in list(self.ring)[-1500:]:
                    f.write(line + "\n")


def clip(text, n=300):
    return text if len(text) <= n else text[:n] + "…(%d bytes)" % len(text)


# ---------------------------------------------------------------------------------------------
# The page's socket: the toolkit's WebSocket client, with this run's errors.

class WebSocket(WS):
    def __init__(self, port, rng):
        try:
            super().__init__(port, rng, timeout=5.0)
        except UpgradeRefused as e:
            if e.status is None:
                raise Closed(str(e))
            raise SessionFatal("upgrade refused: HTTP %s" % e.status)

    def send_text(self, text):
        if not super().send_text(text):
            raise Closed("send failed")
        return True

    def recv_messages(self, timeout):
        """Text messages that arrive within `timeout` (maybe none); then Closed once the
        connection is over (a close frame: its code and reason)."""
        if not self.texts and self.close_code is None and not self.ended:
            self.pump(timeout)
        self.inbox.clear()  # this client parses the texts itself
        if self.violations:
            raise SessionFatal("a server frame breaks RFC 6455: %s" % self.violations[0])
        texts = self.take_texts()
        if texts:
            return texts
        if self.close_code is not None:
            raise Closed("close frame", self.close_code, self.close_reason)
        if self.ended:
            raise Closed(self.ended)
        return []


# ---------------------------------------------------------------------------------------------
# Counters shared by all sessions

class Stats:
    KINDS = ("ret", "cb", "invoke")

    def __init__(self):
        self.lock = threading.Lock()
        self.c = collections.Counter()
        self.problems = []  # human-readable descriptions of failed checks

    def add(self, key, n=1):
        with self.lock:
            self.c[key] += n

    def problem(self, text):
        with self.lock:
            self.problems.append(text)


# ---------------------------------------------------------------------------------------------
# One page session

class Call:
    __slots__ = ("id", "method", "frame", "stub", "expect", "ret", "kind")

    def __init__(self, id, method, frame, stub, expect, kind):
        self.id, self.method, self.frame, self.stub, self.expect, self.kind = id, method, frame, stub, expect, kind
        self.ret = None


class Stub:
    __slots__ = ("name", "call_id", "expected", "received", "done", "skipped", "missing")

    def __init__(self, name, call_id, expected):
        self.name, self.call_id, self.expected = name, call_id, expected
        self.received = []
        self.skipped = 0
        self.missing = []
        self.done = False


NOCHECK = object()


class PageSession(threading.Thread):
    def __init__(self, index, run):
        super().__init__(daemon=True, name="session-%d" % index)
        self.index = index
        self.tag = "s%d" % index
        self.run_ = run
        self.o = run.options
        self.stats = run.stats
        self.wire = run.wire
        self.rng = random.Random("%s/session/%d" % (self.o.seed, index))
        self.ws = None
        self.token = None
        self.session_id = None
        self.highest = 0          # highest seq processed
        self.acked = 0            # last ack value sent (in a hello or an ack message)
        self.unacked_since = None
        self.next_id = 1
        self.next_stub = 1
        self.calls = {}           # id -> Call
        self.unreturned = {}      # id -> Call without a ret yet
        self.stubs = {}           # name -> Stub
        self.open_stubs = 0
        self.invokes = {}         # callbackId -> method
        self.last_callback_id = 0
        self.expected_invokes = DEMO_INVOKES
        self.demo_reports = []
        self.rounds = 0
        self.connects = 0
        self.resumes = 0
        self.last_call_seen = 0
        self.done = False
        self.failed = None
        self.payload_n = 0

    # Logging / problems --------------------------------------------------------------------

    def log(self, text):
        self.wire.add(self.tag, text)

    def problem(self, kind, text):
        self.stats.add(kind)
        line = "%s (session %s): %s" % (kind, self.session_id, text)
        self.stats.problem(line)
        self.log("!!! " + line)
        self.wire.snapshot("%s %s" % (self.tag, line))

    # Connection ----------------------------------------------------------------------------

    def send(self, obj):
        text = dumps(obj)
        self.log("> " + clip(text))
        self.ws.send_text(text)

    def connect(self):
        self.connects += 1
        ws = WebSocket(self.run_.proxy_port, self.rng)
        self.ws = ws
        hello = {"t": "hello", "v": 1}
        if self.token:
            ack = self.highest
            if self.rng.random() < self.o.stale_ack_rate:
                ack = self.acked
            hello["token"] = self.token
            hello["ack"] = ack
            self.acked = max(self.acked, ack)
        self.send(hello)
        deadline = time.monotonic() + 10
        while True:
            if time.monotonic() > deadline:
                raise Closed("no welcome within 10 s")
            texts = ws.recv_messages(0.5)
            if not texts:
                continue
            first = json.loads(texts[0])
            self.log("< " + clip(texts[0]))
            if not isinstance(first, dict) or first.get("t") != "welcome":
                self.problem("protocol", "first message is not a welcome: %s" % clip(texts[0]))
                raise SessionFatal("no welcome")
            self.on_welcome(first)
            for text in texts[1:]:
                self.on_frame(text)
            return

    def on_welcome(self, m):
        resumed = bool(m.get("resumed"))
        if self.token:
            if not resumed or m.get("token") != self.token:
                self.problem("protocol", "resume of session %s answered with a new session: %s" % (self.session_id, m))
                raise SessionFatal("resume refused")
            self.resumes += 1
        else:
            if resumed:
                self.problem("protocol", "a new session says resumed:true")
            self.token = m["token"]
            self.session_id = m.get("session")
        last_call = m.get("lastCall")
        if not isinstance(last_call, int):
            self.problem("protocol", "welcome without an integer lastCall: %s" % m)
            raise SessionFatal("bad welcome")
        if last_call < self.last_call_seen:
            self.problem("lost", "lastCall went back from %d to %d" % (self.last_call_seen, last_call))
        if last_call >= self.next_id:
            self.problem("protocol", "lastCall %d above the highest id sent (%d)" % (last_call, self.next_id - 1))
        self.last_call_seen = max(self.last_call_seen, last_call)
        # Calls answered already must be known to the server.
        answered = [c.id for c in self.calls.values() if c.ret is not None and c.id > last_call]
        if answered:
            self.problem("lost", "lastCall %d but calls %s were answered already" % (last_call, answered[:5]))
        resend = [self.unreturned[i].frame for i in sorted(self.unreturned) if i > last_call]
        if self.o.sabotage == "noresend":
            resend = []
        self.stats.add("calls_resent", len(resend))
        self.log("welcome lastCall=%d resumed=%s; resending %d calls" % (last_call, resumed, len(resend)))
        self.send_batch(resend)

    def send_batch(self, frames):
        for i in range(0, len(frames), 50):
            part = frames[i:i + 50]
            self.send(part[0] if len(part) == 1 else part)

    def drop_connection(self, why):
        if self.ws is not None:
            self.ws.close()
            self.ws = None
        self.stats.add("disconnects")
        self.log("connection lost: %s" % why)

    # Calls ---------------------------------------------------------------------------------

    def call(self, method, data, stub_expect=None, expect=NOCHECK, kind="work"):
        """Issues a call (sent now if connected, else on the next welcome)."""
        id = self.next_id
        self.next_id += 1
        stub = None
        if stub_expect is not None:
            stub = "dscb%d" % self.next_stub
            self.next_stub += 1
            self.stubs[stub] = Stub(stub, id, list(stub_expect))
            self.open_stubs += 1
            self.stats.add("expected_cb", len(stub_expect))
        frame = call_message(id, method, data, stub)
        c = Call(id, method, frame, stub, expect, kind)
        self.calls[id] = c
        self.unreturned[id] = c
        self.stats.add("expected_ret")
        self.stats.add("calls_" + kind)
        return c

    def flush(self, calls):
        if self.ws is not None and calls:
            self.send_batch([c.frame for c in calls])

    def payload(self):
        self.payload_n += 1
        pad = "".join(self.rng.choice("abcxyz€😀\"\\ \n") for _ in range(self.rng.randint(0, 120)))
        return {"s": self.index, "n": self.payload_n, "pad": pad}

    def issue_round(self):
        self.rounds += 1
        o = self.o
        batch = []
        for _ in range(o.echo_syn):
            p = self.payload()
            batch.append(self.call("echo.syn", p, expect=p))
        word = "w%d" % self.rounds
        batch.append(self.call("testSyn", word, expect=word + "[ syn call]"))
        for _ in range(o.progress):
            batch.append(self.call("callProgress", None, stub_expect=[(v, v == 0) for v in range(10, -1, -1)], expect=""))
        for _ in range(o.echo_asyn):
            p = self.payload()
            batch.append(self.call("echo.asyn", p, stub_expect=[(p, True)], expect=""))
        if o.push and self.rounds % o.push_every == 0:
            batch.append(self.call("test.pushInvokes", {"method": "startTimer", "count": o.push, "args": []}, expect=o.push))
            self.expected_invokes += o.push
            self.stats.add("expected_push_invokes", o.push)
        self.flush(batch)

    # Incoming ------------------------------------------------------------------------------

    def on_frame(self, text):
        self.log("< " + clip(text))
        try:
            value = json.loads(text)
        except ValueError:
            self.problem("protocol", "frame is not JSON: %s" % clip(text))
            return
        messages = value if isinstance(value, list) else [value]
        answers = []
        for m in messages:
            if not isinstance(m, dict):
                self.problem("protocol", "batch element is not an object: %s" % clip(text))
                continue
            self.on_message(m, answers)
        self.flush(answers)
        self.maybe_ack(force=False)

    def on_message(self, m, answers):
        t = m.get("t")
        if t == "hb":
            return
        if t == "welcome":
            self.problem("protocol", "a second welcome on one socket")
            return
        seq = m.get("seq")
        if not isinstance(seq, int):
            self.problem("protocol", "message without an integer seq: %s" % m)
            return
        self.stats.add("raw_" + str(t))
        if seq <= self.highest:
            self.stats.add("raw_replays")
            if self.o.sabotage != "nodedupe":
                return
        elif self.o.sabotage == "skip" and seq == 500:
            self.highest = seq  # sabotage: acknowledged, never processed
            return
        if seq > self.highest + 1:
            self.problem("lost", "seq gap: got seq %d after %d (%d messages never delivered)"
                         % (seq, self.highest, seq - self.highest - 1))
        self.highest = max(self.highest, seq)
        if self.unacked_since is None:
            self.unacked_since = time.monotonic()
        if t == "ret":
            self.on_ret(m)
        elif t == "cb":
            self.on_cb(m)
        elif t == "invoke":
            self.on_invoke(m, answers)
        else:
            self.problem("protocol", "unknown message type: %s" % m)

    def on_ret(self, m):
        id = m.get("id")
        c = self.calls.get(id)
        if c is None:
            self.problem("protocol", "ret for an unknown call id %r (seq %s)" % (id, m.get("seq")))
            return
        if c.ret is not None:
            self.problem("duplicated", "second ret for call %d %s: first seq %s, now seq %s"
                         % (id, c.method, c.ret.get("seq"), m.get("seq")))
            return
        c.ret = m
        self.unreturned.pop(id, None)
        self.stats.add("received_ret")
        if m.get("code") != 0:
            self.problem("wrong", "call %d %s failed: %s" % (id, c.method, m))
            if c.stub and not self.stubs[c.stub].done:
                self.stubs[c.stub].done = True
                self.open_stubs -= 1
            return
        if c.expect is not NOCHECK and m.get("data") != c.expect:
            self.problem("wrong", "call %d %s returned %s, expected %s"
                         % (id, c.method, clip(json.dumps(m.get("data"))), clip(json.dumps(c.expect))))

    def on_cb(self, m):
        name = m.get("stub")
        s = self.stubs.get(name)
        if s is None:
            self.problem("protocol", "cb for an unknown stub %r (seq %s)" % (name, m.get("seq")))
            return
        value = (m.get("data"), bool(m.get("complete")))
        if self.calls[s.call_id].ret is None:
            self.problem("out-of-order", "cb seq %s for %s arrived before the ret of call %d"
                         % (m.get("seq"), name, s.call_id))
        if s.done or len(s.received) + s.skipped >= len(s.expected):
            kind = "duplicated" if value in s.received else "out-of-order"
            self.problem(kind, "extra cb for finished stub %s (call %d): %s" % (name, s.call_id, m))
            return
        at = len(s.received) + s.skipped
        want = s.expected[at]
        if value != want:
            if value in s.received:
                self.problem("duplicated", "stub %s delivered %s twice (seq %s)" % (name, value, m.get("seq")))
                return
            later = s.expected[at:]
            if value in later:
                # Values in between never came: lost (or, should they still come, out of order).
                gap = later.index(value)
                s.skipped += gap
                s.missing.extend(later[:gap])
                self.problem("lost", "stub %s: got %s, but %s never came before it (seq %s; so far %s)"
                             % (name, value, later[:gap], m.get("seq"), s.received))
            elif value in s.missing:
                s.missing.remove(value)
                self.problem("out-of-order", "stub %s: %s came after later values (seq %s; so far %s)"
                             % (name, value, m.get("seq"), s.received))
                s.received.append(value)
                self.stats.add("received_cb")
                return
            else:
                self.problem("wrong", "stub %s: got %s, expected %s (seq %s)" % (name, clip(str(value)), clip(str(want)), m.get("seq")))
        s.received.append(value)
        self.stats.add("received_cb")
        if value[1]:
            s.done = True
            self.open_stubs -= 1
            if len(s.received) + s.skipped < len(s.expected):
                self.problem("lost", "stub %s completed after %d of %d values" % (name, len(s.received), len(s.expected)))

    def on_invoke(self, m, answers):
        cid = m.get("callbackId")
        method = m.get("method")
        args = m.get("args") or []
        if not isinstance(cid, int):
            self.problem("protocol", "invoke without an integer callbackId: %s" % m)
            return
        if cid in self.invokes:
            self.problem("duplicated", "invoke callbackId %d (%s) delivered twice (now seq %s)" % (cid, method, m.get("seq")))
            return
        if cid < self.last_callback_id:
            self.problem("out-of-order", "invoke callbackId %d after %d (seq %s)" % (cid, self.last_callback_id, m.get("seq")))
        self.last_callback_id = max(self.last_callback_id, cid)
        self.invokes[cid] = method
        self.stats.add("received_invoke")
        self.stats.add("invoke_" + str(method))

        def answer(data, complete=True, error=None):
            answers.append(self.call("_dsb.returnValue", return_value(cid, data, complete, error), kind="answer"))

        demo = page_answers(method, args, JS_METHODS)
        if demo is not None:
            for value, complete in demo:
                answer(value, complete)
        elif method == "demoReport":
            entry = args[0] if args else {}
            self.demo_reports.append(entry)
            if not entry.get("pass"):
                self.problem("wrong", "the daemon's demo step %r failed: %s" % (entry.get("label"), entry))
            answer(None)
        else:
            answer(None, error="not registered")

    def maybe_ack(self, force):
        if self.ws is None or self.highest <= self.acked:
            return
        due = (self.highest - self.acked >= ACK_EVERY
               or (self.unacked_since is not None and time.monotonic() - self.unacked_since >= ACK_DELAY_S))
        if due or force:
            self.send({"t": "ack", "seq": self.highest})
            self.acked = self.highest
            self.unacked_since = None
            self.stats.add("acks")

    # Main loop -----------------------------------------------------------------------------

    def finished(self):
        return (not self.unreturned and self.open_stubs == 0 and len(self.invokes) >= self.expected_invokes
                and len(self.demo_reports) >= DEMO_STEPS)

    def run(self):
        try:
            self.loop()
        except SessionFatal as e:
            self.failed = str(e)
        except Exception as e:  # noqa: BLE001 - a bug of ours is a failure too, with its trace
            import traceback
            self.failed = "client error: %s: %s" % (type(e).__name__, e)
            self.log(traceback.format_exc())
            self.wire.snapshot("%s client error %s" % (self.tag, e))
        finally:
            if self.ws is not None:
                self.ws.close()
                self.ws = None
            self.done = True

    def loop(self):
        o = self.o
        deadline = self.run_.deadline
        # The daemon runs its demo sequence only when asked (PROTOCOL.md 8): asked before
        # dsinit, so its first two invokes are held until then.
        self.call("test.nativeDemo", None, expect="", kind="answer")
        self.call("_dsb.dsinit", None, expect="", kind="answer")
        backoff = 0.0
        while True:
            if time.monotonic() > deadline:
                raise SessionFatal("time limit reached before the workload finished (%d calls without ret, "
                                   "%d open stubs, %d/%d invokes)" % (len(self.unreturned), self.open_stubs,
                                                                     len(self.invokes), self.expected_invokes))
            if self.ws is None:
                try:
                    # Stay away a little, so the server queues messages for a detached session.
                    time.sleep(backoff + self.rng.uniform(o.reconnect_min_ms, o.reconnect_max_ms) / 1000.0)
                    self.connect()
                    backoff = 0.0
                except Closed as e:
                    if self.ws is not None:
                        self.ws.close()
                        self.ws = None
                    self.handle_close(e)
                    backoff = min(0.2, backoff * 2 or 0.005)
                    continue
                except OSError as e:
                    self.ws = None
                    self.stats.add("connect_errors")
                    self.log("connect failed: %s" % e)
                    backoff = min(0.2, backoff * 2 or 0.005)
                    continue
            working = not self.run_.stop_work.is_set()
            try:
                if working and len(self.unreturned) < o.max_outstanding and self.open_stubs < o.max_open_stubs:
                    self.issue_round()
                for text in self.ws.recv_messages(0.02):
                    self.on_frame(text)
                self.maybe_ack(force=False)
                if not working and self.finished():
                    self.maybe_ack(force=True)
                    self.log("workload finished; closing with 1000")
                    self.ws.send_close(1000)
                    return
            except Closed as e:
                self.drop_connection(e)
                self.handle_close(e)

    def handle_close(self, e):
        if e.code is None:
            self.log("cut: %s" % e)
            return
        self.log("close %s %r" % (e.code, e.reason))
        if e.code == 4004:
            self.problem("lost", "the server closed 4004 (session expired/unknown) on resume: %r" % e.reason)
            raise SessionFatal("session lost (4004 %s)" % e.reason)
        if e.code == 4009:
            self.problem("protocol", "closed 4009 (replaced) although the old socket was closed first")
            raise SessionFatal("4009")
        if e.code in (4008, 1000):
            self.problem("lost", "the session was ended by the server: close %s %r" % (e.code, e.reason))
            raise SessionFatal("session ended (%s)" % e.code)
        self.problem("protocol", "unexpected close %s %r" % (e.code, e.reason))


# ---------------------------------------------------------------------------------------------

class Run:
    def __init__(self, options):
        self.options = options
        self.stats = Stats()
        self.wire = WireLog()
        self.stop_work = threading.Event()
        self.deadline = time.monotonic() + options.max_seconds
        self.proxy_port = None


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--daemon", default=os.environ.get("DSBRIDGED", ".build/debug/dsbridged"))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--cuts", type=int, default=200, help="faults (cuts + resets) required during the workload")
    p.add_argument("--sessions", type=int, default=2)
    p.add_argument("--max-seconds", type=float, default=85, help="hard limit for the whole run")
    p.add_argument("--min-work-seconds", type=float, default=5.0, help="keep the workload going at least this long")
    p.add_argument("--grace-ms", type=int, default=30000)
    p.add_argument("--demo-tick-ms", type=int, default=5)
    p.add_argument("--stale-ack-rate", type=float, default=0.25,
                   help="probability that a resume hello acks the last ack sent instead of the highest seq processed")
    p.add_argument("--min-bytes", type=int, default=16, help="proxy: smallest byte budget before a fault (log-uniform)")
    p.add_argument("--max-bytes", type=int, default=65536, help="proxy: largest byte budget before a fault")
    p.add_argument("--cut-rate", type=float, default=1.0, help="proxy: probability that a byte budget ends in a fault")
    p.add_argument("--stall-ms", default="5,120", help="proxy: min,max stall")
    p.add_argument("--weights", default="0.40,0.30,0.20,0.10",
                   help="proxy: relative weights of cut,reset,stall,blackhole (blackhole: only the client side closes)")
    p.add_argument("--hold-ms", default="100,3000", help="proxy: how long a blackholed daemon side stays open")
    p.add_argument("--reconnect-ms", default="0,30", help="min,max random wait before each reconnect")
    p.add_argument("--sabotage", choices=("none", "skip", "nodedupe", "noresend"), default="none",
                   help="break the client on purpose to show the checks catch it: skip = treat one message as "
                        "processed without processing it; nodedupe = process replays again; noresend = never resend calls")
    p.add_argument("--quiet-drain", action="store_true", help="stop injecting faults once the workload stops")
    p.add_argument("--echo-syn", type=int, default=3, help="echo.syn calls per round")
    p.add_argument("--echo-asyn", type=int, default=2, help="echo.asyn calls per round")
    p.add_argument("--progress", type=int, default=1, help="callProgress calls per round")
    p.add_argument("--push", type=int, default=3, help="startTimer invokes per test.pushInvokes")
    p.add_argument("--push-every", type=int, default=2, help="a test.pushInvokes every N rounds")
    p.add_argument("--max-outstanding", type=int, default=80, help="no new round while this many calls lack a ret")
    p.add_argument("--max-open-stubs", type=int, default=40)
    p.add_argument("--wire-log", default=None, help="where to write wire evidence (written on failure to /tmp/dsbridged-fault-run-SEED.wire.log; "
                        "always when this is given)")
    o = p.parse_args()
    o.reconnect_min_ms, o.reconnect_max_ms = (float(x) for x in o.reconnect_ms.split(","))
    wire_path = o.wire_log or "/tmp/dsbridged-fault-run-%d.wire.log" % o.seed

    binary = binary_path(o.daemon)
    if not os.access(binary, os.X_OK):
        print("error: no daemon binary at %s" % binary)
        return 2

    run = Run(o)
    start = time.monotonic()
    daemon = proxy = None
    sessions = []
    cuts_in_work = 0
    try:
        daemon = Daemon(binary, demo_args("web", ADMIN_TOKEN, extra=["--demo-tick-ms", str(o.demo_tick_ms),
                                                                     "--grace-ms", str(o.grace_ms)]),
                        "/tmp/dsbridged-fault-run-%d.log" % o.seed, "fault-run", start_timeout=20)
        w = [float(x) for x in o.weights.split(",")] + [0.0]
        smin, smax = (int(x) for x in o.stall_ms.split(","))
        hmin, hmax = (int(x) for x in o.hold_ms.split(","))
        proxy = FaultProxy(daemon.port, seed=o.seed, cut_rate=o.cut_rate, min_bytes=o.min_bytes, max_bytes=o.max_bytes,
                           weight_cut=w[0], weight_reset=w[1], weight_stall=w[2], weight_blackhole=w[3],
                           stall_min_ms=smin, stall_max_ms=smax, hold_min_ms=hmin, hold_max_ms=hmax,
                           log=lambda line: run.wire.add("proxy", line))
        run.proxy_port = proxy.start()
        print("fault run: seed %d, daemon port %d, proxy port %d, %d sessions, target %d cuts"
              % (o.seed, daemon.port, run.proxy_port, o.sessions, o.cuts), flush=True)
        sessions = [PageSession(i + 1, run) for i in range(o.sessions)]
        for s in sessions:
            s.start()
        last_print = time.monotonic()
        while time.monotonic() < run.deadline + 1:
            time.sleep(0.05)
            c = proxy.counters()
            now = time.monotonic()
            if not run.stop_work.is_set():
                if c["faults"] >= o.cuts and now - start >= o.min_work_seconds:
                    cuts_in_work = c["faults"]
                    run.stop_work.set()
                    if o.quiet_drain:
                        proxy.set_faults(False)
                    print("%5.1fs workload stopped after %d faults; draining" % (now - start, c["faults"]), flush=True)
                elif all(s.done for s in sessions):
                    cuts_in_work = c["faults"]
                    break
            if all(s.done for s in sessions):
                break
            if now - last_print >= 5:
                last_print = now
                st = run.stats.c
                print("%5.1fs faults %d (cut %d, reset %d, stall %d) conns %d; calls %d, rets %d, cbs %d, invokes %d, replays %d"
                      % (now - start, c["faults"], c["cuts"], c["resets"], c["stalls"], c["connections"],
                         st["expected_ret"], st["received_ret"], st["received_cb"], st["received_invoke"],
                         st["raw_replays"]), flush=True)
        if not run.stop_work.is_set():
            cuts_in_work = proxy.counters()["faults"]
            run.stop_work.set()
        for s in sessions:
            s.join(max(0.1, run.deadline + 2 - time.monotonic()))
    except Exception as e:  # noqa: BLE001
        run.stats.problem("run aborted: %s: %s" % (type(e).__name__, e))
    finally:
        pc = proxy.counters() if proxy else {}
        if proxy:
            proxy.stop()
        code = daemon.stop() if daemon else None

    elapsed = time.monotonic() - start
    st = run.stats.c
    for s in sessions:
        if s.failed:
            run.stats.problem("session %d (%s): %s" % (s.index, s.session_id, s.failed))
        elif not s.done:
            run.stats.problem("session %d (%s) did not finish" % (s.index, s.session_id))
    # Lost = expected but never delivered (per kind), plus seq gaps already counted as problems.
    expected = {"ret": st["expected_ret"], "cb": st["expected_cb"],
                "invoke": sum(s.expected_invokes for s in sessions)}
    received = {"ret": st["received_ret"], "cb": st["received_cb"], "invoke": st["received_invoke"]}
    lost_missing = sum(max(0, expected[k] - received[k]) for k in expected)
    sent_total = sum(expected.values())
    received_total = sum(received.values())
    lost = lost_missing + st["lost"]
    dup = st["duplicated"]
    ooo = st["out-of-order"]
    for s in sessions:
        print("session %d (%s): %d connects, %d resumes, highest seq %d, %d calls (%d without ret), %d rounds, "
              "%d invokes (%d expected), %d demo reports"
              % (s.index, s.session_id, s.connects, s.resumes, s.highest, s.next_id - 1, len(s.unreturned), s.rounds,
                 len(s.invokes), s.expected_invokes, len(s.demo_reports)))
    for k in ("ret", "cb", "invoke"):
        print("  %-6s expected %d, received %d, raw frames %d" % (k, expected[k], received[k], st["raw_" + k]))
    print("proxy: %d connections, %d faults during the workload (%d total: %d cuts, %d resets, %d blackholes, %d of them closed 4009 by the daemon), %d stalls; "
          "%d calls resent after welcomes, %d raw replays deduplicated, %d acks"
          % (pc.get("connections", 0), cuts_in_work, pc.get("faults", 0), pc.get("cuts", 0), pc.get("resets", 0),
             pc.get("blackholes", 0), pc.get("blackhole_4009", 0), pc.get("stalls", 0), st["calls_resent"], st["raw_replays"], st["acks"]))
    print("daemon exit code %s; its log: /tmp/dsbridged-fault-run-%d.log; %.1f s" % (code, o.seed, elapsed))
    problems = list(run.stats.problems)
    if problems or run.wire.snapshots or o.wire_log:
        run.wire.write(wire_path)
        print("wire evidence: %s" % wire_path)
    for f in problems[:30]:
        print("#   problem: " + f)
    if len(problems) > 30:
        print("#   … and %d more problems" % (len(problems) - 30))
    print("sent %d, received %d, lost %d, duplicated %d, out-of-order %d"
          % (sent_total, received_total, lost, dup, ooo), flush=True)
    checks = Checks()
    checks.check(not problems, "every call, stub and invoke checked out",
                 "%d problems, the first: %s" % (len(problems), problems[0]) if problems else "")
    checks.check(cuts_in_work >= o.cuts, "faults during the workload", "%d faults, %d asked" % (cuts_in_work, o.cuts))
    checks.check(code in (0, None), "daemon exit code", "%s" % code)
    checks.check(lost == 0, "lost 0", "lost %d" % lost)
    checks.check(dup == 0, "duplicated 0", "duplicated %d" % dup)
    checks.check(ooo == 0, "out-of-order 0", "out-of-order %d" % ooo)
    checks.check(received_total == sent_total, "received = sent", "sent %d, received %d" % (sent_total, received_total))
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())
