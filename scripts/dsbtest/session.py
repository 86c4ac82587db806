# SPDX-License-Identifier: MIT
"""The page client of the fault, cluster and bench scripts and of the attack suite's healthy
session (healthy.py): a page that keeps its session across cuts, as PROTOCOL.md 2.1-2.3
says, and checks every answer it gets.

    class MyPage(ResumingPage):              # one thread and one session each
        def begin(self): self.call("_dsb.dsinit", None, expect="", kind="answer")
        def issue_round(self): self.flush([self.call("echo.syn", p, expect=p)])
        def answer_invoke(self, cid, method, args, answers): self.answer(cid, answers, "done")
        def finished(self): return not self.unreturned and self.open_stubs == 0

The page side of resume (`ResumingPage`):
  - on a cut it reconnects with {"t":"hello","v":1,"token":T,"ack":A}, A being the highest
    seq it has processed (with probability options.stale_ack_rate, the last ack it sent
    instead, which is lower or equal: legal, and makes the server replay messages already
    processed, so the seq dedupe is exercised);
  - messages with seq <= the highest processed are replays: counted, not processed again;
  - after a welcome it resends, in id order, every call with id > lastCall that has no ret;
  - it acks at least every 64 messages and within 200 ms of unacknowledged traffic.

Its checks (each failure is a problem of a kind: lost, duplicated, out-of-order, wrong,
protocol, counted in `Stats`): every call gets exactly one ret with the expected data; each
stub gets exactly its expected cb values, in order, after its ret; every invoke arrives once,
callbackIds in increasing order; seq after dedupe is exactly previous+1 (a gap is a lost
message); lastCall never goes back and covers every call answered already.

The run object a page is given holds: `options` (seed, stale_ack_rate, reconnect_min_ms,
reconnect_max_ms, max_outstanding, max_open_stubs, and `sabotage` when the script breaks the
client on purpose), `stats` (Stats), `wire` (WireLog), `port` (where pages connect),
`deadline` (time.monotonic()) and `stop_work` (an Event: no new rounds once set).

Also here: `replay_counts`, the check of a resumed page that acked nothing: exactly its
unacknowledged messages again, same seq and contents, in order.
"""

import collections
import json
import random
import threading
import time

from .page import WS, UpgradeRefused, ack_due, call_message, clip, dumps, return_value

ACK_EVERY = 64
ACK_DELAY_S = 0.2
NOCHECK = object()  # a call whose data is not checked


class Closed(Exception):
    """The connection is gone; code/reason from a close frame, if any."""

    def __init__(self, why, code=None, reason=""):
        super().__init__(why)
        self.code = code
        self.reason = reason


class SessionFatal(Exception):
    pass


class WireLog:
    """One ring buffer of wire events for all threads, and snapshots around anomalies."""

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

    def write(self, path, whole=False):
        """The snapshots, then the last 1,500 events; `whole`: the anomalies' titles, then
        every event kept."""
        with open(path, "w", encoding="utf-8") as f:
            for title, lines in self.snapshots:
                f.write("==== %s%s\n" % ("anomaly: " if whole else "", title))
                for line in ([] if whole else lines):
                    f.write(line + "\n")
            f.write("==== the run\n" if whole else "==== last events of the run\n")
            with self.lock:
                for line in (list(self.ring) if whole else list(self.ring)[-1500:]):
                    f.write(line + "\n")


class Stats:
    """Counters shared by all pages, and the problems found (human-readable)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.c = collections.Counter()
        self.problems = []

    def add(self, key, n=1):
        with self.lock:
            self.c[key] += n

    def problem(self, text):
        with self.lock:
            self.problems.append(text)


class PageSocket(WS):
    """The toolkit's WebSocket with the page client's errors: Closed when the connection is
    gone (or the upgrade answered one of `refused_as_cut`, e.g. a balancer's 502/503/504,
    counted in `stats` as upgrade_refused_STATUS), SessionFatal on another refusal or a
    frame that breaks RFC 6455."""

    def __init__(self, port, rng, stats=None, refused_as_cut=()):
        try:
            super().__init__(port, rng, timeout=5.0)
        except UpgradeRefused as e:
            if e.status is None or e.status in refused_as_cut:
                if stats is not None and refused_as_cut:
                    stats.add("upgrade_refused_%s" % (e.status or "closed"))
                raise Closed("upgrade refused: %s" % (e.status or "connection closed") if refused_as_cut else str(e))
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
        self.inbox.clear()  # the page parses the texts itself
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


class Call:
    """A call the page issued: `issued` is when (time.monotonic()), `ret` its ret once it came."""

    __slots__ = ("id", "method", "frame", "stub", "expect", "ret", "kind", "issued")

    def __init__(self, id, method, frame, stub, expect, kind):
        self.id, self.method, self.frame, self.stub, self.expect, self.kind = id, method, frame, stub, expect, kind
        self.ret = None
        self.issued = time.monotonic()


class Stub:
    __slots__ = ("name", "call_id", "expected", "received", "done", "skipped", "missing")

    def __init__(self, name, call_id, expected):
        self.name, self.call_id, self.expected = name, call_id, expected
        self.received = []
        self.skipped = 0
        self.missing = []
        self.done = False


class ResumingPage(threading.Thread):
    """One page session in a thread of its own (see the module's text). A script gives it
    its workload: begin(), issue_round(), answer_invoke(), finished(); and may refine
    round_due(), outstanding(), open_socket(), welcomed(), on_replay() and tick()."""

    refused_as_cut = ()     # upgrade answers that are a failed attempt, not a fatal one
    read_wait_s = 0.02      # how long a turn of the loop waits for messages when none is there

    def __init__(self, index, run):
        super().__init__(daemon=True, name="session-%d" % index)
        self.index = index
        self.tag = "s%d" % index
        self.run_ = run
        self.o = run.options
        self.sabotage = getattr(run.options, "sabotage", "none")
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
        self.expected_invokes = 0
        self.rounds = 0
        self.connects = 0
        self.resumes = 0
        self.last_call_seen = 0
        self.done = False
        self.failed = None
        self.payload_n = 0

    # The workload: the script's ---------------------------------------------------------------

    def begin(self):
        """The calls made before the first round (sent on the first welcome)."""

    def issue_round(self):
        raise NotImplementedError

    def round_due(self):
        return True

    def answer_invoke(self, cid, method, args, answers):
        """Answers an invoke accepted by on_invoke (self.answer(cid, answers, ...))."""
        raise NotImplementedError

    def finished(self):
        raise NotImplementedError

    def outstanding(self):
        """What is still open, for the time-limit failure."""
        return "%d calls without ret, %d open stubs" % (len(self.unreturned), self.open_stubs)

    def tick(self):
        """Called once a turn of the loop while connected (every read_wait_s or sooner): what a
        page checks over time."""

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
        self.log("> " + clip(text, 300))
        self.ws.send_text(text)

    def open_socket(self):
        return PageSocket(self.run_.port, self.rng, self.stats, self.refused_as_cut)

    def welcomed(self, welcome, started):
        """Called with each welcome before it is checked; `started`: when the connect began."""

    def connect(self):
        self.connects += 1
        started = time.monotonic()
        ws = self.open_socket()
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
            self.log("< " + clip(texts[0], 300))
            if not isinstance(first, dict) or first.get("t") != "welcome":
                self.problem("protocol", "first message is not a welcome: %s" % clip(texts[0], 300))
                raise SessionFatal("no welcome")
            self.welcomed(first, started)
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
        if self.sabotage == "noresend":
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

    # Calls ---------------------------------------------------------------------------------

    def call(self, method, data, stub_expect=None, expect=NOCHECK, kind="work"):
        """Issues a call (sent by flush if connected, else on the next welcome): exactly one
        ret with data `expect` (unless NOCHECK) and, with `stub_expect`, exactly those
        (data, complete) cb values in order."""
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

    def expect_invokes(self, n):
        """n more invokes owed to this page."""
        self.expected_invokes += n
        self.stats.add("expected_invoke", n)

    def answer(self, cid, answers, data, complete=True, error=None):
        """The page's answer to invoke `cid`: a _dsb.returnValue call, sent with `answers`."""
        c = self.call("_dsb.returnValue", return_value(cid, data, complete, error), kind="answer")
        answers.append(c)
        return c

    # Incoming ------------------------------------------------------------------------------

    def on_frame(self, text):
        self.log("< " + clip(text, 300))
        try:
            value = json.loads(text)
        except ValueError:
            self.problem("protocol", "frame is not JSON: %s" % clip(text, 300))
            return
        messages = value if isinstance(value, list) else [value]
        answers = []
        for m in messages:
            if not isinstance(m, dict):
                self.problem("protocol", "batch element is not an object: %s" % clip(text, 300))
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
            self.on_replay(seq, m)
            if self.sabotage != "nodedupe":
                return
        elif self.sabotage == "skip" and seq == 500:
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

    def on_replay(self, seq, m):
        """A message whose seq was processed already: a replay after a resume, counted and not
        processed again (a page that never resumes may call it a duplicate)."""
        self.stats.add("raw_replays")

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
                         % (id, c.method, clip(json.dumps(m.get("data")), 300), clip(json.dumps(c.expect), 300)))

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
                self.problem("wrong", "stub %s: got %s, expected %s (seq %s)"
                             % (name, clip(str(value), 300), clip(str(want), 300), m.get("seq")))
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
        self.answer_invoke(cid, method, m.get("args") or [], answers)

    def maybe_ack(self, force):
        if self.ws is None or self.highest <= self.acked:
            return
        if force or ack_due(self.highest, self.acked, self.unacked_since, ACK_EVERY, ACK_DELAY_S):
            self.send({"t": "ack", "seq": self.highest})
            self.acked = self.highest
            self.unacked_since = None
            self.stats.add("acks")

    # Main loop -----------------------------------------------------------------------------

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
        self.begin()
        backoff = 0.0
        while True:
            if time.monotonic() > self.run_.deadline:
                raise SessionFatal("time limit reached before the workload finished (%s)" % self.outstanding())
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
                if (working and self.round_due() and len(self.unreturned) < o.max_outstanding
                        and self.open_stubs < o.max_open_stubs):
                    self.issue_round()
                for text in self.ws.recv_messages(self.read_wait_s):
                    self.on_frame(text)
                self.tick()
                self.maybe_ack(force=False)
                if not working and self.finished():
                    self.maybe_ack(force=True)
                    self.log("workload finished; closing with 1000")
                    self.ws.send_close(1000)
                    return
            except Closed as e:
                self.drop_connection(e)
                self.handle_close(e)


# The script's side ------------------------------------------------------------------------------

def add_options(parser, max_outstanding, max_open_stubs):
    """The page client's options (see the module's text); read them with parse_options."""
    parser.add_argument("--stale-ack-rate", type=float, default=0.25,
                        help="probability that a resume hello acks the last ack sent instead of the highest seq processed")
    parser.add_argument("--reconnect-ms", default="0,30", help="min,max random wait before each reconnect")
    parser.add_argument("--max-outstanding", type=int, default=max_outstanding,
                        help="no new round while this many calls lack a ret")
    parser.add_argument("--max-open-stubs", type=int, default=max_open_stubs)


def parse_options(parser):
    o = parser.parse_args()
    o.reconnect_min_ms, o.reconnect_max_ms = (float(x) for x in o.reconnect_ms.split(","))
    return o


class Totals:
    """A run's counts once its pages are over: what the server owed them (`expected`: each
    page's expected_* stats) and what they processed (`received`: replays not counted
    again), per kind; a page that failed or did not finish is a problem."""

    KINDS = ("ret", "cb", "invoke")

    def __init__(self, stats, pages):
        for s in pages:
            if s.failed:
                stats.problem("session %d (%s): %s" % (s.index, s.session_id, s.failed))
            elif not s.done:
                stats.problem("session %d (%s) did not finish" % (s.index, s.session_id))
        st = stats.c
        self.stats = stats
        self.expected = {k: st["expected_" + k] for k in self.KINDS}
        self.received = {k: st["received_" + k] for k in self.KINDS}
        self.sent = sum(self.expected.values())
        self.received_total = sum(self.received.values())
        # Lost: owed but never delivered (per kind), plus seq gaps and what else the pages
        # counted as lost.
        self.lost = sum(max(0, self.expected[k] - self.received[k]) for k in self.KINDS) + st["lost"]
        self.duplicated = st["duplicated"]
        self.out_of_order = st["out-of-order"]

    def print_kinds(self):
        for k in self.KINDS:
            print("  %-6s sent %d, received %d, raw frames %d"
                  % (k, self.expected[k], self.received[k], self.stats.c["raw_" + k]))

    def print_problems(self, most=30):
        problems = list(self.stats.problems)
        for f in problems[:most]:
            print("#   problem: " + f)
        if len(problems) > most:
            print("#   … and %d more problems" % (len(problems) - most))
        return problems

    def line(self):
        return ("sent %d, received %d, lost %d, duplicated %d, out-of-order %d"
                % (self.sent, self.received_total, self.lost, self.duplicated, self.out_of_order))

    def check(self, checks):
        """lost 0, duplicated 0, out-of-order 0, received = sent."""
        checks.check(self.lost == 0, "lost 0", "lost %d" % self.lost)
        checks.check(self.duplicated == 0, "duplicated 0", "duplicated %d" % self.duplicated)
        checks.check(self.out_of_order == 0, "out-of-order 0", "out-of-order %d" % self.out_of_order)
        checks.check(self.received_total == self.sent, "received = sent",
                     "sent %d, received %d" % (self.sent, self.received_total))


def replay_counts(sent, replayed):
    """A resumed page that acked nothing against what it got again: `sent` and `replayed` are
    [(seq, id, data)] (as first received; as replayed). Counts lost, duplicated, out of order,
    changed and unexpected messages."""
    want = {seq: (i, d) for seq, i, d in sent}
    got_seqs = [seq for seq, _, _ in replayed]
    return {
        "lost": len(set(want) - set(got_seqs)),
        "duplicated": len(got_seqs) - len(set(got_seqs)),
        "out of order": sum(1 for a, b in zip(got_seqs, got_seqs[1:]) if b <= a),
        "changed": sum(1 for seq, i, d in replayed if seq in want and want[seq] != (i, d)),
        "unexpected messages": sum(1 for seq in got_seqs if seq not in want),
    }
