#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Daemon-wide limits (PROTOCOL.md 2.6), tested as an independent client would: the memory budget.

Starts a dsbridged with a small budget (`--memory-budget`, 64 MiB by default) and, over raw
loopback sockets, checks:

- over 90%: holder sessions that read but never acknowledge large `echo.syn` answers bring
  the count over 90% of the budget: the largest holder is closed 4008 `memory budget` until
  the count is under 90% (text revision 1.13), the others keep every answer, a new socket
  `hello` is welcomed and `POST /dsbridge/session` gets 200, and a resume of a holder (hello
  with its token) is welcomed and replayed (refusals over the whole budget are checked by
  the Swift tests and scripts/memory_attack_test.py);
- grace sessions: the holders acknowledge, leave (sessions in their grace period), and
  admin calls push large messages into some of them (`POST /admin/sessions/ID/call`);
- abuse: sessions that send large `echo.syn` calls and never read or acknowledge push the
  count over the budget: the largest holders are ended: attached ones get 4008
  `memory budget` (read once they read; or, when an answer to them was half written and
  they did not read within 2 s, the connection closed without the close frame), grace ones
  end silently (their admin calls get 410, a later hello naming them gets 4004);
- throughout, one healthy session makes small calls and acknowledges: every call is
  answered (its p99 is printed; only a generous bound is asserted);
- the daemon's RSS stays near the budget (budget + a margin for a debug build);
- `/metrics` shows the held bytes and budget gauges with `# HELP`, and the ended counter
  moved; the log has at most about one `memory budget:` line a second;
- SIGTERM exits 0.

    scripts/memory_budget_test.py [--daemon .build/debug/dsbridged] [--budget-mib 64]

Prints a line per check and `N passed, M failed`; exits non-zero on any failure. Every socket
is on 127.0.0.1; the run is bounded in time (watchdog) and the daemon is always stopped.
"""

import os
import random
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dsbtest.checks import Checks  # noqa: E402
from dsbtest.daemon import Daemon, ROOT, binary_path, demo_args, checks_limit, script_parser  # noqa: E402
from dsbtest.http import http  # noqa: E402
from dsbtest.metrics import scrape, value  # noqa: E402
from dsbtest.page import WS, UpgradeRefused, call_message, dumps  # noqa: E402

ADMIN_TOKEN = "memory-budget"
MIB = 1 << 20
HOLDERS = 9            # phase 1: 9 × 6 × 1.1 MiB ≈ 59 MiB: over 90% of 64 MiB, not over it
HOLDER_CALLS = 6
HOLDER_BYTES = int(1.1 * MIB)
GRACE = 6              # phase 2: 6 grace sessions × 7 admin calls × 1.1 MiB ≈ 46 MiB
GRACE_PUSHES = 7
ABUSERS = 20           # phase 2: 20 × 7 × 1 MiB ≈ 140 MiB sent, never read nor acknowledged
ABUSER_CALLS = 7
ABUSER_BYTES = MIB
RUNNING = []           # the daemon, for the watchdog


class Healthy(threading.Thread):
    """One well-behaved page: one small echo.syn call at a time, acknowledged at once."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.ws = WS(port, random.Random(7), timeout=10.0)
        self.welcome = self.ws.hello()
        self.stop = threading.Event()
        self.latencies = []
        self.sent = 0
        self.unanswered = []

    def run(self):
        call_id = 0
        while not self.stop.is_set():
            call_id += 1
            self.sent += 1
            t0 = time.monotonic()
            self.ws.call(call_id, "echo.syn", "healthy %d" % call_id)
            ret = self.ws.expect_ret(call_id, 15.0)
            if ret is None or ret.get("data") != "healthy %d" % call_id:
                self.unanswered.append(call_id)
                if self.ws.ended or self.ws.close_code is not None:
                    return
                continue
            self.latencies.append(time.monotonic() - t0)
            self.ws.ack(ret["seq"])
            time.sleep(0.01)

    def p(self, q):
        if not self.latencies:
            return float("nan")
        s = sorted(self.latencies)
        return s[min(len(s) - 1, int(q * len(s)))]


class Run:
    def __init__(self, daemon, budget, omit_flag):
        self.binary = daemon
        self.budget = budget
        self.omit_flag = omit_flag
        self.checks = Checks()
        self.rss_peak_kib = 0
        self.held_peak = 0
        self.sampling = threading.Event()

    def check(self, ok, name, detail):
        self.checks.check(ok, name, detail)

    def sample_rss(self):
        next_scrape = 0
        while not self.sampling.is_set():
            rss = self.d.rss_kib()
            if rss:
                self.rss_peak_kib = max(self.rss_peak_kib, rss)
            if time.monotonic() >= next_scrape:
                next_scrape = time.monotonic() + 0.25
                held = self.metric(self.metrics(), "dsbridge_memory_held_bytes")
                self.held_peak = max(self.held_peak, held or 0)
            time.sleep(0.05)

    def admin(self, method, path, body=b"", timeout=5.0):
        return http(self.d.admin_port, method, path, ["Authorization: Bearer " + ADMIN_TOKEN, "Connection: close"],
                    body=body, timeout=timeout)

    def metrics(self):
        return scrape(self.d.admin_port, ADMIN_TOKEN)

    metric = staticmethod(value)

    def run(self):
        args = demo_args(os.path.join(ROOT, "web"), ADMIN_TOKEN, admin_host="127.0.0.1", extra=[
            "--log-level", "info",
            # Long enough that no grace period expires and no silent socket is cut during
            # the run: only the budget ends sessions here.
            "--grace-ms", "300000", "--heartbeat-ms", "150000"])
        if not self.omit_flag:
            args += ["--memory-budget", str(self.budget)]
        self.log_path = "/tmp/dsbridged-memory-budget.log"
        try:
            self.d = Daemon(self.binary, args, self.log_path)
        except Exception as e:  # noqa: BLE001
            self.check(False, "start", str(e))
            return
        RUNNING.append(self.d)
        sampler = threading.Thread(target=self.sample_rss, daemon=True)
        sampler.start()
        self.healthy = None
        sockets = []
        try:
            self.rss_start_kib = self.d.rss_kib()
            self.healthy = Healthy(self.d.port)
            self.healthy.start()
            self.steps(sockets)
        finally:
            self.sampling.set()
            if self.healthy is not None:
                self.healthy.stop.set()
                self.healthy.join(20)
                self.healthy.ws.close()
            for ws in sockets:
                ws.close()
            code = self.d.stop(timeout=15)
            self.check(code == 0, "sigterm", "exit code %s" % code)

    def steps(self, sockets):
        port = self.d.port
        rng = random.Random(1)
        admission = self.budget - self.budget // 10

        # -- phase 1: over 90%: the largest holder is ended, new sessions and resumes welcomed --
        holders = []
        for i in range(HOLDERS):
            ws = WS(port, rng, timeout=10.0)
            sockets.append(ws)
            w = ws.hello()
            holders.append((ws, w))
        payload = "h" * HOLDER_BYTES
        for ws, _ in holders:
            for k in range(HOLDER_CALLS):
                ws.call(k + 1, "echo.syn", payload)
        answers = []
        for ws, _ in holders:
            got = 0
            for k in range(HOLDER_CALLS):
                m = ws.next_message(20.0, lambda m: isinstance(m, dict) and m.get("t") == "ret")
                if m is None:
                    break
                got += 1 if m.get("code") == 0 else 0
            answers.append(got)
        # The shedding pass may come after a holder has read all its answers (a slow build
        # computes the later holders' answers while the first ones are read): its 4008 then
        # follows the answers on the socket. Read on until every session the budget ended
        # (the metric) has been seen closing, or 10 s.
        deadline = time.monotonic() + 10
        while True:
            text = self.metrics()
            ended = self.metric(text, "dsbridge_memory_budget_sessions_ended_total")
            for ws, _ in holders:
                ws.pump(0.05)
            ended_holders = [i for i, (ws, _) in enumerate(holders) if ws.close_code is not None]
            if (ended and len(ended_holders) >= ended) or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        closes = sorted(set("%s %s" % (holders[i][0].close_code, holders[i][0].close_reason) for i in ended_holders))
        text = self.metrics()
        held = self.metric(text, "dsbridge_memory_held_bytes")
        ended = self.metric(text, "dsbridge_memory_budget_sessions_ended_total")
        survivors = [i for i in range(HOLDERS) if i not in ended_holders]
        self.check(1 <= len(ended_holders) < HOLDERS and closes == ["4008 memory budget"] and ended == len(ended_holders)
                   and all(answers[i] == HOLDER_CALLS for i in survivors) and held is not None and held <= admission,
                   "over-90-percent-largest-ended",
                   "%d holders of %d × %.1f MiB unacknowledged answers (over 90%% of the budget together): %d ended (%s), "
                   "the others read every answer (%s); %s bytes held after (90%% = %d)"
                   % (HOLDERS, HOLDER_CALLS, HOLDER_BYTES / MIB, len(ended_holders), closes, answers, held, admission))
        try:
            fresh = WS(port, rng, timeout=10.0)
            sockets.append(fresh)
            welcome = fresh.hello()
            self.check(welcome is not None, "new-socket-admitted", "a new hello near 90%%: %s"
                       % ("welcomed" if welcome else fresh.ended_summary()))
        except UpgradeRefused as e:
            self.check(False, "new-socket-admitted", str(e))
        r = http(port, "POST", "/dsbridge/session", ["Connection: close"])
        self.check(r.status == 200, "new-session-post-admitted", "POST /dsbridge/session: HTTP %s %s" % (r.status, r.body[:60]))
        # A resume: a surviving holder leaves and comes back with its token.
        first = survivors[0] if survivors else 0
        ws0, w0 = holders[first]
        ws0.close()
        time.sleep(0.2)
        back = WS(port, rng, timeout=10.0)
        sockets.append(back)
        again = back.hello(timeout=10.0, token=w0["token"], ack=0)
        replayed = 0
        while replayed < HOLDER_CALLS:
            m = back.next_message(20.0, lambda m: isinstance(m, dict) and m.get("t") == "ret")
            if m is None:
                break
            replayed += 1
        self.check(again is not None and again.get("resumed") is True and replayed == HOLDER_CALLS, "resume-admitted",
                   "a holder resuming near 90%%: %s, %d of %d answers replayed"
                   % ("welcomed, resumed" if again and again.get("resumed") else back.ended_summary(), replayed, HOLDER_CALLS))
        holders[first] = (back, w0)
        holders = [holders[i] for i in survivors]

        # -- phase 2: the holders acknowledge and leave; some grace sessions get admin pushes --
        for ws, w in holders:
            ws.ack(HOLDER_CALLS)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            held = self.metric(self.metrics(), "dsbridge_memory_held_bytes")
            if held is not None and held < admission / 4:
                break
            time.sleep(0.1)
        self.check(held is not None and held < admission / 4, "acknowledged-frees", "after the acks: %s bytes held" % held)
        for ws, _ in holders:
            ws.close()
        time.sleep(0.3)
        grace_ids = [w["session"] for _, w in holders[:GRACE]]
        grace_tokens = [w["token"] for _, w in holders[:GRACE]]
        push_results = []
        push_lock = threading.Lock()
        push_body = dumps({"method": "fill", "args": ["g" * HOLDER_BYTES], "timeoutMs": 60000}).encode()

        def push(session_id):
            r = self.admin("POST", "/admin/sessions/%s/call" % session_id, push_body, timeout=70.0)
            with push_lock:
                push_results.append((session_id, r.status))

        pushers = [threading.Thread(target=push, args=(sid,), daemon=True) for sid in grace_ids for _ in range(GRACE_PUSHES)]
        for t in pushers:
            t.start()
        time.sleep(1.5)
        held_grace = self.metric(self.metrics(), "dsbridge_memory_held_bytes")
        print("     %d grace sessions hold %s bytes after %d admin pushes" % (GRACE, held_grace, len(pushers)), flush=True)

        # -- phase 3: abusers send large calls and never read --
        abusers = []
        for i in range(ABUSERS):
            try:
                ws = WS(port, rng, timeout=10.0)
            except UpgradeRefused as e:
                self.check(False, "abuser-open", str(e))
                return
            sockets.append(ws)
            if ws.hello() is None:
                self.check(False, "abuser-open", "abuser %d: %s" % (i, ws.ended_summary()))
                return
            abusers.append(ws)
        frames = [dumps(call_message(k + 1, "echo.syn", "a" * ABUSER_BYTES)) for k in range(ABUSER_CALLS)]

        def abuse(ws):
            ws.sock.settimeout(30)
            for f in frames:
                if not ws.send_text(f):
                    return

        senders = [threading.Thread(target=abuse, args=(ws,), daemon=True) for ws in abusers]
        t_storm = time.monotonic()
        for t in senders:
            t.start()
        for t in senders:
            t.join(60)
        time.sleep(2.0)
        storm_seconds = time.monotonic() - t_storm
        text = self.metrics()
        held = self.metric(text, "dsbridge_memory_held_bytes")
        ended = self.metric(text, "dsbridge_memory_budget_sessions_ended_total")
        refused = self.metric(text, "dsbridge_memory_budget_sessions_refused_total")
        self.check(held is not None and held <= self.budget, "count-within-budget",
                   "after the storm: %s bytes held of %d" % (held, self.budget))

        # The grace sessions: ended silently (their admin calls 410), a later hello gets 4004.
        for t in pushers:
            t.join(70)
        statuses = sorted(set(s for _, s in push_results))
        ended_grace = sorted(set(sid for sid, s in push_results if s == 410))
        # (404: a push that reached the daemon after the budget had ended its session, which
        # is then unknown; seen once in a fresh-clone CI run, where the 42 pushing threads
        # start slowly.)
        self.check(len(ended_grace) >= 1 and all(s in (404, 410, 504) for s in statuses), "grace-ended",
                   "%d of %d grace sessions ended (their admin calls answered 410); statuses %s"
                   % (len(ended_grace), GRACE, statuses))
        codes = []
        for sid in ended_grace:
            token = grace_tokens[grace_ids.index(sid)]
            ws = WS(port, rng, timeout=10.0)
            sockets.append(ws)
            welcome = ws.hello(token=token, ack=0)
            codes.append(None if welcome is not None else ws.wait_close(5.0)[0])
        self.check(codes and all(c == 4004 for c in codes), "grace-hello-4004", "hellos naming them: %s" % codes)

        # The abusers read at last: the ended ones find 4008 memory budget after what was on the way.
        outcomes = {}
        for ws in abusers:
            deadline = time.monotonic() + 20
            rets = 0
            quiet_since = time.monotonic()
            while ws.close_code is None and not ws.ended and time.monotonic() < deadline:
                before = len(ws.buf) + len(ws.texts)
                ws.pump(0.2)
                rets += sum(1 for m in ws.take() if isinstance(m, dict) and m.get("t") == "ret")
                if len(ws.buf) + len(ws.texts) != before:
                    quiet_since = time.monotonic()
                elif rets >= ABUSER_CALLS and time.monotonic() - quiet_since > 1.0:
                    break  # every answer and nothing more: a survivor
            if ws.close_code is not None:
                key = "close %s %s" % (ws.close_code, ws.close_reason)
            elif rets >= ABUSER_CALLS:
                key = "all %d answers" % ABUSER_CALLS
            elif ws.ended in ("eof", "reset"):
                # Ended while an answer to it was half written (it did not read): its close
                # frame could not follow within 2 s, so the connection was closed without it.
                key = "dropped"
            else:
                key = "no close, %d answers (%s)" % (rets, ws.ended or "open")
            outcomes[key] = outcomes.get(key, 0) + 1
        budget_closed = outcomes.get("close 4008 memory budget", 0) + outcomes.get("dropped", 0)
        self.check(budget_closed >= 1 and set(outcomes) <= {"close 4008 memory budget", "dropped", "all %d answers" % ABUSER_CALLS},
                   "abusers-closed-4008", "abusers: %s" % outcomes)
        # New sessions are refused only while the count is over the whole budget (text revision
        # 1.13): between a burst and its shedding pass, so the refused counter is printed, not
        # required to move (tests/MemoryBudgetTests checks the refusal itself).
        self.check(ended is not None and ended >= budget_closed + len(ended_grace) and refused is not None,
                   "metrics-moved", "sessions ended by the budget %s, refused %s" % (ended, refused))
        self.check("# HELP dsbridge_memory_held_bytes" in text and "# HELP dsbridge_memory_budget_bytes" in text
                   and self.metric(text, "dsbridge_memory_budget_bytes") == self.budget, "metrics-help",
                   "gauges with # HELP; budget %s" % self.metric(text, "dsbridge_memory_budget_bytes"))

        # The healthy session, throughout.
        self.healthy.stop.set()
        self.healthy.join(20)
        h = self.healthy
        self.check(h.sent > 20 and not h.unanswered and len(h.latencies) == h.sent and h.ws.close_code is None, "healthy-answered",
                   "%d calls, %d answered, unanswered %s; p50 %.1f ms, p99 %.1f ms, max %.1f ms"
                   % (h.sent, len(h.latencies), h.unanswered[:5], h.p(0.5) * 1000, h.p(0.99) * 1000, max(h.latencies or [0]) * 1000))
        self.check(h.p(0.99) < 1.0, "healthy-p99", "p99 %.1f ms (bound 1000 ms, generous for a debug build on a small machine)"
                   % (h.p(0.99) * 1000))

        margin_kib = 150 * 1024
        self.check(self.rss_peak_kib <= self.budget // 1024 + margin_kib, "rss-near-budget",
                   "peak RSS %d MiB (start %s MiB) for a budget of %d MiB (bound budget + %d MiB); %d MiB sent by abusers; "
                   "peak count seen %.1f MiB"
                   % (self.rss_peak_kib // 1024, (self.rss_start_kib or 0) // 1024, self.budget // MIB, margin_kib // 1024,
                      ABUSERS * ABUSER_CALLS * ABUSER_BYTES // MIB, self.held_peak / MIB))
        with open(self.log_path, "rb") as f:
            lines = f.read().decode("utf-8", "replace").splitlines()
        budget_lines = [l for l in lines if "memory budget:" in l]
        self.check(1 <= len(budget_lines) <= storm_seconds + 25, "bounded-log",
                   "%d 'memory budget:' lines (at most one a second), e.g. %s" % (len(budget_lines), (budget_lines or [""])[-1][-160:]))
        self.check(any("memory budget %d bytes" % self.budget in l for l in lines), "start-line",
                   "the budget is logged at start")


def main():
    p = script_parser(__doc__)
    p.add_argument("--budget-mib", type=int, default=64)
    p.add_argument("--omit-budget-flag", action="store_true",
                   help="start the daemon without --memory-budget (to show a build without the budget failing)")
    o = p.parse_args()
    run = Run(binary_path(o.daemon), o.budget_mib * MIB, o.omit_budget_flag)

    checks_limit(240, run.checks, lambda: RUNNING)
    run.run()
    return run.checks.summary()


if __name__ == "__main__":
    sys.exit(main())
