#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Fault-injection run: proves that session resume loses, duplicates and reorders nothing.

Starts dsbridged (--demo) and the fault proxy (scripts/dsbtest/fault_proxy.py) in front of it, then runs scripted page
clients (one thread and one session each: the toolkit's page client, ResumingPage of
scripts/dsbtest/session.py) through the proxy while it cuts, resets and stalls their
connections at random byte offsets (mostly in the middle of frames). Each client implements
the page side of resume as PROTOCOL.md 2.1-2.3 says:

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

import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dsbtest.checks import Checks  # noqa: E402
from dsbtest.daemon import Daemon, binary_path, demo_args, script_parser  # noqa: E402
from dsbtest.demo import DEMO_INVOKES, DEMO_STEPS, answer_as_demo_page  # noqa: E402
from dsbtest.fault_proxy import FaultProxy  # noqa: E402
from dsbtest.session import ResumingPage, Stats, Totals, WireLog, add_options, parse_options  # noqa: E402

ADMIN_TOKEN = "t"


class DemoPage(ResumingPage):
    """A page of this run: the toolkit's resuming page client with this run's workload."""

    def __init__(self, index, run):
        super().__init__(index, run)
        self.expect_invokes(DEMO_INVOKES)
        self.demo_reports = []

    def begin(self):
        # The daemon runs its demo sequence only when asked (PROTOCOL.md 8): asked before
        # dsinit, so its first two invokes are held until then.
        self.call("test.nativeDemo", None, expect="", kind="answer")
        self.call("_dsb.dsinit", None, expect="", kind="answer")

    def outstanding(self):
        return "%d calls without ret, %d open stubs, %d/%d invokes" % (len(self.unreturned), self.open_stubs,
                                                                       len(self.invokes), self.expected_invokes)

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
            self.expect_invokes(o.push)
        self.flush(batch)

    def answer_invoke(self, cid, method, args, answers):
        """As DSBridge's demo page answers, and the daemon's demo reports checked."""
        self.stats.add("invoke_" + str(method))
        report = answer_as_demo_page(self, cid, method, args, answers)
        if report is not None:
            self.demo_reports.append(report)

    def finished(self):
        return (not self.unreturned and self.open_stubs == 0 and len(self.invokes) >= self.expected_invokes
                and len(self.demo_reports) >= DEMO_STEPS)


# ---------------------------------------------------------------------------------------------

class Run:
    def __init__(self, options):
        self.options = options
        self.stats = Stats()
        self.wire = WireLog()
        self.stop_work = threading.Event()
        self.deadline = time.monotonic() + options.max_seconds
        self.port = None        # the proxy's: where pages connect


def main():
    p = script_parser(__doc__)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--cuts", type=int, default=200, help="faults (cuts + resets) required during the workload")
    p.add_argument("--sessions", type=int, default=2)
    p.add_argument("--max-seconds", type=float, default=85, help="hard limit for the whole run")
    p.add_argument("--min-work-seconds", type=float, default=5.0, help="keep the workload going at least this long")
    p.add_argument("--grace-ms", type=int, default=30000)
    p.add_argument("--demo-tick-ms", type=int, default=5)
    p.add_argument("--min-bytes", type=int, default=16, help="proxy: smallest byte budget before a fault (log-uniform)")
    p.add_argument("--max-bytes", type=int, default=65536, help="proxy: largest byte budget before a fault")
    p.add_argument("--cut-rate", type=float, default=1.0, help="proxy: probability that a byte budget ends in a fault")
    p.add_argument("--stall-ms", default="5,120", help="proxy: min,max stall")
    p.add_argument("--weights", default="0.40,0.30,0.20,0.10",
                   help="proxy: relative weights of cut,reset,stall,blackhole (blackhole: only the client side closes)")
    p.add_argument("--hold-ms", default="100,3000", help="proxy: how long a blackholed daemon side stays open")
    p.add_argument("--sabotage", choices=("none", "skip", "nodedupe", "noresend"), default="none",
                   help="break the client on purpose to show the checks catch it: skip = treat one message as "
                        "processed without processing it; nodedupe = process replays again; noresend = never resend calls")
    p.add_argument("--quiet-drain", action="store_true", help="stop injecting faults once the workload stops")
    p.add_argument("--echo-syn", type=int, default=3, help="echo.syn calls per round")
    p.add_argument("--echo-asyn", type=int, default=2, help="echo.asyn calls per round")
    p.add_argument("--progress", type=int, default=1, help="callProgress calls per round")
    p.add_argument("--push", type=int, default=3, help="startTimer invokes per test.pushInvokes")
    p.add_argument("--push-every", type=int, default=2, help="a test.pushInvokes every N rounds")
    add_options(p, max_outstanding=80, max_open_stubs=40)
    p.add_argument("--wire-log", default=None, help="where to write wire evidence (written on failure to /tmp/dsbridged-fault-run-SEED.wire.log; "
                        "always when this is given)")
    o = parse_options(p)
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
        run.port = proxy.start()
        print("fault run: seed %d, daemon port %d, proxy port %d, %d sessions, target %d cuts"
              % (o.seed, daemon.port, run.port, o.sessions, o.cuts), flush=True)
        sessions = [DemoPage(i + 1, run) for i in range(o.sessions)]
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
    totals = Totals(run.stats, sessions)
    for s in sessions:
        print("session %d (%s): %d connects, %d resumes, highest seq %d, %d calls (%d without ret), %d rounds, "
              "%d invokes (%d expected), %d demo reports"
              % (s.index, s.session_id, s.connects, s.resumes, s.highest, s.next_id - 1, len(s.unreturned), s.rounds,
                 len(s.invokes), s.expected_invokes, len(s.demo_reports)))
    totals.print_kinds()
    print("proxy: %d connections, %d faults during the workload (%d total: %d cuts, %d resets, %d blackholes, %d of them closed 4009 by the daemon), %d stalls; "
          "%d calls resent after welcomes, %d raw replays deduplicated, %d acks"
          % (pc.get("connections", 0), cuts_in_work, pc.get("faults", 0), pc.get("cuts", 0), pc.get("resets", 0),
             pc.get("blackholes", 0), pc.get("blackhole_4009", 0), pc.get("stalls", 0), st["calls_resent"], st["raw_replays"], st["acks"]))
    print("daemon exit code %s; its log: /tmp/dsbridged-fault-run-%d.log; %.1f s" % (code, o.seed, elapsed))
    if run.stats.problems or run.wire.snapshots or o.wire_log:
        run.wire.write(wire_path)
        print("wire evidence: %s" % wire_path)
    problems = totals.print_problems()
    print(totals.line(), flush=True)
    checks = Checks()
    checks.check(not problems, "every call, stub and invoke checked out",
                 "%d problems, the first: %s" % (len(problems), problems[0]) if problems else "")
    checks.check(cuts_in_work >= o.cuts, "faults during the workload", "%d faults, %d asked" % (cuts_in_work, o.cuts))
    checks.check(code in (0, None), "daemon exit code", "%s" % code)
    totals.check(checks)
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())
