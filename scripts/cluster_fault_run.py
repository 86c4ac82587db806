#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Cluster fault run: node kills and drains under load lose, duplicate, reorder and re-run nothing.

Starts Redis, three dsbridged nodes (--demo, --redis, one shared DSBRIDGED_EXEC_LOG file,
--grace-ms 60000) and HAProxy in front of them (deploy/haproxy-dsbridged.cfg rendered for
loopback by scripts/dsbtest/haproxy.py: free ports, no affinity, so a reconnecting page lands
on whichever node the balancer picks). Scripted page clients (one thread and one session each;
the toolkit's page client, ResumingPage of scripts/dsbtest/session.py, as scripts/fault_run.py
uses it: resume with token and ack, dedupe by seq, resend the calls above lastCall after a
welcome, ack at least every 64 messages and within 200 ms) run a
mixed workload through HAProxy while a chaos thread takes nodes down one at a time: at least
--kills SIGKILLs (the node is started again with the same name and ports after
--restart-pause-ms) and at least --drains drains (SIGTERM, wait for the exit, start again),
spread over --duration seconds; the next fault waits until HAProxy sees all nodes up again, so
never more than one node is down.

Workload of each session, in rounds: `test.record` with a value unique in the run (sync; the
value executed is appended to the exec log by whichever node runs it), `echo.asyn` and
`test.progress` N with stubs (1..N then N final: repeated completions), `test.sleepSyn` of
50-500 ms (so calls are running when nodes die or drain), and native-initiated calls: a
helper thread per session (--admin-callers of them) sends `POST /admin/sessions/ID/call`
{"method": "page.echo"} to a random live node; the page answers with `_dsb.returnValue`,
--native-progress values (2 by default) then the final value, which the admin answer must
carry exactly, in order: a missing, repeated or reordered value is a problem, and so is a
504 for a call whose origin node stayed up (also when the page's answer call met a lost
node; --excuse-lost-answers counts those apart, the rule before issue 48). A 503 "node N was
lost before the call reached the page; the call was not made" is counted apart, and only
when the page never got that call's invoke. With --sync-http-share > 0 that share of the
`test.record` calls goes as sync HTTP calls (`POST /dsbridge/call`, X-DSBridge-Token) through
the balancer, to whichever node it sends them (0 by default: each blocks its page's thread,
up to the After timeout while the page reconnects, which slows the whole workload).

The counts, exactly:

  sent          messages the nodes owed the pages: one `ret` per call a page sent (a resend of
                the same id counts once); per stub, the completions its method produces
                (echo.asyn 1, test.progress N: N+1), or, when a lost-node error `cb` ended the
                stub, the values before it plus that `cb` (none when the `ret` itself was an
                error); one `invoke` per native-initiated call the pages received, plus one for
                each admin call answered 200 whose invoke no page processed.
  received      those messages processed by the pages, replays (seq <= highest processed)
                not counted again.
  lost          sent - received per kind (a call without its final answer at the end, a stub
                without its final cb), plus every seq gap (a seq above highest+1), plus
                `test.record` values answered with code 0 that are not in the exec log, plus
                native calls without a valid admin answer although their origin node stayed up
                (allowed instead, and counted apart: the origin node went down during the call;
                503 {"error":"draining"} while a drain was under way, PROTOCOL.md 6's answer when
                the session's socket was closed by a drain; 503 "node N is down; the session
                waits for its page to reconnect to another node", or "node N was started again
                since it held the session; the session waits for its page ..."; 503 "node N
                was lost before the call reached the page; the call was not made" when the
                page never got the invoke; 504 when the page's answer call got the lost-node
                error only with --excuse-lost-answers), plus sync HTTP calls answered
                neither right nor with the lost-node error nor cut by the balancer nor with
                PROTOCOL.md 4's `timeout` for socket calls (X-DSBridge-After) that did not reach
                the session's node while its page reconnected (then the value must not be in
                the exec log). A call answered with the lost-node error is NOT lost.
  duplicated    a second `ret` for a call id, a stub value or final `cb` delivered twice, an
                invoke callbackId delivered twice with different seqs.
  out-of-order  a `cb` before its call's `ret`, stub values out of their order, invoke
                callbackIds going down.
  double-executed  `test.record` values that appear more than once in the exec log (a call that
                ran twice, on one node or two).
  lost-node answers  calls whose final answer was the error "node NAME was lost while the call
                ran" (a `ret` code -1, or a final `cb` with that error): allowed, each got
                exactly one final answer.
  kills, drains  faults done during the workload; resumes: welcomes with resumed:true;
                sessions lost: closes with 4004 (a resume refused), must be 0.
  takeover      time from the start of a reconnect (TCP connect to the balancer) to its
                `welcome resumed:true` (p50/p90/p99/max); outage: from the moment the page saw
                its socket end to that welcome (includes the reconnect pause and refused tries).

Other answers are checked too (echo data, progress values, admin answers; at the end, that no
run-table entry, i.e. no call still counted as running, is left in Redis); any wrong value is
a problem. Exits non-zero when lost, duplicated, out-of-order or double-executed is not 0,
fewer than --kills kills or --drains drains happened, a session was lost or did not finish, a
drained node did not exit 0, or any other problem was found; then prints the daemons' log
tails. Everything it starts is stopped at the end (also on Ctrl-C); a hard limit
(--max-seconds) bounds the whole run.

    scripts/cluster_fault_run.py [--daemon .build/debug/dsbridged] [--seed 1] [--duration 150]
                                 [--kills 20] [--drains 20] [--sessions 6]
"""

import collections
import json
import os
import random
import re
import shutil
import signal
import sys
import threading
import time
import urllib.error

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dsbtest.checks import Checks  # noqa: E402
from dsbtest.cluster import Cluster  # noqa: E402
from dsbtest.daemon import binary_path, hard_limit, script_parser  # noqa: E402
from dsbtest.http import request_json  # noqa: E402
from dsbtest.page import clip  # noqa: E402
from dsbtest.session import NOCHECK, ResumingPage, Stats, Totals, WireLog, add_options, parse_options  # noqa: E402

LOST_NODE = re.compile(r"^node (.+) was lost while the call ran$")


def percentile(values, p):
    if not values:
        return None
    s = sorted(values)
    k = max(0, min(len(s) - 1, int(round(p / 100.0 * len(s) + 0.5)) - 1))
    return s[k]


def ms(v):
    return "-" if v is None else "%.0f ms" % (v * 1000)


class ClusterPage(ResumingPage):
    """A page of the cluster run: the toolkit's resuming page client with this run's workload."""

    # An upgrade HAProxy answers 502/503/504 (a node that went away between its checks) is a
    # failed connection attempt, not a fatal one.
    refused_as_cut = (502, 503, 504)

    def __init__(self, index, run):
        super().__init__(index, run)
        self.expected_invokes = 0
        self.lost_since = None
        self.dsinit_done = False
        self.admin_by_k = {}        # k of an admin call -> callbackId of its invoke
        self.invoke_lost = set()    # callbackIds whose answer call got the lost-node error
        self.answer_calls = {}      # call id of a _dsb.returnValue -> callbackId it answers
        self.record_calls = {}      # call id -> value of a test.record call
        self.finished_admin = threading.Event()
        self.sent_at = {}           # call id -> seconds into the run when it was issued
        self.next_round = 0.0

    def call(self, method, data, stub_expect=None, expect=NOCHECK, kind="work"):
        c = super().call(method, data, stub_expect, expect, kind)
        self.sent_at[c.id] = time.monotonic() - self.run_.start
        return c

    def open_calls(self, n=8):
        """The first calls without a ret: `id method (issued at T s)`."""
        return ", ".join("%d %s (issued at %.1f s)" % (i, self.unreturned[i].method, self.sent_at.get(i, -1))
                         for i in sorted(self.unreturned)[:n])

    # Connection: timing of takeovers ---------------------------------------------------------

    def welcomed(self, welcome, started):
        now = time.monotonic()
        if self.token and welcome.get("resumed"):
            self.run_.timing("takeover", now - started)
            if self.lost_since is not None:
                self.run_.timing("outage", now - self.lost_since)
        self.lost_since = None

    def drop_connection(self, why):
        if self.lost_since is None:
            self.lost_since = time.monotonic()
        super().drop_connection(why)

    def handle_close(self, e):
        if self.lost_since is None:
            self.lost_since = time.monotonic()
        if e.code == 1001:
            self.stats.add("closed_1001")
            self.log("close 1001 %r (drain)" % e.reason)
            return
        if e.code == 4004:
            self.stats.add("sessions_lost")
        super().handle_close(e)

    # Workload --------------------------------------------------------------------------------

    def unique(self):
        self.payload_n += 1
        return "s%d-%d" % (self.index, self.payload_n)

    def begin(self):
        self.call("_dsb.dsinit", None, expect="", kind="answer")

    def round_due(self):
        return time.monotonic() >= self.next_round

    def outstanding(self):
        return "%d calls without ret: %s; %d open stubs" % (len(self.unreturned), self.open_calls(), self.open_stubs)

    def issue_round(self):
        o = self.o
        started = time.monotonic()
        self.rounds += 1
        batch = []
        for _ in range(o.records):
            value = self.unique()
            if o.sync_http_share > 0 and self.rng.random() < o.sync_http_share:
                self.sync_http_record(value)
                continue
            c = self.call("test.record", value, expect=value)
            self.record_calls[c.id] = value
            self.run_.record_sent(value, c.id, self)
            batch.append(c)
        for _ in range(o.echo_asyn):
            p = {"v": self.unique()}
            batch.append(self.call("echo.asyn", p, stub_expect=[(p, True)], expect=""))
        for _ in range(o.progress):
            n = self.rng.randint(1, o.progress_max)
            batch.append(self.call("test.progress", n, stub_expect=[(v, False) for v in range(1, n + 1)] + [(n, True)],
                                   expect=""))
        if self.rng.random() < o.sleep_share:
            t = self.rng.randint(o.sleep_min_ms, o.sleep_max_ms)
            batch.append(self.call("test.sleepSyn", t, expect=t))
        self.flush(batch)
        self.next_round = started + self.rng.uniform(0.5, 1.5) * o.round_ms / 1000.0

    def sync_http_record(self, value):
        """One test.record as a sync HTTP call through the balancer (at most once: never retried)."""
        self.stats.add("sync_http_calls")
        headers = {"X-DSBridge-Token": self.token, "X-DSBridge-After": str(self.next_id - 1)}
        self.run_.record_sent(value, None, self, sync=True)
        try:
            status, answer = request_json(self.run_.url("/dsbridge/call"), "POST", {"method": "test.record", "arg": {"data": value}},
                                          headers, timeout=15)
        except (OSError, urllib.error.URLError) as e:
            self.stats.add("sync_http_interrupted")
            self.log("sync http %s interrupted: %s" % (value, e))
            return
        if status == 200 and isinstance(answer, dict) and answer.get("code") == 0 and answer.get("data") == value:
            self.stats.add("sync_http_ok")
            self.run_.record_answered(value)
        elif status in (502, 503, 504):
            self.stats.add("sync_http_interrupted")
        elif status == 200 and isinstance(answer, dict) and self.is_lost_node_error(answer.get("error")):
            self.stats.add("sync_http_lost_node")
        elif (status == 200 and isinstance(answer, dict) and answer.get("code") == -1
              and (answer.get("error") or {}).get("kind") == "timeout"
              and "did not arrive" in str((answer.get("error") or {}).get("message"))):
            # PROTOCOL.md 4: the socket calls it names (X-DSBridge-After) did not reach the
            # session's node in time (its page was reconnecting): not run, answered timeout.
            self.stats.add("sync_http_after_timeout")
            self.run_.record_not_run(value)
        else:
            self.stats.add("sync_http_failed")
            self.problem("lost", "sync HTTP test.record %s answered %s %s" % (value, status, clip(str(answer), 300)))

    # Answers ---------------------------------------------------------------------------------

    @staticmethod
    def is_lost_node_error(error):
        return isinstance(error, dict) and error.get("kind") == "failed" and bool(LOST_NODE.match(str(error.get("message"))))

    def on_ret(self, m):
        c = self.calls.get(m.get("id"))
        if c is not None and c.ret is None and m.get("code") == -1 and self.is_lost_node_error(m.get("error")):
            c.ret = m
            self.unreturned.pop(c.id, None)
            self.stats.add("received_ret")
            self.stats.add("lost_node_ret")
            self.stats.add("lost_node_" + c.method)
            self.log("call %d %s: lost-node error %s" % (c.id, c.method, m["error"]["message"]))
            if c.stub and not self.stubs[c.stub].done:
                s = self.stubs[c.stub]
                s.done = True
                self.open_stubs -= 1
                self.stats.add("expected_cb", -len(s.expected))
            if c.id in self.answer_calls:
                self.invoke_lost.add(self.answer_calls[c.id])
            return
        ResumingPage.on_ret(self, m)
        if c is not None and m.get("code") == 0 and c.id in self.record_calls and m.get("data") == self.record_calls[c.id]:
            self.run_.record_answered(self.record_calls[c.id])
        if c is not None and c.method == "_dsb.dsinit" and m.get("code") == 0:
            self.dsinit_done = True

    def on_cb(self, m):
        s = self.stubs.get(m.get("stub"))
        if s is not None and m.get("complete") and "error" in m:
            if not self.is_lost_node_error(m.get("error")):
                self.problem("wrong", "stub %s ended with an error: %s" % (s.name, m))
            if self.calls[s.call_id].ret is None:
                self.problem("out-of-order", "error cb seq %s for %s arrived before the ret of call %d"
                             % (m.get("seq"), s.name, s.call_id))
            if s.done:
                self.problem("duplicated", "a final error cb for finished stub %s (call %d): %s" % (s.name, s.call_id, m))
                return
            got = len(s.received) + s.skipped
            # What was owed: the values before the error, and the error itself.
            self.stats.add("expected_cb", got + 1 - len(s.expected))
            s.done = True
            self.open_stubs -= 1
            self.stats.add("received_cb")
            self.stats.add("lost_node_cb")
            self.stats.add("lost_node_" + self.calls[s.call_id].method)
            self.log("stub %s: lost-node error after %d values" % (s.name, got))
            return
        ResumingPage.on_cb(self, m)

    def answer(self, cid, answers, data, complete=True, error=None):
        c = super().answer(cid, answers, data, complete, error)
        self.answer_calls[c.id] = cid
        return c

    def answer_invoke(self, cid, method, args, answers):
        self.expect_invokes(1)
        if method == "page.echo" and len(args) == 1 and isinstance(args[0], dict) and "k" in args[0]:
            k = args[0]["k"]
            self.admin_by_k[k] = cid
            for n in range(1, self.o.native_progress + 1):
                self.answer(cid, answers, {"progress": k, "n": n}, complete=False)
            self.answer(cid, answers, {"echo": args[0]})
        else:
            self.problem("wrong", "unexpected invoke %s" % clip(json.dumps([cid, method, args]), 300))
            self.answer(cid, answers, None, error="not registered")

    # The end: no demo sequence; the admin helpers must be done too ------------------------------

    def finished(self):
        return not self.unreturned and self.open_stubs == 0 and self.finished_admin.is_set()


class AdminCaller(threading.Thread):
    """Native-initiated calls into one page, through the admin API of a random live node."""

    def __init__(self, page, run, caller=0, done=None):
        super().__init__(daemon=True, name="admin-%d-%d" % (page.index, caller))
        self.page = page
        self.run_ = run
        self.caller = caller
        self.done = done              # [count of callers of the page still running, lock]
        self.rng = random.Random("%s/admin/%d" % (run.options.seed, page.index) + ("/%d" % caller if caller else ""))
        self.k = 0

    def run(self):
        try:
            self.loop()
        except Exception as e:  # noqa: BLE001
            self.run_.stats.problem("admin caller %d crashed: %s: %s" % (self.page.index, type(e).__name__, e))
        finally:
            if self.done is None:
                self.page.finished_admin.set()
            else:
                with self.done[1]:
                    self.done[0] -= 1
                    if self.done[0] == 0:
                        self.page.finished_admin.set()

    def loop(self):
        o = self.run_.options
        while not self.run_.stop_work.is_set():
            time.sleep(self.rng.uniform(0.5, 1.5) * o.admin_ms / 1000.0)
            if self.run_.stop_work.is_set():
                break
            page = self.page
            if page.session_id is None or not page.dsinit_done or page.done:
                continue
            nodes = self.run_.cluster.up_nodes()
            if not nodes:
                continue
            node = self.rng.choice(nodes)
            epoch = node.epoch
            drains_done_before = self.run_.drains_done
            self.k += 1
            k = "%d-%d" % (page.index, self.k) if not self.caller else "%d-%d-%d" % (page.index, self.caller, self.k)
            arg = {"s": page.index, "k": k}
            self.run_.stats.add("admin_calls")
            self.run_.wire.add("admin", "call %s on %s (session %s)" % (k, node.name, page.session_id))
            try:
                status, answer = node.admin("POST", "/admin/sessions/%s/call" % page.session_id,
                                            {"method": "page.echo", "args": [arg], "timeoutMs": o.admin_timeout_ms},
                                            timeout=o.admin_timeout_ms / 1000.0 + 10)
            except (OSError, urllib.error.URLError) as e:
                status, answer = None, "connection failed: %s" % e
            origin_down = node.epoch != epoch or node.state != "up"
            want = {"data": {"echo": arg}, "progress": [{"progress": k, "n": n} for n in range(1, o.native_progress + 1)]}
            self.run_.wire.add("admin", "call %s on %s: %s %s" % (k, node.name, status, clip(str(answer), 300)))
            if status == 200 and answer == want:
                self.run_.stats.add("admin_ok")
                if k not in page.admin_by_k:
                    # Answered 200, so the page processed its invoke: reading admin_by_k from
                    # this thread may race the page thread only by the time it takes to write it.
                    time.sleep(0.2)
                    if k not in page.admin_by_k:
                        self.run_.stats.add("expected_invoke")
                        self.run_.stats.add("lost")
                        self.run_.stats.problem("lost: admin call %s answered 200 but its invoke never reached the page" % k)
            elif status == 200:
                self.run_.stats.add("admin_wrong")
                page.problem("wrong", "admin call %s on %s answered %s, expected %s" % (k, node.name, answer, want))
            elif origin_down:
                self.run_.stats.add("admin_origin_down")
            elif status == 503 and answer == {"error": "draining"} and self.run_.drains_started > drains_done_before:
                # PROTOCOL.md 6: the session's socket was closed by a drain (its owner drained
                # while the call was on its way; the page had not resumed elsewhere yet).
                self.run_.stats.add("admin_owner_draining")
            elif (status == 503 and isinstance(answer, dict)
                  and re.match(r"^node .+ (is down|was started again since it held the session); the session waits for its page",
                               str(answer.get("error")))):
                # The session's owner is down (or was started again: a new process) and its
                # page has not resumed elsewhere yet.
                self.run_.stats.add("admin_owner_down")
            elif (status == 503 and isinstance(answer, dict)
                  and re.match(r"^node .+ was lost before the call reached the page; the call was not made$",
                               str(answer.get("error")))):
                # The session's node took the call and was lost before it journaled the invoke
                # (PROTOCOL.md 10.2, revision 1.15): answered within about a second of the loss
                # instead of at the timeout. The page must not have seen the invoke.
                time.sleep(0.5)
                if k in page.admin_by_k:
                    page.problem("wrong", "admin call %s on %s answered 'not made' (%s) but its invoke reached the page"
                                 % (k, node.name, answer))
                self.run_.stats.add("admin_lost_before_delivery")
            elif k in page.admin_by_k and page.admin_by_k[k] in page.invoke_lost and o.excuse_lost_answers:
                # The page's answer call met a lost node, so the answer never reached the
                # caller: lost since issue 48, excused only with --excuse-lost-answers.
                self.run_.stats.add("admin_answer_lost_node")
            else:
                self.run_.stats.add("admin_failed")
                page.problem("lost", "admin call %s on %s (up throughout) answered %s %s"
                             % (k, node.name, status, clip(str(answer), 300)))


class Chaos(threading.Thread):
    """Takes nodes down, one at a time: kills and drains, interleaved, spread over the run."""

    def __init__(self, run):
        super().__init__(daemon=True, name="chaos")
        self.run_ = run
        o = run.options
        self.rng = random.Random("%s/chaos" % o.seed)
        actions = ["kill"] * o.kills + ["drain"] * o.drains
        self.rng.shuffle(actions)
        self.actions = actions
        self.kills = 0
        self.drains = 0
        self.drain_times = []
        self.restart_times = []
        self.errors = []
        self.faults = []            # (seconds into the run, "kill node1" / "drain node2")
        self.done = threading.Event()

    def say(self, text):
        self.run_.wire.add("chaos", text)
        if self.run_.options.verbose:
            print("%6.1fs chaos: %s" % (time.monotonic() - self.run_.start, text), flush=True)

    def run(self):
        try:
            self.loop()
        except Exception as e:  # noqa: BLE001
            self.errors.append("chaos crashed: %s: %s" % (type(e).__name__, e))
        finally:
            self.done.set()

    def loop(self):
        o = self.run_.options
        c = self.run_.cluster
        interval = o.duration / max(1, len(self.actions))
        first = self.run_.start + o.warmup
        for i, action in enumerate(self.actions):
            due = first + i * interval
            while time.monotonic() < due and not self.run_.abort.is_set():
                time.sleep(0.05)
            if self.run_.abort.is_set():
                return
            names = list(c.nodes)
            if not c.balancer.wait_up(names, 30):
                self.errors.append("HAProxy does not see every node up before fault %d: %s" % (i + 1, c.balancer.states()))
                return
            name = self.rng.choice(names)
            self.faults.append((time.monotonic() - self.run_.start, "%s %s" % (action, name)))
            if action == "kill":
                c.kill(name)
                self.kills += 1
                self.say("kill %s (kill %d)" % (name, self.kills))
                time.sleep(o.restart_pause_ms / 1000.0)
            else:
                self.say("drain %s" % name)
                self.run_.drains_started += 1
                code, took = c.drain(name, timeout=o.drain_wait_s)
                self.run_.drains_done += 1
                self.drains += 1
                self.drain_times.append(took)
                self.say("drained %s in %.2f s, exit code %s (drain %d)" % (name, took, code, self.drains))
                if code != 0:
                    self.errors.append("drain %d of %s: exit code %s after %.1f s" % (self.drains, name, code, took))
            t0 = time.monotonic()
            c.restart(name)
            self.restart_times.append(time.monotonic() - t0)
            self.say("%s is back (incarnation %d)" % (name, c.nodes[name].incarnation))


class Run:
    def __init__(self, options):
        self.options = options
        self.stats = Stats()
        self.wire = WireLog(size=400000)
        self.stop_work = threading.Event()
        self.abort = threading.Event()
        self.start = time.monotonic()
        self.deadline = self.start + options.max_seconds - 20
        self.cluster = None
        self.port = None
        self.lock = threading.Lock()
        self.timings = collections.defaultdict(list)
        self.drains_started = 0     # drains begun (SIGTERM sent) ...
        self.drains_done = 0        # ... and over (the node exited)
        self.records = {}          # value -> (call id or None for sync HTTP, session index)
        self.records_ok = set()    # values answered with code 0
        self.records_not_run = set()  # sync HTTP values answered timeout before they could run

    def url(self, path):
        return self.cluster.url(path)

    def timing(self, name, seconds):
        with self.lock:
            self.timings[name].append(seconds)

    def record_sent(self, value, call_id, page, sync=False):
        with self.lock:
            self.records[value] = (call_id, page.index, sync)

    def record_answered(self, value):
        with self.lock:
            self.records_ok.add(value)

    def record_not_run(self, value):
        with self.lock:
            self.records_not_run.add(value)


def read_exec_log(path):
    counts = collections.Counter()
    bad = 0
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                try:
                    counts[json.loads(line)] += 1
                except (ValueError, TypeError):
                    bad += 1
    except OSError:
        pass
    return counts, bad


def main():
    p = script_parser(__doc__)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--nodes", type=int, default=3)
    p.add_argument("--sessions", type=int, default=6)
    p.add_argument("--duration", type=float, default=150, help="seconds over which the kills and drains are spread")
    p.add_argument("--warmup", type=float, default=3, help="seconds of workload before the first fault")
    p.add_argument("--kills", type=int, default=20, help="SIGKILLs required (and done)")
    p.add_argument("--drains", type=int, default=20, help="drains required (and done)")
    p.add_argument("--restart-pause-ms", type=int, default=500, help="pause between a SIGKILL and the restart")
    p.add_argument("--drain-wait-s", type=float, default=40, help="longest wait for a drained node to exit")
    p.add_argument("--finish-seconds", type=float, default=30,
                   help="after the last fault, how long the pages may take to get every answer still owed")
    p.add_argument("--max-seconds", type=float, default=330, help="hard limit for the whole run")
    p.add_argument("--grace-ms", type=int, default=60000)
    p.add_argument("--drain-ms", type=int, default=10000, help="the nodes' --drain-ms")
    p.add_argument("--round-ms", type=float, default=150, help="mean pause between two rounds of a session")
    p.add_argument("--records", type=int, default=2, help="test.record calls per round")
    p.add_argument("--echo-asyn", type=int, default=1, help="echo.asyn calls per round")
    p.add_argument("--progress", type=int, default=1, help="test.progress calls per round")
    p.add_argument("--progress-max", type=int, default=20, help="largest N of test.progress")
    p.add_argument("--sleep-share", type=float, default=0.5, help="share of rounds with a test.sleepSyn")
    p.add_argument("--sleep-ms", default="50,500", help="min,max of test.sleepSyn")
    p.add_argument("--admin-ms", type=float, default=700, help="mean pause between two admin calls into a page")
    p.add_argument("--admin-timeout-ms", type=int, default=20000)
    p.add_argument("--admin-callers", type=int, default=1, help="admin callers per page, each one call at a time")
    p.add_argument("--native-progress", type=int, default=2,
                   help="progress values the page sends before each native call's final answer (each counted)")
    p.add_argument("--excuse-lost-answers", action="store_true",
                   help="count a native call answered 504 whose page answer met a lost node apart instead of as "
                        "lost (the rule before issue 48, for runs against older builds)")
    p.add_argument("--sync-http-share", type=float, default=0.0,
                   help="share of test.record calls sent as sync HTTP calls through the balancer (0: none)")
    add_options(p, max_outstanding=60, max_open_stubs=30)
    p.add_argument("--log-dir", default=None, help="node, HAProxy and Redis logs (default /tmp/dsbridged-cluster-fault-run-SEED)")
    p.add_argument("--wire-log", default=None, help="where to write wire evidence on failure")
    p.add_argument("--verbose", action="store_true", help="print every fault as it happens")
    o = parse_options(p)
    o.sleep_min_ms, o.sleep_max_ms = (int(x) for x in o.sleep_ms.split(","))
    log_dir = o.log_dir or "/tmp/dsbridged-cluster-fault-run-%d" % o.seed
    wire_path = o.wire_log or os.path.join(log_dir, "wire.log")

    binary = binary_path(o.daemon)
    if not os.access(binary, os.X_OK):
        print("error: no daemon binary at %s" % binary)
        return 2
    shutil.rmtree(log_dir, ignore_errors=True)
    os.makedirs(log_dir)
    exec_log = os.path.join(log_dir, "exec.log")

    run = Run(o)
    sessions = []
    admins = []
    chaos = None
    cluster = None
    codes = {}
    cleanup_lock = threading.Lock()

    def cleanup():
        with cleanup_lock:
            run.abort.set()
            run.stop_work.set()
            return cluster.close() if cluster is not None else {}

    limit = hard_limit(o.max_seconds, lambda: (print("hard limit of %.0f s reached: stopping everything" % o.max_seconds,
                                                     flush=True), cleanup()))
    def on_sigterm(*_):
        raise KeyboardInterrupt()
    previous_sigterm = signal.signal(signal.SIGTERM, on_sigterm)
    work_end = None
    try:
        cluster = Cluster(binary, nodes=o.nodes, log_dir=log_dir,
                          extra=["--demo", "--demo-tick-ms", "5", "--grace-ms", str(o.grace_ms),
                                 "--drain-ms", str(o.drain_ms)],
                          env=dict(os.environ, DSBRIDGED_EXEC_LOG=exec_log))
        run.cluster = cluster
        run.port = cluster.port
        print("cluster fault run: seed %d, %d nodes (%s), HAProxy port %d, %d sessions, %d kills and %d drains over %.0f s; "
              "logs in %s" % (o.seed, o.nodes, ", ".join("%s %d/%d" % (n.name, n.port, n.admin_port) for n in cluster.nodes.values()),
                              cluster.port, o.sessions, o.kills, o.drains, o.duration, log_dir), flush=True)
        sessions = [ClusterPage(i + 1, run) for i in range(o.sessions)]
        for s in sessions:
            s.start()
        admins = []
        for s in sessions:
            left = [o.admin_callers, threading.Lock()]
            admins += [AdminCaller(s, run, caller=c, done=left) for c in range(o.admin_callers)]
        for a in admins:
            a.start()
        chaos = Chaos(run)
        chaos.start()
        last_print = time.monotonic()
        while True:
            time.sleep(0.1)
            now = time.monotonic()
            if chaos.done.is_set() and not run.stop_work.is_set():
                run.deadline = min(run.deadline, now + o.finish_seconds)
                run.stop_work.set()
                work_end = now
                print("%5.1fs faults done (%d kills, %d drains); workload stopped, finishing what is open"
                      % (now - run.start, chaos.kills, chaos.drains), flush=True)
            if all(s.done for s in sessions) and all(not a.is_alive() for a in admins):
                break
            if now > run.deadline:
                print("%5.1fs deadline: sessions not finished: %s" % (now - run.start, [s.index for s in sessions if not s.done]),
                      flush=True)
                break
            if now - last_print >= 10:
                last_print = now
                st = run.stats.c
                print("%5.1fs kills %d, drains %d; calls %d, rets %d (lost-node %d), cbs %d, invokes %d, resumes %d, "
                      "admin calls %d (ok %d); nodes %s"
                      % (now - run.start, chaos.kills, chaos.drains, st["expected_ret"], st["received_ret"],
                         st["lost_node_ret"], st["received_cb"], st["received_invoke"], sum(s.resumes for s in sessions),
                         st["admin_calls"], st["admin_ok"],
                         " ".join("%s:%s" % (n.name, n.state) for n in cluster.nodes.values())), flush=True)
        run.stop_work.set()
        for s in sessions:
            s.join(max(0.1, run.deadline + 5 - time.monotonic()))
        for a in admins:
            a.join(max(0.1, run.deadline + 5 - time.monotonic()))
    except KeyboardInterrupt:
        run.stats.problem("interrupted")
        print("interrupted: stopping everything", flush=True)
    except Exception as e:  # noqa: BLE001
        run.stats.problem("run aborted: %s: %s" % (type(e).__name__, e))
    finally:
        run.abort.set()
        run.stop_work.set()
        if chaos is not None:
            chaos.join(60)
        leftover_runs = None
        if cluster is not None and cluster.redis is not None:
            try:
                keys = cluster.redis.command("KEYS", "dsb:s:*:run") or []
                leftover_runs = {k: cluster.redis.command("HGETALL", k) for k in keys}
                leftover_runs = {k: v for k, v in leftover_runs.items() if v}
            except Exception:  # noqa: BLE001
                leftover_runs = None
        log_tails = cluster.log_tails() if cluster is not None else ""
        codes = cleanup()
        limit.set()
        signal.signal(signal.SIGTERM, previous_sigterm)

    elapsed = time.monotonic() - run.start
    st = run.stats.c
    if chaos is not None:
        for e in chaos.errors:
            run.stats.problem(e)

    # Executions: the exec log against the test.record calls.
    counts, bad_lines = read_exec_log(exec_log)
    double = sorted(v for v, n in counts.items() if n > 1)
    never = sorted(v for v in run.records_ok if counts.get(v, 0) == 0)
    strangers = sorted(v for v in counts if v not in run.records)
    for v in double[:10]:
        run.stats.problem("double-executed: test.record %s ran %d times" % (v, counts[v]))
    for v in never[:10]:
        run.stats.problem("lost: test.record %s was answered but never executed" % v)
    for v in strangers[:10]:
        run.stats.problem("exec log has %r, which no call sent" % v)
    ran_anyway = sorted(v for v in run.records_not_run if counts.get(v, 0) > 0)
    for v in ran_anyway[:10]:
        run.stats.problem("sync HTTP test.record %s was answered timeout (not run) but ran" % v)
    if bad_lines:
        run.stats.problem("exec log has %d lines that are not JSON" % bad_lines)
    if leftover_runs:
        run.stats.problem("run-table entries left in Redis after every call was answered: %s"
                          % clip(json.dumps(leftover_runs), 400))

    totals = Totals(run.stats, sessions)
    totals.lost += len(never)
    resumes = sum(s.resumes for s in sessions)
    sessions_lost = st["sessions_lost"]
    kills = chaos.kills if chaos else 0
    drains = chaos.drains if chaos else 0

    for s in sessions:
        print("session %d (%s): %d connects, %d resumes, highest seq %d, %d calls (%d without ret), %d rounds, %d invokes"
              % (s.index, s.session_id, s.connects, s.resumes, s.highest, s.next_id - 1, len(s.unreturned), s.rounds,
                 len(s.invokes)))
    totals.print_kinds()
    print("calls: %d test.record (%d executed once, %d answered), %d test.sleepSyn, %d echo.asyn, %d test.progress; "
          "%d resent after welcomes, %d raw replays deduplicated, %d acks"
          % (len(run.records), sum(1 for v in run.records if counts.get(v) == 1), len(run.records_ok),
             sum(1 for s in sessions for c in s.calls.values() if c.method == "test.sleepSyn"),
             sum(1 for s in sessions for c in s.calls.values() if c.method == "echo.asyn"),
             sum(1 for s in sessions for c in s.calls.values() if c.method == "test.progress"),
             st["calls_resent"], st["raw_replays"], st["acks"]))
    print("native calls (admin API on a random node): %d made, %d answered right, %d cut by their origin node going down, "
          "%d refused 503 draining by a draining owner, %d refused 503 owner down (page not resumed yet), "
          "%d not made (their node lost before it journaled them), %d whose page answer met a lost node, %d failed"
          % (st["admin_calls"], st["admin_ok"], st["admin_origin_down"], st["admin_owner_draining"], st["admin_owner_down"],
             st["admin_lost_before_delivery"], st["admin_answer_lost_node"], st["admin_failed"] + st["admin_wrong"]))
    if o.sync_http_share > 0:
        print("sync HTTP test.record: %d sent, %d ok, %d interrupted, %d lost-node, %d timeout waiting for socket calls, %d failed"
              % (st["sync_http_calls"], st["sync_http_ok"], st["sync_http_interrupted"], st["sync_http_lost_node"],
                 st["sync_http_after_timeout"], st["sync_http_failed"]))
    print("lost-node answers: %d (ret %d, final cb %d; by method: %s)"
          % (st["lost_node_ret"] + st["lost_node_cb"], st["lost_node_ret"], st["lost_node_cb"],
             ", ".join("%s %d" % (k[len("lost_node_"):], v) for k, v in sorted(st.items())
                       if k.startswith("lost_node_") and k not in ("lost_node_ret", "lost_node_cb")) or "-"))
    print("connections: %d closed 1001 by drains, %d upgrades refused by the balancer (%s), %d connect errors"
          % (st["closed_1001"], sum(v for k, v in st.items() if k.startswith("upgrade_refused_")),
             ", ".join("%s %d" % (k[len("upgrade_refused_"):], v) for k, v in sorted(st.items()) if k.startswith("upgrade_refused_")) or "-",
             st["connect_errors"]))
    for name in ("takeover", "outage"):
        t = run.timings.get(name, [])
        print("%s (%s): %d samples, p50 %s, p90 %s, p99 %s, max %s"
              % (name, "reconnect -> welcome resumed" if name == "takeover" else "socket lost -> welcome resumed",
                 len(t), ms(percentile(t, 50)), ms(percentile(t, 90)), ms(percentile(t, 99)), ms(max(t) if t else None)))
    if chaos is not None and chaos.drain_times:
        print("drains: SIGTERM -> exit p50 %s, max %s; restarts (start -> HAProxy sees it up) p50 %s, max %s"
              % (ms(percentile(chaos.drain_times, 50)), ms(max(chaos.drain_times)),
                 ms(percentile(chaos.restart_times, 50)), ms(max(chaos.restart_times) if chaos.restart_times else None)))
    if chaos is not None:
        print("faults (seconds into the run): %s" % ", ".join("%.1f %s" % f for f in chaos.faults))
    print("node exit codes at the end: %s; logs: %s; %.1f s" % (codes, log_dir, elapsed))
    if run.stats.problems:
        run.wire.write(wire_path, whole=True)
        print("wire evidence (every frame of the run, faults, admin calls): %s" % wire_path)
    problems = totals.print_problems()
    print("%s, double-executed %d" % (totals.line(), len(double)))
    print("lost-node answers %d, kills %d, drains %d, resumes %d, sessions lost %d"
          % (st["lost_node_ret"] + st["lost_node_cb"], kills, drains, resumes, sessions_lost), flush=True)
    checks = Checks()
    totals.check(checks)
    checks.check(not double, "double-executed 0", "double-executed %d" % len(double))
    checks.check(kills >= o.kills, "at least %d kills" % o.kills, "%d kills" % kills)
    checks.check(drains >= o.drains, "at least %d drains" % o.drains, "%d drains" % drains)
    checks.check(sessions_lost == 0, "no session lost (4004)", "%d sessions lost" % sessions_lost)
    checks.check(resumes >= 1, "pages resumed on other nodes", "%d resumes" % resumes)
    checks.check(all(c in (0, None) for c in codes.values()), "nodes exit 0 at the end", "%s" % codes)
    checks.check(not problems, "no other problem", "%d problems, the first: %s" % (len(problems), problems[0]) if problems else "")
    code = checks.summary()
    if code != 0:
        print("---- log tails")
        print(log_tails)
    return code


if __name__ == "__main__":
    sys.exit(main())
