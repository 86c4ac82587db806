# SPDX-License-Identifier: MIT
"""Per-call count thresholds for the micro-benchmarks (scripts/microbench.sh --check and
--update-thresholds).

Reads the histograms that `swift package benchmark --format histogramEncoded` writes (one
file per benchmark and metric; each sample is one iteration of 1000 calls) and compares, for
every workload listed in the thresholds file, the fewest malloc calls, strong retains and
strong releases per call over the run's iterations with the recorded ones. The fewest,
because what varies between iterations (a worker thread that had to be woken, a continuation
cache that was empty) only ever adds to a call's own cost. Wall clock is printed, never
checked.

    thresholds.py filters THRESHOLDS          one --filter regex per listed workload
    thresholds.py check THRESHOLDS RESULTS    exit 1 when a count grew beyond its threshold
    thresholds.py update THRESHOLDS RESULTS   record the counts measured now

A count fails when it exceeds recorded × (1 + tolerance). The tolerance is per workload and
stays when the counts are updated: 0 for workloads that run on one thread (their counts are
the same in every run), a few percent for those that hop to the bridge's worker thread (see
docs/PERFORMANCE.md for the run-to-run variation measured).
"""

import glob
import json
import os
import re
import sys

METRICS = [("mallocs", "mallocCountTotal"), ("retains", "retains"), ("releases", "releases")]
SCALE = 1000  # calls per benchmark iteration (scalingFactor .kilo)
TARGET = "CoreBenchmarks"
UPDATE_COMMAND = "scripts/microbench.sh --update-thresholds"


def export_name(workload_id):
    """The file-name form ordo-one/benchmark gives a benchmark name."""
    return workload_id.replace("/", "_").replace(" ", "_")


def decode_histogram(path):
    """(lowest, highest) value of each recorded bucket of an encoded HdrHistogram, with its count."""
    with open(path) as f:
        h = json.load(f)
    if h.get("lowestDiscernibleValue") != 1:
        raise SystemExit(f"{path}: unexpected histogram layout (lowestDiscernibleValue {h.get('lowestDiscernibleValue')})")
    magnitude = h["subBucketHalfCountMagnitude"]
    half = 1 << magnitude
    buckets = []
    for index, count in enumerate(h["counts"]):
        if not count:
            continue
        bucket = (index >> magnitude) - 1
        sub_bucket = (index & (half - 1)) + half
        if bucket < 0:
            sub_bucket -= half
            bucket = 0
        low = sub_bucket << bucket
        buckets.append((low, low + (1 << bucket) - 1, count))
    return buckets


def per_call(low, high):
    """A bucket's value per call, to one decimal (the histogram keeps 3 significant digits)."""
    return round((low + high) / 2 / SCALE, 1)


def measure(results_dir, workload_id):
    """{metric: (fewest per call, iterations)} plus the median wall clock in ns per call."""
    measured = {}
    prefix = os.path.join(results_dir, f"Current_run.{TARGET}.{export_name(workload_id)}.")
    for name, metric in METRICS:
        path = prefix + metric + ".histogram.json"
        if os.path.exists(path):
            buckets = decode_histogram(path)
            if buckets:
                low, high, _ = buckets[0]
                measured[name] = (per_call(low, high), sum(c for _, _, c in buckets))
    wall = None
    path = prefix + "wallClock.histogram.json"
    if os.path.exists(path):
        buckets = decode_histogram(path)
        total = sum(c for _, _, c in buckets)
        seen = 0
        for low, high, count in buckets:
            seen += count
            if seen * 2 >= total:
                wall = (low + high) / 2 / SCALE
                break
    return measured, wall


def load(path):
    with open(path) as f:
        return json.load(f)


def regex_escape(text):
    return re.sub(r"([.^$*+?()\[\]{}|\\])", r"\\\1", text)


def command_filters(thresholds):
    for workload_id in thresholds["workloads"]:
        print(regex_escape(workload_id))


def command_check(thresholds, results_dir):
    failures, improvements, checked = [], [], 0
    width = max(len("workload (fewest per call)"), *(len(w) for w in thresholds["workloads"]))
    print(f"{'workload (fewest per call)':{width}} {'mallocs':>9} {'retains':>9} {'releases':>9} {'wall ns':>9}")
    for workload_id, recorded in thresholds["workloads"].items():
        measured, wall = measure(results_dir, workload_id)
        tolerance = recorded.get("tolerance", 0)
        cells = []
        for name, _ in METRICS:
            if name not in recorded:
                failures.append(f"{workload_id}: no recorded {name}; run {UPDATE_COMMAND}")
                cells.append("?")
                continue
            if name not in measured:
                failures.append(
                    f"{workload_id}: {name} not measured (workload renamed or gone? retain counting unavailable? "
                    "see the benchmark output above)")
                cells.append("-")
                continue
            value = measured[name][0]
            cells.append(f"{value:.1f}")
            checked += 1
            limit = recorded[name] * (1 + tolerance)
            if value > limit + 0.005:
                failures.append(
                    f"{workload_id}: {name} per call {value:.1f} is above the threshold {limit:.2f} "
                    f"(recorded {recorded[name]:.1f}, tolerance {tolerance:.1%})")
            elif value < recorded[name] * (1 - tolerance) - 0.005:
                improvements.append(
                    f"{workload_id}: {name} per call {value:.1f} is below the recorded {recorded[name]:.1f} "
                    f"(tolerance {tolerance:.1%})")
        wall_text = f"{wall:.0f}" if wall is not None else "-"
        print(f"{workload_id:{width}} {cells[0]:>9} {cells[1]:>9} {cells[2]:>9} {wall_text:>9}")
    print("(wall clock: median, for information only; it is not checked)")
    for line in improvements:
        print(f"DROPPED: {line}")
    if improvements:
        print(f"Counts dropped: if that is an improvement, record it with {UPDATE_COMMAND} and commit "
              "Benchmarks/Thresholds/counts.json.")
    for line in failures:
        print(f"FAILED: {line}")
    if failures:
        print(f"microbench check FAILED: {len(failures)} of {checked} counts above their thresholds or missing. "
              f"If the growth is intended, record it with {UPDATE_COMMAND} and say why in the commit.")
        return 1
    print(f"microbench check: all {checked} counts within their thresholds")
    return 0


def command_update(path, thresholds, results_dir):
    changes = []
    for workload_id, recorded in thresholds["workloads"].items():
        measured, _ = measure(results_dir, workload_id)
        missing = [name for name, _ in METRICS if name not in measured]
        if missing:
            raise SystemExit(
                f"{workload_id}: {', '.join(missing)} not measured; nothing written (workload renamed? "
                "retain counting unavailable? see the benchmark output above)")
        for name, _ in METRICS:
            old, new = recorded.get(name), measured[name][0]
            if old != new:
                changes.append(f"{workload_id}: {name} {old if old is not None else '-'} -> {new:.1f}")
            recorded[name] = new
        recorded.setdefault("tolerance", 0)
    with open(path, "w") as f:
        json.dump(thresholds, f, indent=2, ensure_ascii=False)
        f.write("\n")
    for line in changes:
        print(line)
    print(f"{path}: {len(changes)} counts changed" + (" (review and commit it)" if changes else ""))
    return 0


def main(argv):
    if len(argv) < 3 or argv[1] not in ("filters", "check", "update") or (argv[1] != "filters" and len(argv) != 4):
        print(__doc__, file=sys.stderr)
        return 2
    command, path = argv[1], argv[2]
    thresholds = load(path)
    if command == "filters":
        command_filters(thresholds)
        return 0
    results_dir = argv[3]
    if not glob.glob(os.path.join(results_dir, "*.histogram.json")):
        print(f"no benchmark results in {results_dir}", file=sys.stderr)
        return 1
    if command == "check":
        return command_check(thresholds, results_dir)
    return command_update(path, thresholds, results_dir)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
