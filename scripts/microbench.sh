#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Micro-benchmarks of the pure core's hot path (decode → dispatch → encode), of our JSON
# codec against Foundation's, and of Codable ↔ JSONValue: per operation, wall-clock time,
# malloc calls, and strong retains and releases (all threads), with ordo-one/benchmark
# (package Benchmarks/, kept out of the main build).
#
#   scripts/microbench.sh                          every benchmark
#   scripts/microbench.sh 'dispatch/.*'            those whose group/name matches a regex
#   scripts/microbench.sh --check                  CI's guard (a group of scripts/test.sh):
#       runs the workloads listed in Benchmarks/Thresholds/counts.json and fails, naming
#       workload, count, threshold and measured value, when a call's mallocs, retains or
#       releases grew beyond the recorded value × (1 + the workload's tolerance); says so
#       when one dropped. Wall clock is printed, never checked.
#   scripts/microbench.sh --update-thresholds      after a change to the hot path: records
#       the counts measured now in Benchmarks/Thresholds/counts.json (tolerances stay);
#       review the printed changes and commit the file
#   scripts/microbench.sh --profile 'dispatch/bridge echo.syn, object arg' [ITERATIONS]
#       instructions per operation, counted by valgrind --tool=callgrind (repeatable on a
#       busy machine), and the functions they go to; the callgrind files stay in
#       Benchmarks/.profile/ for callgrind_annotate
#   scripts/microbench.sh --list                   the workload ids
#
# Counts are the fewest per call over a run's iterations (1000 calls each); they came out
# the same in every run measured, bridge calls included. Retains and releases are counted
# by Benchmarks/Sources/RefCountProbe (ordo-one/benchmark's own ARC metrics crash with
# Swift 6.3 on Linux; ignore its warning about a runtime interposer that is "not built").
# docs/PERFORMANCE.md#micro-benchmarks-and-the-count-guard has the figures.
#
# How long: the first run resolves the packages and builds the core and ordo-one/benchmark
# in release, swift-syntax (for @Exposed) in debug, and the benchmark tool: 3 to 5.5
# minutes on 2 cores (--check from a clean Benchmarks/.build). Later runs rebuild what
# changed (20-100 s); all benchmarks then take about 1.5 minutes (each runs up to 1 s after
# warm-up), --check and --update-thresholds about 30 s. A profile runs the workload twice
# under valgrind.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

# Builds the profiling executable in release; on failure shows the end of the build log.
build_profiler() {
  local build_log
  build_log="$(mktemp)"
  if ! swift build --package-path Benchmarks -c release --product core-profile >"$build_log" 2>&1; then
    tail -30 "$build_log"
    rm -f "$build_log"
    exit 1
  fi
  rm -f "$build_log"
}

if [ "${1:-}" = "--list" ]; then
  build_profiler
  exec Benchmarks/.build/release/core-profile --list
fi

if [ "${1:-}" = "--profile" ]; then
  workload="${2:?usage: scripts/microbench.sh --profile WORKLOAD [ITERATIONS]}"
  n="${3:-2000}"
  command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)"; exit 1; }
  build_profiler
  out=Benchmarks/.profile
  mkdir -p "$out"
  total() {  # instructions of a whole run of $1 iterations
    valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.$1.out" \
      Benchmarks/.build/release/core-profile "$workload" "$1" >/dev/null 2>&1
    awk '/^summary:/ { print $2 }' "$out/callgrind.$1.out"
  }
  # The difference of two runs removes start-up, preparation and warm-up.
  a=$(total "$n")
  b=$(total "$((2 * n))")
  echo "$workload: $(( (b - a) / n )) instructions per operation (callgrind, $n vs $((2 * n)) iterations)"
  if command -v python3 >/dev/null; then
    python3 Benchmarks/Scripts/callgrind_diff.py "$out/callgrind.$n.out" "$out/callgrind.$((2 * n)).out" "$n" --top 25
  fi
  exit 0
fi

# Runs the workloads listed in the thresholds file and hands their histograms to
# Benchmarks/Scripts/thresholds.py ($1: check or update). The build and run log is shown only
# when they fail.
thresholds() {
  local file=Benchmarks/Thresholds/counts.json
  local -a filters=()
  results="$(mktemp -d)"
  log="$(mktemp)"
  trap 'rm -rf "$results" "$log"' EXIT
  while IFS= read -r regex; do filters+=(--filter "$regex"); done < <(python3 Benchmarks/Scripts/thresholds.py filters "$file")
  echo "running the $(( ${#filters[@]} / 2 )) workloads of $file (building first if needed)..."
  if ! swift package --package-path Benchmarks --allow-writing-to-directory "$results" benchmark --no-progress \
    "${filters[@]}" --format histogramEncoded --path "$results" >"$log" 2>&1; then
    tail -40 "$log"
    echo "microbench: the benchmarks did not build or run (log above)"
    exit 1
  fi
  grep -F 'not counted' "$log" || true  # RefCountProbe could not install its hooks
  python3 Benchmarks/Scripts/thresholds.py "$1" "$file" "$results"
}

case "${1:-}" in
  --check) thresholds check; exit ;;
  --update-thresholds) thresholds update; exit ;;
esac

filter=()
if [ $# -gt 0 ]; then filter=(--filter "$1"); fi
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
swift package --package-path Benchmarks benchmark --no-progress "${filter[@]}" | tee "$log"
echo
awk -f Benchmarks/Scripts/summarize.awk "$log"
