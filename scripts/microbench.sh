#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Micro-benchmarks of the pure core's hot path (decode → dispatch → encode), of our JSON
# codec against Foundation's, and of Codable ↔ JSONValue: time and malloc calls per
# operation, with ordo-one/benchmark (package Benchmarks/, kept out of the main build).
#
#   scripts/microbench.sh                          every benchmark
#   scripts/microbench.sh 'dispatch/.*'            those whose group/name matches a regex
#   scripts/microbench.sh --profile 'dispatch/bridge echo.syn, object arg' [ITERATIONS]
#       instructions per operation, counted by valgrind --tool=callgrind (repeatable on a
#       busy machine), and the functions they go to; the callgrind files stay in
#       Benchmarks/.profile/ for callgrind_annotate
#   scripts/microbench.sh --list                   the workload ids
#
# How long: the first run resolves the packages (about 2 minutes) and builds swift-syntax
# (for @Exposed), the core and ordo-one/benchmark in release plus the benchmark tool: about
# 20 CPU-minutes, so 10-15 minutes on an idle 2-core machine (40 minutes were seen while
# other builds shared the machine). Later runs rebuild what changed (20-100 s) and take
# about 4 minutes for all benchmarks (each runs up to 1 s after warm-up). A profile runs
# the workload twice under valgrind: about 1 minute for 2000 bridge calls.
# Wall-clock figures move with whatever else the machine runs; malloc counts and callgrind
# instruction counts do not, so compare those across changes.
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

filter=()
if [ $# -gt 0 ]; then filter=(--filter "$1"); fi
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
swift package --package-path Benchmarks benchmark --no-progress "${filter[@]}" | tee "$log"
echo
awk -f Benchmarks/Scripts/summarize.awk "$log"
