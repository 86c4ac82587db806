#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A node killed (or drained) under many pages (issue 16, at the scale users run): two nodes and one Redis
on loopback, started and stopped here.

--pages sessions open on node A, each calls echo.syn --calls times in one frame and reads the
`ret`s without acknowledging them. Node A is then killed (SIGKILL) and every page resumes on
node B at once (hello with its token and ack 0, --concurrency handshakes in flight), as pages
do when a balancer sends them elsewhere. With --drain, node A gets SIGTERM instead: each page
resumes on B once A has closed its socket, and A must then exit by itself with status 0. Each page must get `resumed:true` with `lastCall`
equal to its last call, then exactly its unacknowledged `ret`s again: same `seq`s, same data,
in order, nothing else before them.

Prints the figures (time until every page resumed, hello -> welcome p50/p99 under that storm,
CPU of node B and of Redis per takeover) and the exact counts of pages not resumed, `ret`s
lost, duplicated, out of order or changed; with --json FILE, writes them as JSON. Exits 1 when
any count is not 0.

    scripts/cluster_failover_bench.py --daemon .build-release/release/dsbridged [--pages 5000]

The client is the toolkit's AsyncWS (asyncio over plain sockets): with thousands of pages the
figures are bounded by this Python client before the daemon (node B's and Redis' CPU per
takeover are printed for that reason).
"""

import argparse
import asyncio
import json
import os
import resource
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dsbtest.daemon import Daemon, binary_path, demo_args, hard_limit  # noqa: E402
from dsbtest.page import AsyncWS, UpgradeRefused, call_message  # noqa: E402
from dsbtest.redis import RedisServer  # noqa: E402
from dsbtest.session import replay_counts  # noqa: E402


# How long a resumed page waits for the next replayed message before counting the rest lost.
REPLAY_WAIT_S = 10


class Page:
    def __init__(self, index, calls):
        self.index = index
        self.calls = calls
        self.token = None
        self.rets = []  # (seq, id, data) as first received
        self.socket = None

    def payload(self, call_id):
        return "page %d call %d" % (self.index, call_id)

    async def open_on(self, port):
        self.socket = await AsyncWS.open(port)
        self.socket.send_json({"t": "hello", "v": 1})
        welcome = await self.next_of("welcome")
        self.token = welcome["token"]
        self.socket.send_json([call_message(i, "echo.syn", self.payload(i)) for i in range(1, self.calls + 1)])
        while len(self.rets) < self.calls:
            for m in await self.socket.messages():
                if m.get("t") == "ret":
                    if m.get("data") != self.payload(m.get("id")):
                        raise RuntimeError("page %d: echo.syn answered %r" % (self.index, m))
                    self.rets.append((m.get("seq"), m.get("id"), m.get("data")))

    async def closed_by_server(self, counts):
        """Drain: reads until the node closes the socket (it sends nothing new meanwhile)."""
        try:
            while True:
                for m in await asyncio.wait_for(self.socket.messages(), REPLAY_WAIT_S):
                    if m.get("t") not in ("hb",):
                        counts["unexpected messages"] += 1
        except asyncio.TimeoutError:  # first: since Python 3.11 it is an OSError too
            counts["not closed by the draining node"] += 1
        except (ConnectionError, OSError):
            pass
        self.socket.abort()

    async def next_of(self, kind):
        while True:
            for m in await self.socket.messages():
                if m.get("t") == kind:
                    return m

    async def resume_on(self, port, counts, times):
        """Resumes on `port`; adds what it saw to `counts` and the hello -> welcome time to `times`."""
        try:
            socket = await AsyncWS.open(port)
            started = time.perf_counter()
            socket.send_json({"t": "hello", "v": 1, "token": self.token, "ack": 0})
            first = True
            replayed = []
            while True:
                try:
                    batch = await asyncio.wait_for(socket.messages(), REPLAY_WAIT_S)
                except asyncio.TimeoutError:
                    if first:
                        counts["not resumed"] += 1
                        socket.abort()
                        return
                    break  # what did not come is counted as lost below
                for m in batch:
                    if first:
                        first = False
                        if m.get("t") != "welcome" or m.get("resumed") is not True:
                            counts["not resumed"] += 1
                            socket.abort()
                            return
                        times.append(time.perf_counter() - started)
                        if m.get("lastCall") != self.calls:
                            counts["wrong lastCall"] += 1
                        continue
                    if m.get("t") == "ret":
                        replayed.append((m.get("seq"), m.get("id"), m.get("data")))
                    elif m.get("t") != "hb":
                        counts["unexpected messages"] += 1
                if len(replayed) >= len(self.rets):
                    break
        except (OSError, ConnectionError, UpgradeRefused):
            counts["not resumed"] += 1
            return
        for name, n in replay_counts(self.rets, replayed).items():
            counts[name] += n
        socket.send_json(call_message(self.calls + 1, "_dsb.closePage"))
        await socket.close()


async def bounded(semaphore, coroutine):
    async with semaphore:
        return await coroutine


def percentile(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(len(s) * p))] if s else None


async def run(args, a, b, redis_pid):
    pages = [Page(i, args.calls) for i in range(args.pages)]
    semaphore = asyncio.Semaphore(args.concurrency)
    started = time.perf_counter()
    await asyncio.gather(*[bounded(semaphore, p.open_on(a.port)) for p in pages])
    opened = time.perf_counter() - started

    def cpu(pid):
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    counts = {k: 0 for k in ("not resumed", "wrong lastCall", "lost", "duplicated", "out of order", "changed",
                             "unexpected messages")}
    times = []
    b_before, redis_before = cpu(b.pid), cpu(redis_pid)
    started = time.perf_counter()
    if args.drain:
        # SIGTERM: node A closes every socket (1001) and hands the sessions over; each page
        # resumes on B once its socket is closed, as dsbridge.js does.
        counts["not closed by the draining node"] = 0
        a.proc.send_signal(signal.SIGTERM)

        async def move(page):
            await page.closed_by_server(counts)
            await bounded(semaphore, page.resume_on(b.port, counts, times))
        await asyncio.gather(*[move(p) for p in pages])
        elapsed = time.perf_counter() - started
        # Its sessions handed over, the drained node exits by itself (status 0).
        deadline = time.monotonic() + 30
        while a.proc.poll() is None and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        counts["drained node not exited with 0"] = 0 if a.proc.poll() == 0 else 1
    else:
        a.kill()
        for p in pages:
            p.socket.abort()
        await asyncio.gather(*[bounded(semaphore, p.resume_on(b.port, counts, times)) for p in pages])
        elapsed = time.perf_counter() - started
    b_cpu, redis_cpu = cpu(b.pid) - b_before, cpu(redis_pid) - redis_before
    return {
        "how": "drain (SIGTERM)" if args.drain else "kill (SIGKILL)", "pages": args.pages, "unacknowledged per page": args.calls, "opened on A in s": opened,
        "all resumed on B in s": elapsed,
        "hello to welcome under the storm": {"p50": percentile(times, 0.5), "p99": percentile(times, 0.99)},
        "node B CPU per takeover µs": 1e6 * b_cpu / args.pages, "Redis CPU per takeover µs": 1e6 * redis_cpu / args.pages,
        "counts": counts,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--daemon", default=None)
    ap.add_argument("--pages", type=int, default=2000)
    ap.add_argument("--calls", type=int, default=5, help="unacknowledged rets per page")
    ap.add_argument("--concurrency", type=int, default=500, help="handshakes in flight")
    ap.add_argument("--drain", action="store_true", help="SIGTERM node A (a drain) instead of SIGKILL")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = args.pages + 1000
    if soft < need:
        if hard != resource.RLIM_INFINITY and hard < need:
            sys.exit("cluster_failover_bench: --pages %d needs %d descriptors; the hard limit is %d" % (args.pages, need, hard))
        resource.setrlimit(resource.RLIMIT_NOFILE, (need, hard))  # the daemons inherit it
    binary = binary_path(args.daemon)
    with RedisServer() as redis:
        extra = ["--redis", redis.url, "--log-level", "warning", "--grace-ms", "120000"]
        a = Daemon(binary, demo_args(extra=extra + ["--node-id", "failover-a"]), name="failover-a")
        b = Daemon(binary, demo_args(extra=extra + ["--node-id", "failover-b"]), name="failover-b")
        watchdog = hard_limit(120 + args.pages / 20, lambda: (a.kill(), b.kill(), redis.stop()))
        try:
            time.sleep(1.0)  # each node sees the other alive
            out = asyncio.run(run(args, a, b, redis.proc.pid))
        finally:
            watchdog.set()
            a.kill()
            b.stop()
    t = out["hello to welcome under the storm"]
    print("node %s under %d pages (%d unacknowledged rets each): all resumed on another node in %.2f s; "
          "hello -> welcome p50 %.0f ms, p99 %.0f ms; node B %.0f µs and Redis %.0f µs of CPU per takeover"
          % ("drained" if args.drain else "killed", out["pages"], out["unacknowledged per page"], out["all resumed on B in s"], 1000 * (t["p50"] or 0),
             1000 * (t["p99"] or 0), out["node B CPU per takeover µs"], out["Redis CPU per takeover µs"]))
    print("counts: " + ", ".join("%s %d" % kv for kv in out["counts"].items()))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    sys.exit(1 if any(out["counts"].values()) else 0)


if __name__ == "__main__":
    main()
