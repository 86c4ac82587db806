#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Attack suite: hostile, malformed and excessive input against a running dsbridged.

Starts the daemon itself (loopback, free ports, --demo, a temporary web root with traps for
path traversal, a short hello timeout, heartbeat and grace period) and runs every case
against it while a healthy session (scripts/dsbtest/healthy.py) runs alongside, doing echo.syn
calls and receiving test.pushInvokes invokes, checking every reply. A second daemon with
--auth-token serves the authentication cases.

For every case: the documented answer (PROTOCOL.md) is checked, or, where PROTOCOL.md is
silent, the safe behaviour (the case's line says "silent"); afterwards the daemon must still
answer /healthz and the healthy session must have lost nothing (every call it made before
the check answered correctly, every invoke it asked for delivered exactly once, seqs without
gaps). At the end the daemon's RSS must be near its baseline (see RSS_SLACK_MIB), every
attack session must have expired, and SIGTERM must stop it with exit code 0.

Cases: malformed frames and messages (non-JSON, non-object JSON, unknown `t`, missing or
mistyped fields, batches checked whole), hello (second hello, bad `v`, `token`/`auth`/`ack`
of the wrong type, unknown token), RFC 6455 level (binary, invalid UTF-8, huge, fragmented,
protocol violations), 100k levels of nesting, call floods, 5,000 connections that never send
hello (twice, to see memory come back), half-open connections, slowloris, origins, auth
(second daemon), session tokens, admin token, oversize POST bodies and HTTP headers, static
file traversal (raw, percent-encoded, double-encoded, backslashes, absolute, NUL, symlinks,
dotfiles, directories). The slow ones (they wait for the daemon's timeouts) run in the
background from the start and are collected before the load cases.

Prints one line per case, `PASS name: detail` or `FAIL name: detail` (lines starting with
`#` are information), then `N passed, M failed`; exits non-zero on any failure. About 65 s
(--quick: about 30 s); a watchdog stops the daemons and exits 3 after --max-seconds. RLIMIT_NOFILE
is raised with setrlimit (the daemons inherit it). Daemon logs: /tmp/dsbridged-attack-SEED.log
and /tmp/dsbridged-attack-auth-SEED.log.

    scripts/attack_suite.py [--daemon .build/debug/dsbridged] [--seed 1] [--quick] [--only NAME-PART]

Standard library only; run it with the interpreter named in .venv-test/python-path.
"""

import argparse
import contextlib
import json
import os
import random
import resource
import shutil
import signal
import socket
import statistics
import struct
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dsbtest.checks import Checks, Fail, check, describe_error, outcome  # noqa: E402
from dsbtest.daemon import ROOT, Daemon, binary_path, demo_args, hard_limit  # noqa: E402
from dsbtest.demo import DEMO_STEPS  # noqa: E402
from dsbtest.healthy import Healthy  # noqa: E402
from dsbtest.http import http, http_exchange, http_request  # noqa: E402
from dsbtest.mass import no_hello_connections  # noqa: E402
from dsbtest.page import (OP_BINARY, OP_CLOSE, OP_CONT, OP_PING, OP_TEXT, WS, UpgradeRefused,  # noqa: E402
                          call_message, clip, dumps, frame, upgrade_request)

ADMIN_TOKEN = "t"
AUTH_TOKEN = "s3cret-auth"
MAX_MESSAGE_BYTES = 4 * 1024 * 1024   # the daemon's default (PROTOCOL.md 2)
MAX_DEPTH = 128                       # the daemon's default
HELLO_TIMEOUT_MS = 1500
HEARTBEAT_MS = 2000
GRACE_MS = 3000
# RSS may stay this much above the baseline at the end. glibc's malloc keeps memory it has
# freed (in the heap and in one arena per worker thread) instead of returning it to the
# kernel, so RSS does not drop back to the byte; but every structure of the suite's load is
# far larger than this (5,000 connections with their lws buffers, 50,000 queued calls, 4 MiB
# messages), so a leak of any of them shows well above it.
RSS_SLACK_MIB = 64
# A second round of 5,000 connections may raise the settled RSS this much over the first:
# the same load again should reuse what the first round freed (rounds of 500 connections
# leave RSS flat to the MiB), so growth beyond noise means memory is held per round.
REPEAT_SLACK_MIB = 8
FD_SLACK = 16
# Calls web/dsbridge.js keeps unanswered on its socket at most (CALL_WINDOW there).
SHIM_CALL_WINDOW = 1000
# The backpressure flood: this many calls of test.sleepSyn FLOOD_SLOW_MS (see c_flood_backpressure;
# --quick: 3,000). Several times maxCallsPending, so the waves show: the daemon starts no
# more than maxCallsPending at once, frames already read included.
FLOOD_SLOW_CALLS = 5000
FLOOD_SLOW_MS = 1000
MAX_CALLS_PENDING = 1000              # the daemon's default


def mib(kib):
    return "%.1f MiB" % (kib / 1024.0) if kib is not None else "?"


class RSSSampler(threading.Thread):
    """Samples a daemon's RSS every 100 ms while running; `peak` is the highest seen."""

    def __init__(self, daemon):
        super().__init__(daemon=True)
        self.d = daemon
        self.peak = daemon.rss_kib() or 0
        self.stop_event = threading.Event()

    def run(self):
        while not self.stop_event.is_set():
            r = self.d.rss_kib()
            if r:
                self.peak = max(self.peak, r)
            self.stop_event.wait(0.1)

    def finish(self):
        self.stop_event.set()
        self.join(2)
        return self.peak


class Suite:
    def __init__(self, o):
        self.o = o
        self.rng = random.Random(o.seed)
        self.checks = Checks()
        self.main = None
        self.auth = None
        self.healthy = None
        self.tmp = None
        self.web = None
        self.sentinel = "OUTSIDE-SECRET-%016x" % self.rng.getrandbits(64)
        self.background = []
        self.baseline_rss = None
        self.baseline_fds = None
        self.figures = []
        self.flood_n = 10000 if o.quick else 50000
        self.mass_n = 1000 if o.quick else 5000
        self.slow_n = 3000 if o.quick else FLOOD_SLOW_CALLS
        # How long a slow or half-open peer may stay (lws drops idle headers after 10 s).
        self.hold_limit = 15.0 if o.quick else 35.0

    # -- infrastructure ------------------------------------------------------------------------

    def ws(self, daemon=None, **kw):
        d = daemon or self.main
        return WS(d.port, self.rng, **kw)

    def session(self, daemon=None, **fields):
        ws = self.ws(daemon)
        w = ws.hello(**fields)
        if w is None:
            ws.close()
            raise Fail("no welcome: %s" % ws.ended_summary())
        return ws, w

    @contextlib.contextmanager
    def session_socket(self, daemon=None, **fields):
        """The socket of a welcomed session (see session) for a `with` block, closed however
        the block ends."""
        ws, _ = self.session(daemon, **fields)
        try:
            yield ws
        finally:
            ws.close()

    def out(self, line):
        self.checks.out(line)

    def health(self):
        """Problems after a case: daemon down, /healthz, the healthy session."""
        problems = []
        for d in (self.main, self.auth):
            if d is None:
                continue
            if not d.alive():
                problems.append("%s daemon exited with code %s (log %s)" % (d.name, d.proc.poll(), d.log_path))
                continue
            r = d.healthz()
            if r.status != 200 or r.body.strip() != b"ok":
                problems.append("%s /healthz answered %s %r" % (d.name, r.summary(), r.body[:60]))
        latency = 0.0
        if self.healthy is not None and self.main.alive():
            new, latency = self.healthy.checkpoint()
            problems.extend(new)
        return problems, latency

    def run_case(self, name, fn, *args, **kwargs):
        if self.o.only and not any(s in name for s in self.o.only):
            return
        t0 = time.monotonic()
        if not self.main.alive():
            self.record(False, name, "not run: the daemon is down")
            return
        ok, detail = outcome(fn, *args, **kwargs)
        self.finish_case(name, ok, detail, t0)

    def finish_case(self, name, ok, detail, t0):
        problems, latency = self.health()
        if problems:
            ok = False
            detail = "%s; AFTERWARDS: %s" % (detail, "; ".join(clip(p, 300) for p in problems[:6]))
        elif latency > 1.0:
            detail = "%s (healthy session: max latency %.0f ms)" % (detail, latency * 1000)
        self.record(ok, name, "%s [%.1f s]" % (detail, time.monotonic() - t0))

    def record(self, ok, name, detail):
        self.checks.check(ok, name, detail)

    def start_background(self, name, fn):
        """A case that waits long (timeouts of the daemon): runs in a thread; its line is
        printed when it is collected."""
        if self.o.only and not any(s in name for s in self.o.only):
            return
        slot = {"name": name, "t0": time.monotonic(), "result": None}

        def run():
            try:
                slot["result"] = (True, fn())
            except Fail as e:
                slot["result"] = (False, str(e))
            except Exception as e:  # noqa: BLE001
                slot["result"] = (False, describe_error(e))
        slot["thread"] = threading.Thread(target=run, daemon=True, name=name)
        slot["thread"].start()
        self.background.append(slot)

    def collect_background(self, timeout):
        deadline = time.monotonic() + timeout
        for slot in self.background:
            slot["thread"].join(max(0.1, deadline - time.monotonic()))
            result = slot["result"] or (False, "did not finish within the suite's time")
            self.finish_case(slot["name"], result[0], result[1], slot["t0"])
        self.background = []

    # -- setup ---------------------------------------------------------------------------------

    def make_web_root(self):
        """A web root with traps: files outside it (reachable only by escaping), symlinks out
        of it, a dotfile, a directory without index, and a file name with a percent sign."""
        self.tmp = tempfile.mkdtemp(prefix="dsbridged-attack-")
        web = os.path.join(self.tmp, "web")
        outside = os.path.join(self.tmp, "outside")
        os.makedirs(os.path.join(web, "sub"))
        os.makedirs(os.path.join(web, "sub2"))
        os.makedirs(outside)
        files = {
            "index.html": "<!doctype html><title>attack root</title>index-of-attack-root\n",
            "sub/file.txt": "file in sub\n",
            "sub2/index.html": "<!doctype html>index-of-sub2\n",
            ".secret": self.sentinel + " dotfile\n",
            "a%41.txt": "decoded-once\n",
            "aA.txt": "decoded-twice\n",
            "data.unknownext": "opaque\n",
            "style.css": "body{}\n",
        }
        for rel, text in files.items():
            with open(os.path.join(web, rel), "w", encoding="utf-8") as f:
                f.write(text)
        shutil.copy(os.path.join(ROOT, "web", "dsbridge.js"), os.path.join(web, "dsbridge.js"))
        with open(os.path.join(outside, "secret.txt"), "w") as f:
            f.write(self.sentinel + " outside\n")
        with open(os.path.join(self.tmp, "secret.txt"), "w") as f:
            f.write(self.sentinel + " parent\n")
        os.symlink(outside, os.path.join(web, "escape"))
        os.symlink(os.path.join(outside, "secret.txt"), os.path.join(web, "link.txt"))
        os.symlink("../outside/secret.txt", os.path.join(web, "rellink.txt"))
        os.symlink("index.html", os.path.join(web, "inlink.html"))
        self.web = web

    def daemon_args(self, extra=()):
        return demo_args(self.web, ADMIN_TOKEN, extra=[
            "--demo-tick-ms", "50", "--hello-timeout-ms", str(HELLO_TIMEOUT_MS), "--heartbeat-ms", str(HEARTBEAT_MS),
            "--grace-ms", str(GRACE_MS), "--drain-ms", "3000"] + list(extra))

    # =========================================================================================
    # Cases: frames and messages (PROTOCOL.md 2, 2.2, 2.5)

    def protocol_error(self, frames, code=4000, hello=True, reason=None):
        """Opens a session (unless hello=False), sends `frames` (text, or raw bytes) and
        expects close `code`; no ret/cb/welcome for anything in the bad frame."""
        ws = self.ws()
        try:
            if hello:
                w = ws.hello()
                check(w is not None, "no welcome: %s" % ws.ended_summary())
            for f in (frames if isinstance(frames, list) else [frames]):
                if isinstance(f, bytes):
                    ws.send_raw(f)
                else:
                    ws.send_text(f)
            c, r = ws.wait_close(5.0)
            got = [m for m in ws.take() if isinstance(m, dict) and m.get("t") in ("ret", "cb", "welcome")]
            check(c == code, "expected close %d, got %s%s" % (code, ws.ended_summary(),
                                                              "; received %s" % clip(str(got)) if got else ""))
            if reason:
                check(reason in (r or ""), "close %d reason %r does not say %r" % (c, r, reason))
            check(not got, "the bad frame was (partly) processed: %s" % clip(str(got)))
            ws.wait_end(2.0)
            return "close %d %r" % (c, r)
        finally:
            ws.close()

    def call_frame(self, cid, method="echo.syn", data=None, **extra):
        return dumps(call_message(cid, method, data, **extra))

    def expect_ret(self, ws, cid, timeout=5.0):
        m = ws.expect_ret(cid, timeout)
        check(m is not None, "no ret for call %d (%s)" % (cid, ws.ended_summary()))
        return m

    def c_simple_protocol_error(self, text):
        return "sent %s → %s" % (clip(text, 60), self.protocol_error(text))

    def c_empty_batch(self):
        with self.session_socket() as ws:
            ws.send_text("[]")
            ws.send_text(self.call_frame(1, data="after-empty-batch"))
            m = self.expect_ret(ws, 1)
            check(m.get("code") == 0 and m.get("data") == "after-empty-batch", "unexpected ret %s" % m)
            return "[] ignored; the next call answered"

    def resume_last_call(self, token):
        """Resumes the session and returns its welcome's lastCall (the highest call id the
        server received: a call in a refused frame must not count)."""
        ws = self.ws()
        try:
            w = ws.hello(token=token, ack=0)
            check(w is not None and w.get("resumed") is True, "session not kept: %s" % ws.ended_summary())
            return w.get("lastCall")
        finally:
            ws.close()

    def c_batch_checked_whole(self):
        ws, w = self.session()
        try:
            ws.send_text("[%s,{\"t\":\"bogus\"}]" % self.call_frame(1, data="must-not-run"))
            c, r = ws.wait_close(5)
            got = [m for m in ws.take() if isinstance(m, dict) and m.get("t") == "ret"]
            check(c == 4000, "expected close 4000, got %s" % ws.ended_summary())
            check(not got, "the valid call of the bad frame was answered: %s" % got)
        finally:
            ws.close()
        last = self.resume_last_call(w["token"])
        check(last == 0, "the valid call of the refused frame was received: lastCall %s on resume" % last)
        return "[valid call, unknown t] → close 4000 %r; no ret, and lastCall 0 on resume (nothing ran)" % r

    def c_first_frame_hello_call_bad(self):
        frame_text = "[{\"t\":\"hello\",\"v\":1},%s,{\"t\":\"call\",\"id\":\"x\",\"method\":\"echo.syn\"}]" % self.call_frame(1)
        return "[hello, call, bad] → %s, no welcome" % self.protocol_error(frame_text, hello=False)

    def c_bad_arg(self):
        with self.session_socket() as ws:
            out = []
            for cid, arg in ((1, 5), (2, "not json"), (3, "[1,2]"), (4, [1])):
                ws.send_json({"t": "call", "id": cid, "method": "echo.syn", "arg": arg})
                m = self.expect_ret(ws, cid)
                kind = (m.get("error") or {}).get("kind")
                check(m.get("code") == -1 and kind == "badArgument", "arg %r answered %s" % (arg, m))
                out.append("%s→badArgument" % clip(dumps(arg), 12))
            ws.send_text(self.call_frame(5, data="still-open"))
            check(self.expect_ret(ws, 5).get("data") == "still-open", "socket unusable after badArgument")
            return ", ".join(out) + "; socket stays open"

    def c_bad_method_names(self):
        with self.session_socket() as ws:
            names = ["", ".echo.syn", "echo.syn.", "echo..syn", " echo.syn", "echo.syn ", "echo.\tsyn", "nope.nope",
                     "x" * 5000, "_dsb.nope", "echo.syn\u0000"]
            for i, name in enumerate(names, 1):
                ws.send_json({"t": "call", "id": i, "method": name, "arg": {"data": 1}})
                m = self.expect_ret(ws, i)
                kind = (m.get("error") or {}).get("kind")
                check(m.get("code") == -1 and kind == "methodNotFound", "method %r answered %s" % (clip(name, 20), m))
            return "%d malformed or unknown names → methodNotFound each" % len(names)

    def c_duplicate_ids(self):
        with self.session_socket() as ws:
            ws.send_text(self.call_frame(5, data="first"))
            check(self.expect_ret(ws, 5).get("data") == "first", "wrong ret")
            ws.send_text(self.call_frame(5, data="again"))
            ws.send_text(self.call_frame(3, data="lower"))
            ws.send_text(self.call_frame(6, data="next"))
            m = self.expect_ret(ws, 6)
            check(m.get("data") == "next", "wrong ret %s" % m)
            ws.pump(0.3)
            extra = [x for x in ws.take() if isinstance(x, dict) and x.get("t") == "ret"]
            check(not extra, "duplicate/lower ids were answered: %s" % extra)
            return "id 5 twice and id 3 after 5 dropped without reply; id 6 answered"

    def c_unknown_fields(self):
        with self.session_socket() as ws:
            ws.send_text('{"t":"call","id":1,"method":"echo.syn","arg":{"data":"uf","zz":1},"future":{"x":[1,2]}}')
            ws.send_text('{"t":"ack","seq":0,"extra":true}')
            m = self.expect_ret(ws, 1)
            check(m.get("code") == 0 and m.get("data") == "uf", "unexpected %s" % m)
            return "unknown fields ignored; call answered"

    def c_session_kept_after_4000(self):
        ws, w = self.session()
        ws.send_text(self.call_frame(1, data="before"))
        self.expect_ret(ws, 1)
        ws.send_text("{not json")
        c, r = ws.wait_close(5)
        ws.close()
        check(c == 4000, "expected 4000, got %s" % ws.ended_summary())
        ws2 = self.ws()
        try:
            w2 = ws2.hello(token=w["token"], ack=0)
            check(w2 is not None, "resume refused: %s" % ws2.ended_summary())
            check(w2.get("resumed") is True and w2.get("lastCall") == 1,
                  "resume welcome %s (want resumed:true lastCall:1)" % w2)
            return "closed 4000, then resumed with lastCall 1 (session kept)"
        finally:
            ws2.close()

    # -- hello (PROTOCOL.md 2.1) ---------------------------------------------------------------

    def c_second_hello(self):
        return "hello after welcome → " + self.protocol_error('{"t":"hello","v":1}')

    def c_hello_twice_in_first_frame(self):
        return "[hello, hello] → " + self.protocol_error('[{"t":"hello","v":1},{"t":"hello","v":1}]', hello=False)

    def c_hello_variants(self, variants, code, reason=None):
        out = []
        for text in variants:
            out.append("%s → %s" % (text, self.protocol_error(text, code=code, hello=False, reason=reason)))
        return "; ".join(out)

    def c_call_before_hello(self):
        return "call as first message → " + self.protocol_error(self.call_frame(1), hello=False)

    def c_unknown_token(self):
        token = "".join(self.rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") for _ in range(24))
        return "hello with an unknown token → " + self.protocol_error(dumps({"t": "hello", "v": 1, "token": token}),
                                                                       code=4004, hello=False)

    def c_refused_hello_no_effect(self):
        """A refused hello naming a live session leaves that session and its socket alone."""
        ws, w = self.session()
        try:
            for bad in ({"v": 2}, {"ack": "x"}, {"auth": 7}):
                msg = {"t": "hello", "v": 1, "token": w["token"]}
                msg.update(bad)
                detail = self.protocol_error(dumps(msg), code=4000, hello=False)
                check(detail.startswith("close 4000"), detail)
            ws.send_text(self.call_frame(1, data="still-mine"))
            m = self.expect_ret(ws, 1)
            check(m.get("data") == "still-mine", "unexpected %s" % m)
            check(ws.close_code is None, "the live socket was closed: %s" % ws.ended_summary())
            return "3 refused hellos naming a live session (4000 each); its socket kept working, no 4009"
        finally:
            ws.close()

    # -- frames (RFC 6455 level) ---------------------------------------------------------------

    def c_binary(self, hello):
        ws = self.ws()
        try:
            if hello:
                check(ws.hello() is not None, "no welcome")
            ws.send_frame(OP_BINARY, b'{"t":"hello","v":1}')
            c, r = ws.wait_close(5)
            check(c == 1003, "expected 1003, got %s" % ws.ended_summary())
            return "binary frame %s → close 1003 %r" % ("after hello" if hello else "as first frame", r)
        finally:
            ws.close()

    def c_invalid_utf8(self, payload, fragments=None):
        with self.session_socket() as ws:
            if fragments:
                for i, part in enumerate(fragments):
                    ws.send_frame(OP_TEXT if i == 0 else OP_CONT, part, fin=(i == len(fragments) - 1))
            else:
                ws.send_frame(OP_TEXT, payload)
            c, r = ws.wait_close(5)
            got = [m for m in ws.take() if isinstance(m, dict) and m.get("t") == "ret"]
            check(c == 1007, "expected 1007, got %s" % ws.ended_summary())
            check(not got, "the frame was processed: %s" % got)
            return "%r → close 1007 %r" % (clip((payload or b"".join(fragments))[-24:], 40), r)

    def c_utf8_split_across_fragments(self):
        with self.session_socket() as ws:
            text = self.call_frame(1, data="é€😀").encode("utf-8")
            cut1 = text.index("é".encode()) + 1          # inside the 2-byte é
            cut2 = text.index("😀".encode()) + 2         # inside the 4-byte emoji
            parts = [text[:cut1], text[cut1:cut2], text[cut2:]]
            for i, p in enumerate(parts):
                ws.send_frame(OP_TEXT if i == 0 else OP_CONT, p, fin=(i == 2))
            m = self.expect_ret(ws, 1)
            check(m.get("data") == "é€😀", "unexpected %s" % m)
            return "valid UTF-8 characters split across fragments accepted"

    def big_call(self, size, method="nope.nope"):
        """A call message of exactly `size` bytes (a long data string), answered methodNotFound."""
        head = '{"t":"call","id":1,"method":"%s","arg":{"data":"' % method
        tail = '"}}'
        return (head + "x" * (size - len(head) - len(tail)) + tail).encode()

    def send_oversize(self, ws, data):
        """Sends `data`, a message over maxMessageBytes, from a thread of its own (the daemon
        closes before it has read it all) and checks that the socket closes with 1009 and no
        ret; returns the close reason."""
        sender = threading.Thread(target=ws.send_raw, args=(data,), daemon=True)
        sender.start()
        c, r = ws.wait_close(15)
        sender.join(5)
        got = [m for m in ws.take() if isinstance(m, dict) and m.get("t") == "ret"]
        check(c == 1009, "expected close 1009, got %s" % ws.ended_summary())
        check(not got, "the oversize message was processed: %s" % clip(str(got)))
        return r

    def c_huge_frame(self, size, declared=None):
        ws, w = self.session()
        try:
            payload = self.big_call(size)
            if declared is None:
                data = frame(OP_TEXT, payload, rng=self.rng)
            else:
                # The header declares `declared` bytes; we send only `size` of them.
                data = frame(OP_TEXT, payload, rng=self.rng, length=declared)
            r = self.send_oversize(ws, data)
            what = "%d-byte message" % size if declared is None else "frame declaring %d bytes (%d sent)" % (declared, size)
        finally:
            ws.close()
        last = self.resume_last_call(w["token"])
        check(last == 0, "lastCall %s after the oversize call" % last)
        return "%s → close 1009 %r; session kept, nothing received (lastCall 0)" % (what, r)

    def c_exact_limit(self):
        with self.session_socket() as ws:
            ws.send_raw(frame(OP_TEXT, self.big_call(MAX_MESSAGE_BYTES), rng=self.rng))
            m = self.expect_ret(ws, 1, timeout=15)
            kind = (m.get("error") or {}).get("kind")
            check(kind == "methodNotFound", "unexpected ret %s" % clip(str(m)))
            return "message of exactly maxMessageBytes (%d) accepted (ret methodNotFound)" % MAX_MESSAGE_BYTES

    def c_fragmented_valid(self):
        with self.session_socket() as ws:
            text = self.call_frame(1, data={"fragmented": True, "pad": "y" * 300}).encode()
            a, b = len(text) // 3, 2 * len(text) // 3
            ws.send_frame(OP_TEXT, text[:a], fin=False)
            ws.send_frame(OP_PING, b"between-fragments")
            ws.send_frame(OP_CONT, text[a:b], fin=False)
            ws.send_frame(OP_CONT, text[b:], fin=True)
            m = self.expect_ret(ws, 1)
            check(m.get("code") == 0 and m.get("data", {}).get("fragmented") is True, "unexpected %s" % clip(str(m)))
            text2 = self.call_frame(2, data="one-byte-fragments").encode()
            for i in range(len(text2)):
                ws.send_frame(OP_TEXT if i == 0 else OP_CONT, text2[i:i + 1], fin=(i == len(text2) - 1))
            m = self.expect_ret(ws, 2)
            check(m.get("data") == "one-byte-fragments", "unexpected %s" % m)
            return "3 fragments with a ping between → ret; %d one-byte fragments → ret" % len(text2)

    def c_fragmented_oversize(self):
        with self.session_socket() as ws:
            chunk = 256 * 1024
            n = MAX_MESSAGE_BYTES // chunk + 2
            payload = self.big_call(n * chunk)
            data = b"".join(frame(OP_TEXT if i == 0 else OP_CONT, payload[i * chunk:(i + 1) * chunk],
                                  fin=(i == n - 1), rng=self.rng) for i in range(n))
            r = self.send_oversize(ws, data)
            return "%d fragments of 256 KiB (%d bytes) → close 1009 %r" % (n, n * chunk, r)

    def c_rfc_violation(self, what, data, hello=True):
        """Frames RFC 6455 forbids; PROTOCOL.md is silent: the safe answer is closing that
        socket (lws answers 1002) without processing anything."""
        ws = self.ws()
        try:
            if hello:
                check(ws.hello() is not None, "no welcome")
            ws.send_raw(data)
            c, r = ws.wait_close(5)
            ended = ws.wait_end(1 if c is not None else 5)
            got = [m for m in ws.take() if isinstance(m, dict) and m.get("t") == "ret"]
            check(c is not None or ended, "connection still open 10 s after the violation")
            check(not got, "processed: %s" % clip(str(got)))
            return "%s → %s (silent; safe: closed)" % (what, ws.ended_summary())
        finally:
            ws.close()

    def c_unmasked(self):
        """RFC 6455 5.1: a server MUST close on an unmasked client frame. PROTOCOL.md is
        silent; masking protects intermediaries, not the server, so the safe behaviour
        asked here is: closed, or processed exactly like the masked frame (no desync)."""
        with self.session_socket() as ws:
            ws.send_raw(frame(OP_TEXT, self.call_frame(1, data="unmasked"), masked=False))
            ws.send_text(self.call_frame(2, data="masked-after"))
            m1 = ws.next_message(3, lambda m: isinstance(m, dict) and m.get("t") == "ret")
            if m1 is None:
                check(ws.close_code is not None or ws.ended, "neither answered nor closed")
                return "unmasked frame → %s (RFC 6455: close)" % ws.ended_summary()
            m2 = ws.next_message(3, lambda m: isinstance(m, dict) and m.get("t") == "ret")
            check(m1.get("data") == "unmasked" and m2 is not None and m2.get("data") == "masked-after",
                  "stream desynchronised: %s, %s" % (m1, m2))
            return ("unmasked frame ACCEPTED and processed like a masked one, stream intact (RFC 6455 5.1 says "
                    "close; lws 4.1 does not check; silent; harmless to the daemon)")

    def nested(self, depth, kind):
        if kind == "array":
            return "[" * depth + "]" * depth
        if kind == "object":
            return '{"a":' * depth + "1" + "}" * depth
        return "[" * depth          # never closed

    def c_deep(self, depth, kind):
        text = self.nested(depth, kind)
        return "%d levels (%s, %d bytes) → %s" % (depth, kind, len(text), self.protocol_error(text))

    def c_depth_boundary(self):
        # The call object is level 1, arg level 2, data's outermost array level 3.
        ok_data = self.nested(MAX_DEPTH - 2, "array")
        with self.session_socket() as ws:
            ws.send_text('{"t":"call","id":1,"method":"echo.syn","arg":{"data":%s}}' % ok_data)
            m = self.expect_ret(ws, 1)
            check(m.get("code") == 0, "depth %d refused: %s" % (MAX_DEPTH, clip(str(m))))
        bad = '{"t":"call","id":1,"method":"echo.syn","arg":{"data":%s}}' % self.nested(MAX_DEPTH - 1, "array")
        detail = self.protocol_error(bad)
        return "depth %d answered; depth %d → %s" % (MAX_DEPTH, MAX_DEPTH + 1, detail)

    # =========================================================================================
    # Call flood (PROTOCOL.md 2.4 backpressure)

    def flood(self, n, slow=0, slow_ms=0, time_limit=40.0, window=None):
        """One session sends n calls as fast as TCP takes them (the first `slow` of them
        test.sleepSyn slow_ms, the rest echo.syn), acknowledging every 64 messages as
        PROTOCOL.md 2.2 asks, while another thread reads. With `window`, at most that many
        calls are unanswered at a time (what web/dsbridge.js does); without, the client
        runs as far ahead as TCP lets it. Returns the figures."""
        ws, _ = self.session()
        sampler = RSSSampler(self.main)
        sampler.start()
        rss0 = self.main.rss_kib()
        # One writer thread owns the sending side: calls, acks and pongs, in that stream.
        control = []
        control_lock = threading.Lock()

        def hook(data):
            with control_lock:
                control.append(data)
        ws.send_hook = hook
        wsock = ws.sock.dup()
        wsock.settimeout(60)
        st = {"blocked": 0.0, "sent": 0, "send_error": None, "t_sent": None, "done": False}
        r = {"answered": 0, "dup": 0, "wrong": 0, "errors": 0, "kinds": {}, "gaps": [], "ret_time": {}}

        def call_text(k):
            if k <= slow:
                return '{"t":"call","id":%d,"method":"test.sleepSyn","arg":{"data":%d}}' % (k, slow_ms)
            return '{"t":"call","id":%d,"method":"echo.syn","arg":{"data":%d}}' % (k, k)

        def writer():
            try:
                i = 1
                while i <= n or not st["done"]:
                    with control_lock:
                        pending, control[:] = list(control), []
                    chunk = b"".join(pending)
                    limit = n if window is None else min(n, r["answered"] + window)
                    if i <= limit:
                        last = min(limit, i + 199)
                        chunk += b"".join(frame(OP_TEXT, call_text(k), rng=self.rng) for k in range(i, last + 1))
                        i = last + 1
                        st["sent"] = last
                        if i > n:
                            st["t_sent"] = time.monotonic()
                    if chunk:
                        t = time.monotonic()
                        wsock.sendall(chunk)
                        if time.monotonic() - t > 0.002:
                            st["blocked"] += time.monotonic() - t
                    else:
                        time.sleep(0.005)
            except OSError as e:
                st["send_error"] = str(e)

        t0 = time.monotonic()
        wt = threading.Thread(target=writer, daemon=True)
        wt.start()
        seen = bytearray(n + 1)
        highest = acked = 0
        try:
            while r["answered"] < n and time.monotonic() < t0 + time_limit:
                if not ws.pump(0.05):
                    break
                for m in ws.take():
                    if not isinstance(m, dict) or m.get("t") == "hb":
                        continue
                    seq = m.get("seq")
                    if isinstance(seq, int):
                        if seq != highest + 1 and len(r["gaps"]) < 5:
                            r["gaps"].append((highest, seq))
                        highest = max(highest, seq)
                    if m.get("t") != "ret":
                        continue
                    cid = m.get("id")
                    if not isinstance(cid, int) or not 1 <= cid <= n:
                        r["wrong"] += 1
                        continue
                    if seen[cid]:
                        r["dup"] += 1
                        continue
                    seen[cid] = 1
                    r["answered"] += 1
                    if cid <= slow:
                        r["ret_time"][cid] = time.monotonic() - t0
                    if m.get("code") != 0:
                        r["errors"] += 1
                        k = (m.get("error") or {}).get("kind")
                        r["kinds"][k] = r["kinds"].get(k, 0) + 1
                    elif m.get("data") != (slow_ms if cid <= slow else cid):
                        r["wrong"] += 1
                if highest - acked >= 64:
                    acked = highest
                    with control_lock:
                        control.append(frame(OP_TEXT, '{"t":"ack","seq":%d}' % acked, rng=self.rng))
            r["elapsed"] = time.monotonic() - t0
            # Exactly once: nothing more may come for these ids.
            end = time.monotonic() + 0.3
            while time.monotonic() < end and ws.pump(0.05):
                for m in ws.take():
                    if isinstance(m, dict) and m.get("t") == "ret":
                        r["dup"] += 1
        finally:
            st["done"] = True
            wt.join(5)
            r["peak"] = sampler.finish()
            ws.send_hook = None
            wsock.close()
            ws.close()
        r.update(st)
        r["rss0"] = rss0
        r["send_time"] = (st["t_sent"] or time.monotonic()) - t0
        r["ended"] = None if ws.close_code is None and not ws.ended else ws.ended_summary()
        r["detail"] = ("%d calls sent in %.1f s (writer blocked %.1f s by TCP flow control), %d answered in %.1f s "
                       "(%.0f/s), %d duplicate, %d wrong, %d errors %s; daemon RSS %s → peak %s"
                       % (st["sent"], r["send_time"], st["blocked"], r["answered"], r["elapsed"],
                          r["answered"] / max(r["elapsed"], 0.001), r["dup"], r["wrong"], r["errors"],
                          r["kinds"] or "", mib(rss0), mib(r["peak"])))
        return r

    def c_flood(self):
        """A page flooding calls through the reference shim's window (1000 unanswered
        calls): slowed by backpressure and the call rate, every call answered once."""
        n = self.flood_n
        r = self.flood(n, window=SHIM_CALL_WINDOW)
        detail = r["detail"]
        self.figures.append("flood: RSS %s → peak %s" % (mib(r["rss0"]), mib(r["peak"])))
        check(r["send_error"] is None or r["ended"] is None, "sending failed: %s; %s" % (r["send_error"], detail))
        check(r["ended"] is None, "the daemon ended the flooding session's socket: %s; %s" % (r["ended"], detail))
        check(r["answered"] == n, "%d of %d calls never answered; %s" % (n - r["answered"], n, detail))
        check(r["dup"] == 0 and r["wrong"] == 0 and r["errors"] == 0, detail)
        check(not r["gaps"], "seq gaps %s; %s" % (r["gaps"], detail))
        check(r["peak"] - r["rss0"] < 256 * 1024, "RSS grew by more than 256 MiB: " + detail)
        return detail

    def c_flood_unwindowed(self):
        """A client that ignores the window runs far ahead: its acks wait in TCP behind its
        own calls, so the server cannot trim its replay log. Documented answer: every ret
        sent is correct and exactly once, and if the replay bound is hit the session ends
        with 4008 naming it (PROTOCOL.md 2.2, 2.5); other sessions are unaffected."""
        n = self.flood_n
        r = self.flood(n)
        detail = r["detail"]
        check(r["dup"] == 0 and r["wrong"] == 0, detail)
        check(not r["gaps"], "seq gaps %s; %s" % (r["gaps"], detail))
        if r["ended"] is None:
            check(r["answered"] == n, "%d of %d calls never answered; %s" % (n - r["answered"], n, detail))
            return "all answered; " + detail
        check("4008" in str(r["ended"]) and "replay" in str(r["ended"]),
              "ended otherwise than 4008 (replay bound): %s; %s" % (r["ended"], detail))
        return "ended %s (documented); %s" % (r["ended"], detail)

    def c_flood_backpressure(self):
        """Slow calls make the daemon stop reading: at most maxCallsPending (+ what was
        already read) run at once; the others start as the first ones end."""
        n, ms = self.slow_n, FLOOD_SLOW_MS
        r = self.flood(n, slow=n, slow_ms=ms, time_limit=40.0)
        waves = sorted(r["ret_time"].values())
        first = sum(1 for t in waves if t < 1.8 * ms / 1000.0)
        detail = ("%d test.sleepSyn(%d ms) calls: %d ran in the first wave (documented bound: maxCallsPending = %d, "
                  "plus the rest of a frame), the others only after them; %s"
                  % (n, ms, first, MAX_CALLS_PENDING, r["detail"]))
        self.figures.append("backpressure flood: RSS %s → peak %s" % (mib(r["rss0"]), mib(r["peak"])))
        check(r["ended"] is None, "the daemon ended the socket: %s; %s" % (r["ended"], detail))
        check(r["answered"] == n and r["dup"] == 0 and r["wrong"] == 0 and r["errors"] == 0, detail)
        check(first < n, "no backpressure: all %d slow calls ran at once; %s" % (n, detail))
        check(first <= MAX_CALLS_PENDING + 1, "more calls ran at once than maxCallsPending allows: %s" % detail)
        return detail

    # =========================================================================================
    # 5,000 connections that never send hello (PROTOCOL.md 2.1)

    def c_no_hello(self, label):
        n = self.mass_n
        sampler = RSSSampler(self.main)
        sampler.start()
        rss0 = self.main.rss_kib()
        fds0 = self.main.open_fds()
        t0 = time.monotonic()
        conns = no_hello_connections(self.main.port, n, self.rng, deadline=t0 + 40 + HELLO_TIMEOUT_MS / 1000.0)
        elapsed = time.monotonic() - t0
        peak = sampler.finish()
        upgraded = [c for c in conns if c.t_upgraded is not None]
        refused = [c for c in conns if c.t_upgraded is None]
        good = [c for c in upgraded if c.code == 4000 and c.reason == "hello timeout"]
        other = [c for c in upgraded if not (c.code == 4000 and c.reason == "hello timeout")]
        waits = sorted(c.t_closed - c.t_upgraded for c in good if c.t_closed)
        early = [w for w in waits if w < 0.9 * HELLO_TIMEOUT_MS / 1000.0]
        time.sleep(1.0)
        rss1 = self.main.rss_kib()
        fds1 = self.main.open_fds()
        detail = ("%d upgraded, %d closed 4000 'hello timeout' after %.2f/%.2f/%.2f s (min/median/max), %.1f s in all; "
                  "daemon RSS %s → peak %s → %s 1 s later; fds %s → %s"
                  % (len(upgraded), len(good), waits[0] if waits else 0, statistics.median(waits) if waits else 0,
                     waits[-1] if waits else 0, elapsed, mib(rss0), mib(peak), mib(rss1), fds0, fds1))
        self.figures.append("%s: RSS %s → peak %s → %s" % (label, mib(rss0), mib(peak), mib(rss1)))
        if refused:
            why = {}
            for c in refused:
                why[c.ended] = why.get(c.ended, 0) + 1
            raise Fail("%d of %d connections were not upgraded: %s; %s" % (len(refused), n, why, detail))
        if other:
            why = {}
            for c in other:
                k = "close %s %r" % (c.code, c.reason) if c.code is not None else (c.ended or "open")
                why[k] = why.get(k, 0) + 1
            raise Fail("%d connections not closed 4000 'hello timeout': %s; %s" % (len(other), why, detail))
        check(not early, "%d closed before the hello timeout (earliest %.2f s); %s" % (len(early), early[0] if early else 0, detail))
        return detail, rss1

    def c_no_hello_first(self):
        detail, rss = self.c_no_hello("no-hello round 1")
        self.mass_rss1 = rss
        return detail

    def c_no_hello_repeat(self):
        detail, rss = self.c_no_hello("no-hello round 2")
        first = getattr(self, "mass_rss1", None)
        if first is not None and rss is not None:
            growth = (rss - first) / 1024.0
            detail += "; settled RSS %+.1f MiB over round 1 (limit %d MiB)" % (growth, REPEAT_SLACK_MIB)
            check(growth <= REPEAT_SLACK_MIB, "memory grows per round (leak?): " + detail)
        return detail

    # =========================================================================================
    # Half-open connections and slowloris (background: they wait for the daemon's timeouts)

    def probe_service(self):
        """A fresh static GET and a fresh session work, and how long they take."""
        t = time.monotonic()
        r = http(self.main.port, "GET", "/dsbridge.js", ["Connection: close"], timeout=5)
        t_http = time.monotonic() - t
        check(r.status == 200 and r.complete, "GET /dsbridge.js during the attack: %s" % r.summary())
        t = time.monotonic()
        with self.session_socket() as ws:
            ws.send_text(self.call_frame(1, data="probe"))
            check(self.expect_ret(ws, 1).get("data") == "probe", "probe call failed")
        return max(t_http, time.monotonic() - t)

    def hold_connections(self, count, opening, dribble=None, interval=0.5, limit=35.0):
        """Opens `count` connections, sends `opening`, then (with `dribble`) one more byte
        of it every `interval`; returns the seconds until the daemon dropped each (None if
        it did not within `limit`), and the worst probe time meanwhile."""
        socks = []
        for _ in range(count):
            s = socket.create_connection(("127.0.0.1", self.main.port), timeout=5)
            s.setblocking(False)
            if opening:
                s.send(opening)
            socks.append([s, time.monotonic(), None, 0])
        worst_probe = 0.0
        next_probe = time.monotonic() + 1.0
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline and any(x[2] is None for x in socks):
            for x in socks:
                if x[2] is not None:
                    continue
                s = x[0]
                try:
                    data = s.recv(65536)
                    if not data:
                        x[2] = time.monotonic() - x[1]
                        continue
                except BlockingIOError:
                    pass
                except OSError:
                    x[2] = time.monotonic() - x[1]
                    continue
                if dribble:
                    try:
                        s.send(dribble[x[3] % len(dribble):x[3] % len(dribble) + 1])
                        x[3] += 1
                    except BlockingIOError:
                        pass
                    except OSError:
                        x[2] = time.monotonic() - x[1]
            if time.monotonic() >= next_probe:
                next_probe = time.monotonic() + 3.0
                worst_probe = max(worst_probe, self.probe_service())
            time.sleep(interval)
        for x in socks:
            x[0].close()
        return [x[2] for x in socks], worst_probe

    def c_held(self, what, count, opening, dribble=None, silent=True):
        limit = self.hold_limit
        drops, worst = self.hold_connections(count, opening, dribble, limit=limit)
        kept = [d for d in drops if d is None]
        done = sorted(d for d in drops if d is not None)
        detail = ("%d %s: dropped by the daemon after %s s; others served meanwhile (worst probe %.0f ms)%s"
                  % (count, what, "%.1f-%.1f" % (done[0], done[-1]) if done else "-", worst * 1000,
                     " (silent; safe: dropped within %.0f s)" % limit if silent else ""))
        check(worst < 2.0, "others were slowed down: a probe took %.0f ms; %s" % (worst * 1000, detail))
        check(not kept, "%d of %d still open after %.0f s; %s" % (len(kept), count, limit, detail))
        return detail

    def c_vanished_peer(self, mid_frame):
        """Upgraded, hello answered, then the peer vanishes: it reads (so TCP stays up) but
        never sends again, pongs included. PROTOCOL.md 2.3: closed after 2 × heartbeat
        without traffic, without a close handshake, never earlier; the session is kept."""
        ws, w = self.session()
        ws.auto_pong = False
        t0 = time.monotonic()
        if mid_frame:
            data = frame(OP_TEXT, self.call_frame(1, data="never-finished"), rng=self.rng)
            ws.send_raw(data[:len(data) // 2])
        try:
            limit = 2 * HEARTBEAT_MS / 1000.0
            while not ws.ended and time.monotonic() - t0 < limit + 8:
                ws.pump(0.1)
            took = time.monotonic() - t0
            check(ws.ended, "still open %.0f s after the peer went silent (2 × heartbeat = %.0f s)" % (took, limit))
            check(took >= limit - 0.3, "dropped after %.1f s, before 2 × heartbeat (%.1f s)" % (took, limit))
            handshake = "" if ws.close_code is None else "; it sent close %s %r first" % (ws.close_code, ws.close_reason)
        finally:
            ws.close()
        ws2 = self.ws()
        try:
            w2 = ws2.hello(token=w["token"], ack=0)
            check(w2 is not None and w2.get("resumed") is True, "session not kept: %s" % ws2.ended_summary())
        finally:
            ws2.close()
        return ("silent peer%s dropped after %.1f s (2 × heartbeat = %.1f s)%s; session resumed afterwards"
                % (" with half a frame sent" if mid_frame else "", took, limit, handshake))

    def c_reset_mid_frame(self):
        ws, w = self.session()
        data = frame(OP_TEXT, self.call_frame(1, data="cut"), rng=self.rng)
        ws.send_raw(data[:len(data) // 2])
        ws.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        ws.close()
        time.sleep(0.3)
        ws2 = self.ws()
        try:
            w2 = ws2.hello(token=w["token"], ack=0)
            check(w2 is not None and w2.get("resumed") is True, "session not kept after a reset: %s" % ws2.ended_summary())
            check(w2.get("lastCall") == 0, "the half frame was processed: lastCall %s" % w2.get("lastCall"))
            return "TCP reset in the middle of a frame: nothing processed, session resumed"
        finally:
            ws2.close()

    def c_half_closed(self):
        """The peer shuts down its sending side after hello (FIN): silent in PROTOCOL.md;
        safe: the daemon ends the connection and keeps the session."""
        ws, w = self.session()
        try:
            ws.sock.shutdown(socket.SHUT_WR)
            ended = ws.wait_end(2 * HEARTBEAT_MS / 1000.0 + 6)
            check(ended, "connection still open after the peer's FIN")
        finally:
            ws.close()
        last = self.resume_last_call(w["token"])
        return ("FIN after hello → connection ended (%s), session kept (resumed, lastCall %s) (silent; safe: closed)"
                % (ws.ended_summary(), last))

    # =========================================================================================
    # Origins, auth, tokens (PROTOCOL.md 1.1, 2.1, 4, 6)

    def c_origin_upgrade(self, origin, expect):
        try:
            ws = self.ws(origin=origin)
        except UpgradeRefused as e:
            check(expect != 101, "an allowed origin was refused: %s" % e)
            check(e.status == expect, "upgrade with Origin %r answered %s, expected %d" % (origin, e.status, expect))
            return "upgrade with Origin %r → %d" % (origin, e.status)
        try:
            check(expect == 101, "upgrade with Origin %r was ACCEPTED (101), expected %d" % (origin, expect))
            w = ws.hello()
            check(w is not None, "no welcome")
            return "upgrade with Origin %r → 101 and welcome" % origin
        finally:
            ws.close()

    def c_origin_duplicate(self):
        own = "http://127.0.0.1:%d" % self.main.port
        try:
            ws = self.ws(origin="http://evil.example", extra_headers=["Origin: " + own])
        except UpgradeRefused as e:
            check(e.status in (400, 403), "answered %s" % e.status)
            return "two Origin headers (evil first, own second) → %s (silent; safe: refused)" % e.status
        ws.close()
        raise Fail("two Origin headers (evil, own) → 101 accepted")

    def c_origin_post(self, path):
        token = self.fresh_token()
        r = http(self.main.port, "POST", path, ["Origin: http://evil.example", "X-DSBridge-Token: " + token,
                                                "Content-Type: application/json", "Connection: close"],
                 b'{"method":"echo.syn","arg":{"data":1}}', wait_close=1.0)
        check(r.status == 403, "POST %s with a foreign Origin answered %s" % (path, r.summary()))
        check(r.header("access-control-allow-origin") is None, "CORS header given to a foreign origin")
        return "POST %s with Origin http://evil.example → 403, no CORS headers" % path

    def c_origin_preflight(self):
        r = http(self.main.port, "OPTIONS", "/dsbridge/call", ["Origin: http://evil.example",
                                                               "Access-Control-Request-Method: POST", "Connection: close"])
        check(r.status == 403, "preflight from a foreign origin answered %s" % r.summary())
        r2 = http(self.main.port, "OPTIONS", "/dsbridge/call", ["Origin: http://localhost:%d" % self.main.port,
                                                                "Access-Control-Request-Method: POST", "Connection: close"])
        check(r2.status == 204, "preflight from an own origin answered %s" % r2.summary())
        return "OPTIONS from http://evil.example → 403; from an own origin → 204"

    def c_upgrade_refusals(self):
        """PROTOCOL.md 1 (text revision 1.10): an upgrade the server cannot take is answered,
        and the connection closed, never left hanging."""
        key = "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="
        base = ["Host: 127.0.0.1", "Upgrade: websocket", "Connection: Upgrade", key,
                "Sec-WebSocket-Version: 13", "Sec-WebSocket-Protocol: dsbridge.v1"]
        cases = [
            ("another path", "GET /other HTTP/1.1", base, 404),
            ("POST", "POST /dsbridge HTTP/1.1", base, 400),
            ("no Connection: Upgrade", "GET /dsbridge HTTP/1.1", [h for h in base if not h.startswith("Connection")]
             + ["Connection: keep-alive"], 400),
            ("version 8", "GET /dsbridge HTTP/1.1", [h for h in base if "Version" not in h]
             + ["Sec-WebSocket-Version: 8"], 426),
            ("no version", "GET /dsbridge HTTP/1.1", [h for h in base if "Version" not in h], 426),
            ("no key", "GET /dsbridge HTTP/1.1", [h for h in base if h != key], 400),
            ("a 3-byte key", "GET /dsbridge HTTP/1.1", [h for h in base if h != key] + ["Sec-WebSocket-Key: YWJj"], 400),
        ]
        out = []
        for label, line, headers, status in cases:
            raw = ("\r\n".join([line] + headers) + "\r\n\r\n").encode()
            r = http_exchange(self.main.port, raw, timeout=5.0, wait_close=3.0)
            check(r.status == status, "%s: answered %s, expected %d" % (label, r.summary(), status))
            check(r.closed_after, "%s: the connection stayed open after the %s" % (label, r.status))
            if status == 426:
                check(r.header("sec-websocket-version") == "13", "426 without Sec-WebSocket-Version: 13")
            out.append("%s → %d" % (label, status))
        return "; ".join(out) + "; each closed"

    def c_upgrade_with_bytes_behind(self):
        """The upgrade head and the page's first frame in one packet, and an upgrade on a
        connection that served a request before: both sessions open (the bytes behind the
        head are the first frame)."""
        hello = frame(OP_TEXT, b'{"t":"hello","v":1}', rng=self.rng)
        results = []
        for label, prefix in (("frame behind the head", b""),
                              ("after a kept-alive GET", b"GET /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")):
            sock = socket.create_connection(("127.0.0.1", self.main.port), timeout=5)
            try:
                sock.sendall(prefix + upgrade_request(self.main.port, self.rng) + hello)
                buf = b""
                deadline = time.monotonic() + 5
                while b'"welcome"' not in buf and time.monotonic() < deadline:
                    chunk = sock.recv(65536)
                    if not chunk:
                        break
                    buf += chunk
                check(b"HTTP/1.1 101 " in buf, "%s: no 101 (%r)" % (label, clip(buf, 120)))
                if prefix:
                    check(buf.startswith(b"HTTP/1.1 200 "), "%s: the GET was not answered first (%r)" % (label, clip(buf, 80)))
                check(b'"welcome"' in buf, "%s: no welcome after the 101 (%r)" % (label, clip(buf[-120:], 120)))
                results.append(label)
            finally:
                sock.close()
        return "welcome for: " + ", ".join(results)

    def c_no_subprotocol(self):
        try:
            ws = self.ws(protocol=None)
        except UpgradeRefused as e:
            check(e.status == 400, "answered %s" % e.status)
            r = http(self.main.port, "GET", "/dsbridge", ["Connection: close"])
            check(r.status == 400, "GET /dsbridge without upgrade answered %s" % r.summary())
            return "upgrade without dsbridge.v1 → 400; GET /dsbridge without upgrade → 400"
        ws.close()
        raise Fail("upgrade without the subprotocol was accepted")

    def fresh_token(self, daemon=None):
        d = daemon or self.main
        hdrs = ["Connection: close"] + (["X-DSBridge-Auth: " + AUTH_TOKEN] if d is self.auth else [])
        r = http(d.port, "POST", "/dsbridge/session", hdrs)
        check(r.status == 200, "POST /dsbridge/session answered %s" % r.summary())
        return json.loads(r.body)["token"]

    def c_sync_call_tokens(self):
        out = []
        for label, hdrs in (("no token", []), ("unknown token", ["X-DSBridge-Token: nope-" + "a" * 20]),
                            ("empty token", ["X-DSBridge-Token: "])):
            r = http(self.main.port, "POST", "/dsbridge/call", hdrs + ["Connection: close"],
                     b'{"method":"echo.syn","arg":{"data":1}}')
            check(r.status == 401, "POST /dsbridge/call with %s answered %s" % (label, r.summary()))
            out.append("%s → 401" % label)
        token = self.fresh_token()
        r = http(self.main.port, "POST", "/dsbridge/call", ["X-DSBridge-Token: " + token, "Connection: close"],
                 b'{"method":"echo.syn","arg":{"data":"ok"}}')
        check(r.status == 200 and b'"ok"' in r.body, "a valid token answered %s %r" % (r.summary(), r.body[:80]))
        return ", ".join(out) + ", valid token → 200"

    def c_auth_hello(self):
        out = []
        for label, fields, code in (("no auth", {}, 1008), ("wrong auth", {"auth": "wrong"}, 1008),
                                    ("auth prefix", {"auth": AUTH_TOKEN[:-1]}, 1008),
                                    ("auth with suffix", {"auth": AUTH_TOKEN + "x"}, 1008),
                                    ("auth number", {"auth": 12345}, 4000), ("auth null", {"auth": None}, 4000)):
            msg = {"t": "hello", "v": 1}
            msg.update(fields)
            ws = self.ws(self.auth)
            try:
                ws.send_json(msg)
                c, r = ws.wait_close(5)
                got = [m for m in ws.take() if isinstance(m, dict) and m.get("t") == "welcome"]
                check(c == code, "hello with %s: expected close %d, got %s" % (label, code, ws.ended_summary()))
                check(not got, "hello with %s got a welcome" % label)
                out.append("%s → %d" % (label, c))
            finally:
                ws.close()
        ws, w = self.session(self.auth, auth=AUTH_TOKEN)
        ws.close()
        return ", ".join(out) + ", right auth → welcome"

    def c_auth_resume(self):
        ws, w = self.session(self.auth, auth=AUTH_TOKEN)
        try:
            for fields, code in (({}, 1008), ({"auth": "wrong"}, 1008)):
                msg = {"t": "hello", "v": 1, "token": w["token"], "ack": 0}
                msg.update(fields)
                ws2 = self.ws(self.auth)
                try:
                    ws2.send_json(msg)
                    c, r = ws2.wait_close(5)
                    check(c == code, "resume with %s: expected %d, got %s" % (fields or "no auth", code, ws2.ended_summary()))
                finally:
                    ws2.close()
            ws.send_text(self.call_frame(1, data="after"))
            check(self.expect_ret(ws, 1).get("data") == "after", "the session's socket was disturbed")
            return "resume without/with wrong auth → 1008; the session's live socket unaffected"
        finally:
            ws.close()

    def c_auth_post_session(self):
        out = []
        for label, hdrs, want in (("without X-DSBridge-Auth", [], 401),
                                  ("wrong X-DSBridge-Auth", ["X-DSBridge-Auth: wrong"], 401),
                                  ("right X-DSBridge-Auth", ["X-DSBridge-Auth: " + AUTH_TOKEN], 200)):
            r = http(self.auth.port, "POST", "/dsbridge/session", hdrs + ["Connection: close"])
            check(r.status == want, "POST /dsbridge/session %s answered %s" % (label, r.summary()))
            out.append("%s → %d" % (label, want))
        return ", ".join(out)

    def c_admin(self):
        out = []
        cases = [("GET", "/admin/sessions", [], "no Authorization"),
                 ("GET", "/admin/sessions", ["Authorization: Bearer wrong"], "wrong token"),
                 ("GET", "/admin/sessions", ["Authorization: Bearer " + ADMIN_TOKEN + "x"], "token + suffix"),
                 ("GET", "/admin/sessions", ["Authorization: Bearer "], "empty bearer"),
                 ("GET", "/admin/sessions", ["Authorization: Basic dDp0"], "Basic scheme"),
                 ("GET", "/admin/sessions", ["Authorization: " + ADMIN_TOKEN], "token without scheme"),
                 ("GET", "/admin/nope", ["Authorization: Bearer wrong"], "unknown path, wrong token"),
                 ("POST", "/admin/sessions/x/call", ["Authorization: Bearer wrong"], "call, wrong token"),
                 ("GET", "/metrics", [], "metrics, no token")]
        for method, path, hdrs, label in cases:
            r = http(self.main.admin_port, method, path, hdrs + ["Connection: close"],
                     b'{"method":"addValue","args":[1,2]}' if method == "POST" else b"")
            check(r.status == 401, "%s %s (%s) answered %s" % (method, path, label, r.summary()))
            out.append(label)
        r = http(self.main.admin_port, "GET", "/admin/sessions", ["Authorization: Bearer " + ADMIN_TOKEN, "Connection: close"])
        check(r.status == 200, "the right token answered %s" % r.summary())
        r = http(self.main.admin_port, "GET", "/healthz", ["Connection: close"])
        check(r.status == 200, "/healthz without a token answered %s" % r.summary())
        return "401 for %d requests (%s); right token → 200; /healthz open" % (len(out), ", ".join(out))

    # =========================================================================================
    # HTTP bodies and headers (PROTOCOL.md 4; issue 5 item 4)

    def c_oversize_post(self, path, chunked=False):
        token = self.fresh_token()
        body = b'{"method":"echo.syn","arg":{"data":"' + b"z" * (MAX_MESSAGE_BYTES + 16) + b'"}}'
        hdrs = ["X-DSBridge-Token: " + token, "Content-Type: application/json"]
        if chunked:
            hdrs.append("Transfer-Encoding: chunked")
            step = 256 * 1024
            payload = b"".join(b"%x\r\n%s\r\n" % (len(body[i:i + step]), body[i:i + step]) for i in range(0, len(body), step))
            payload += b"0\r\n\r\n"
        else:
            payload = body
        data = http_request(self.main.port, "POST", path, hdrs, payload)
        r = http_exchange(self.main.port, data, timeout=15, wait_close=3.0, concurrent_send=True)
        what = "%s %d-byte body%s" % (path, len(body), " (chunked)" if chunked else "")
        if chunked and r.status is None:
            raise Fail("%s: no response at all (%s)" % (what, r.error))
        # A server may also refuse chunked bodies outright: 411 Length Required.
        allowed = (413, 411) if chunked else (413,)
        check(r.status in allowed, "%s answered %s %r, expected %s" % (what, r.summary(), r.body[:70],
                                                                       " or ".join(map(str, allowed))))
        check(r.complete, "%s: the 413 response is incomplete: %s; raw %r" % (what, r.error, r.raw[:200]))
        check(r.closed_after, "%s: the connection stayed open after the 413" % what)
        return "%s → complete 413 (%d-byte body %r), then the connection closed" % (what, len(r.body), r.body[:40])

    def c_oversize_declared(self):
        token = self.fresh_token()
        data = http_request(self.main.port, "POST", "/dsbridge/call",
                            ["X-DSBridge-Token: " + token, "Content-Length: %d" % (MAX_MESSAGE_BYTES + 1)])
        r = http_exchange(self.main.port, data, timeout=5, wait_close=3.0)
        check(r.status == 413 and r.complete, "Content-Length above the limit (no body sent) answered %s" % r.summary())
        check(r.closed_after, "connection left open after the 413")
        return "Content-Length %d, body not sent → complete 413 at once, then closed" % (MAX_MESSAGE_BYTES + 1)

    def c_bad_content_length(self):
        token = self.fresh_token()
        values = ("99999999999999999999999", "-1", "abc", "1, 2", "0x10")
        results = {}

        def one(cl):
            data = http_request(self.main.port, "POST", "/dsbridge/call",
                                ["X-DSBridge-Token: " + token, "Content-Length: " + cl]) + b'{"method":"echo.syn"}'
            t = time.monotonic()
            results[cl] = (http_exchange(self.main.port, data, timeout=8, wait_close=2.0), time.monotonic() - t)
        threads = [threading.Thread(target=one, args=(cl,), daemon=True) for cl in values]
        for t in threads:
            t.start()
        for t in threads:
            t.join(12)
        out = []
        for cl in values:
            check(cl in results, "Content-Length %r: no result" % cl)
            r, took = results[cl]
            ok = (r.status in (400, 413) and r.complete) or (r.status is None and "closed" in (r.error or ""))
            check(ok, "Content-Length %r answered %s %r" % (cl, r.summary(), r.body[:60]))
            out.append("%s → %s after %.1f s" % (cl, r.status if r.status else "closed", took))
        return "; ".join(out) + " (silent; safe: 400/413 or closed, never a hang)"

    def c_oversize_headers(self, what, data):
        r = http_exchange(self.main.port, data, timeout=10, wait_close=2.0, concurrent_send=True)
        if r.status is None:
            check(r.error and ("closed" in r.error or "recv" in r.error), "no answer and not closed: %s" % r.error)
            return "%s → connection closed without a response (no 431)" % what
        check(r.status in (431, 400, 413, 414), "%s answered %s (expected 431 or the connection closed)" % (what, r.summary()))
        return "%s → %d%s" % (what, r.status, "" if r.complete else " (incomplete)")

    def c_header_limits(self):
        out = []
        big = http_request(self.main.port, "GET", "/dsbridge.js", ["X-Big: " + "a" * 65536, "Connection: close"])
        out.append(self.c_oversize_headers("a 64 KiB header", big))
        many = http_request(self.main.port, "GET", "/dsbridge.js",
                            ["X-H%d: %s" % (i, "v" * 20) for i in range(3000)] + ["Connection: close"])
        out.append(self.c_oversize_headers("3000 headers (80 KiB)", many))
        uri = http_request(self.main.port, "GET", "/" + "a" * 65536, ["Connection: close"])
        out.append(self.c_oversize_headers("a 64 KiB URI", uri))
        endless = b"GET / HTTP/1.1\r\nHost: x\r\nX-Endless: " + b"b" * (8 * 1024 * 1024)
        out.append(self.c_oversize_headers("an 8 MiB header line without end", endless))
        return "; ".join(out)

    # =========================================================================================
    # Static files (PROTOCOL.md 1.2)

    def get_static(self, path, method="GET", raw_target=False):
        data = ("%s %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n" % (method, path, self.main.port)).encode("latin-1")
        r = http_exchange(self.main.port, data, timeout=5, head_request=(method == "HEAD"))
        leaked = self.sentinel.encode() in r.raw or b"root:x:0:0" in r.raw
        return r, leaked

    def c_traversal(self, label, paths, allowed=(403, 404), allow_closed=False, extra_ok=()):
        out = []
        for p in paths:
            r, leaked = self.get_static(p)
            check(not leaked, "%r LEAKED a file outside the web root: %s %r" % (p, r.summary(), r.body[:80]))
            st = r.status
            if st is None:
                check(allow_closed, "%r: no response (%s)" % (p, r.error))
                out.append("%s→closed" % p)
                continue
            check(st in allowed or st in extra_ok, "%r answered %s (expected %s)" % (p, r.summary(), "/".join(map(str, allowed))))
            check(r.header("x-content-type-options") == "nosniff" or st == 403 or st == 400,
                  "%r: %d without nosniff" % (p, st))
            out.append("%s→%d" % (p, st))
        return "%s: %s" % (label, ", ".join(out))

    def c_static_dirs(self):
        out = []
        r, _ = self.get_static("/sub/")
        check(r.status == 404 and b"file.txt" not in r.body, "/sub/ (no index) answered %s %r" % (r.summary(), r.body[:80]))
        out.append("/sub/→404 (no listing)")
        r, _ = self.get_static("/sub")
        check(r.status == 301 and r.header("location") == "/sub/", "/sub answered %s location %r" % (r.summary(), r.header("location")))
        out.append("/sub→301 /sub/")
        r, _ = self.get_static("/sub?x=1")
        check(r.status == 301 and r.header("location") == "/sub/?x=1", "/sub?x=1 → %s %r" % (r.summary(), r.header("location")))
        out.append("/sub?x=1→301 /sub/?x=1")
        r, _ = self.get_static("/sub2/")
        check(r.status == 200 and b"index-of-sub2" in r.body, "/sub2/ answered %s" % r.summary())
        out.append("/sub2/→its index.html")
        r, _ = self.get_static("/")
        check(r.status == 200 and b"index-of-attack-root" in r.body, "/ answered %s" % r.summary())
        out.append("/→index.html")
        for p in ("//sub", "/%2fsub", "/%2F%2Fevil.example%2Fsub", "/sub%0d%0aX-Injected:%201", "/sub?a=%0d%0aX-Injected:%201"):
            r, _ = self.get_static(p)
            loc = r.header("location") or ""
            check(not loc.startswith("//") and "\\" not in loc, "%r redirects to %r (an open redirect)" % (p, loc))
            check(r.header("x-injected") is None, "%r injected a header: %s" % (p, r.headers))
            out.append("%s→%s%s" % (p, r.status or "closed", " " + loc if loc else ""))
        return ", ".join(out) + " (no open redirect, no header injection: silent; safe)"

    def c_static_types(self):
        out = []
        for p, ctype in (("/dsbridge.js", "text/javascript"), ("/index.html", "text/html"), ("/style.css", "text/css"),
                         ("/data.unknownext", "application/octet-stream"), ("/inlink.html", "text/html")):
            r, _ = self.get_static(p)
            check(r.status == 200, "%s answered %s" % (p, r.summary()))
            got = (r.header("content-type") or "").split(";")[0].strip()
            check(got == ctype, "%s: Content-Type %r, expected %s" % (p, got, ctype))
            check(r.header("x-content-type-options") == "nosniff", "%s without nosniff" % p)
            out.append("%s %s" % (p, got))
        r, _ = self.get_static("/nope.html")
        check(r.status == 404 and r.header("x-content-type-options") == "nosniff", "404 without nosniff")
        r, _ = self.get_static("/a%2541.txt")
        check(r.status == 200 and b"decoded-once" in r.body,
              "/a%%2541.txt must serve the file named a%%41.txt (decoded once), got %s %r" % (r.summary(), r.body[:40]))
        r, _ = self.get_static("/index.html", method="HEAD")
        check(r.status == 200, "HEAD answered %s" % r.summary())
        return ", ".join(out) + "; nosniff everywhere; /a%2541.txt decoded once; inside symlink served"

    # =========================================================================================
    # Final checks

    def c_sessions_expired(self):
        """Every attack session ends within graceMs of its socket's close (PROTOCOL.md 2.5)."""
        deadline = time.monotonic() + GRACE_MS / 1000.0 + 20
        while True:
            r = http(self.main.admin_port, "GET", "/admin/sessions", ["Authorization: Bearer " + ADMIN_TOKEN, "Connection: close"])
            check(r.status == 200, "/admin/sessions answered %s" % r.summary())
            sessions = json.loads(r.body)
            others = [s for s in sessions if s.get("session") != self.healthy.session_id]
            if not others or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        check(not others, "%d attack sessions still listed %.0f s after the attacks: %s"
              % (len(others), GRACE_MS / 1000.0 + 20, clip(str(others[:3]), 300)))
        return "only the healthy session is left (%d listed)" % len(sessions)

    def c_rss(self):
        samples = []
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            samples.append(self.main.rss_kib())
            if len(samples) >= 4 and max(samples[-4:]) - min(samples[-4:]) < 512:
                break
            time.sleep(0.5)
        final = samples[-1]
        fds = self.main.open_fds()
        limit = self.baseline_rss + RSS_SLACK_MIB * 1024
        detail = ("RSS baseline %s, final %s (%+.1f MiB; near = baseline + %d MiB = %s); %s; open fds %s → %s; threads %s"
                  % (mib(self.baseline_rss), mib(final), (final - self.baseline_rss) / 1024.0, RSS_SLACK_MIB, mib(limit),
                     "; ".join(self.figures), self.baseline_fds, fds, self.main.threads()))
        check(final <= limit, "RSS did not return near its baseline: " + detail)
        check(fds is None or self.baseline_fds is None or fds <= self.baseline_fds + FD_SLACK, "file descriptors leak: " + detail)
        return detail

    # =========================================================================================

    def warm_up(self):
        """Brings the daemon to a steady state before the baseline: sessions, calls, a few
        connections timing out, static files, a 1 MiB message."""
        for _ in range(20):
            ws, _ = self.session()
            ws.send_text(self.call_frame(1, data="warm" * 100))
            self.expect_ret(ws, 1)
            ws.close()
        no_hello_connections(self.main.port, 50, self.rng, deadline=time.monotonic() + 10)
        for p in ("/dsbridge.js", "/", "/nope"):
            self.get_static(p)
        ws, _ = self.session()
        ws.send_raw(frame(OP_TEXT, self.big_call(1 << 20), rng=self.rng))
        self.expect_ret(ws, 1, timeout=10)
        ws.close()
        time.sleep(GRACE_MS / 1000.0 + 1.0)

    def run(self):
        o = self.o
        self.make_web_root()
        self.main = Daemon(o.binary, self.daemon_args(), "/tmp/dsbridged-attack-%d.log" % o.seed, "main")
        self.healthy = Healthy(self.main.port, o.seed)
        self.healthy.start()
        self.warm_up()
        problems, _ = self.health()
        if problems:
            self.record(False, "setup", "the healthy session failed before any attack: %s" % problems)
        self.baseline_rss = self.main.rss_kib()
        self.baseline_fds = self.main.open_fds()
        self.out("# daemon pid %d port %d admin %d (log %s); baseline RSS %s, %s fds; seed %d%s"
                 % (self.main.pid, self.main.port, self.main.admin_port, self.main.log_path, mib(self.baseline_rss),
                    self.baseline_fds, o.seed, ", quick" if o.quick else ""))

        # Long waits run in the background from the start.
        count = 10 if o.quick else 40
        self.start_background("slowloris-headers", lambda: self.c_held(
            "connections dribbling request headers one byte per 0.5 s", count,
            b"GET /dsbridge.js HTTP/1.1\r\n", dribble=b"X-Slow-Header-Line: dribbled\r\n"))
        self.start_background("slowloris-body", lambda: self.c_held(
            "POSTs dribbling a 100 KB body one byte per 0.5 s", count // 4,
            b"POST /dsbridge/session HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\n", dribble=b"{"))
        self.start_background("half-open-tcp", lambda: self.c_held(
            "TCP connections that never send a byte", count, b""))
        self.start_background("half-open-upgrade", lambda: self.c_held(
            "upgrade requests never finished", count,
            b"GET /dsbridge HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"))
        self.start_background("half-open-vanished-peer", lambda: self.c_vanished_peer(False))
        self.start_background("half-open-vanished-mid-frame", lambda: self.c_vanished_peer(True))

        C = self.run_case
        # Frames and messages.
        C("non-json", self.c_simple_protocol_error, "{not json")
        C("non-json-garbage-bytes", self.c_simple_protocol_error, "\u0001\u0002 hello \u00ff")
        C("empty-message", self.c_simple_protocol_error, "")
        C("non-object-number", self.c_simple_protocol_error, "42")
        C("non-object-string", self.c_simple_protocol_error, '"hello"')
        C("non-object-null", self.c_simple_protocol_error, "null")
        C("non-object-true", self.c_simple_protocol_error, "true")
        C("batch-non-object-element", self.c_simple_protocol_error, '[{"t":"ack","seq":0},7]')
        C("batch-nested-array", self.c_simple_protocol_error, '[[{"t":"ack","seq":0}]]')
        C("empty-batch-ignored", self.c_empty_batch)
        C("trailing-garbage", self.c_simple_protocol_error, '{"t":"ack","seq":0} x')
        C("two-json-values", self.c_simple_protocol_error, '{"t":"ack","seq":0}{"t":"ack","seq":0}')
        C("unknown-t", self.c_simple_protocol_error, '{"t":"bogus"}')
        C("unknown-t-welcome", self.c_simple_protocol_error, '{"t":"welcome","session":"x","token":"y"}')
        C("missing-t", self.c_simple_protocol_error, '{"id":1,"method":"echo.syn"}')
        C("t-not-string", self.c_simple_protocol_error, '{"t":7}')
        C("t-null", self.c_simple_protocol_error, '{"t":null}')
        C("call-missing-id", self.c_simple_protocol_error, '{"t":"call","method":"echo.syn"}')
        C("call-id-string", self.c_simple_protocol_error, '{"t":"call","id":"1","method":"echo.syn"}')
        C("call-id-zero", self.c_simple_protocol_error, '{"t":"call","id":0,"method":"echo.syn"}')
        C("call-id-negative", self.c_simple_protocol_error, '{"t":"call","id":-5,"method":"echo.syn"}')
        C("call-id-fraction", self.c_simple_protocol_error, '{"t":"call","id":1.5,"method":"echo.syn"}')
        C("call-id-null", self.c_simple_protocol_error, '{"t":"call","id":null,"method":"echo.syn"}')
        C("call-id-huge", self.c_simple_protocol_error, '{"t":"call","id":1e400,"method":"echo.syn"}')
        C("call-missing-method", self.c_simple_protocol_error, '{"t":"call","id":1}')
        C("call-method-number", self.c_simple_protocol_error, '{"t":"call","id":1,"method":42}')
        C("call-method-null", self.c_simple_protocol_error, '{"t":"call","id":1,"method":null}')
        C("cancel-missing-id", self.c_simple_protocol_error, '{"t":"cancel"}')
        C("cancel-id-string", self.c_simple_protocol_error, '{"t":"cancel","id":"1"}')
        C("ack-missing-seq", self.c_simple_protocol_error, '{"t":"ack"}')
        C("ack-seq-string", self.c_simple_protocol_error, '{"t":"ack","seq":"5"}')
        C("ack-seq-fraction", self.c_simple_protocol_error, '{"t":"ack","seq":2.5}')
        C("frame-checked-whole", self.c_batch_checked_whole)
        C("first-frame-hello-call-bad", self.c_first_frame_hello_call_bad)
        C("arg-not-envelope", self.c_bad_arg)
        C("method-names", self.c_bad_method_names)
        C("duplicate-and-lower-ids", self.c_duplicate_ids)
        C("unknown-fields-ignored", self.c_unknown_fields)
        C("session-kept-after-4000", self.c_session_kept_after_4000)
        # Hello.
        C("second-hello", self.c_second_hello)
        C("second-hello-same-frame", self.c_hello_twice_in_first_frame)
        C("hello-bad-v", self.c_hello_variants, ['{"t":"hello","v":2}', '{"t":"hello","v":0}', '{"t":"hello"}',
                                                 '{"t":"hello","v":"1"}', '{"t":"hello","v":1.0000001}'], 4000)
        C("hello-unsupported-version-reason", self.c_hello_variants, ['{"t":"hello","v":2}'], 4000, "unsupported version")
        C("hello-token-not-string", self.c_hello_variants, ['{"t":"hello","v":1,"token":5}', '{"t":"hello","v":1,"token":null}',
                                                            '{"t":"hello","v":1,"token":["x"]}', '{"t":"hello","v":1,"token":{}}'], 4000)
        C("hello-auth-not-string", self.c_hello_variants, ['{"t":"hello","v":1,"auth":5}', '{"t":"hello","v":1,"auth":null}'], 4000)
        C("hello-ack-not-integer", self.c_hello_variants, ['{"t":"hello","v":1,"ack":"x"}', '{"t":"hello","v":1,"ack":1.5}',
                                                           '{"t":"hello","v":1,"ack":null}'], 4000)
        C("first-message-not-hello", self.c_call_before_hello)
        C("hello-unknown-token", self.c_unknown_token)
        C("refused-hello-leaves-session-alone", self.c_refused_hello_no_effect)
        # RFC 6455 level.
        C("binary-frame", self.c_binary, True)
        C("binary-frame-before-hello", self.c_binary, False)
        C("invalid-utf8-byte", self.c_invalid_utf8, b'{"t":"call","id":1,"method":"echo.syn","arg":{"data":"\xff\xfe"}}')
        C("invalid-utf8-surrogate", self.c_invalid_utf8, b'{"t":"call","id":1,"method":"echo.syn","arg":{"data":"\xed\xa0\x80"}}')
        C("invalid-utf8-overlong", self.c_invalid_utf8, b'{"t":"call","id":1,"method":"echo.syn","arg":{"data":"\xc0\xaf"}}')
        C("invalid-utf8-truncated-at-end", self.c_invalid_utf8, None,
          [b'{"t":"call","id":1,"method":"echo.syn","arg":{"data":"ab', b'"}} \xe2\x82'])
        C("invalid-utf8-in-second-fragment", self.c_invalid_utf8, None,
          [b'{"t":"call","id":1,"method":"echo.syn",', b'"arg":{"data":"\xf8\x88\x80\x80\x80"}}'])
        C("utf8-split-across-fragments", self.c_utf8_split_across_fragments)
        C("huge-frame", self.c_huge_frame, MAX_MESSAGE_BYTES + 1)
        C("huge-frame-declared-1TiB", self.c_huge_frame, MAX_MESSAGE_BYTES + 65536, 1 << 40)
        C("message-at-exact-limit", self.c_exact_limit)
        C("fragmented-valid-call", self.c_fragmented_valid)
        C("fragmented-oversize", self.c_fragmented_oversize)
        C("continuation-without-start", self.c_rfc_violation, "a continuation frame without a start",
          frame(OP_CONT, b'{"t":"ack","seq":0}', rng=self.rng))
        C("text-inside-fragmented-message", self.c_rfc_violation, "a new text frame inside a fragmented message",
          frame(OP_TEXT, b'{"t":"ack",', fin=False, rng=self.rng) + frame(OP_TEXT, b'{"t":"ack","seq":0}', rng=self.rng))
        C("unmasked-client-frame", self.c_unmasked)
        C("rsv-bits", self.c_rfc_violation, "a frame with RSV1-3 set (no extension)",
          frame(OP_TEXT, b'{"t":"ack","seq":0}', rng=self.rng, rsv=7))
        C("reserved-opcode", self.c_rfc_violation, "opcode 3 (reserved)", frame(3, b"x", rng=self.rng))
        C("control-frame-too-long", self.c_rfc_violation, "a 200-byte ping", frame(OP_PING, b"p" * 200, rng=self.rng))
        C("fragmented-control-frame", self.c_rfc_violation, "a fragmented ping", frame(OP_PING, b"p", fin=False, rng=self.rng))
        C("length-msb-set", self.c_rfc_violation, "a 64-bit length with its top bit set",
          bytes([0x81, 0xFF]) + struct.pack("!Q", (1 << 63) + 5) + b"\0\0\0\0" + b"x" * 5)
        C("close-with-bad-code", self.c_rfc_violation, "a close frame with code 999 and invalid UTF-8 reason",
          frame(OP_CLOSE, struct.pack("!H", 999) + b"\xff", rng=self.rng))
        C("nesting-100k-arrays", self.c_deep, 100000, "array")
        C("nesting-100k-objects", self.c_deep, 100000, "object")
        C("nesting-100k-unclosed", self.c_deep, 100000, "open")
        C("nesting-limit-boundary", self.c_depth_boundary)
        # Origins, auth, tokens, admin.
        own = "http://127.0.0.1:%d" % self.main.port
        C("origin-foreign-upgrade", self.c_origin_upgrade, "http://evil.example", 403)
        C("origin-null-upgrade", self.c_origin_upgrade, "null", 403)
        C("origin-other-port-upgrade", self.c_origin_upgrade, "http://127.0.0.1:%d" % (self.main.port ^ 1), 403)
        C("origin-lookalike-upgrade", self.c_origin_upgrade, own + ".evil.example", 403)
        C("origin-https-other-host", self.c_origin_upgrade, "https://localhost.evil.example:%d" % self.main.port, 403)
        C("origin-duplicate-header", self.c_origin_duplicate)
        C("origin-own-allowed", self.c_origin_upgrade, "http://localhost:%d" % self.main.port, 101)
        C("origin-foreign-post-session", self.c_origin_post, "/dsbridge/session")
        C("origin-foreign-post-call", self.c_origin_post, "/dsbridge/call")
        C("origin-foreign-preflight", self.c_origin_preflight)
        C("upgrade-without-subprotocol", self.c_no_subprotocol)
        C("upgrade-refusals", self.c_upgrade_refusals)
        C("upgrade-with-bytes-behind-head", self.c_upgrade_with_bytes_behind)
        C("sync-call-wrong-token", self.c_sync_call_tokens)
        C("admin-wrong-token", self.c_admin)
        # HTTP bodies and headers.
        C("oversize-post-call", self.c_oversize_post, "/dsbridge/call")
        C("oversize-post-session", self.c_oversize_post, "/dsbridge/session")
        C("oversize-post-chunked", self.c_oversize_post, "/dsbridge/call", True)
        C("oversize-content-length-no-body", self.c_oversize_declared)
        C("bad-content-length", self.c_bad_content_length)
        C("oversize-http-headers", self.c_header_limits)
        # Static files.
        C("traversal-raw", self.c_traversal, "raw ../", ["/../outside/secret.txt", "/sub/../../outside/secret.txt",
                                                         "/../../../../../../etc/passwd", "/./../secret.txt"])
        C("traversal-relative-target", self.c_traversal, "request targets not starting with /",
          ["../outside/secret.txt", "..", "outside/secret.txt"], allowed=(400, 403, 404), allow_closed=True)
        C("traversal-percent-encoded", self.c_traversal, "%2e%2e%2f", ["/%2e%2e/outside/secret.txt", "/%2e%2e%2foutside%2fsecret.txt",
                                                                      "/..%2foutside%2fsecret.txt", "/%2E%2E/%2E%2E/%2E%2E/etc/passwd",
                                                                      "/sub/%2e%2e/%2e%2e/outside/secret.txt", "/%2e%2e/secret.txt"])
        C("traversal-double-encoded", self.c_traversal, "double-encoded", ["/%252e%252e%252foutside%252fsecret.txt",
                                                                           "/%252e%252e/outside/secret.txt", "/%25%32%65%25%32%65/secret.txt"])
        C("traversal-backslash", self.c_traversal, "backslashes", ["/..\\outside\\secret.txt", "/%5c..%5coutside%5csecret.txt",
                                                                   "/sub\\..\\index.html", "/..%5c..%5c..%5cetc%5cpasswd"])
        C("traversal-absolute", self.c_traversal, "absolute paths", ["//etc/passwd", "/%2fetc%2fpasswd", "/etc/passwd",
                                                                     "http://127.0.0.1/../outside/secret.txt",
                                                                     "/" + os.path.join(self.tmp, "outside", "secret.txt").lstrip("/"),
                                                                     "/%2f" + os.path.join(self.tmp, "secret.txt").lstrip("/")],
          allowed=(400, 403, 404), allow_closed=True)
        C("traversal-nul-and-overlong", self.c_traversal, "NUL and overlong UTF-8", ["/index.html%00", "/index.html%00.txt",
                                                                                     "/%c0%ae%c0%ae/secret.txt", "/%c0%af..%c0%afsecret.txt"],
          allow_closed=True)
        C("traversal-symlink-escape", self.c_traversal, "symlinks out of the web root", ["/escape/secret.txt", "/escape/", "/escape",
                                                                                        "/link.txt", "/rellink.txt"])
        C("traversal-dotfiles", self.c_traversal, "dotfiles", ["/.secret", "/%2esecret", "/sub/../.secret", "/sub/.%2e/.secret"])
        C("static-directories", self.c_static_dirs)
        C("static-content-types", self.c_static_types)
        # Half-open, quick ones.
        C("half-open-reset-mid-frame", self.c_reset_mid_frame)
        C("half-open-half-closed", self.c_half_closed)
        # Auth (a second daemon with --auth-token).
        if not o.only or any(s.startswith("auth") for s in o.only):
            self.auth = Daemon(o.binary, self.daemon_args(["--auth-token", AUTH_TOKEN]),
                               "/tmp/dsbridged-attack-auth-%d.log" % o.seed, "auth")
            C("auth-hello", self.c_auth_hello)
            C("auth-resume", self.c_auth_resume)
            C("auth-post-session", self.c_auth_post_session)
            code = self.auth.stop()
            auth, self.auth = self.auth, None
            self.record(code == 0, "auth-daemon-sigterm", "the auth daemon exited with code %s" % code)
            del auth
        # The background cases end before the load cases start, so that their probes ("others
        # are served meanwhile") measure the slow peers, not the load.
        self.collect_background(60)
        # Load.
        C("call-flood", self.c_flood)
        C("call-flood-unwindowed", self.c_flood_unwindowed)
        C("call-flood-backpressure", self.c_flood_backpressure)
        C("no-hello-%d" % self.mass_n, self.c_no_hello_first)
        if not o.quick:
            C("no-hello-%d-repeat" % self.mass_n, self.c_no_hello_repeat)
        C("sessions-expire", self.c_sessions_expired)
        C("rss-near-baseline", self.c_rss)
        if not o.only:
            self.healthy.stop()
            self.healthy.join(5)
            t = self.healthy.tally
            ok = t.demo_reports >= DEMO_STEPS and t.demo_failed == 0 and t.sessions == 1 and not self.healthy.problems
            self.record(ok, "healthy-session-summary",
                        "1 session expected, %d used; %d calls answered, %d invokes, %d demo reports (%d failed), "
                        "max latency %.0f ms, %d problems in all"
                        % (t.sessions, t.answered, t.ping_received, t.demo_reports, t.demo_failed,
                           t.total_max_latency * 1000, len(self.healthy.problems)))
        code = self.main.stop()
        self.record(code == 0, "daemon-sigterm", "SIGTERM: exit code %s" % code)

    def cleanup(self):
        if self.healthy is not None:
            self.healthy.stop()
        for d in (self.main, self.auth):
            if d is not None:
                d.stop(timeout=5)
        if self.tmp:
            shutil.rmtree(self.tmp, ignore_errors=True)


def raise_fd_limit(want=20000):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = want if hard == resource.RLIM_INFINITY else min(want, hard)
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--daemon", default=os.environ.get("DSBRIDGED", ".build/debug/dsbridged"))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--quick", action="store_true", help="smaller loads (1,000 connections, 10,000 calls, fewer slow peers)")
    p.add_argument("--only", action="append", help="run only cases whose name contains this (repeatable; for debugging)")
    p.add_argument("--max-seconds", type=float, default=180, help="watchdog: stop everything and exit 3 after this")
    o = p.parse_args()
    o.binary = binary_path(o.daemon)
    if not os.access(o.binary, os.X_OK):
        print("error: no daemon binary at %s" % o.binary)
        return 2
    limit = raise_fd_limit()
    need = (1000 if o.quick else 5000) + 1000
    if limit < need:
        print("error: RLIMIT_NOFILE is %d, the suite needs %d (raise the hard limit)" % (limit, need))
        return 2

    suite = Suite(o)
    t0 = time.monotonic()
    # SIGTERM/SIGHUP end the suite like Ctrl-C: the finally below stops the daemons.
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda signum, _frame: sys.exit(128 + signum))

    def expired():
        suite.record(False, "watchdog", "the suite ran longer than %.0f s; stopping the daemons" % o.max_seconds)
        for d in (suite.main, suite.auth):
            if d is not None:
                d.kill()
        suite.checks.summary()

    hard_limit(o.max_seconds, expired)
    try:
        suite.run()
    except Exception as e:  # noqa: BLE001
        suite.record(False, "suite", "aborted: " + describe_error(e))
    finally:
        suite.cleanup()
    suite.out("# suite time %.0f s; daemon logs /tmp/dsbridged-attack-%d.log, /tmp/dsbridged-attack-auth-%d.log"
              % (time.monotonic() - t0, o.seed, o.seed))
    return suite.checks.summary()


if __name__ == "__main__":
    sys.exit(main())
