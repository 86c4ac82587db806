# SPDX-License-Identifier: MIT
"""A redis-server of the test's own on loopback (Debian's redis-server, installed by
scripts/install-test-deps.sh): started on a free port without persistence, stopped by the test.

    with RedisServer() as r:
        r.url          # redis://127.0.0.1:PORT
        r.restart()    # stop and start again on the same port (empty)
"""

import os
import shutil
import socket
import subprocess
import tempfile
import time

REDIS_SERVER = "/usr/bin/redis-server"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    def __init__(self, port=None):
        if not os.path.exists(REDIS_SERVER):
            raise RuntimeError("%s is missing: run scripts/install-test-deps.sh (it installs Debian's redis-server)"
                               % REDIS_SERVER)
        self.port = port or free_port()
        self.folder = tempfile.mkdtemp(prefix="dsbridged-redis-")
        self.proc = None
        self.start()

    @property
    def url(self):
        return "redis://127.0.0.1:%d" % self.port

    def start(self, timeout=10):
        log = open(os.path.join(self.folder, "redis.log"), "ab")
        self.proc = subprocess.Popen(
            [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--daemonize", "no", "--dir", self.folder], stdout=log, stderr=log, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.ping():
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise RuntimeError("redis-server did not answer PING on port %d (see %s)" % (self.port, self.folder))

    def ping(self):
        return self.command("PING") == "PONG"

    def command(self, *args, timeout=2.0):
        """One command over RESP; the reply as str/int/list/None (errors raise)."""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=timeout) as s:
                out = b"*%d\r\n" % len(args)
                for a in args:
                    a = a if isinstance(a, bytes) else str(a).encode()
                    out += b"$%d\r\n%s\r\n" % (len(a), a)
                s.sendall(out)
                f = s.makefile("rb")
                return _read_reply(f)
        except OSError:
            return None

    def stop(self, timeout=10):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)

    def restart(self):
        self.stop()
        self.start()

    def close(self):
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _read_reply(f):
    line = f.readline()
    if not line:
        raise OSError("connection closed")
    kind, rest = line[:1], line[1:-2]
    if kind == b"+":
        return rest.decode()
    if kind == b"-":
        raise RuntimeError(rest.decode())
    if kind == b":":
        return int(rest)
    if kind == b"$":
        n = int(rest)
        if n < 0:
            return None
        data = f.read(n + 2)[:-2]
        return data.decode("utf-8", "replace")
    if kind == b"*":
        n = int(rest)
        if n < 0:
            return None
        return [_read_reply(f) for _ in range(n)]
    raise RuntimeError("unexpected reply %r" % line)
