# SPDX-License-Identifier: MIT
"""A browser test whose pages reach the daemon directly or through a FaultProxy that the
test cuts: the proxy, the daemon (demo, the proxy's origin allowed), headless Chromium, a
watchdog over all of it, and scenarios run one after another (one that throws is a failure,
the next one runs).

    def scenario(run): ...                         # run.driver, run.daemon, run.proxy, run.checks
    sys.exit(run_proxied(binary, "hotwire", [scenario, ...], Run, max_seconds=600))
"""

from .browser import make_driver, print_console, quit_driver, start_daemon
from .checks import Checks
from .daemon import hard_limit
from .fault_proxy import FaultProxy


def run_proxied(binary, name, scenarios, make_run, extra=(), max_seconds=600):
    """Runs `scenarios` with `make_run(driver, daemon, proxy, checks)`; returns the exit code.
    The daemon's log is /tmp/dsbridged-NAME-browser-test.log; `extra` are more daemon flags."""
    checks = Checks()
    parts = {}

    def stop_all():
        quit_driver(parts.pop("driver", None))
        if "proxy" in parts:
            parts.pop("proxy").stop()
        if "daemon" in parts:
            daemon = parts.pop("daemon")
            code = daemon.stop()
            print("daemon stopped (exit code %s); its log: %s" % (code, daemon.log_path), flush=True)

    limit = hard_limit(max_seconds, stop_all)
    try:
        # The proxy's port must be known to start the daemon (allowed origin), and the
        # daemon's port to forward: the proxy first, pointed at the daemon after.
        proxy = parts["proxy"] = FaultProxy(0, seed=1, faults=False)
        proxy.start()
        daemon = parts["daemon"] = start_daemon(
            binary, "web", ["--grace-ms", "30000", "--allowed-origin", "http://127.0.0.1:%d" % proxy.port] + list(extra),
            "/tmp/dsbridged-%s-browser-test.log" % name)
        proxy.target = ("127.0.0.1", daemon.port)
        print("daemon port %d, admin port %d, proxy port %d" % (daemon.port, daemon.admin_port, proxy.port), flush=True)
        driver = parts["driver"] = make_driver()
        run = make_run(driver, daemon, proxy, checks)
        for scenario in scenarios:
            try:
                scenario(run)
            except Exception as e:  # noqa: BLE001 - a scenario that throws is a failure, the next one runs
                checks.check(False, "%s aborted: %s: %s" % (getattr(scenario, "__name__", "scenario"), type(e).__name__, e))
    except Exception as e:  # noqa: BLE001 - any setup failure is a test failure
        checks.check(False, "test aborted: %s: %s" % (type(e).__name__, e))
    finally:
        if checks.failed and "driver" in parts:
            print_console(parts["driver"])
        stop_all()
        limit.set()
    return checks.summary()
