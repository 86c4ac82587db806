#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the libFuzzer target (Fuzz/: frame decoder, JSON parser/writer, method names and
# routes, call arguments, sync calls, server message encoder) with coverage instrumentation
# and AddressSanitizer, replays Fuzz/regressions/, then fuzzes from the seed corpus.
#
# Usage: scripts/fuzz.sh [SECONDS]          (default 60)
#   FUZZ_CORPUS=DIR   keep the inputs found in DIR (created; default: a temporary directory)
#   FUZZ_JOBS=N       N fuzzing processes in parallel (default 1)
#   FUZZ_ARGS="..."   extra libFuzzer flags (e.g. "-seed=1 -runs=100000")
#   FUZZ_KNOWN=...    checks of reported, unfixed bugs to skip (see Fuzz/README.md)
# Exit status: 0 clean; non-zero when the build fails, a regression input fails, or the
# fuzzer finds something (libFuzzer's own code: 77 crash or violated property, 70 timeout,
# 71 out of memory, ...). The finding is kept under Fuzz/findings/ and its path printed.
#
# Longer run (documented): FUZZ_CORPUS=Fuzz/.corpus scripts/fuzz.sh 3600
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
seconds="${1:-60}"
case "$seconds" in '' | *[!0-9]*) echo "usage: $0 [SECONDS]" >&2; exit 2 ;; esac

# The target dsbridge-fuzz is part of the main package (so it can use DSBridge's `package`
# declarations) but only declared when DSBRIDGE_FUZZ=1, and built in its own scratch path so
# the instrumented build never touches .build/. Instrument every module (DSBridge and its
# dependencies) with the coverage libFuzzer reads and with ASan; the fuzz target alone links
# libFuzzer (see the end of Package.swift for why not `-Xswiftc -sanitize=fuzzer`).
export DSBRIDGE_FUZZ=1
flags=(-c debug --scratch-path Fuzz/.build --product dsbridge-fuzz
  -Xswiftc -sanitize=address
  -Xswiftc -sanitize-coverage=edge,indirect-calls,trace-cmp,inline-8bit-counters,pc-table)
log_dir="Fuzz/.build/logs"
mkdir -p "$log_dir" Fuzz/findings
build_log="$log_dir/build.log"
start=$(date +%s)
echo "building the fuzz target (a clean build takes several minutes)..."
swift build "${flags[@]}" >"$build_log" 2>&1
build_status=$?
if [ "$build_status" -ne 0 ]; then
  # gold's "Cannot export local symbol '__asan_...'" warnings are harmless noise.
  grep -v "ld.gold: warning: Cannot export local symbol" "$build_log" | tail -40
  echo "fuzz build FAILED (exit $build_status); full log: $build_log" >&2
  exit "$build_status"
fi
echo "built in $(( $(date +%s) - start ))s"
bin_dir="$(swift build "${flags[@]}" --show-bin-path)"
bin="$bin_dir/dsbridge-fuzz"
# A build without coverage in the fuzzed code would "pass" blindly: refuse it.
for object in PageMessage JSONParser JSONWriter MethodName SyncCallRequest; do
  o="$bin_dir/DSBridge.build/$object.swift.o"
  if [ -f "$o" ] && command -v readelf >/dev/null && [ "$(readelf -SW "$o" | grep -c sancov)" -eq 0 ]; then
    echo "$o has no coverage instrumentation: the fuzzer would run blind" >&2
    exit 1
  fi
done

export SWIFT_BACKTRACE=enable=no   # the Swift backtracer and ASan fight over the crash
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"   # libFuzzer then checks each input for leaks
dict=Fuzz/dsbridge.dict

# Known-bad inputs first: each must run clean (a fixed bug stays fixed).
shopt -s nullglob
regressions=(Fuzz/regressions/*)
if [ ${#regressions[@]} -gt 0 ]; then
  echo "replaying ${#regressions[@]} regression input(s)"
  : >"$log_dir/regressions.log"
  failed=0
  for input in "${regressions[@]}"; do
    "$bin" "$input" >"$log_dir/replay.log" 2>&1
    replay_status=$?
    cat "$log_dir/replay.log" >>"$log_dir/regressions.log"
    if [ "$replay_status" -ne 0 ]; then
      failed=$((failed + 1))
      echo "FAILS (exit $replay_status): $input" >&2
      grep -E "Fatal error|==[0-9]+==ERROR" "$log_dir/replay.log" | head -3 >&2
    fi
  done
  if [ "$failed" -gt 0 ]; then
    echo "$failed regression input(s) fail; full log: $log_dir/regressions.log" >&2
    exit 1
  fi
fi

corpus="${FUZZ_CORPUS:-}"
temp_corpus=""
if [ -z "$corpus" ]; then
  corpus="$(mktemp -d)"
  temp_corpus="$corpus"
fi
mkdir -p "$corpus"
fuzz_pid=""
cleanup() {
  if [ -n "$fuzz_pid" ]; then kill "$fuzz_pid" 2>/dev/null; fi
  if [ -n "$temp_corpus" ]; then rm -rf "$temp_corpus"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
run_log="$log_dir/run.log"
njobs="${FUZZ_JOBS:-1}"
case "$njobs" in '' | *[!0-9]*) echo "FUZZ_JOBS must be a number" >&2; exit 2 ;; esac
parallel=()
if [ "$njobs" -gt 1 ]; then parallel=(-fork="$njobs" -ignore_crashes=0); fi
echo "fuzzing for ${seconds}s (seeds: Fuzz/corpus, new inputs: $corpus, log: $run_log)"
# New inputs go to the first directory; Fuzz/corpus is only read.
# shellcheck disable=SC2086
"$bin" "$corpus" Fuzz/corpus -dict="$dict" -max_total_time="$seconds" -max_len=8192 -timeout=10 \
  -rss_limit_mb=2048 -use_value_profile=1 -print_final_stats=1 -artifact_prefix=Fuzz/findings/ \
  "${parallel[@]}" ${FUZZ_ARGS:-} >"$run_log" 2>&1 &
fuzz_pid=$!
# Show progress while it runs (pulses, new coverage is too chatty for a CI log).
tail -n +1 -f --pid="$fuzz_pid" "$run_log" 2>/dev/null |
  grep --line-buffered -E "^(INFO: Loaded|#[0-9]+.*(INITED|DONE|pulse)|#[0-9]+: cov|INFO: exiting|stat::|property violated|.*Fatal error|==[0-9]+==ERROR|SUMMARY|.*Test unit written|    #[0-9]+ )" &
filter_pid=$!
# `wait` (unlike a foreground pipeline) lets INT/TERM in at once, so the trap stops the fuzzer.
wait "$fuzz_pid"
status=$?
fuzz_pid=""
wait "$filter_pid" 2>/dev/null

# Same check on what libFuzzer saw (DSBridge and its dependencies give some 60,000).
counters=$(sed -n 's/^INFO: Loaded [0-9]* modules *(\([0-9]*\) inline 8-bit counters).*/\1/p' "$run_log" | head -1)
if [ "$status" -eq 0 ] && [ "${counters:-0}" -lt 20000 ]; then
  echo "only ${counters:-0} coverage counters: DSBridge was not instrumented, the run proves nothing" >&2
  exit 1
fi

if [ "$status" -ne 0 ]; then
  found=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$run_log" | tail -1)
  echo "FUZZER FINDING (libFuzzer exit $status); full log: $run_log" >&2
  if [ -n "$found" ] && [ -f "$found" ]; then
    echo "input kept at: $found ($(wc -c <"$found") bytes)" >&2
    echo "input (base64): $(head -c 4096 "$found" | base64 -w0)" >&2
    echo "reproduce: SWIFT_BACKTRACE=enable=no $bin $found" >&2
    echo "keep it as a regression once fixed: cp $found Fuzz/regressions/" >&2
  else
    echo "no input file was written (see the log)" >&2
  fi
  exit "$status"
fi
echo "fuzzing clean: ${seconds}s, ${counters} coverage counters"
