#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The systemd watchdog pings only while the daemon's network thread runs.

Starts dsbridged with NOTIFY_SOCKET (a datagram socket of this script's) and
WATCHDOG_USEC=400000 (a ping every 200 ms), checks the pings come, then stops the
network thread alone (the thread named `lws-service`, with ptrace: PTRACE_SEIZE +
PTRACE_INTERRUPT on that thread id; every other thread, the watchdog's included, keeps
running) for 2 s: no WATCHDOG=1 may arrive while it is stopped (a daemon that pings
unconditionally fails here), and an error line must say so in the log. Then the thread is
let go: pings resume and /healthz answers. Loopback only, bounded in time, the daemon is
stopped whatever happens. Needs ptrace rights over the daemon (root, or the same user with
kernel.yama.ptrace_scope 0); without them the script says so and fails.

Usage: python3 scripts/watchdog_test.py --daemon .build/debug/dsbridged
Prints PASS/FAIL lines and `N passed, M failed`; exits 1 on a failure.
"""
import argparse
import ctypes
import os
import socket
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dsbtest.checks import Checks  # noqa: E402
from dsbtest.daemon import Daemon, binary_path, demo_args  # noqa: E402

PTRACE_DETACH = 17
PTRACE_SEIZE = 0x4206
PTRACE_INTERRUPT = 0x4207
WALL = 0x40000000

checks = Checks()


def check(name, ok, detail=""):
    checks.check(ok, name, detail)


def pings(sock, seconds):
    """WATCHDOG=1 messages received within `seconds`."""
    count = 0
    end = time.monotonic() + seconds
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return count
        sock.settimeout(left)
        try:
            data = sock.recv(4096)
        except socket.timeout:
            return count
        if data.strip() == b"WATCHDOG=1":
            count += 1


def network_thread(pid):
    for tid in os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
            if f.read().strip() == "lws-service":
                return int(tid)
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--daemon", required=True)
    o = parser.parse_args()
    libc = ctypes.CDLL(None, use_errno=True)
    libc.ptrace.restype = ctypes.c_long
    libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
    work = tempfile.mkdtemp(prefix="dsbridge-watchdog-")
    path = os.path.join(work, "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    web = os.path.join(work, "web")
    os.mkdir(web)
    with open(os.path.join(web, "index.html"), "w") as f:
        f.write("ok\n")
    env = dict(os.environ, NOTIFY_SOCKET=path, WATCHDOG_USEC="400000")
    daemon = Daemon(binary_path(o.daemon), demo_args(web, None, demo=False, admin_host="127.0.0.1"),
                    os.path.join(work, "daemon.log"), "watchdog", env=env)
    tid = None
    stopped = False
    try:
        admin = daemon.admin_port
        check("pings while serving", pings(sock, 1.0) >= 3)
        tid = network_thread(daemon.pid)
        check("the network thread is found by name (lws-service)", tid is not None)
        if tid is None:
            return
        if libc.ptrace(PTRACE_SEIZE, tid, None, None) != 0 or libc.ptrace(PTRACE_INTERRUPT, tid, None, None) != 0:
            check("ptrace may stop the network thread", False, os.strerror(ctypes.get_errno()))
            return
        os.waitpid(tid, WALL)
        stopped = True
        pings(sock, 0.5)  # one ping may have been on its way, or answered just before the stop
        during = pings(sock, 1.5)
        check("no ping while the network thread is stopped (other threads run)", during == 0,
              "%d pings in 1.5 s" % during)
        libc.ptrace(PTRACE_DETACH, tid, None, None)
        stopped = False
        check("pings resume once it runs again", pings(sock, 1.5) >= 2)
        with urllib.request.urlopen("http://127.0.0.1:%d/healthz" % admin, timeout=5) as r:
            check("/healthz answers afterwards", r.status == 200)
        text = daemon.log_text()
        check("the stall is logged", "watchdog: the network thread has not answered" in text)
    finally:
        if stopped and tid is not None:
            libc.ptrace(PTRACE_DETACH, tid, None, None)
        daemon.stop()
        sock.close()
        # Also after an early return: a failed step ends the run with its summary.
        sys.exit(checks.summary())


if __name__ == "__main__":
    main()
