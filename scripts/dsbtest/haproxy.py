# SPDX-License-Identifier: MIT
"""HAProxy in front of a loopback cluster, configured from deploy/haproxy-dsbridged.cfg.

    text = render(port=8080, nodes=[("node1", 8101, 8201), ...], affinity=False)
    with HAProxy(nodes, affinity=False) as h:      # a free port unless given
        h.port, h.url("/")                          # the balancer's page port
        h.wait_up(["node1", "node2"])               # its health checks see those nodes up

`render` takes the deploy example and keeps its `defaults`, `frontend` and `backend`
sections (timeouts, health checks, balancing: what is tested is what is deployed); it
replaces the `global` section with one for a process of the test's own (no chroot, user,
syslog or admin socket in /run; logs on stdout; a runtime-API socket in the temporary
folder), the frontend's `bind` lines with one loopback port (and drops its redirect to
https), the server lines between the "nodes" marks with the given nodes, and with
`affinity=True` uncomments the `#cookie` line.

Also a command line, for scripts/cluster-demo.sh:

    python3 scripts/dsbtest/haproxy.py render --port P --node NAME:PORT:ADMINPORT ... [--affinity]
    python3 scripts/dsbtest/haproxy.py wait-up --socket S --node NAME ... [--timeout 20]
"""

import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

HAPROXY = "/usr/sbin/haproxy"
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TEMPLATE = os.path.join(ROOT, "deploy", "haproxy-dsbridged.cfg")
NODES_BEGIN = "# --- nodes"
NODES_END = "# --- end of nodes ---"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_global(stats_socket=None):
    lines = ["global",
             "    # (a test's own process: scripts/dsbtest/haproxy.py replaced the deploy example's global section)",
             "    log stdout format raw local0 info",
             "    maxconn 4096"]
    if stats_socket:
        lines.append("    stats socket %s mode 600 level admin" % stats_socket)
    return lines


def render(port, nodes, affinity=False, template=TEMPLATE, stats_socket=None, host="127.0.0.1"):
    """The deploy example rendered for loopback: `nodes` is a list of (name, port, admin_port)."""
    with open(template, encoding="utf-8") as f:
        lines = f.read().split("\n")
    out = []
    section = None
    in_nodes = False
    seen = {"global": False, "bind": False, "nodes": False, "cookie": not affinity}
    for line in lines:
        if line and not line[0].isspace() and not line.startswith("#"):
            section = line.split()[0]
            if section == "global":
                out.extend(test_global(stats_socket))
                seen["global"] = True
                continue
        if section == "global":
            continue  # replaced above
        stripped = line.strip()
        if section == "frontend":
            if stripped.startswith("bind "):
                if not seen["bind"]:
                    out.append("    bind %s:%d" % (host, port))
                    seen["bind"] = True
                continue
            if stripped.startswith("http-request redirect scheme https"):
                continue
        if section == "backend":
            if stripped.startswith(NODES_BEGIN):
                in_nodes = True
                out.append(line)
                for name, node_port, admin_port in nodes:
                    out.append("    server %s %s:%d check port %d cookie %s" % (name, host, node_port, admin_port, name))
                seen["nodes"] = True
                continue
            if in_nodes:
                if stripped == NODES_END:
                    in_nodes = False
                    out.append(line)
                continue
            if affinity and re.match(r"^#cookie\s", stripped):
                out.append(line.replace("#cookie", "cookie", 1))
                seen["cookie"] = True
                continue
        out.append(line)
    missing = [k for k, v in seen.items() if not v]
    if missing or in_nodes:
        raise ValueError("%s: cannot render it for the tests (not found: %s)" % (template, missing or ["end of nodes"]))
    return "\n".join(out)


def runtime_command(sock_path, command, timeout=2.0):
    """One command on HAProxy's runtime API (stats socket); its answer, or None."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(timeout)
            s.connect(sock_path)
            s.sendall(command.encode() + b"\n")
            data = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
            return data.decode("utf-8", "replace")
    except OSError:
        return None


def server_states(sock_path, backend="dsbridged"):
    """{server name: "UP"/"DOWN"/"MAINT"/... } from `show stat`; {} when it does not answer."""
    text = runtime_command(sock_path, "show stat")
    states = {}
    if not text:
        return states
    header = None
    for line in text.splitlines():
        if line.startswith("# "):
            header = line[2:].split(",")
            continue
        if not header or not line:
            continue
        row = dict(zip(header, line.split(",")))
        if row.get("pxname") == backend and row.get("svname") not in ("FRONTEND", "BACKEND"):
            states[row["svname"]] = row.get("status", "")
    return states


def wait_up(sock_path, names, timeout=20.0, up=True):
    """Waits until HAProxy sees every node of `names` UP (or, with up=False, not UP)."""
    deadline = time.monotonic() + timeout
    while True:
        states = server_states(sock_path)
        ok = all((states.get(n, "").startswith("UP")) == up for n in names) and states
        if ok:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


class HAProxy:
    """haproxy -db with a rendered config in a temporary folder; stop() ends it."""

    def __init__(self, nodes, port=None, affinity=False, log_path=None, folder=None):
        if not os.path.exists(HAPROXY):
            raise RuntimeError("%s is missing: run scripts/install-test-deps.sh (it installs Debian's haproxy)" % HAPROXY)
        self.folder = folder or tempfile.mkdtemp(prefix="dsbridged-haproxy-")
        self.own_folder = folder is None
        self.port = port or free_port()
        self.nodes = list(nodes)
        self.socket = os.path.join(self.folder, "admin.sock")
        self.config = os.path.join(self.folder, "haproxy.cfg")
        with open(self.config, "w", encoding="utf-8") as f:
            f.write(render(self.port, self.nodes, affinity, stats_socket=self.socket))
        self.log_path = log_path or os.path.join(self.folder, "haproxy.log")
        check = subprocess.run([HAPROXY, "-c", "-q", "-f", self.config], capture_output=True, text=True, timeout=30)
        if check.returncode != 0:
            raise RuntimeError("haproxy -c refuses the rendered config %s: %s" % (self.config, (check.stdout + check.stderr)[-800:]))
        self.log = open(self.log_path, "ab")
        self.proc = subprocess.Popen([HAPROXY, "-db", "-f", self.config], stdout=self.log, stderr=self.log,
                                     stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("haproxy exited at start (code %s): %s" % (self.proc.returncode, self.log_tail()))
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                if os.path.exists(self.socket):
                    return
            except OSError:
                pass
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("haproxy does not listen on port %d: %s" % (self.port, self.log_tail()))

    def url(self, path="/"):
        return "http://127.0.0.1:%d%s" % (self.port, path)

    @property
    def origin(self):
        return "http://127.0.0.1:%d" % self.port

    def states(self):
        return server_states(self.socket)

    def wait_up(self, names, timeout=20.0):
        return wait_up(self.socket, names, timeout, up=True)

    def wait_down(self, names, timeout=20.0):
        return wait_up(self.socket, names, timeout, up=False)

    def alive(self):
        return self.proc.poll() is None

    def log_tail(self, n=2000):
        try:
            self.log.flush()
        except (ValueError, AttributeError):
            pass
        try:
            with open(self.log_path, "rb") as f:
                return f.read()[-n:].decode("utf-8", "replace")
        except OSError:
            return ""

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        if not self.log.closed:
            self.log.close()
        return self.proc.returncode

    def close(self):
        self.stop()
        if self.own_folder:
            shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def main(argv=None):
    p = argparse.ArgumentParser(description="Render deploy/haproxy-dsbridged.cfg for loopback, or wait for its nodes.")
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("render", help="print the rendered config")
    r.add_argument("--port", type=int, required=True)
    r.add_argument("--node", action="append", required=True, help="NAME:PORT:ADMINPORT (repeatable)")
    r.add_argument("--affinity", action="store_true")
    r.add_argument("--stats-socket")
    w = sub.add_parser("wait-up", help="wait until HAProxy (runtime API socket) sees the nodes up")
    w.add_argument("--socket", required=True)
    w.add_argument("--node", action="append", required=True)
    w.add_argument("--timeout", type=float, default=20)
    o = p.parse_args(argv)
    if o.command == "render":
        nodes = []
        for spec in o.node:
            name, port, admin = spec.split(":")
            nodes.append((name, int(port), int(admin)))
        sys.stdout.write(render(o.port, nodes, o.affinity, stats_socket=o.stats_socket) + "\n")
        return 0
    ok = wait_up(o.socket, o.node, o.timeout)
    if not ok:
        print("haproxy sees: %s" % server_states(o.socket), file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
