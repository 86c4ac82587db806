#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Where dsbridged's CPU goes at saturation (issue 45, part 2): starts the daemon on core 0,
# drives it with bench/dsb-load on core 1 as `scripts/load-test.sh --only saturation` does,
# records a cpu-clock profile of the daemon with perf for part of the run, and prints the
# share and microseconds a call of each stage of a call (scripts/profile_stages.py), then the
# functions with the most samples of their own.
#
#   scripts/profile-saturation.sh                    64 pages x 8 echo.syn in flight (ws)
#   scripts/profile-saturation.sh --mode http        64 keep-alive sync HTTP connections
#   scripts/profile-saturation.sh --daemon OLD_BIN   another build, for a before/after
#   options: --seconds N (profiled, default 6), --top N (default 25), --keep DIR (keep
#   perf.data and the generator's output there)
#
# Needs perf (Debian: apt-get install linux-perf) and permission to profile a process of
# yours (kernel.perf_event_paranoid <= 2). The release build and dsb-load are built first if
# missing (scripts/build-load.sh). Everything listens on 127.0.0.1 and is stopped on exit.
# Figures move with what else the machine runs: compare builds in alternating runs.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

mode=ws
seconds=6
top=25
daemon=""
keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --mode) mode="$2"; shift ;;
    --seconds) seconds="$2"; shift ;;
    --top) top="$2"; shift ;;
    --daemon) daemon="$2"; shift ;;
    --keep) keep="$2"; shift ;;
    -h|--help) sed -n '3,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "profile-saturation: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
case "$mode" in
  ws) load=(--mode ws --conns 64 --inflight 8 --payload 64) ;;
  http) load=(--mode http --conns 64 --inflight 1 --payload 64) ;;
  *) echo "profile-saturation: --mode is ws or http" >&2; exit 2 ;;
esac
command -v perf >/dev/null || { echo "profile-saturation: perf is not installed (apt-get install linux-perf)" >&2; exit 1; }

scratch=.build-release
if [ -z "$daemon" ]; then
  daemon="$scratch/release/dsbridged"
  [ -x "$daemon" ] || swift build -c release --scratch-path "$scratch" --product dsbridged
fi
[ -x "$scratch/dsb-load" ] || scripts/build-load.sh "$scratch" >/dev/null

work=${keep:-$(mktemp -d)}
mkdir -p "$work"
daemon_pid=""
cleanup() {
  if [ -n "$daemon_pid" ]; then kill "$daemon_pid" 2>/dev/null || true; wait "$daemon_pid" 2>/dev/null || true; fi
  [ -n "$keep" ] || rm -rf "$work"
}
trap cleanup EXIT

taskset -c 0 "$daemon" --demo --host 127.0.0.1 --port 0 --admin-host 127.0.0.1 --admin-port 0 \
  --web-root web --log-level warning --max-sessions 100000 >"$work/daemon.out" 2>"$work/daemon.log" &
daemon_pid=$!
port=""
for _ in $(seq 1 100); do
  port=$(sed -n '1s/^listening port=\([0-9]*\).*/\1/p' "$work/daemon.out" 2>/dev/null || true)
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { echo "profile-saturation: the daemon did not say where it listens:" >&2; cat "$work/daemon.log" >&2; exit 1; }

# The load runs 2 s of warm-up, the profile, and 2 s more.
timeout $((seconds + 60)) taskset -c 1 "$scratch/dsb-load" --port "$port" --pid "$daemon_pid" --threads 1 \
  --warmup 2 --duration $((seconds + 2)) "${load[@]}" >"$work/load.txt" 2>&1 &
load_pid=$!
sleep 3
perf record -q -e cpu-clock -F 2000 -g -p "$daemon_pid" -o "$work/perf.data" -- sleep "$seconds" 2>"$work/perf.log"
wait "$load_pid" || { echo "profile-saturation: dsb-load failed:" >&2; cat "$work/load.txt" >&2; exit 1; }
cat "$work/load.txt"
us=$(grep -o '[0-9.]* µs CPU per call' "$work/load.txt" | head -1 | cut -d' ' -f1)
perf script -F comm,tid,ip,sym -i "$work/perf.data" 2>/dev/null |
  python3 scripts/profile_stages.py --us-per-call "${us:-0}" --top "$top"
