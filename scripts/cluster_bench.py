#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Cluster latency figures (issue 16's load-test rows), on loopback: two nodes and one Redis,
started and stopped here.

  - cross-node admin call: POST /admin/sessions/ID/call on node A into a page on node B that
    answers at once (keep-alive HTTP), p50/p99 over --calls calls; the same call on node B
    itself alongside, for reference;
  - resume on another node: a page with unacknowledged messages on A reconnects to B with
    its token; time from the new socket's hello to its welcome, p50/p99 over --resumes.

Prints one line per figure (`figure: p50 X ms, p99 Y ms (n N)`) and, with --json FILE, writes
them as JSON.

    scripts/cluster_bench.py --daemon .build-release/release/dsbridged [--calls 300] [--resumes 100]
"""

import argparse
import http.client
import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dsbtest.daemon import Daemon, binary_path, demo_args  # noqa: E402
from dsbtest.page import WS, return_value  # noqa: E402
from dsbtest.redis import RedisServer  # noqa: E402


def percentile(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(len(s) * p))] if s else None


def answering_page(node, stop):
    """A page on `node` that answers every invoke at once; returns (ws, session id)."""
    ws = WS(node.port)
    w = ws.session()
    ws.call(1, "_dsb.dsinit", None)
    ws.expect_ret(1)
    state = {"next": 2}

    def loop():
        while not stop.is_set():
            m = ws.next_message(0.2, lambda m: isinstance(m, dict) and m.get("t") == "invoke")
            if m is None:
                continue
            ws.call(state["next"], "_dsb.returnValue", return_value(m["callbackId"], m["args"]))
            state["next"] += 1
    threading.Thread(target=loop, daemon=True).start()
    return ws, w["session"]


def admin_calls(node, session, n):
    conn = http.client.HTTPConnection("127.0.0.1", node.admin_port, timeout=10)
    headers = {"Authorization": "Bearer " + node.admin_token, "Content-Type": "application/json"}
    body = json.dumps({"method": "echo", "args": [1], "timeoutMs": 5000})
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        conn.request("POST", "/admin/sessions/%s/call" % session, body, headers)
        r = conn.getresponse()
        r.read()
        if r.status != 200:
            raise RuntimeError("admin call answered %d" % r.status)
        times.append((time.perf_counter() - t0) * 1000)
    conn.close()
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
    stop = threading.Event()
    with RedisServer() as redis:
        extra = ["--redis", redis.url, "--log-level", "warning"]
        a = Daemon(binary, demo_args(extra=extra + ["--node-id", "bench-a"]), name="bench-a")
        b = Daemon(binary, demo_args(extra=extra + ["--node-id", "bench-b"]), name="bench-b")
        try:
            time.sleep(1.0)
            _, session = answering_page(b, stop)
            for name, node in (("cross-node admin call", a), ("same-node admin call", b)):
                t = admin_calls(node, session, args.calls)
                out[name] = {"p50": percentile(t, 0.5), "p99": percentile(t, 0.99), "n": len(t)}
            t = resumes(a, b, args.resumes)
            out["resume on another node (hello to welcome)"] = {"p50": percentile(t, 0.5), "p99": percentile(t, 0.99), "n": len(t)}
        finally:
            stop.set()
            a.stop()
            b.stop()
    for name, f in out.items():
        print("%s: p50 %.2f ms, p99 %.2f ms (n %d)" % (name, f["p50"], f["p99"], f["n"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
