#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Cluster latency figures (issue 16's load-test rows), on loopback: two nodes and one Redis,
started and stopped here.

  - cross-node admin call: POST /admin/sessions/ID/call on node A into a page on node B that
    answers at once (keep-alive HTTP), p50/p99 over --calls calls; the same call on node B
    itself alongside, for reference. The page runs in a process of its own (it does not wait
    for this one's interpreter lock) and the calls go out over a plain socket, each request in
    one write, the answer read by its Content-Length: http.client's parsing alone added about
    0.2 ms to every call, the shared interpreter lock more;
  - resume on another node: a page with unacknowledged messages on A reconnects to B with
    its token; time from the new socket's hello to its welcome, p50/p99 over --resumes.

Prints one line per figure (`figure: p50 X ms, p99 Y ms (n N)`, the admin calls with the context
switches per call of each node's threads: every thread hand-off on a call's way costs one or
two, and on a virtual machine they cost more than the work around them) and, with --json FILE, writes
them as JSON.

    scripts/cluster_bench.py --daemon .build-release/release/dsbridged [--calls 300] [--resumes 100]
"""

import argparse
import json
import multiprocessing
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dsbtest.daemon import Daemon, binary_path, demo_args  # noqa: E402
from dsbtest.page import WS, call_message, return_value  # noqa: E402
from dsbtest.redis import RedisServer  # noqa: E402


def context_switches(pid):
    """Voluntary and involuntary context switches of every thread of process `pid` so far
    (each thread hand-off on a call's way costs one or two)."""
    total = 0
    for task in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/status" % (pid, task)) as f:
                total += sum(int(l.split()[1]) for l in f if "ctxt_switches:" in l)
        except OSError:
            pass  # a thread that ended
    return total


def percentile(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(len(s) * p))] if s else None


def page_process(port, conn, stop):
    """Child process: a page on `port` that answers every invoke at once and acknowledges
    what it has processed as PROTOCOL.md 2.2 asks of a page (at least every 64 messages, and
    within 1 s): every 32, in the frame of the answer that reaches that count, and when idle.
    Sends its session id through `conn`, runs until `stop` is set."""
    ws = WS(port)
    w = ws.session()
    ws.call(1, "_dsb.dsinit", None)
    ws.expect_ret(1)
    conn.send(w["session"])
    next_id, seen, acked = 2, 0, 0
    while not stop.is_set():
        if not ws.pump(0.2):
            break
        messages = [m for m in ws.take() if isinstance(m, dict)]
        if not messages and seen > acked:
            ws.ack(seen)
            acked = seen
        for m in messages:
            seen = max(seen, m.get("seq") or 0)
            if m.get("t") != "invoke":
                continue
            out = [call_message(next_id, "_dsb.returnValue", return_value(m["callbackId"], m["args"]))]
            next_id += 1
            if seen - acked >= 32:
                out.append({"t": "ack", "seq": seen})
                acked = seen
            ws.send_json(out if len(out) > 1 else out[0])
    ws.close()


def answering_page(node, stop):
    """A page on `node` in a process of its own; returns (process, session id)."""
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe()
    proc = ctx.Process(target=page_process, args=(node.port, child, stop), daemon=True)
    proc.start()
    if not parent.poll(10):
        raise RuntimeError("the answering page did not start")
    return proc, parent.recv()


class AdminClient:
    """Keep-alive HTTP/1.1 to an admin port over a plain socket: each request in one write,
    each answer read by its Content-Length."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    def post(self, request):
        self.sock.sendall(request)
        while b"\r\n\r\n" not in self.buf:
            self.buf += self.recv()
        head, _, rest = self.buf.partition(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        while len(rest) < length:
            rest += self.recv()
        self.buf = rest[length:]
        return int(head.split(b" ", 2)[1]), rest[:length]

    def recv(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise RuntimeError("the admin listener closed the connection")
        return chunk

    def close(self):
        self.sock.close()


def admin_calls(node, session, n):
    body = json.dumps({"method": "echo", "args": [1], "timeoutMs": 5000}).encode()
    request = ("POST /admin/sessions/%s/call HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n"
               "Content-Type: application/json\r\nContent-Length: %d\r\n\r\n"
               % (session, node.admin_token, len(body))).encode() + body
    client = AdminClient(node.admin_port)
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        status, answer = client.post(request)
        if status != 200:
            raise RuntimeError("admin call answered %d: %r" % (status, answer[:200]))
        times.append((time.perf_counter() - t0) * 1000)
    client.close()
    return times[n // 10:]  # the first tenth warms up


def resumes(a, b, n):
    times = []
    for i in range(n):
        ws = WS(a.port)
        w = ws.session()
        for cid in range(1, 6):
            ws.call(cid, "echo.syn", cid)
        ws.expect_ret(5)
        ws.close()
        ws2 = WS(b.port)
        t0 = time.perf_counter()
        w2 = ws2.session(token=w["token"], ack=0)
        times.append((time.perf_counter() - t0) * 1000)
        if not w2.get("resumed"):
            raise RuntimeError("resume %d was not resumed: %r" % (i, w2))
        ws2.call(6, "_dsb.closePage", None)
        ws2.close()
    return times


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--daemon", default=None)
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--resumes", type=int, default=100)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    binary = binary_path(args.daemon)
    out = {}
    stop = multiprocessing.get_context("fork").Event()
    with RedisServer() as redis:
        extra = ["--redis", redis.url, "--log-level", "warning"]
        a = Daemon(binary, demo_args(extra=extra + ["--node-id", "bench-a"]), name="bench-a")
        b = Daemon(binary, demo_args(extra=extra + ["--node-id", "bench-b"]), name="bench-b")
        page = None
        try:
            time.sleep(1.0)
            page, session = answering_page(b, stop)
            for name, node in (("cross-node admin call", a), ("same-node admin call", b)):
                before = (context_switches(a.pid), context_switches(b.pid))
                t = admin_calls(node, session, args.calls)
                after = (context_switches(a.pid), context_switches(b.pid))
                out[name] = {"p50": percentile(t, 0.5), "p99": percentile(t, 0.99), "n": len(t),
                             "switchesPerCallA": (after[0] - before[0]) / args.calls,
                             "switchesPerCallB": (after[1] - before[1]) / args.calls}
            t = resumes(a, b, args.resumes)
            out["resume on another node (hello to welcome)"] = {"p50": percentile(t, 0.5), "p99": percentile(t, 0.99), "n": len(t)}
        finally:
            stop.set()
            if page is not None:
                page.join(5)
            a.stop()
            b.stop()
    for name, f in out.items():
        switches = ""
        if "switchesPerCallA" in f:
            switches = "; context switches per call: node A %.2f, node B %.2f" % (f["switchesPerCallA"], f["switchesPerCallB"])
        print("%s: p50 %.2f ms, p99 %.2f ms (n %d)%s" % (name, f["p50"], f["p99"], f["n"], switches))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
