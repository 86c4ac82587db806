#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Charts of a load-test run (scripts/load-test.sh --plot DIR): PNG files drawn with
matplotlib from the JSON reports the run kept.

  latency-by-scenario.png   p50 / p99 / p99.9 latency of every run that measured latency
  latency-vs-held.png       1 x 1 latency against the sessions held open meanwhile (the held
                            runs: dsbridged and, when run, the C echo server on libuv)

    scripts/plot_load.py RESULTS_DIR OUT_DIR

Prints the path of each file written; exits 1 when it could draw neither chart.
"""

import glob
import json
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")  # no display: files only
import matplotlib.pyplot as plt  # noqa: E402


def load_runs(results):
    runs = {}
    for path in sorted(glob.glob(os.path.join(results, "*.json"))):
        name = os.path.basename(path)[:-5]
        if name.endswith("-holder") or name == "cluster-bench":
            continue
        try:
            with open(path) as f:
                j = json.load(f)
        except (OSError, ValueError):
            continue
        lat = j.get("latency") or {}
        if lat.get("p50") is not None and lat.get("samples", 0) > 0:
            runs[name] = j
    return runs


def held_count(results, name):
    try:
        with open(os.path.join(results, name + ".held")) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        m = re.search(r"-(\d+)$", name)
        return int(m.group(1)) if m else None


def latency_by_scenario(runs, out):
    names = [n for n in runs if not n.startswith("held-")]
    if not names:
        return None
    fig, ax = plt.subplots(figsize=(max(8, 0.55 * len(names) + 2), 5))
    width = 0.27
    for k, (key, label) in enumerate((("p50", "p50"), ("p99", "p99"), ("p999", "p99.9"))):
        values = [runs[n]["latency"].get(key) or 0 for n in names]
        ax.bar([i + (k - 1) * width for i in range(len(names))], values, width, label=label)
    ax.set_yscale("log")
    ax.set_ylabel("latency (µs, log scale)")
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=60, ha="right", fontsize=8)
    ax.set_title("Latency per scenario (call sent → its answer)")
    ax.legend()
    ax.grid(axis="y", which="both", alpha=0.3)
    fig.tight_layout()
    path = os.path.join(out, "latency-by-scenario.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def latency_vs_held(results, runs, out):
    series = {}
    for name, j in runs.items():
        if not name.startswith("held-"):
            continue
        server = "C echo (libuv)" if name.startswith("held-echo-uv-") else (
            "C echo (poll)" if name.startswith("held-echo-poll-") else "dsbridged")
        n = held_count(results, name)
        if n is None:
            continue
        series.setdefault(server, []).append((n, j["latency"]["p50"], j["latency"]["p99"]))
    if not series:
        return None
    fig, ax = plt.subplots(figsize=(8, 5))
    for server, points in sorted(series.items()):
        points.sort()
        xs = [p[0] for p in points]
        ax.plot(xs, [p[1] for p in points], marker="o", label=server + " p50")
        ax.plot(xs, [p[2] for p in points], marker="x", linestyle="--", label=server + " p99")
    ax.set_xlabel("sessions held open meanwhile")
    ax.set_yscale("log")
    ax.set_ylabel("1 x 1 latency (µs, log scale)")
    ax.set_title("One busy page while other sessions are held")
    ax.legend()
    ax.grid(which="both", alpha=0.3)
    fig.tight_layout()
    path = os.path.join(out, "latency-vs-held.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    results, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    runs = load_runs(results)
    first = latency_by_scenario(runs, out)
    second = latency_vs_held(results, runs, out)
    for path in (first, second):
        if path:
            print("plot: " + path)
    if not first:
        print("plot: no run with latencies besides the held ones in %s: latency-by-scenario.png not drawn" % results)
    if not second:
        print("plot: no held runs in %s: latency-vs-held.png not drawn" % results)
    return 0 if first or second else 1


if __name__ == "__main__":
    sys.exit(main())
