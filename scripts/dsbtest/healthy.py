# SPDX-License-Identifier: MIT
"""A healthy session: one well-behaved page that runs beside an attack (scripts/attack_suite.py)
and checks every reply.

It keeps a few echo.syn calls in flight (unique payloads, each reply compared), asks the
daemon for native-initiated calls with test.pushInvokes (each invoke must arrive exactly
once, callbackIds in order, and is answered with _dsb.returnValue), answers the daemon's
demo sequence (asked for with test.nativeDemo) like DSBridge's demo page (each demoReport
must say pass:true), acknowledges seqs and checks they have no gaps, answers pings. Any
anomaly is recorded as a problem; checkpoint() waits until the session has caught up and
hands over the problems since the previous checkpoint.

The page is the toolkit's page client (`HealthyPage`, a ResumingPage of session.py, which
checks the protocol: every ret once and as expected, seqs, invokes, acks); what it adds is
the workload, a reply later than CALL_TIMEOUT_S as a problem, and no resume: a healthy
session is never cut, so a cut or a replayed message is a problem, and `Healthy` starts a
new session after one that ended (as after a server frame that breaks RFC 6455, which ends
a page client's session).
"""

import dataclasses
import threading
import time
import types

from .demo import JS_METHODS as DEMO_JS_METHODS, answer_as_demo_page
from .session import ResumingPage, SessionFatal, Stats, WireLog

WINDOW = 3                 # work calls (echo.syn, test.pushInvokes) in flight at once
SEND_GAP_S = 0.003         # at least this long between two work calls
PUSH_EVERY = 15            # a test.pushInvokes every N echo calls
PUSH_COUNT = 3
CALL_TIMEOUT_S = 5.0       # a reply later than this is a problem (a stall)
JS_METHODS = DEMO_JS_METHODS | {"healthPing"}


def page_options(seed):
    """The page client's options (session.py) for a page that never resumes."""
    return types.SimpleNamespace(seed="%s/healthy" % seed, stale_ack_rate=0.0, reconnect_min_ms=0.0,
                                 reconnect_max_ms=0.0, max_outstanding=1 << 30, max_open_stubs=1)


class HealthyPage(ResumingPage):
    """One session of the healthy page: the toolkit's page client with the healthy workload,
    reporting what it issues and receives to its `Healthy` (the page's run object)."""

    read_wait_s = 0.01      # a turn of the loop: at most one work call, so this sets the pace

    def __init__(self, index, healthy):
        super().__init__(index, healthy)
        self.healthy = healthy
        self.serials = {}            # call id of a work call -> its serial (Healthy.issue_serial)
        self.late = set()            # ids of calls reported late
        self.since_push = 0
        self.last_issue = 0.0
        self.previous_callback_id = 0

    # The workload ------------------------------------------------------------------------------

    def begin(self):
        # The demo sequence runs only when asked (PROTOCOL.md 8); asked before dsinit, so its
        # first two invokes are held until then.
        self.call("test.nativeDemo", None, expect="", kind="answer")
        self.call("_dsb.dsinit", None, expect="", kind="answer")

    def round_due(self):
        in_flight = sum(1 for c in self.unreturned.values() if c.kind == "work")
        return in_flight < WINDOW and time.monotonic() - self.last_issue >= SEND_GAP_S

    def issue_round(self):
        self.last_issue = time.monotonic()
        if self.since_push >= PUSH_EVERY:
            self.since_push = 0
            self.flush([self.push_invokes()])
        else:
            self.since_push += 1
            self.flush([self.echo()])

    def echo(self):
        """An echo.syn call with a payload no other call has."""
        serial = self.healthy.issue_serial()
        payload = {"n": serial, "r": self.rng.randrange(1 << 40),
                   "s": "".join(self.rng.choice("abc€😀\"\\ \n") for _ in range(self.rng.randint(0, 40)))}
        return self.work_call(serial, "echo.syn", payload, payload)

    def push_invokes(self):
        """A test.pushInvokes call: PUSH_COUNT healthPing invokes owed to the page."""
        serial = self.healthy.issue_serial()
        self.healthy.expect_pings(PUSH_COUNT)
        self.expect_invokes(PUSH_COUNT)
        data = {"method": "healthPing", "count": PUSH_COUNT, "args": [self.rng.randrange(1 << 30)]}
        return self.work_call(serial, "test.pushInvokes", data, PUSH_COUNT)

    def work_call(self, serial, method, data, expect):
        c = self.call(method, data, expect=expect)
        self.serials[c.id] = serial
        return c

    def finished(self):
        """Stopping does not wait for the calls in flight."""
        return True

    # What it checks beyond the page client ---------------------------------------------------------

    def tick(self):
        self.report_late_calls()

    def report_late_calls(self):
        """A call without a ret for CALL_TIMEOUT_S is a problem (once)."""
        now = time.monotonic()
        for c in self.unreturned.values():
            if c.id not in self.late and now - c.issued > CALL_TIMEOUT_S:
                self.late.add(c.id)
                self.problem("late", "call %d %s without a reply for %.0f s" % (c.id, c.method, CALL_TIMEOUT_S))

    def on_replay(self, seq, m):
        super().on_replay(seq, m)
        self.problem("duplicated", "seq %d after %d: delivered twice (%s)" % (seq, self.highest, m.get("t")))

    def on_ret(self, m):
        c = self.unreturned.get(m.get("id"))
        super().on_ret(m)
        if c is not None:
            self.healthy.returned(self.serials.pop(c.id, None), time.monotonic() - c.issued)
            # A page that never resumes needs no answered call (a second ret is then one for
            # an unknown call: still a problem), and the session runs for minutes.
            del self.calls[c.id]

    def answer_invoke(self, cid, method, args, answers):
        self.check_no_invoke_skipped(cid)
        if method == "healthPing":
            self.healthy.pinged()
            self.answer(cid, answers, args[0] if args else None)
            return
        report = answer_as_demo_page(self, cid, method, args, answers, JS_METHODS)
        if report is not None:
            self.healthy.demo_reported(report)

    def check_no_invoke_skipped(self, cid):
        """The daemon numbers a session's invokes 1, 2, 3...: a callbackId further on means
        invokes that never came (the page client reports one that goes back)."""
        if cid > self.previous_callback_id + 1:
            self.problem("lost", "invoke callbackId %d after %d" % (cid, self.previous_callback_id))
        self.previous_callback_id = max(self.previous_callback_id, cid)

    # No resume: a cut ends the session ---------------------------------------------------------

    def open_socket(self):
        try:
            return super().open_socket()
        except OSError as e:
            raise SessionFatal("cannot connect: %s" % e)

    def handle_close(self, e):
        how = str(e) if e.code is None else "close %s %r" % (e.code, e.reason)
        raise SessionFatal("the server ended the healthy session (%s) with %d calls unanswered"
                           % (how, len(self.unreturned)))


@dataclasses.dataclass
class Tally:
    """The healthy session's counters over all its sessions (Healthy.cond guards them)."""

    sessions: int = 0
    serial: int = 0                    # work calls issued (echo.syn and test.pushInvokes)
    answered: int = 0                  # work calls answered
    max_answered_serial: int = 0
    outstanding_serials: set = dataclasses.field(default_factory=set)
    ping_expected: int = 0             # healthPing invokes asked for
    ping_received: int = 0
    demo_reports: int = 0
    demo_failed: int = 0
    window_max_latency: float = 0.0    # the slowest ret since the previous checkpoint (s)
    total_max_latency: float = 0.0


class Healthy(threading.Thread):
    """The healthy session in a thread of its own: HealthyPage sessions one after another
    (a new one after one that ended, the end a problem) until stop(); the counters over all
    of them (`tally`, read by attack_suite.py); and the run object its pages are given
    (session.py)."""

    def __init__(self, port, seed):
        super().__init__(daemon=True, name="healthy-session")
        self.port = port
        self.options = page_options(seed)
        self.stats = Stats()
        self.wire = WireLog()
        self.deadline = float("inf")
        self.stop_work = threading.Event()
        self.cond = threading.Condition()
        self.tally = Tally()
        self.page = None
        self.reported = 0            # problems handed over by checkpoint()

    @property
    def session_id(self):
        return self.page.session_id if self.page is not None else None

    @property
    def problems(self):
        return self.stats.problems

    # What the page reports ---------------------------------------------------------------------

    def issue_serial(self):
        """The serial of a new work call, outstanding until returned()."""
        with self.cond:
            self.tally.serial += 1
            self.tally.outstanding_serials.add(self.tally.serial)
            return self.tally.serial

    def returned(self, serial, latency):
        """A call's ret came after `latency` s (`serial`: a work call's, else None)."""
        t = self.tally
        with self.cond:
            t.window_max_latency = max(t.window_max_latency, latency)
            t.total_max_latency = max(t.total_max_latency, latency)
            if serial is not None:
                t.answered += 1
                t.outstanding_serials.discard(serial)
                t.max_answered_serial = max(t.max_answered_serial, serial)
            self.cond.notify_all()

    def expect_pings(self, n):
        with self.cond:
            self.tally.ping_expected += n

    def pinged(self):
        with self.cond:
            self.tally.ping_received += 1
            self.cond.notify_all()

    def demo_reported(self, entry):
        with self.cond:
            self.tally.demo_reports += 1
            if not entry.get("pass"):
                self.tally.demo_failed += 1

    # The suite's side --------------------------------------------------------------------------

    def checkpoint(self, timeout=8.0):
        """Waits until a call issued after now has been answered, every call issued before it
        too, and every native-initiated call asked for so far has arrived. Returns (problems
        since the last checkpoint, max latency in that window)."""
        deadline = time.monotonic() + timeout
        t = self.tally
        with self.cond:
            target = t.serial + 1
            pings = t.ping_expected
            while True:
                caught_up = (t.max_answered_serial >= target
                             and all(s > target for s in t.outstanding_serials)
                             and t.ping_received >= pings)
                if caught_up or not self.is_alive():
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self.cond.wait(min(left, 0.1))
            new = ["healthy session: " + p for p in self.new_problems()]
            if not caught_up:
                late = sorted(s for s in t.outstanding_serials if s <= target)
                new = new + ["not caught up within %.0f s: calls %s of %d without a reply, %d of %d invokes"
                             % (timeout, late[:5] or "(none issued yet)", target, t.ping_received, pings)]
            latency = t.window_max_latency
            t.window_max_latency = 0.0
        return new, latency

    def new_problems(self):
        """The problems recorded since the previous call."""
        with self.stats.lock:
            new = self.stats.problems[self.reported:]
            self.reported = len(self.stats.problems)
        return new

    def stop(self):
        self.stop_work.set()

    # The sessions ------------------------------------------------------------------------------

    def run(self):
        while not self.stop_work.is_set():
            self.run_session()
            if not self.stop_work.is_set():
                time.sleep(0.2)

    def run_session(self):
        """One HealthyPage, run in this thread until it ends (stop(), or a failure: a problem)."""
        self.tally.sessions += 1
        page = self.page = HealthyPage(self.tally.sessions, self)
        try:
            page.run()
        finally:
            with self.cond:
                # Calls of a dead session will never be answered: stop waiting for them.
                self.tally.outstanding_serials.clear()
                self.cond.notify_all()
        if page.failed:
            self.stats.problem("session %d (%s) ended: %s" % (page.index, page.session_id, page.failed))
