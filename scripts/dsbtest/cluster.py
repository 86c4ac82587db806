# SPDX-License-Identifier: MIT
"""A dsbridged cluster on loopback: Redis, N nodes and HAProxy in front (docs/CLUSTER.md).

    with Cluster(binary, nodes=3, log_dir="/tmp/x", extra=["--demo"]) as c:
        c.balancer.port                  # HAProxy: pages connect here
        c.nodes["node1"].admin("GET", "/admin/sessions")
        c.kill("node1"); c.restart("node1")        # SIGKILL, then the same name and ports
        c.drain("node2"); c.restart("node2")       # SIGTERM, wait for the exit
        c.owner_of(session_id)                     # the node the admin API lists it on

Each node keeps its name and both ports across restarts (ports picked free once, at start),
so a restarted node takes its old place in HAProxy's backend. Each incarnation logs to its own
file (`NAME-K.log` in `log_dir`). The balancer's config is deploy/haproxy-dsbridged.cfg
rendered by dsbtest.haproxy. Every node gets --allowed-origin of the balancer's origin.
"""

import os
import signal
import socket
import subprocess
import tempfile
import threading
import time

from .daemon import Daemon
from .haproxy import HAProxy
from .redis import RedisServer


def free_ports(n):
    """n distinct free loopback ports (all bound at once, so none is handed out twice)."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()

ADMIN_TOKEN = "t"


class Node:
    """One node: its fixed name and ports, the running Daemon (or None) and its history."""

    def __init__(self, cluster, name, port, admin_port):
        self.cluster = cluster
        self.name = name
        self.port = port
        self.admin_port = admin_port
        self.daemon = None
        self.incarnation = 0
        self.epoch = 0          # +1 each time the node is taken down (kill or drain)
        self.state = "stopped"  # up, killed, draining, stopped
        self.logs = []

    def start(self, timeout=30):
        self.incarnation += 1
        log = os.path.join(self.cluster.log_dir, "%s-%02d.log" % (self.name, self.incarnation))
        self.logs.append(log)
        args = ["--host", "127.0.0.1", "--port", str(self.port), "--admin-host", "127.0.0.1",
                "--admin-port", str(self.admin_port), "--admin-token", self.cluster.admin_token,
                "--web-root", self.cluster.web_root, "--redis", self.cluster.redis.url, "--node-id", self.name,
                "--allowed-origin", "http://127.0.0.1:%d" % self.cluster.balancer_port,
                "--allowed-origin", "http://localhost:%d" % self.cluster.balancer_port,
                "--trusted-proxy", "127.0.0.1"] + list(self.cluster.extra)
        # Binding the same port again right after a SIGKILL can meet the old socket for a moment.
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.daemon = Daemon(self.cluster.binary, args, log, "%s-%d" % (self.name, self.incarnation),
                                     env=self.cluster.env, start_timeout=max(1, deadline - time.monotonic()))
                break
            except RuntimeError:
                if time.monotonic() > deadline or "in use" not in _read(log).lower():
                    raise
                time.sleep(0.1)
        self.state = "up"
        return self.daemon

    def admin(self, method, path, body=None, timeout=40):
        return self.daemon.admin(method, path, body, timeout)

    def alive(self):
        return self.daemon is not None and self.daemon.alive()

    def log_tail(self, n=1500):
        return _read(self.logs[-1])[-n:] if self.logs else ""


def _read(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


class Cluster:
    def __init__(self, binary, nodes=3, log_dir=None, extra=(), env=None, affinity=False, web_root="web",
                 admin_token=ADMIN_TOKEN, names=None, wait_up=True):
        self.binary = binary
        self.log_dir = log_dir or tempfile.mkdtemp(prefix="dsbridged-cluster-")
        os.makedirs(self.log_dir, exist_ok=True)
        self.extra = list(extra)
        self.env = env
        self.web_root = web_root
        self.admin_token = admin_token
        self.lock = threading.Lock()
        self.redis = None
        self.balancer = None
        names = names or ["node%d" % (i + 1) for i in range(nodes)]
        ports = free_ports(2 + 2 * len(names))
        self.balancer_port = ports[0]
        self.nodes = {}
        try:
            self.redis = RedisServer(port=ports[1])
            for i, name in enumerate(names):
                self.nodes[name] = Node(self, name, ports[2 + 2 * i], ports[3 + 2 * i])
            for node in self.nodes.values():
                try:
                    node.start(timeout=5)
                except RuntimeError:
                    # A port taken by another process since it was picked: new ones (the
                    # balancer is configured only below), once.
                    if "in use" not in node.log_tail(400).lower():
                        raise
                    node.port, node.admin_port = free_ports(2)
                    node.incarnation = 0
                    node.logs = []
                    node.start()
            self.balancer = HAProxy([(n.name, n.port, n.admin_port) for n in self.nodes.values()],
                                    port=self.balancer_port, affinity=affinity,
                                    log_path=os.path.join(self.log_dir, "haproxy.log"),
                                    folder=tempfile.mkdtemp(prefix="haproxy-", dir=self.log_dir))
            if wait_up and not self.balancer.wait_up(list(self.nodes), 30):
                raise RuntimeError("HAProxy does not see every node up: %s" % self.balancer.states())
        except BaseException:
            self.close()
            raise

    # -- what it serves ------------------------------------------------------------------------

    @property
    def port(self):
        return self.balancer.port

    def url(self, path="/"):
        return self.balancer.url(path)

    def up_nodes(self):
        return [n for n in self.nodes.values() if n.state == "up" and n.alive()]

    def admin(self, method, path, body=None, timeout=40, node=None):
        """An admin request on `node` (a name) or on the first node that is up."""
        target = self.nodes[node] if node else self.up_nodes()[0]
        return target.admin(method, path, body, timeout)

    def sessions(self, node=None):
        status, listed = self.admin("GET", "/admin/sessions", node=node)
        return listed if status == 200 and isinstance(listed, list) else []

    def owner_of(self, session, node=None):
        for s in self.sessions(node):
            if s.get("session") == session:
                return s.get("node"), s
        return None, None

    # -- faults --------------------------------------------------------------------------------

    def kill(self, name):
        """SIGKILL; returns once the process is gone."""
        node = self.nodes[name]
        node.epoch += 1
        node.state = "killed"
        node.daemon.proc.send_signal(signal.SIGKILL)
        node.daemon.proc.wait(10)
        node.daemon.stop()
        return node

    def drain(self, name, timeout=60):
        """SIGTERM and wait for the exit: (exit code, seconds it took); code None if it did not
        exit within `timeout` (it is killed then)."""
        node = self.nodes[name]
        node.epoch += 1
        node.state = "draining"
        start = time.monotonic()
        node.daemon.proc.send_signal(signal.SIGTERM)
        try:
            code = node.daemon.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            code = None
        took = time.monotonic() - start
        node.daemon.stop()
        node.state = "stopped"
        return code, took

    def restart(self, name, wait_up=True, timeout=30):
        """Starts the node again with its name and ports; with wait_up, until HAProxy sees it up."""
        node = self.nodes[name]
        node.start()
        if wait_up and not self.balancer.wait_up([name], timeout):
            raise RuntimeError("HAProxy does not see %s up again within %d s: %s"
                               % (name, timeout, self.balancer.states()))
        return node

    # -- the end -------------------------------------------------------------------------------

    def log_tails(self, n=1500):
        out = []
        for node in self.nodes.values():
            out.append("---- %s (incarnation %d, %s): %s" % (node.name, node.incarnation, node.state,
                                                            node.logs[-1] if node.logs else "-"))
            out.append(node.log_tail(n))
        if self.balancer:
            out.append("---- haproxy: %s" % self.balancer.log_path)
            out.append(self.balancer.log_tail(n))
        return "\n".join(out)

    def close(self):
        """Stops everything it started (nodes, HAProxy, Redis); exit codes of the nodes."""
        codes = {}
        for node in self.nodes.values():
            if node.daemon is not None:
                codes[node.name] = node.daemon.stop()
                node.state = "stopped"
        if self.balancer is not None:
            self.balancer.close()
        if self.redis is not None:
            self.redis.close()
        return codes

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
