# SPDX-License-Identifier: MIT
"""The daemon under test: dsbridged launched on loopback with free ports.

    d = Daemon(binary, demo_args(web_root="web", admin_token="t", extra=["--grace-ms", "3000"]))
    d.port, d.admin_port      # from its first stdout line, `listening port=P admin-port=A`
    d.admin("GET", "/admin/sessions")    # (status, JSON) with the admin token
    d.stop()                  # SIGTERM, SIGKILL after `timeout`; returns the exit code

Starting waits at most `start_timeout` for the `listening` line and stops the process when
it does not come. Stdout is drained in a thread; stderr (the log) goes to `log_path`, a
temporary file unless given; `log_text()` reads it. Also here: `binary_path` (the --daemon
flag relative to the repository), `make_cert` (a throwaway certificate for --tls-cert),
`hard_limit` (a watchdog that ends a whole script in bounded time), `checks_limit` (the
same for a script with Checks: a failed `watchdog` check, its daemons killed, the summary),
and `script_parser` (a test script's argparse parser with --daemon).
"""

import os
import signal
import subprocess
import sys
import tempfile
import threading

from .http import http, request_json

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HOST = "127.0.0.1"
DEFAULT_BINARY = ".build/debug/dsbridged"


def binary_path(path=None):
    """The daemon binary: `path` (relative to the working directory if it is there, else to
    the repository), $DSBRIDGED, or the debug build."""
    path = path or os.environ.get("DSBRIDGED") or DEFAULT_BINARY
    if os.path.isabs(path):
        return path
    return os.path.abspath(path) if os.path.exists(path) else os.path.join(ROOT, path)


def demo_args(web_root="web", admin_token="t", demo=True, tls=None, admin_host=None, extra=()):
    """The usual command line: loopback, port 0 for both listeners, an admin token, a web
    root, --demo; `tls` is (cert, key); `extra` is appended."""
    args = ["--host", HOST, "--port", "0"]
    if admin_host:
        args += ["--admin-host", admin_host]
    args += ["--admin-port", "0"]
    if admin_token:
        args += ["--admin-token", admin_token]
    if web_root:
        args += ["--web-root", web_root]
    if demo:
        args.append("--demo")
    if tls:
        args += ["--tls-cert", tls[0], "--tls-key", tls[1]]
    return args + list(extra)


def make_cert(folder=None):
    """A throwaway self-signed certificate for 127.0.0.1 (openssl CLI): (cert, key) paths."""
    folder = folder or tempfile.mkdtemp(prefix="dsbridged-tls-")
    cert, key = os.path.join(folder, "cert.pem"), os.path.join(folder, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                    "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True, timeout=60)
    return cert, key


class Daemon:
    """The daemon process; stop() always ends it (SIGTERM, then SIGKILL)."""

    def __init__(self, binary, args, log_path=None, name="daemon", env=None, start_timeout=30, admin_token=None,
                 wrapper=()):
        """Starts `binary args` (after `wrapper`, a command that execs it, e.g. prlimit)."""
        self.name = name
        if log_path is None:
            fd, log_path = tempfile.mkstemp(prefix="dsbridged-%s-" % name, suffix=".log")
            os.close(fd)
        self.log_path = log_path
        self.log = open(log_path, "wb")
        self.args = list(args)
        if admin_token is None and "--admin-token" in self.args:
            admin_token = self.args[self.args.index("--admin-token") + 1]
        self.admin_token = admin_token
        self.scheme = "https" if "--tls-cert" in self.args else "http"
        self.proc = subprocess.Popen(list(wrapper) + [binary] + self.args, stdout=subprocess.PIPE, stderr=self.log,
                                     stdin=subprocess.DEVNULL, cwd=ROOT, env=env)
        self.pid = self.proc.pid
        self.exit_code = None
        self.port = self.admin_port = None
        try:
            self.first_line = self._first_line(start_timeout)
            fields = dict(p.split("=", 1) for p in self.first_line.split()[1:] if "=" in p)
            if not self.first_line.startswith("listening ") or "port" not in fields or "admin-port" not in fields:
                raise RuntimeError("unexpected first line from the daemon: %r; log: %s"
                                   % (self.first_line, self.log_tail()))
            self.port = int(fields["port"])
            self.admin_port = int(fields["admin-port"])
        except BaseException:
            self.stop()
            raise
        threading.Thread(target=self._drain, daemon=True).start()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    def _first_line(self, timeout):
        result = []
        t = threading.Thread(target=lambda: result.append(self.proc.stdout.readline().decode("utf-8", "replace").strip()),
                             daemon=True)
        t.start()
        t.join(timeout)
        if not result or not result[0]:
            raise RuntimeError("the daemon printed no `listening` line within %d s (exit code %s); see %s"
                               % (timeout, self.proc.poll(), self.log_path))
        return result[0]

    def _drain(self):
        try:
            for _ in self.proc.stdout:
                pass
        except (OSError, ValueError):
            pass

    # -- what it serves ----------------------------------------------------------------------

    def url(self, path="/", port=None):
        return "%s://%s:%d%s" % (self.scheme, HOST, port or self.port, path)

    def admin(self, method, path, body=None, timeout=40):
        """An admin API request with the admin token: (status, JSON answer or text)."""
        headers = {"Authorization": "Bearer " + self.admin_token} if self.admin_token else {}
        return request_json("http://%s:%d%s" % (HOST, self.admin_port, path), method, body, headers, timeout)

    def healthz(self, timeout=3.0):
        return http(self.admin_port, "GET", "/healthz", ["Connection: close"], timeout=timeout)

    # -- the process -------------------------------------------------------------------------

    def alive(self):
        return self.proc.poll() is None

    def _status_field(self, field):
        try:
            with open("/proc/%d/status" % self.pid) as f:
                for line in f:
                    if line.startswith(field + ":"):
                        return int(line.split()[1])
        except OSError:
            return None
        return None

    def rss_kib(self):
        return self._status_field("VmRSS")

    def threads(self):
        return self._status_field("Threads")

    def open_fds(self):
        try:
            return len(os.listdir("/proc/%d/fd" % self.pid))
        except OSError:
            return None

    def cpu_seconds(self):
        """User + system CPU time of the process so far."""
        try:
            with open("/proc/%d/stat" % self.pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            return None

    def log_text(self):
        if not self.log.closed:
            self.log.flush()
        try:
            with open(self.log_path, "rb") as f:
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def log_tail(self, n=600):
        return self.log_text()[-n:]

    def stop(self, timeout=10):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        if not self.log.closed:
            self.log.close()
        self.exit_code = self.proc.returncode
        if self.exit_code is not None and self.exit_code < 0 and self.exit_code != -signal.SIGKILL:
            # Killed by a signal of its own (a crash): the Swift runtime's backtrace is in its log.
            sys.stderr.write("%s (pid %d) ended by signal %d; the end of its log (%s):\n%s\n"
                             % (self.name, self.pid, -self.exit_code, self.log_path, self.log_tail(4000)))
        return self.exit_code

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()


def script_parser(doc):
    """A test script's argparse parser: `doc` as its description, and --daemon (the binary,
    see binary_path; $DSBRIDGED or the debug build when not given)."""
    import argparse
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--daemon", default=os.environ.get("DSBRIDGED", DEFAULT_BINARY))
    return parser


def http_test_options(doc, tls_help):
    """The options of an HTTP rules test over a temporary web root (http_framing_test,
    http_keepalive_test), parsed: the first line of `doc` as the description, --daemon (the
    binary, required), --tls (what goes over TLS with a throwaway certificate: `tls_help`)
    and --keep (the temporary web root and log)."""
    import argparse
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--daemon", required=True, help="path of the dsbridged binary")
    parser.add_argument("--tls", action="store_true", help=tls_help)
    parser.add_argument("--keep", action="store_true", help="keep the temporary web root and log")
    return parser.parse_args()


def checks_limit(seconds, checks, daemons):
    """hard_limit for a script that records Checks: after `seconds`, a failed `watchdog`
    check, every daemon in daemons() killed, the summary printed."""
    def expired():
        checks.check(False, "watchdog", "over %.0f s" % seconds)
        for d in daemons():
            if d is not None:
                d.kill()
        checks.summary()
    return hard_limit(seconds, expired)


def hard_limit(seconds, on_expire, code=3):
    """A watchdog thread: after `seconds`, calls on_expire() (which should stop the daemons)
    and ends the process with `code`. Returns a threading.Event that disarms it."""
    done = threading.Event()

    def watch():
        if not done.wait(seconds):
            try:
                on_expire()
            finally:
                os._exit(code)
    threading.Thread(target=watch, daemon=True, name="hard-limit").start()
    return done
