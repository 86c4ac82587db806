#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every metric family is in `/metrics` from the first scrape (PROTOCOL.md 6, text revision
1.13), and docs/OPERATIONS.md lists exactly the families the daemon exports.

Starts a fresh daemon three times (alone; in cluster mode with a redis-server of the test's
own; with tracing on, `--otel-endpoint` at a port nobody listens on) and scrapes `/metrics`
before any page connected. Each time, the families (`# TYPE` lines) must be exactly those of
the table in docs/OPERATIONS.md ("Metrics"), less the cluster-only rows when not in cluster
mode, with the table's type, each with a `# HELP` line; a family without labels must have
its sample (counters 0, histograms with `_count 0`), a family with fixed labels (the table
names their values) a sample for each value. A family added to the code and not to the
table, or listed and not exported, fails.

    scripts/metrics_families_test.py [--daemon .build/debug/dsbridged]

Prints a line per check and `N passed, M failed`; exits non-zero on any failure. Everything
runs on 127.0.0.1, bounded in time; every process started is stopped.
"""

import os
import re
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dsbtest.checks import Checks  # noqa: E402
from dsbtest.daemon import Daemon, ROOT, binary_path, demo_args, checks_limit, script_parser  # noqa: E402
from dsbtest.metrics import scrape  # noqa: E402
from dsbtest.redis import RedisServer  # noqa: E402

TOKEN = "metrics-families"
RUNNING = []
ROW = re.compile(r"^\s*\|\s*`(dsbridge_[a-z_]+)`\s*\|\s*(counter|gauge|histogram)\s*\|([^|]*)\|([^|]*)\|\s*$")


def documented():
    """{family: (type, fixed label values or None, cluster only)} from docs/OPERATIONS.md."""
    out = {}
    with open(os.path.join(ROOT, "docs", "OPERATIONS.md"), encoding="utf-8") as f:
        for line in f:
            m = ROW.match(line)
            if not m:
                continue
            name, kind, labels, what = m.group(1), m.group(2), m.group(3).strip(), m.group(4)
            fixed = None
            lm = re.match(r"^`([a-z_]+)` \(([^)]*)\)$", labels)
            if lm:
                fixed = (lm.group(1), [v.strip() for v in lm.group(2).split(",")])
            out[name] = {"type": kind, "labels": labels, "fixed": fixed, "cluster": "cluster mode only" in what}
    return out


def exported(text):
    """{family: {"type": T, "help": bool, "samples": [line...]}} of a Prometheus text."""
    families = {}
    helped = set()
    for line in text.splitlines():
        if line.startswith("# HELP "):
            helped.add(line.split(" ")[2])
        elif line.startswith("# TYPE "):
            parts = line.split(" ")
            families.setdefault(parts[2], {"type": parts[3], "samples": []})
        elif line and not line.startswith("#"):
            name = re.match(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)", line).group(1)
            for suffix in ("", "_bucket", "_count", "_sum"):
                base = name[: len(name) - len(suffix)] if suffix and name.endswith(suffix) else name
                if base in families:
                    families[base]["samples"].append(line)
                    break
    for name, f in families.items():
        f["help"] = name in helped
    return families


def first_scrape(binary, extra, label, checks, docs, cluster):
    args = demo_args(os.path.join(ROOT, "web"), TOKEN, admin_host="127.0.0.1", extra=list(extra))
    d = Daemon(binary, args, "/tmp/dsbridged-metrics-%s.log" % label.replace(" ", "-"))
    RUNNING.append(d)
    try:
        text = scrape(d.admin_port, TOKEN)
        checks.check(text != "", "%s: scrape" % label, "GET /metrics before any page answers 200")
        got = exported(text)
        want = {n: f for n, f in docs.items() if cluster or not f["cluster"]}
        missing = sorted(set(want) - set(got))
        extra_families = sorted(n for n in set(got) - set(want) if n.startswith("dsbridge_"))
        checks.check(not missing and not extra_families, "%s: families as documented" % label,
                     "%d families exported, %d documented; missing from the scrape: %s; not in docs/OPERATIONS.md: %s"
                     % (len(got), len(want), missing or "none", extra_families or "none"))
        wrong = ["%s is %s, documented %s" % (n, got[n]["type"], want[n]["type"])
                 for n in sorted(set(want) & set(got)) if got[n]["type"] != want[n]["type"]]
        checks.check(not wrong, "%s: types as documented" % label, "; ".join(wrong) or "every type matches")
        no_help = sorted(n for n in got if n.startswith("dsbridge_") and not got[n]["help"])
        checks.check(not no_help, "%s: # HELP for each" % label, "families without # HELP: %s" % (no_help or "none"))
        unsampled = []
        for n in sorted(set(want) & set(got)):
            f, samples = want[n], got[n]["samples"]
            if not f["labels"]:
                if f["type"] == "histogram":
                    ok = any(s.startswith(n + "_count ") for s in samples)
                else:
                    ok = any(s.startswith(n + " ") for s in samples)
                if not ok:
                    unsampled.append(n)
            elif f["fixed"]:
                key, values = f["fixed"]
                for v in values:
                    if not any('%s="%s"' % (key, v) in s for s in samples):
                        unsampled.append('%s{%s="%s"}' % (n, key, v))
        checks.check(not unsampled, "%s: samples from the start" % label,
                     "families or label values without a sample in the first scrape: %s" % (unsampled or "none"))
        counters = [s for n in got if got[n]["type"] == "counter" and want.get(n, {}).get("labels") == ""
                    for s in got[n]["samples"]]
        nonzero = [s for s in counters if not s.endswith(" 0") and not s.endswith(" 0.0")
                   and not s.startswith("dsbridge_memory_budget")]
        checks.check(not nonzero, "%s: counters start at 0" % label, "non-zero: %s" % (nonzero or "none"))
    finally:
        code = d.stop(timeout=15)
        checks.check(code == 0, "%s: sigterm" % label, "exit code %s" % code)


def closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    p = script_parser(__doc__)
    o = p.parse_args()
    binary = binary_path(o.daemon)
    checks = Checks()

    checks_limit(120, checks, lambda: RUNNING)
    docs = documented()
    checks.check(len(docs) >= 20, "table found", "%d families in docs/OPERATIONS.md's table" % len(docs))
    first_scrape(binary, [], "alone", checks, docs, cluster=False)
    first_scrape(binary, ["--otel-endpoint", "http://127.0.0.1:%d" % closed_port()], "tracing on", checks, docs,
                 cluster=False)
    with RedisServer() as redis:
        first_scrape(binary, ["--redis", redis.url, "--node-id", "metrics-a"], "cluster mode", checks, docs, cluster=True)
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())
