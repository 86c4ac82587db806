#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Where a call's CPU goes: sorts the samples of `perf script` (a cpu-clock profile of
dsbridged under a saturating load, taken by scripts/profile-saturation.sh) into the stages of
a call and prints each stage's share and microseconds a call.

    perf script -F comm,tid,ip,sym -i perf.data | scripts/profile_stages.py --us-per-call 2.74

A sample goes to the first stage, in the table's order, that one of its stack's frames
names (kernel work first, then the innermost parts of a call before the outer ones); the
rest is "other". --top N also lists the N functions with the most samples of their own
(names demangled with `swift demangle` when swift is on PATH). docs/PERFORMANCE.md, "Where a
call's time goes at saturation", has a table made this way.
"""
import argparse
import collections
import shutil
import subprocess
import sys

# (stage, substrings of mangled or kernel frame names; a sample matches when any frame
# contains any of them). Order matters: the first stage that matches takes the sample.
STAGES = [
    ("kernel: send, recv, epoll_wait (loopback delivery included)",
     ["entry_SYSCALL_64", "__send", "__libc_recv", "epoll_wait", "__libc_sendmsg", "__libc_recvmsg"]),
    ("the answer: encoded, kept in the replay log", ["SessionStateV6append"]),
    ("metrics: call counter, duration histogram", ["BridgeMetricsC4call"]),
    ("the arg: data and stub read into a JSONValue", ["CallArgumentV3raw"]),
    ("the method's run (task-local, clock, guard, the method)", ["runSynchronous", "runAsynchronous"]),
    ("sync HTTP: the call read from the request, the answer body", ["SyncCallRequest", "SyncHTTP"]),
    ("the call's set-up (route, MethodCall, acceptance, rate)",
     ["BridgeSessionC3run6method", "receiveCall", "takeCallTokens"]),
    ("decoding the frame (scan, envelope)", ["BridgeConnectionC6decode"]),
    ("routes for the network thread", ["InlineDispatchPolicyO6routes"]),
    ("the dispatch loop (plan, clock)", ["BridgeConnectionC8dispatch"]),
    ("the connection's state (receipt, processing)", ["BridgeConnectionC7receive"]),
    ("WebSocket frames in (header, unmasking, UTF-8)", ["readFrames"]),
    ("the socket's connection: polling, HTTP parsing, reads and writes",
     ["PlainHTTPConnection", "HTTPConnectionMachine", "HTTPRequestHead", "ServiceLoop+PlainHTTP"]),
    ("frames out (take frame, write buffer)", ["flushInlineAnswers", "ServiceLoopC4pump", "beforeWait"]),
]
OTHER = "other: malloc and free, the loop, the runtime outside a stage"


def read_samples(stream):
    """Yields (thread, frames leaf first) for each sample of `perf script` output."""
    thread, frames = None, []
    for line in stream:
        if not line.strip():
            if thread is not None:
                yield thread, frames
            thread, frames = None, []
        elif not line[0].isspace():
            parts = line.split()
            thread = " ".join(parts[:2])
        else:
            fields = line.strip().split(None, 1)
            frames.append(fields[1] if len(fields) > 1 else fields[0])
    if thread is not None:
        yield thread, frames


def stage_of(frames):
    for name, needles in STAGES:
        if any(needle in frame for frame in frames for needle in needles):
            return name
    return OTHER


def demangle(names):
    """`names` demangled by `swift demangle` (as they are when it is not there or fails)."""
    if not shutil.which("swift"):
        return names
    try:
        done = subprocess.run(["swift", "demangle", "--simplified", "--compact"], input="\n".join(names),
                              capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return names
    out = done.stdout.splitlines()
    return out if done.returncode == 0 and len(out) == len(names) else names


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--us-per-call", type=float, default=0.0,
                        help="the run's server CPU per call (µs), to print each stage's share of it")
    parser.add_argument("--thread", default="",
                        help="only samples of threads whose name contains this (e.g. lws-service)")
    parser.add_argument("--top", type=int, default=0, help="also list the N functions with the most own samples")
    args = parser.parse_args()

    stages = collections.Counter()
    own = collections.Counter()
    total = 0
    for thread, frames in read_samples(sys.stdin):
        if args.thread and args.thread not in thread:
            continue
        total += 1
        stages[stage_of(frames)] += 1
        if frames:
            own[frames[0]] += 1
    if total == 0:
        sys.exit("profile_stages: no samples read (is this `perf script` output?)")

    us = args.us_per_call
    print(f"{total} samples" + (f", {us:.2f} µs CPU per call" if us else ""))
    print("| stage | share | µs a call |")
    print("|---|---|---|")
    for name in [n for n, _ in STAGES] + [OTHER]:
        share = stages[name] / total
        print(f"| {name} | {100 * share:.1f}% | {us * share:.2f} |" if us else f"| {name} | {100 * share:.1f}% | – |")
    if args.top:
        top = own.most_common(args.top)
        names = demangle([name for name, _ in top])
        print(f"\nthe {args.top} functions with the most samples of their own:")
        for (_, count), name in zip(top, names):
            print(f"  {100 * count / total:5.2f}%  {name[:150]}")


if __name__ == "__main__":
    main()
