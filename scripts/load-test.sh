#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Load test (issues 6, 21 and 45) in one command: builds release binaries (dsbridged,
# dsbridge-bench, the C echo server bench/lws-echo.c, and the C load generators
# bench/dsb-load and bench/min-load.c), starts the daemon (--demo) and the echo server on
# loopback, runs dsbridge-bench's scenarios against both in the same run, and prints each
# bridge figure next to the echo server's as a ratio, with the targets of issue 6, then
# the server CPU per call of issue 21 at the rates dsbridge-bench drives (server and bench
# pinned to cores of their own, the bridge against uWebSockets), then issue 45's rows at
# saturation (each server at the highest rate it sustains, driven by dsb-load).
#
#   scripts/load-test.sh            full run (about 13 minutes)
#   scripts/load-test.sh --quick    shorter runs (about 5 minutes; opening the 10,000-session
#                                   idle, held and paced runs takes most of it)
#   scripts/load-test.sh --smoke    seconds, small numbers, debug binaries (for CI):
#                                   exits 1 when the bench, a daemon or a scenario fails
# Options:
#   --strict            also exit 1 when a target of issue 6 or the goal of issue 21
#                       (at most 2x uWebSockets' server CPU per call) misses
#   --results DIR       keep each run's JSON report in DIR (default: a temporary folder)
#   --scratch-path DIR  Swift build folder (default .build-release; --smoke: .build)
#   --threads N         client threads of the bench and of dsb-load (default 1)
#   --idle-sessions N   sessions of the idle scenario (default 10000; capped by ulimit -n)
#   --held LIST         held-session counts of the held runs (default "0 1000 10000 max";
#                       max: the fd limit allows; --smoke: "0 2000")
#   --paced N           sessions of the paced runs, each calling once a second (default
#                       10000; --smoke: 500; 0 skips them)
#   --daemon PATH       the dsbridged binary to measure (e.g. an older build, for a
#                       before/after comparison; default: the one built here)
#   --uws-echo PATH     a uWebSockets echo server (bench/uws-echo.cpp, built with
#                       scripts/build-uws-echo.sh from a uWebSockets checkout): the
#                       efficiency group then measures it on issue 21's three loads in the
#                       same run, and the bridge/uWS ratios use those figures instead of
#                       the issue's reference figures
#   --baseline-daemon PATH
#                       a build without the memory budget's accounting (e.g. commit
#                       9cd8003): the budget group runs 64 x 8 on it and on the daemon,
#                       alternating, and checks the accounting costs at most 3% CPU per call
#   --only LIST         run only these groups (default: all):
#                         main        every scenario once, server and bench unpinned
#                         budget      the memory budget's cost (see --baseline-daemon)
#                         idle        RSS per idle session, bridge and C echo
#                         held        1 x 1 latency with N sessions held (issue 12)
#                         paced       N sessions x 1 call/s, bridge and C echo (issue 12), from
#                                     dsbridge-bench and from bench/dsb-load --rate 1 (issue 45:
#                                     p99 and p99.9 beside the C echo's)
#                         efficiency  issue 21's server CPU per call, pinned apart: 64 x 8
#                                     echo.syn, 64 keep-alive sync HTTP calls (the C echo
#                                     answers POSTs: `http --raw-echo`), and the paced runs
#                                     (run with it); the C echo on lws' poll loop and on
#                                     libuv, the lower of the two counts (best of 2 rounds
#                                     in a full run; --smoke: the poll loop only)
#                         cluster     issue 16: 64 x 8 echo.syn with cluster mode on (one node,
#                                     a Redis of its own on loopback) and off, alternating twice;
#                                     cross-node admin call and resume-elsewhere latency
#                                     (scripts/cluster_bench.py, two nodes); a node killed,
#                                     then one drained, under 5,000 pages (--quick 2,000,
#                                     --smoke 200) that all resume on the other node
#                                     (scripts/cluster_failover_bench.py)
#                         otel        issue 17: 64 x 8 echo.syn with tracing on (--otel-endpoint
#                                     to scripts/otlp_sink.py, a receiver that only counts) and
#                                     off, alternating twice: round trips/s and server CPU per call
#                         saturation  issue 45: each server at the highest rate it sustains, driven
#                                     by bench/dsb-load (C; server on core 0, generator on core 1):
#                                     64 pages x 8 echo.syn in flight and 64 keep-alive sync HTTP
#                                     connections, dsbridged and uWebSockets (--uws-echo; without
#                                     it the C lws echo) alternating; dsbridged over TLS (wss://,
#                                     https://; a self-signed certificate made here) beside plain;
#                                     and dsb-load's rate on the echo against bench/min-load.c's
#                                     (a minimal epoll client); 1 page x 1 call round trips
#                                     (p50/p99/p99.9), ws:// and wss://. Best of 2 rounds in a full run
#   --paced-rounds N    back-to-back pairs (dsbridged, then the C echo) of the paced group's
#                       dsb-load runs (default 3; --smoke: 1); the p99 ratio's verdict is the
#                       median of the pairs' ratios (one pair's tail moves with the host)
#   --saturation-rounds N
#                       rounds of the saturation group (default: 2 in a full run, else 1);
#                       each row keeps its best round, so more rounds help on a shared machine
#   --plot DIR          also draw the run's charts as PNG files in DIR (scripts/plot_load.py,
#                       matplotlib; installs Debian's python3-matplotlib when missing):
#                       latency per scenario, latency against sessions held
#   --no-build          use the binaries already built
# Everything started here listens on 127.0.0.1 only, runs under `timeout`, and is stopped
# on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

mode=full
strict=0
results=""
scratch=""
threads=1
idle_sessions=10000
held_list=""
paced_sessions=""
daemon_override=""
baseline_daemon=""
uws_bin=""
only="main budget idle held paced efficiency saturation cluster otel"
build=1
plot_dir=""
sat_rounds_given=""
paced_rounds_given=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) mode=quick ;;
    --smoke) mode=smoke ;;
    --full) mode=full ;;
    --strict) strict=1 ;;
    --results) results="$2"; shift ;;
    --scratch-path) scratch="$2"; shift ;;
    --threads) threads="$2"; shift ;;
    --idle-sessions) idle_sessions="$2"; shift ;;
    --held) held_list="$2"; shift ;;
    --paced) paced_sessions="$2"; shift ;;
    --daemon) daemon_override="$2"; shift ;;
    --baseline-daemon) baseline_daemon="$2"; shift ;;
    --uws-echo) uws_bin="$2"; shift ;;
    --only) only="$2"; shift ;;
    --no-build) build=0 ;;
    --plot) plot_dir="$2"; shift ;;
    --saturation-rounds) sat_rounds_given="$2"; shift ;;
    --paced-rounds) paced_rounds_given="$2"; shift ;;
    -h|--help) sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "load-test: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

case "$mode" in
  full)  dur=10; warm=3;   sessions=64; idle_hold=10; config=release ;;
  quick) dur=3;  warm=1;   sessions=64; idle_hold=2;  config=release ;;
  smoke) dur=1;  warm=0.5; sessions=4;  idle_hold=1;  config=debug; idle_sessions=50 ;;
esac
if [ -z "$scratch" ]; then
  if [ "$mode" = smoke ]; then scratch=.build; else scratch=.build-release; fi
fi

# --- build -------------------------------------------------------------------------------
bin="$scratch/$config"
echo_bin="$scratch/lws-echo"
if [ "$build" = 1 ]; then
  echo "== building ($config, $scratch)"
  swift build -c "$config" --scratch-path "$scratch" --product dsbridged
  swift build -c "$config" --scratch-path "$scratch" --product dsbridge-bench
  mkdir -p "$scratch"
  # shellcheck disable=SC2046
  gcc -O2 -Wall -o "$echo_bin" bench/lws-echo.c $(pkg-config --cflags --libs libwebsockets)
  scripts/build-load.sh "$scratch"
fi
if [ -z "$held_list" ]; then
  if [ "$mode" = smoke ]; then held_list="0 2000"; else held_list="0 1000 10000 max"; fi
fi
if [ -z "$paced_sessions" ]; then
  if [ "$mode" = smoke ]; then paced_sessions=500; else paced_sessions=10000; fi
fi
daemon_bin="$bin/dsbridged"
if [ -n "$daemon_override" ]; then daemon_bin="$daemon_override"; fi
wants() { case " $only " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
load_bin="$scratch/dsb-load"
min_bin="$scratch/min-load"
for f in "$daemon_bin" "$bin/dsbridge-bench" "$echo_bin" "$load_bin" "$min_bin" ${uws_bin:+"$uws_bin"}; do
  [ -x "$f" ] || { echo "load-test: $f is missing (build first, or drop --no-build)" >&2; exit 1; }
done

# --- limits, folders, cleanup --------------------------------------------------------------
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
fd_limit=$(ulimit -n)
if [ "$idle_sessions" -gt $((fd_limit - 200)) ]; then
  echo "load-test: ulimit -n is $fd_limit: idle sessions capped at $((fd_limit - 200))"
  idle_sessions=$((fd_limit - 200))
fi
if [ -z "$results" ]; then results=$(mktemp -d /tmp/dsbridge-load.XXXXXX); fi
mkdir -p "$results"
rm -f "$results"/*.json "$results"/*.err
failures=0
started_pids=()

cleanup() {
  for pid in "${started_pids[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${started_pids[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Starts a server in the background under `timeout`; sets server_pid and server_port from
# its first stdout line ("listening port=P ...").
start_server() {
  local name=$1; shift
  local out="$results/$name.out"
  timeout 3600 "${server_pin[@]}" "$@" >"$out" 2>"$results/$name.log" &
  local wrapper=$!
  started_pids+=("$wrapper")
  local i
  for i in $(seq 1 100); do
    if [ -s "$out" ]; then break; fi
    if ! kill -0 "$wrapper" 2>/dev/null; then break; fi
    sleep 0.1
  done
  server_port=$(sed -n '1s/^listening port=\([0-9]*\).*/\1/p' "$out")
  server_pid=$(pgrep -P "$wrapper" | head -n 1 || true)
  if [ -z "$server_port" ] || [ -z "$server_pid" ]; then
    echo "load-test: $name did not start:" >&2
    cat "$results/$name.log" >&2 || true
    exit 1
  fi
  echo "== $name: pid $server_pid, port $server_port"
}

stop_server() {
  local pid=$1
  kill -TERM "$pid" 2>/dev/null || true
  local i
  for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
}

daemon_env=()   # VAR=value pairs the next start_daemon runs the daemon with
# --max-sessions 100000: the held runs fill the descriptor table up to 300 short of the limit,
# past the room an unset --max-sessions leaves for HTTP (it is derived from the limit).
start_daemon() {
  local name=$1; shift
  start_server "$name" env "${daemon_env[@]}" "$daemon_bin" --demo --host 127.0.0.1 --port 0 --admin-host 127.0.0.1 --admin-port 0 \
    --web-root web --log-level warning --max-sessions 100000 "$@"
  daemon_pid=$server_pid
  daemon_port=$server_port
}

# measure NAME PID LIMIT COMMAND...: one load generator run (pinned as set), under `timeout
# LIMIT`, its stdout (JSON) kept as NAME.json; the server PID must still be up after it.
measure() {
  local name=$1 pid=$2 limit=$3; shift 3
  if timeout "$limit" "${bench_pin[@]}" "$@" >"$results/$name.json" 2> >(tee "$results/$name.err" >&2); then
    :
  else
    echo "load-test: FAILED: $name (exit $?)" >&2
    failures=$((failures + 1))
    rm -f "$results/$name.json"
  fi
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "load-test: the server of $name (pid $pid) is gone" >&2
    failures=$((failures + 1))
    exit 1
  fi
}

# run NAME PORT PID SCENARIO [bench options...]: one bench run, its JSON kept as NAME.json.
run() {
  local name=$1 port=$2 pid=$3 scenario=$4; shift 4
  local limit
  limit=$(awk -v d="$dur" -v w="$warm" -v n="$idle_sessions" 'BEGIN { printf "%d", d + w + 120 + n / 40 }')
  echo "== $name: $scenario $*"
  local quiet=()
  if [ "$mode" = smoke ]; then quiet=(--quiet); fi
  measure "$name" "$pid" "$limit" "$bin/dsbridge-bench" "$scenario" --port "$port" --pid "$pid" --threads "$threads" \
    --duration "$dur" --warmup "$warm" --json "${quiet[@]}" "$@"
}

sources=(--source 127.0.0.2-127.0.0.9)
# The held and paced runs put the server and the measuring client on cores of their own
# (cross-core, as over a network): left to the scheduler, a 1 x 1 round trip takes 25 µs
# when both land on one core and 60-75 µs when they do not, which would swamp the figures.
server_pin=()
bench_pin=()
pinned=0
pin_apart() {
  if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
    server_pin=(taskset -c 0); bench_pin=(taskset -c 1); pinned=1
  fi
}
unpin() { server_pin=(); bench_pin=(); }

# --- runs -----------------------------------------------------------------------------------
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo_pid=""
ensure_echo() {
  if [ -n "$echo_pid" ]; then return; fi
  start_server echo-server "$echo_bin" 0
  echo_pid=$server_pid
  echo_port=$server_port
}

if wants main; then
ensure_echo
start_daemon daemon
run echo-throughput "$echo_port" "$echo_pid" echo --sessions "$sessions" --inflight 8 --payload 100
run syn-throughput "$daemon_port" "$daemon_pid" syn --sessions "$sessions" --inflight 8 --payload 64
run echo-latency "$echo_port" "$echo_pid" echo --sessions 1 --inflight 1 --payload 100
run syn-latency "$daemon_port" "$daemon_pid" syn --sessions 1 --inflight 1 --payload 64
# The same echo without @nonblocking (test.echo): the call runs on a worker thread.
run worker-throughput "$daemon_port" "$daemon_pid" syn --sessions "$sessions" --inflight 8 --payload 64 --method test.echo
run worker-latency "$daemon_port" "$daemon_pid" syn --sessions 1 --inflight 1 --payload 64 --method test.echo
run async "$daemon_port" "$daemon_pid" async --sessions "$sessions" --inflight 8 --progress-count 10
# The page answers invokes as web/dsbridge.js does: what is due in one batch frame.
run invoke "$daemon_port" "$daemon_pid" invoke --sessions "$sessions" --inflight 2 --invoke-batch 32 --payload 64 --coalesce
run invoke-frames "$daemon_port" "$daemon_pid" invoke --sessions "$sessions" --inflight 2 --invoke-batch 32 --payload 64
run http "$daemon_port" "$daemon_pid" http --sessions "$sessions" --payload 64
run connect "$daemon_port" "$daemon_pid" connect --sessions "$sessions" "${sources[@]}"
run resume "$daemon_port" "$daemon_pid" resume --sessions "$sessions" "${sources[@]}"
stop_server "$daemon_pid"
fi

# The memory budget's accounting (issue 20) under the 64 x 8 load. It is always on, so its
# cost shows only against a build without it (--baseline-daemon): both run the same
# echo.syn 64 x 8, alternating twice, and the best CPU µs per call of each is compared.
# Without a baseline the row is the daemon's own figure (budget 1 PiB: it never sheds).
if wants budget; then
budget_rounds=1
if [ -n "$baseline_daemon" ]; then budget_rounds=2; fi
for round in $(seq 1 "$budget_rounds"); do
  if [ -n "$baseline_daemon" ]; then
    saved_daemon=$daemon_bin; daemon_bin=$baseline_daemon
    start_daemon "daemon-baseline-$round"
    daemon_bin=$saved_daemon
    run "syn-baseline-$round" "$daemon_port" "$daemon_pid" syn --sessions "$sessions" --inflight 8 --payload 64
    stop_server "$daemon_pid"
  fi
  start_daemon "daemon-budget-$round" --memory-budget 1125899906842624
  run "syn-budget-$round" "$daemon_port" "$daemon_pid" syn --sessions "$sessions" --inflight 8 --payload 64
  stop_server "$daemon_pid"
done
fi

# Cluster mode (issue 16): the same 64 x 8 load with --redis (one node, a Redis of its own on
# loopback, started and stopped here) and without, alternating; then the cluster's latency
# figures from scripts/cluster_bench.py (two nodes), kept as cluster-bench.json.
if wants cluster; then
  redis_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  redis_dir=$(mktemp -d /tmp/dsbridge-load-redis.XXXXXX)
  timeout 3600 /usr/bin/redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$redis_dir" \
    >"$results/redis.log" 2>&1 &
  redis_wrapper=$!
  started_pids+=("$redis_wrapper")
  sleep 0.5
  redis_pid=$(pgrep -P "$redis_wrapper" | head -n 1 || true)
  # Redis' share of a call (the resource every node shares): its CPU time and the journal
  # script's time (INFO commandstats) over the cluster-on run, warm-up included.
  redis_ticks() { awk '{ print $14 + $15 }' "/proc/$redis_pid/stat" 2>/dev/null || echo 0; }
  for round in 1 2; do
    start_daemon "daemon-cluster-off-$round"
    run "syn-cluster-off-$round" "$daemon_port" "$daemon_pid" syn --sessions "$sessions" --inflight 8 --payload 64
    stop_server "$daemon_pid"
    start_daemon "daemon-cluster-on-$round" --redis "redis://127.0.0.1:$redis_port" --node-id "load-$round"
    redis-cli -p "$redis_port" config resetstat >/dev/null 2>&1 || true
    ticks_before=$(redis_ticks)
    run "syn-cluster-on-$round" "$daemon_port" "$daemon_pid" syn --sessions "$sessions" --inflight 8 --payload 64
    { echo "cpu_ticks:$(( $(redis_ticks) - ticks_before ))"; echo "clk_tck:$(getconf CLK_TCK)"
      redis-cli -p "$redis_port" info commandstats 2>/dev/null | tr -d '\r'; } >"$results/redis-cluster-on-$round.txt"
    stop_server "$daemon_pid"
  done
  # The same load with test.echo, which is not @idempotent (echo.syn is): each call waits for
  # its acceptance's journal write before it runs (the exactly-once path), on a worker in
  # both modes. One round each.
  start_daemon "daemon-cluster-off-exact"
  run "syn-cluster-off-exact" "$daemon_port" "$daemon_pid" syn --sessions "$sessions" --inflight 8 --payload 64 --method test.echo
  stop_server "$daemon_pid"
  start_daemon "daemon-cluster-on-exact" --redis "redis://127.0.0.1:$redis_port" --node-id "load-exact"
  run "syn-cluster-on-exact" "$daemon_port" "$daemon_pid" syn --sessions "$sessions" --inflight 8 --payload 64 --method test.echo
  stop_server "$daemon_pid"
  # Invokes across nodes: the bench's pages are on node B; each trigger asks node A (via
  # cluster.pushInvokes) to make the invokes, so each goes A -> B and its answer B -> A.
  # The pages answer as web/dsbridge.js does (what is due in one batch frame, like the
  # single-node invoke row); the same load with one frame per message is shown beside it.
  start_daemon "daemon-cluster-a" --redis "redis://127.0.0.1:$redis_port" --node-id load-a
  cluster_a_pid=$daemon_pid
  start_daemon "daemon-cluster-b" --redis "redis://127.0.0.1:$redis_port" --node-id load-b
  sleep 3  # each node learns the other is alive (within a second or two)
  run invoke-cross-node "$daemon_port" "$daemon_pid" invoke --sessions "$sessions" --inflight 2 --invoke-batch 32 --payload 64 \
    --trigger-method cluster.pushInvokes --coalesce
  run invoke-cross-node-frames "$daemon_port" "$daemon_pid" invoke --sessions "$sessions" --inflight 2 --invoke-batch 32 \
    --payload 64 --trigger-method cluster.pushInvokes
  run invoke-same-node-cluster "$daemon_port" "$daemon_pid" invoke --sessions "$sessions" --inflight 2 --invoke-batch 32 --payload 64 \
    --coalesce
  stop_server "$daemon_pid"
  stop_server "$cluster_a_pid"
  calls=300; resumes=100
  if [ "$mode" = smoke ]; then calls=40; resumes=10; fi
  if ! timeout 300 python3 scripts/cluster_bench.py --daemon "$daemon_bin" --calls "$calls" --resumes "$resumes" \
      --json "$results/cluster-bench.json"; then
    echo "load-test: FAILED: cluster-bench" >&2
    failures=$((failures + 1))
  fi
  # A node killed under many pages, all resuming on the other node at once: the replay must
  # be exact (the script exits 1 on any page not resumed or any ret lost, duplicated, out
  # of order or changed).
  failover_pages=5000
  if [ "$mode" = quick ]; then failover_pages=2000; elif [ "$mode" = smoke ]; then failover_pages=200; fi
  for how in kill drain; do
    drain_flag=()
    if [ "$how" = drain ]; then drain_flag=(--drain); fi
    if ! timeout 600 python3 scripts/cluster_failover_bench.py --daemon "$daemon_bin" --pages "$failover_pages" \
        "${drain_flag[@]}" --json "$results/cluster-failover-$how.json"; then
      echo "load-test: FAILED: cluster-failover ($how)" >&2
      failures=$((failures + 1))
    fi
  done
fi

# Idle sessions: a fresh daemon (RSS before = an unused daemon), and the echo server.
dur_main=$dur; warm_main=$warm
if wants idle; then
ensure_echo
start_daemon daemon-idle
dur=$idle_hold
warm=0
run echo-idle "$echo_port" "$echo_pid" idle --raw-echo --sessions "$idle_sessions" "${sources[@]}" --open-timeout 120
run idle "$daemon_port" "$daemon_pid" idle --sessions "$idle_sessions" "${sources[@]}" --open-timeout 120
stop_server "$daemon_pid"
dur=$dur_main; warm=$warm_main
fi

# Held sessions (issue 12): N sessions held open by one bench process (hello, then silent)
# while a second bench process measures 1 x 1 round trips, then (daemon only) a connect
# storm: what opening and closing a session costs the server must not grow with the
# sessions held (libwebsockets 4.1.6 scanned every open connection on each close); a fresh
# server per N.
# held NAME KIND N: KIND is daemon (echo.syn) or echo-poll / echo-uv (bench/lws-echo.c).
held_max=$((fd_limit - 300))
held() {
  local name=$1 kind=$2 n=$3
  if [ "$n" = max ]; then n=$held_max; fi
  case "$kind" in
    daemon) start_daemon "$name" ;;
    echo-poll) start_server "$name" "$echo_bin" 0 ;;
    echo-uv) start_server "$name" "$echo_bin" 0 0 uv ;;
  esac
  local pid=$server_pid port=$server_port holder="" raw=() runs=1
  if [ "$kind" != daemon ]; then raw=(--raw-echo); else runs=2; fi
  if [ "$n" -gt 0 ]; then
    local base
    base=$(ls "/proc/$pid/fd" | wc -l)
    timeout $((n / 20 + 900)) "$bin/dsbridge-bench" idle --port "$port" --sessions "$n" "${sources[@]}" "${raw[@]}" \
      --duration "$(awk -v d="$dur" -v w="$warm" -v r="$runs" 'BEGIN { printf "%d", r * (d + w + 4) + 4 }')" --warmup 0 --open-timeout 300 \
      --json --quiet >"$results/$name-holder.json" 2>"$results/$name-holder.err" &
    holder=$!
    local waited=0
    while [ "$(ls "/proc/$pid/fd" | wc -l)" -lt $((base + n)) ]; do
      if ! kill -0 "$holder" 2>/dev/null || [ "$waited" -gt 3000 ]; then
        echo "load-test: FAILED: $name: $n sessions did not open" >&2
        cat "$results/$name-holder.err" >&2 || true
        failures=$((failures + 1))
        break
      fi
      sleep 0.1
      waited=$((waited + 1))
    done
    echo "== $name: $n sessions held"
  fi
  if [ "$kind" = daemon ]; then
    run "$name" "$port" "$pid" syn --sessions 1 --inflight 1 --payload 64
    run "$name-connect" "$port" "$pid" connect --sessions 32 --source 127.0.0.10-127.0.0.17
  else
    run "$name" "$port" "$pid" echo --sessions 1 --inflight 1 --payload 100
  fi
  if [ -n "$holder" ]; then
    # The holder ends by making one call on each held session: all must answer.
    if ! wait "$holder" || ! python3 -c 'import json,sys; i=json.load(open(sys.argv[1]))["idle"]; sys.exit(0 if i["answered"] == i["sessions"] == int(sys.argv[2]) else 1)' \
        "$results/$name-holder.json" "$n"; then
      echo "load-test: FAILED: $name: not all of the $n held sessions stayed open and answered" >&2
      cat "$results/$name-holder.err" >&2 || true
      failures=$((failures + 1))
    fi
  fi
  echo "$n" >"$results/$name.held"
  stop_server "$pid"
}
held_names=()
if wants held; then
pin_apart
if [ "$mode" = smoke ]; then dur=1; warm=0.5; else dur=5; warm=1; fi
for n in $held_list; do
  held "held-$n" daemon "$n"; held_names+=("held-$n")
  if [ "$mode" != smoke ]; then
    held "held-echo-uv-$n" echo-uv "$n"; held_names+=("held-echo-uv-$n")
  fi
done
if [ "$mode" != smoke ]; then
  held "held-echo-poll-10000" echo-poll 10000; held_names+=("held-echo-poll-10000")
fi
dur=$dur_main; warm=$warm_main
fi

# Paced (issue 12): N sessions each calling once a second at a random phase (a page's real
# pattern), on a fresh daemon; the C echo on libuv under the same pattern for scale.
# The efficiency group (issue 21) takes its third load from these runs.
if { wants paced || wants efficiency; } && [ "$paced_sessions" -gt 0 ]; then
  pin_apart
  if [ "$mode" = smoke ]; then dur=2; warm=1; else dur=10; warm=3; fi
  start_daemon daemon-paced
  run paced "$daemon_port" "$daemon_pid" paced --sessions "$paced_sessions" --payload 64 "${sources[@]}" --open-timeout 300
  stop_server "$daemon_pid"
  start_server echo-uv-paced "$echo_bin" 0 0 uv
  run echo-paced "$server_port" "$server_pid" paced --raw-echo --sessions "$paced_sessions" --payload 100 "${sources[@]}" --open-timeout 300
  stop_server "$server_pid"
  if wants paced; then
    # The same pattern from bench/dsb-load (C, epoll, one thread): each call's round trip,
    # the generator's own wake-ups far below the daemon's (issue 45, part 3).
    # Pairs back to back: a tail this far out moves with the host from one run to the next.
    if [ "$mode" = smoke ]; then paced_rounds=1; else paced_rounds=3; fi
    if [ -n "$paced_rounds_given" ]; then paced_rounds=$paced_rounds_given; fi
    for round in $(seq 1 "$paced_rounds"); do
      start_daemon "daemon-paced-dsbload-$round"
      measure "paced-dsbload-$round" "$daemon_pid" $((dur + warm + 300)) "$load_bin" --port "$daemon_port" --pid "$daemon_pid" \
        --conns "$paced_sessions" --rate 1 --latency --payload 64 --warmup "$warm" --duration "$dur" --json
      stop_server "$daemon_pid"
      start_server "echo-uv-paced-dsbload-$round" "$echo_bin" 0 0 uv
      measure "echo-paced-dsbload-$round" "$server_pid" $((dur + warm + 300)) "$load_bin" --port "$server_port" --pid "$server_pid" \
        --server echo --conns "$paced_sessions" --rate 1 --latency --payload 64 --warmup "$warm" --duration "$dur" --json
      stop_server "$server_pid"
    done
  fi
  if [ -n "$uws_bin" ] && wants efficiency; then
    start_server uws-paced "$uws_bin" 0
    run uws-paced "$server_port" "$server_pid" paced --raw-echo --sessions "$paced_sessions" --payload 100 "${sources[@]}" --open-timeout 300
    stop_server "$server_pid"
  fi
  dur=$dur_main; warm=$warm_main
fi

# Efficiency (issue 21): server CPU per call on the loads of issue 21, the daemon and the C
# echo server (on lws' poll loop and on libuv) in the same run, each server on core 0 and
# the bench on core 1 (left to the scheduler, the two share a core part of the time and
# the CPU per call moves with it). The echo frame is 100 bytes, about an echo.syn call's
# message; the HTTP echo gets the same request as a sync call (--raw-echo) and answers it
# with its body. A full run alternates two rounds and keeps each run's best figure.
eff_rounds=0
if wants efficiency; then
  pin_apart
  if [ "$mode" = full ]; then eff_rounds=2; else eff_rounds=1; fi
  if [ "$mode" = smoke ]; then dur=0.5; warm=0.25; fi
  start_daemon daemon-efficiency
  eff_daemon_pid=$daemon_pid; eff_daemon_port=$daemon_port
  start_server echo-efficiency "$echo_bin" 0
  eff_poll_pid=$server_pid; eff_poll_port=$server_port
  if [ "$mode" != smoke ]; then
    start_server echo-uv-efficiency "$echo_bin" 0 0 uv
    eff_uv_pid=$server_pid; eff_uv_port=$server_port
  fi
  if [ -n "$uws_bin" ]; then
    start_server uws-efficiency "$uws_bin" 0
    eff_uws_pid=$server_pid; eff_uws_port=$server_port
  fi
  for round in $(seq 1 "$eff_rounds"); do
    run "eff-syn-$round" "$eff_daemon_port" "$eff_daemon_pid" syn --sessions "$sessions" --inflight 8 --payload 64
    run "eff-echo-$round" "$eff_poll_port" "$eff_poll_pid" echo --sessions "$sessions" --inflight 8 --payload 100
    if [ "$mode" != smoke ]; then
      run "eff-echo-uv-$round" "$eff_uv_port" "$eff_uv_pid" echo --sessions "$sessions" --inflight 8 --payload 100
    fi
    if [ -n "$uws_bin" ]; then
      run "eff-uws-$round" "$eff_uws_port" "$eff_uws_pid" echo --sessions "$sessions" --inflight 8 --payload 100
    fi
    run "eff-http-$round" "$eff_daemon_port" "$eff_daemon_pid" http --sessions "$sessions" --payload 64
    run "eff-echo-http-$round" "$eff_poll_port" "$eff_poll_pid" http --raw-echo --sessions "$sessions" --payload 64
    if [ "$mode" != smoke ]; then
      run "eff-echo-uv-http-$round" "$eff_uv_port" "$eff_uv_pid" http --raw-echo --sessions "$sessions" --payload 64
    fi
    if [ -n "$uws_bin" ]; then
      run "eff-uws-http-$round" "$eff_uws_port" "$eff_uws_pid" http --raw-echo --sessions "$sessions" --payload 64
    fi
  done
  stop_server "$eff_daemon_pid"
  stop_server "$eff_poll_pid"
  if [ "$mode" != smoke ]; then stop_server "$eff_uv_pid"; fi
  if [ -n "$uws_bin" ]; then stop_server "$eff_uws_pid"; fi
  unpin
  dur=$dur_main; warm=$warm_main
fi

# Saturation (issue 45): each server at the highest rate it sustains. bench/dsb-load keeps
# every connection's calls in flight (each answer lets the next call go), so the server sets
# the rate; it checks every answer against its call and exits 1 on any mismatch or close.
# Server on core 0, generator on core 1, as in the efficiency group; the servers stay up
# and the runs alternate between them. dsbridged is also started with TLS (a self-signed
# certificate made here), measured beside plain (issue 44's wss:// row). min-load, the
# smallest epoll client, drives the echo the same way: dsb-load must reach 80% of its rate
# (else it, not the server, would set the rate).
sat_rounds=0
if wants saturation; then
  pin_apart
  if [ "$mode" = full ]; then sat_rounds=2; else sat_rounds=1; fi
  if [ -n "$sat_rounds_given" ]; then sat_rounds=$sat_rounds_given; fi
  if [ "$mode" = smoke ]; then dur=0.5; warm=0.25; fi
  sat_limit=$(awk -v d="$dur" -v w="$warm" 'BEGIN { printf "%d", d + w + 60 }')   # seconds a run may take
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=127.0.0.1 \
    -keyout "$results/sat-key.pem" -out "$results/sat-cert.pem" 2>"$results/sat-openssl.log"
  start_daemon daemon-saturation
  sat_d_pid=$daemon_pid; sat_d_port=$daemon_port
  start_daemon daemon-saturation-tls --tls-cert "$results/sat-cert.pem" --tls-key "$results/sat-key.pem"
  sat_t_pid=$daemon_pid; sat_t_port=$daemon_port
  if [ -n "$uws_bin" ]; then start_server uws-saturation "$uws_bin" 0; else start_server echo-saturation "$echo_bin" 0; fi
  sat_e_pid=$server_pid; sat_e_port=$server_port
  # sat NAME PORT PID [dsb-load options]: one dsb-load run, its JSON kept as NAME.json.
  sat() {
    local name=$1 port=$2 pid=$3; shift 3
    echo "== $name: dsb-load $*"
    measure "$name" "$pid" "$sat_limit" "$load_bin" \
      --port "$port" --pid "$pid" --threads "$threads" --warmup "$warm" --duration "$dur" --json "$@"
  }
  # sat_min NAME INFLIGHT ws|http: min-load on the echo (64 connections), its rate as NAME.json.
  sat_min() {
    local name=$1 inflight=$2 kind=$3
    echo "== $name: min-load 64 x $inflight $kind"
    if timeout "$sat_limit" "${bench_pin[@]}" "$min_bin" \
        "$sat_e_port" 64 "$inflight" "$dur" "$warm" "$kind" >"$results/$name.txt" 2>&1; then
      awk '{ printf "{\"rate\":%s,\"clientCpuPercent\":%s}\n", $2, $4 + 0 }' "$results/$name.txt" >"$results/$name.json"
    else
      echo "load-test: FAILED: $name" >&2; cat "$results/$name.txt" >&2
      failures=$((failures + 1))
    fi
  }
  ws_load=(--mode ws --conns 64 --inflight 8 --payload 64)
  http_load=(--mode http --conns 64 --inflight 1 --payload 64)
  for round in $(seq 1 "$sat_rounds"); do
    sat "sat-ws-dsb-$round" "$sat_d_port" "$sat_d_pid" "${ws_load[@]}"
    sat "sat-ws-echo-$round" "$sat_e_port" "$sat_e_pid" "${ws_load[@]}" --server echo
    sat_min "sat-min-$round" 8 ws
    sat "sat-wss-dsb-$round" "$sat_t_port" "$sat_t_pid" "${ws_load[@]}" --tls
    sat "sat-http-dsb-$round" "$sat_d_port" "$sat_d_pid" "${http_load[@]}"
    sat "sat-http-echo-$round" "$sat_e_port" "$sat_e_pid" "${http_load[@]}" --server echo
    sat_min "sat-min-http-$round" 1 http
    sat "sat-https-dsb-$round" "$sat_t_port" "$sat_t_pid" "${http_load[@]}" --tls
    # One call in flight on one page: each call's round trip, plain and TLS (issue 44).
    sat "sat-lat-ws-dsb-$round" "$sat_d_port" "$sat_d_pid" --mode ws --conns 1 --inflight 1 --payload 64 --latency
    sat "sat-lat-wss-dsb-$round" "$sat_t_port" "$sat_t_pid" --mode ws --conns 1 --inflight 1 --payload 64 --latency --tls
  done
  stop_server "$sat_d_pid"
  stop_server "$sat_t_pid"
  stop_server "$sat_e_pid"
  unpin
  dur=$dur_main; warm=$warm_main
fi

# Tracing (issue 17): the same 64 x 8 load with every call exported as a span over OTLP/HTTP
# (protobuf, to a receiver that only counts) and without, alternating.
if wants otel; then
  for round in 1 2; do
    start_daemon "daemon-otel-off-$round"
    run "syn-otel-off-$round" "$daemon_port" "$daemon_pid" syn --sessions "$sessions" --inflight 8 --payload 64
    stop_server "$daemon_pid"
    start_server "otlp-sink-$round" python3 scripts/otlp_sink.py --summary "$results/otlp-sink-$round.json"
    sink_pid=$server_pid
    start_daemon "daemon-otel-on-$round" --otel-endpoint "http://127.0.0.1:$server_port"
    run "syn-otel-on-$round" "$daemon_port" "$daemon_pid" syn --sessions "$sessions" --inflight 8 --payload 64
    stop_server "$daemon_pid"
    # One trace in a hundred kept (the pages send no traceparent: the ratio decides).
    daemon_env=(OTEL_TRACES_SAMPLER=parentbased_traceidratio OTEL_TRACES_SAMPLER_ARG=0.01)
    start_daemon "daemon-otel-sampled-$round" --otel-endpoint "http://127.0.0.1:$server_port"
    daemon_env=()
    run "syn-otel-sampled-$round" "$daemon_port" "$daemon_pid" syn --sessions "$sessions" --inflight 8 --payload 64
    stop_server "$daemon_pid"
    stop_server "$sink_pid"
  done
fi

# --- table ------------------------------------------------------------------------------------
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
report_rc=0
LOAD_TEST_BASELINE="$baseline_daemon" LOAD_TEST_ONLY="$only" LOAD_TEST_UWS="$uws_bin" python3 - "$results" "$mode" "$fd_limit" "$idle_sessions" "$strict" "$failures" "$load_before" "$load_after" "$(nproc)" "${held_names[*]}" \
  "$eff_rounds" "$pinned" "$sessions" "$paced_sessions" "$sat_rounds" <<'PY' || report_rc=$?
import json, os, statistics, sys
results, mode, fd_limit, idle_sessions, strict, failures = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "1", int(sys.argv[6])
load_before, load_after, cores = sys.argv[7], sys.argv[8], sys.argv[9]
held_names = sys.argv[10].split()
held_connect_names = [n + "-connect" for n in held_names if n.startswith("held-") and not n.startswith("held-echo")]
eff_rounds, pinned, sessions, paced_sessions = int(sys.argv[11]), sys.argv[12] == "1", int(sys.argv[13]), int(sys.argv[14])
sat_rounds = int(sys.argv[15])
eff_names = [f"eff-{kind}-{i}" for i in range(1, eff_rounds + 1)
             for kind in ("syn", "echo", "http", "echo-http") + (() if mode == "smoke" else ("echo-uv", "echo-uv-http"))
             + (("uws", "uws-http") if os.environ.get("LOAD_TEST_UWS") else ())]
uws_measured = bool(os.environ.get("LOAD_TEST_UWS"))

def load(name):
    try:
        with open(os.path.join(results, name + ".json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None

r = {n: load(n) for n in ["echo-throughput", "syn-throughput", "echo-latency", "syn-latency", "worker-throughput",
                          "worker-latency", "async", "invoke",
                          "invoke-frames", "http", "connect", "resume", "echo-idle", "idle", "paced", "syn-budget-1"]
                          + (["syn-budget-2", "syn-baseline-1", "syn-baseline-2"] if os.environ.get("LOAD_TEST_BASELINE") else [])
                          + ["echo-paced"] + (["uws-paced"] if uws_measured and paced_sessions > 0 else []) + held_names + held_connect_names + eff_names}

# Issue 16's runs (only when the cluster group ran: not listed as missing otherwise).
cluster_runs = {n: load(n) for n in ["syn-cluster-on-1", "syn-cluster-on-2", "syn-cluster-off-1", "syn-cluster-off-2",
                                     "syn-cluster-on-exact", "syn-cluster-off-exact",
                                     "invoke-cross-node", "invoke-cross-node-frames", "invoke-same-node-cluster"]}
# Issue 17's tracing runs (only when the otel group ran).
otel_runs = {n: load(n) for n in ["syn-otel-on-1", "syn-otel-on-2", "syn-otel-off-1", "syn-otel-off-2",
                                  "syn-otel-sampled-1", "syn-otel-sampled-2"]}

def fmt(v, unit=""):
    if v is None: return "-"
    if isinstance(v, float) and v < 100: return f"{v:.1f}{unit}"
    return f"{v:,.0f}{unit}"

print()
print(f"Runs ({mode}; {results}; {cores} cores, load average {load_before} before, {load_after} after)")
head = f"{'run':<16} {'throughput':>18} {'p50 µs':>8} {'p99 µs':>8} {'p99.9 µs':>9} {'max µs':>9} {'srv cpu':>8} {'µs cpu/op':>9} {'srv rss':>9} {'cli cpu':>8}  errors / close codes"
print(head)
print("-" * len(head))
for name, j in r.items():
    if j is None:
        print(f"{name:<16} {'(no result)':>18}")
        continue
    lat = j.get("latency") or {}
    srv = j.get("server") or {}
    errs = ", ".join(f"{k} {v}" for k, v in sorted(j["errors"].items())) or "none"
    closes = ", ".join(f"{k}x{v}" for k, v in sorted(j["closeCodes"].items())) or "-"
    tp = f"{j['throughput']:,.0f} {j['unit']}"
    cpu_op = srv.get("cpuMicrosPerOperation")
    print(f"{name:<16} {tp:>18} {fmt(lat.get('p50')):>8} {fmt(lat.get('p99')):>8} {fmt(lat.get('p999')):>9} {fmt(lat.get('max')):>9} "
          f"{fmt(srv.get('cpuPercent'), '%'):>8} {fmt(cpu_op):>9} {srv.get('rssBytes', 0) / 1048576:>7.1f}Mi {fmt(j['clientCPUPercent'], '%'):>8}  {errs} / {closes}")

def get(name, *path):
    j = r.get(name)
    for p in path:
        if j is None: return None
        j = j.get(p) if isinstance(j, dict) else None
    return j

rows = []   # (figure, bridge, echo, ratio, target, verdict)
def ratio(a, b):
    return a / b if a is not None and b not in (None, 0) else None

def check(figure, bridge, echo, target_text, ok, unit=""):
    rt = ratio(bridge, echo) if echo is not None else None
    verdict = "-" if ok is None else ("PASS" if ok else "MISS")
    rows.append((figure, fmt(bridge, unit) if bridge is not None else "-", fmt(echo, unit) if echo is not None else "-",
                 f"{rt:.3f}x" if rt is not None else "-", target_text, verdict))

b, e = get("syn-throughput", "throughput"), get("echo-throughput", "throughput")
check("echo.syn 64x8 round trips/s", b, e, ">= 0.80x echo", None if ratio(b, e) is None else ratio(b, e) >= 0.80)
b, e = get("syn-latency", "latency", "p50"), get("echo-latency", "latency", "p50")
check("1x1 p50 latency (µs)", b, e, "<= 1.3x echo", None if ratio(b, e) is None else ratio(b, e) <= 1.3)
b, e = get("syn-latency", "latency", "p99"), get("echo-latency", "latency", "p99")
check("1x1 p99 latency (µs)", b, e, "<= 1.5x echo", None if ratio(b, e) is None else ratio(b, e) <= 1.5)
b, e = get("worker-throughput", "throughput"), get("echo-throughput", "throughput")
check("  same on a worker (no @nonblocking)", b, e, "reported", None)
b, e = get("worker-latency", "latency", "p50"), get("echo-latency", "latency", "p50")
check("  1x1 p50 on a worker (µs)", b, e, "reported", None)
b = get("async", "throughput")
check("async cb/s (10 progress + final)", b, None, ">= 200,000/s", None if b is None else b >= 200_000)
b = get("invoke", "throughput")
check("invokes answered/s (64 sessions)", b, None, ">= 100,000/s", None if b is None else b >= 100_000)
check("  same, one frame per answer", get("invoke-frames", "throughput"), None, "reported", None)
b = get("http", "throughput")
check("sync HTTP calls/s (64 keep-alive)", b, None, ">= 30,000/s", None if b is None else b >= 30_000)
b, e = get("idle", "idle", "rssPerSessionBytes"), get("echo-idle", "idle", "rssPerSessionBytes")
b = b / 1024 if b is not None else None
e = e / 1024 if e is not None else None
check(f"idle RSS per session (KiB, {idle_sessions:,})", b, e, "<= 8 KiB", None if b is None else b <= 8)
held, answered = get("idle", "idle", "sessions"), get("idle", "idle", "answered")
ok = None if held is None else (held >= idle_sessions and answered == held)
rows.append((f"idle sessions answering afterwards", f"{answered}/{held}" if held is not None else "-", "-", "-", "all", "-" if ok is None else ("PASS" if ok else "MISS")))
def held_count(name):
    try:
        with open(os.path.join(results, name + ".held")) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None
for prefix, label in [("held-", "dsbridged"), ("held-echo-uv-", "C echo on libuv"), ("held-echo-poll-", "C echo, poll loop")]:
    names = [n for n in held_names if n.startswith(prefix) and (n[len(prefix):].isdigit() or n[len(prefix):] == "max")]
    base = get(prefix + "0", "latency", "p50") if prefix + "0" in held_names else None
    base99 = get(prefix + "0", "latency", "p99") if prefix + "0" in held_names else None
    for n in names:
        count = held_count(n)
        p50, p99 = get(n, "latency", "p50"), get(n, "latency", "p99")
        target = count is not None and count > 0 and base is not None and prefix == "held-"
        check(f"{label}: 1x1 p50 µs, {count:,} held" if count is not None else f"{label}: {n}", p50, base,
              "<= 1.2x none held" if target else "reported", (ratio(p50, base) <= 1.2) if target and p50 is not None else None)
        check(f"{label}: 1x1 p99 µs, {count:,} held" if count is not None else f"{label}: {n}", p99, base99,
              "<= 1.2x none held" if target else "reported", (ratio(p99, base99) <= 1.2) if target and p99 is not None else None)
# Opening and closing a session with N held (the connect storm after each held run).
connect_base = get("held-0-connect", "server", "cpuMicrosPerOperation") if "held-0-connect" in held_connect_names else None
for n in held_connect_names:
    count = held_count(n[:-len("-connect")])
    cpu = get(n, "server", "cpuMicrosPerOperation")
    target = count is not None and count > 0 and connect_base is not None
    check(f"dsbridged: server CPU µs per session opened, {count:,} held" if count is not None else n, cpu, connect_base,
          "<= 1.2x none held" if target else "reported", (ratio(cpu, connect_base) <= 1.2) if target and cpu is not None else None)
b, e = get("paced", "latency", "p50"), get("echo-paced", "latency", "p50")
check("paced 1 call/s/session: p50 µs", b, e, "reported", None)
b, e = get("paced", "latency", "p99"), get("echo-paced", "latency", "p99")
check("paced 1 call/s/session: p99 µs", b, e, "<= 2,000 µs", None if b is None else b <= 2000)
b, e = get("paced", "server", "cpuPercent"), get("echo-paced", "server", "cpuPercent")
check("paced: server CPU (% of a core)", b, e, "reported", None)
b, e = get("paced", "server", "cpuMicrosPerOperation"), get("echo-paced", "server", "cpuMicrosPerOperation")
check("paced: server CPU µs per call", b, e, "reported", None)
notes = []
if fd_limit >= 100_200:
    notes.append("100,000 sessions: not run by this script (run the idle scenario with --idle-sessions 100000)")
else:
    notes.append(f"100,000 sessions: not measurable on this machine: the fd hard limit (ulimit -Hn) is {fd_limit}, "
                 "and each held session needs one fd in the daemon and one in the bench")
rows.append(("100,000 sessions held", "-", "-", "-", "all answer", "SKIP"))
b, e = get("syn-throughput", "server", "cpuMicrosPerOperation"), get("echo-throughput", "server", "cpuMicrosPerOperation")
check("server CPU µs per round trip (64x8, unpinned)", b, e, "reported", None)
b = get("syn-latency", "server", "cpuMicrosPerOperation"); e = get("echo-latency", "server", "cpuMicrosPerOperation")
check("server CPU µs per round trip (1x1)", b, e, "reported", None)
# The memory budget's accounting against a build without it (issue 20 allows 3%): the best
# of each side's runs, so one noisy run does not decide.
def best(prefix, key):
    values = [get(f"{prefix}-{i}", *key) for i in (1, 2)]
    values = [v for v in values if v is not None]
    if not values: return None
    return min(values) if key[-1] == "cpuMicrosPerOperation" else max(values)
b, e = best("syn-budget", ("server", "cpuMicrosPerOperation")), best("syn-baseline", ("server", "cpuMicrosPerOperation"))
rows.append(("memory accounting: CPU µs/call 64x8 (C echo column: a build without it)", fmt(b) if b is not None else "-", fmt(e) if e is not None else "-",
             f"{ratio(b, e):.3f}x" if ratio(b, e) is not None else "-", "<= 1.03x without" if e is not None else "reported",
             "-" if ratio(b, e) is None else ("PASS" if ratio(b, e) <= 1.03 else "MISS")))
b, e = best("syn-budget", ("throughput",)), best("syn-baseline", ("throughput",))
check("memory accounting: 64x8 round trips/s", b, e, "reported", None)
for name, label in [("async", "server CPU µs per cb"), ("invoke", "server CPU µs per invoke"), ("http", "server CPU µs per HTTP call"),
                    ("connect", "server CPU µs per session opened"), ("resume", "server CPU µs per resume")]:
    check(label, get(name, "server", "cpuMicrosPerOperation"), None, "reported", None)
check("connect storm sessions/s", get("connect", "throughput"), None, "reported", None)
check("reconnect storm resumes/s", get("resume", "throughput"), None, "reported", None)

print()
print("Issue 6 targets (bridge vs the C lws echo server, same client, same run)")
widths = [max(len(str(row[i])) for row in rows + [("figure", "bridge", "C echo", "ratio", "target", "result")]) for i in range(6)]
hdr = ("figure", "bridge", "C echo", "ratio", "target", "result")
print("  ".join(str(h).ljust(widths[i]) if i == 0 else str(h).rjust(widths[i]) for i, h in enumerate(hdr)))
print("  ".join("-" * w for w in widths))
for row in rows:
    print("  ".join(str(c).ljust(widths[i]) if i == 0 else str(c).rjust(widths[i]) for i, c in enumerate(row)))
for note in notes:
    print("note: " + note)
misses = [row[0] for row in rows if row[5] == "MISS"]

# Issue 21: server CPU per call on three loads, the bridge against the C echo (same loads,
# same run, pinned apart) and against the issue's uWebSockets figures (goal: at most 2x).
UWS_REFERENCE = {"a": 0.62, "b": 5.1, "c": 8.1}   # µs per call, from the issue's text
def cpu_per_call(name):
    return get(name, "server", "cpuMicrosPerOperation")
def best_of(kind):
    values = [cpu_per_call(f"eff-{kind}-{i}") for i in range(1, eff_rounds + 1)]
    values = [v for v in values if v is not None]
    return min(values) if values else None
def lower_echo(candidates):
    """The lower µs per call of the C echo's loops: (value, loop, the others as text)."""
    have = [(v, loop) for loop, v in candidates if v is not None]
    if not have: return None, None, ""
    v, loop = min(have)
    others = ", ".join(f"{l} {fmt(x)}" for x, l in have if l != loop)
    return v, loop, others
if eff_rounds > 0 or get("paced") is not None or get("echo-paced") is not None:
    eff_rows = []   # (load, bridge, echo, echo loop, others, key)
    if eff_rounds > 0:
        e, loop, others = lower_echo([("poll", best_of("echo")), ("libuv", best_of("echo-uv"))])
        eff_rows.append((f"(a) {sessions} sessions x 8 echo.syn in flight", best_of("syn"), e, loop, others, "a"))
        e, loop, others = lower_echo([("poll", best_of("echo-http")), ("libuv", best_of("echo-uv-http"))])
        eff_rows.append((f"(b) {sessions} keep-alive sync HTTP calls", best_of("http"), e, loop, others, "b"))
    eff_rows.append((f"(c) {paced_sessions:,} sessions x 1 call/s (paced)" if paced_sessions > 0 else "(c) paced: not run (--paced 0)",
                     cpu_per_call("paced"), cpu_per_call("echo-paced"),
                     "libuv" if cpu_per_call("echo-paced") is not None else None, "", "c"))
    table = []
    # uWebSockets measured in this run (--uws-echo), else the issue's reference figures.
    uws_runs = {"a": best_of("uws"), "b": best_of("uws-http"), "c": cpu_per_call("uws-paced")} if uws_measured else {}
    for load_text, b, e, loop, others, key in eff_rows:
        uws = uws_runs.get(key) if uws_measured else UWS_REFERENCE[key]
        ru = ratio(b, uws)
        verdict = "-" if ru is None else ("PASS" if ru <= 2.0 else "MISS")
        if verdict == "MISS": misses.append(f"issue 21 {load_text}")
        table.append((load_text, fmt(b) if b is not None else "-",
                      f"{fmt(e)} ({loop})" if e is not None else "-",
                      f"{ratio(b, e):.2f}x" if ratio(b, e) is not None else "-",
                      fmt(uws) if uws is not None else "-", f"{ru:.2f}x" if ru is not None else "-", "<= 2x uWS", verdict))
    print()
    pin_text = "server on core 0, bench on core 1" if pinned else "NOT pinned apart (fewer than 2 cores or no taskset)"
    rounds_text = f"best of {eff_rounds} rounds" if eff_rounds > 1 else "one round"
    print(f"Issue 21, fixed-rate rows: server CPU per call at the rate dsbridge-bench drives, below what the servers sustain")
    print(f"  (issue 45's rows at saturation follow); bridge vs C echo (same loads, same run; {pin_text}; (a), (b): {rounds_text})")
    hdr = ("load", "bridge µs/call", "C echo µs/call", "bridge/C echo", "uWS µs/call*", "bridge/uWS", "goal", "result")
    widths = [max(len(str(row[i])) for row in table + [hdr]) for i in range(len(hdr))]
    print("  ".join(str(h).ljust(widths[i]) if i == 0 else str(h).rjust(widths[i]) for i, h in enumerate(hdr)))
    print("  ".join("-" * w for w in widths))
    for row in table:
        print("  ".join(str(c).ljust(widths[i]) if i == 0 else str(c).rjust(widths[i]) for i, c in enumerate(row)))
    if uws_measured:
        print(f"* uWebSockets measured in this run ({os.environ['LOAD_TEST_UWS']}, bench/uws-echo.cpp), the same loads as the")
        print("  C echo, pinned the same way; the goal is reported, it fails the run only with --strict")
    else:
        print("* uWebSockets reference, issue 21, not measured here (0.62 / 5.1 / 8.1 µs per call; measure it in the same")
        print("  run with --uws-echo); the goal is reported, it fails the run only with --strict. (a)'s 0.62 µs is")
        print("  uWebSockets at 1.6M round trips/s; driven by this bench (about 100k/s) it took 3.1-3.3 µs (docs/PERFORMANCE.md)")
    echo_notes = [f"{load[:3]} {others}" for load, b, e, loop, others, key in eff_rows if others]
    print("C echo: bench/lws-echo.c, the lower of its loops per load" + (f" (the other: {'; '.join(echo_notes)})" if echo_notes else ""))
    print("  (a) 100-byte frames; (b) the bridge's call request, answered with its body; (c) 100-byte frames, on libuv")

# Issue 45: each server at the highest rate it sustains (bench/dsb-load, closed loop), the
# servers alternating in one run; the best round of each (lowest CPU per call).
sat_runs = {f"sat-{kind}-{i}": load(f"sat-{kind}-{i}") for i in range(1, sat_rounds + 1)
            for kind in ("ws-dsb", "ws-echo", "min", "wss-dsb", "http-dsb", "http-echo", "min-http", "https-dsb",
                         "lat-ws-dsb", "lat-wss-dsb")}
def sat_shared(j):
    """Server and generator both below 90% of their cores: neither set the rate, so other
    processes had the cores (a shared machine)."""
    return j["serverCpuPercent"] < 90 and j["clientCpuPercent"] < 90
def sat_best(kind):
    """The round with the lowest CPU per call, among the rounds not marked shared if any."""
    runs = [j for j in (sat_runs.get(f"sat-{kind}-{i}") for i in range(1, sat_rounds + 1)) if j]
    runs = [j for j in runs if not sat_shared(j)] or runs
    return min(runs, key=lambda j: j["serverCpuMicrosPerCall"]) if runs else None
if sat_rounds > 0:
    echo_name = "uWebSockets" if uws_measured else "C lws echo"
    print()
    rounds_text = f"of {sat_rounds} rounds the one with the lowest CPU per call" if sat_rounds > 1 else "one round"
    print(f"Issue 45: at saturation, each server at the highest rate it sustains (bench/dsb-load, C, closed loop; "
          f"{'server on core 0, generator on core 1' if pinned else 'NOT pinned apart'}; {rounds_text})")
    print(f"  {'load / server':<44} {'calls/s':>10} {'µs CPU/call':>12} {'server core':>12} {'generator core':>15}")
    def sat_line(name, j):
        if j is None:
            print(f"    {name:<42} {'(no result)':>10}")
            return
        shared = sat_shared(j)
        print(f"    {name:<42} {j['rate']:>10,.0f} {j['serverCpuMicrosPerCall']:>12.2f} {j['serverCpuPercent']:>11.0f}% "
              f"{j['clientCpuPercent']:>14.0f}%" + ("  (*)" if shared else ""))
    def sat_block(title, a_name, a, b_name, b, goal_text, limit):
        print(f"  {title}")
        sat_line(a_name, a)
        sat_line(b_name, b)
        ra = ratio(a and a["serverCpuMicrosPerCall"], b and b["serverCpuMicrosPerCall"])
        verdict = "-" if ra is None or limit is None else ("PASS" if ra <= limit else "MISS")
        if verdict == "MISS": misses.append(f"issue 45 {title}")
        print(f"    CPU per call, {a_name} / {b_name}: " + (f"{ra:.2f}x" if ra is not None else "-")
              + f" (goal {goal_text}): {verdict}")
    sat_block("64 pages x 8 echo.syn in flight", "dsbridged", sat_best("ws-dsb"), echo_name, sat_best("ws-echo"), "<= 2x", 2.0)
    sat_block("64 keep-alive connections of sync HTTP calls", "dsbridged", sat_best("http-dsb"), echo_name,
              sat_best("http-echo"), "<= 2x", 2.0)
    sat_block("dsbridged, 64 x 8, TLS beside plain", "wss://", sat_best("wss-dsb"), "ws://", sat_best("ws-dsb"), "<= 1.3x, issue 44", 1.3)
    sat_block("dsbridged, 64 sync HTTP, TLS beside plain", "https://", sat_best("https-dsb"), "http://", sat_best("http-dsb"),
              "reported", None)
    # 1 x 1 round trips (dsb-load --latency), the round with the lowest p99 of each.
    def lat_best(kind):
        runs = [j for j in (sat_runs.get(f"sat-{kind}-{i}") for i in range(1, sat_rounds + 1)) if j and j.get("latencyCalls")]
        return min(runs, key=lambda j: j["p99Micros"]) if runs else None
    print("  dsbridged, 1 page x 1 call in flight, each call's round trip (dsb-load --latency; µs)")
    for name, j in (("ws://", lat_best("lat-ws-dsb")), ("wss://", lat_best("lat-wss-dsb"))):
        if j is None:
            print(f"    {name:<42} {'(no result)':>10}")
            continue
        print(f"    {name:<42} p50 {j['p50Micros']:>6.0f}  p99 {j['p99Micros']:>6.0f}  p99.9 {j['p999Micros']:>6.0f}  "
              f"max {j['maxMicros']:>7.0f}  ({j['latencyCalls']:,} calls, {j['serverCpuMicrosPerCall']:.2f} µs CPU/call)")
    # The highest rate each client reached on the echo, whichever round; and round by round.
    def sat_top(kind):
        return max([j["rate"] for j in (sat_runs.get(f"sat-{kind}-{i}") for i in range(1, sat_rounds + 1)) if j], default=None)
    for label, gen_kind, min_kind in (("64 x 8 WebSocket", "ws-echo", "min"), ("64 keep-alive HTTP", "http-echo", "min-http")):
        gen, ref = sat_top(gen_kind), sat_top(min_kind)
        rg = ratio(gen, ref)
        verdict = "-" if rg is None else ("PASS" if rg >= 0.8 else "MISS")
        if verdict == "MISS": misses.append(f"issue 45 generator saturation, {label}")
        print(f"generator, {label}: dsb-load {fmt(gen)} calls/s against bench/min-load.c (minimal epoll client, no checks) "
              f"{fmt(ref)}/s on the {echo_name} (the highest of each): "
              + (f"{rg:.2f}x (goal >= 0.80x): {verdict}" if rg is not None else "-"))
        per_round = [ratio(g["rate"], m["rate"]) for g, m in ((sat_runs.get(f"sat-{gen_kind}-{i}"), sat_runs.get(f"sat-{min_kind}-{i}"))
                                                              for i in range(1, sat_rounds + 1)) if g and m]
        if len(per_round) > 1:
            print("  round by round (the two clients' runs next to each other): " + ", ".join(f"{x:.2f}x" for x in per_round))
        # Answers per second of the client's own CPU: what each would reach with a whole core,
        # which holds still when other processes share the cores (the rates do not).
        def per_core(kind):
            runs = [j for j in (sat_runs.get(f"sat-{kind}-{i}") for i in range(1, sat_rounds + 1)) if j and j.get("clientCpuPercent")]
            return max([j["rate"] * 100 / j["clientCpuPercent"] for j in runs], default=None)
        pg, pm = per_core(gen_kind), per_core(min_kind)
        if pg is not None and pm is not None:
            print(f"  answers per second of the client's own CPU (best round): dsb-load {fmt(pg)}, min-load {fmt(pm)}: {pg / pm:.2f}x")
    print("  the same echo.syn call to every server (a 128-byte WebSocket message, a 101-byte HTTP body; data 64 bytes);")
    print("  dsb-load checks every answer against its call by id")
    print("  a server is saturated when it is near 100% of its core while the generator is below 100% of its own;")
    print("  (*): both below 90% of their cores: other processes had them (check `top`), the rate is not the server's ceiling")

# Issue 45, part 3: the paced tail from the C generator, dsbridged beside the C echo, in
# back-to-back pairs; the verdict is the median of the pairs' p99 ratios.
paced_pairs = []
for i in range(1, 100):
    pd, pe = load(f"paced-dsbload-{i}"), load(f"echo-paced-dsbload-{i}")
    if pd is None and pe is None:
        break
    paced_pairs.append((pd, pe))
if paced_pairs:
    print()
    print(f"Issue 45: {paced_sessions:,} pages x 1 call/s from bench/dsb-load (C, epoll; each call's round trip, µs; "
          f"the C echo on libuv under the same pattern; {len(paced_pairs)} pair(s) run back to back)")
    ratios = []
    for i, (pd, pe) in enumerate(paced_pairs, 1):
        for name, j in ((f"dsbridged, pair {i}", pd), (f"C echo (libuv), pair {i}", pe)):
            if j is None:
                print(f"    {name:<26} (no result)")
                continue
            print(f"    {name:<26} p50 {j['p50Micros']:>6.0f}  p99 {j['p99Micros']:>6.0f}  p99.9 {j['p999Micros']:>6.0f}  "
                  f"max {j['maxMicros']:>7.0f}  ({j['latencyCalls']:,} calls, {j['serverCpuMicrosPerCall']:.2f} µs CPU/call, "
                  f"server {j['serverCpuPercent']:.0f}% of a core)")
        if pd and pe:
            rp = ratio(pd["p99Micros"], pe["p99Micros"])
            r999 = ratio(pd["p999Micros"], pe["p999Micros"])
            if rp is not None:
                ratios.append(rp)
            print(f"      pair {i}: p99 dsbridged / C echo " + (f"{rp:.2f}x" if rp is not None else "-")
                  + "; p99.9 " + (f"{r999:.2f}x" if r999 is not None else "-"))
    if ratios:
        median = statistics.median(ratios)
        verdict = "PASS" if median <= 1.5 else "MISS"
        if verdict == "MISS": misses.append("issue 45 paced p99")
        print(f"    p99 dsbridged / C echo, median of {len(ratios)} pair(s): {median:.2f}x (goal <= 1.5x): {verdict}; "
              f"within 1.5x in {sum(1 for x in ratios if x <= 1.5)} of {len(ratios)}")

# Issue 16: cluster mode on vs off (one node, same run, best of the alternating rounds), and
# the cluster's latency figures.
def throughput(name):
    j = cluster_runs.get(name)
    return j.get("throughput") if j else None
def redis_share(i):
    """(journal script µs, Redis CPU µs) per call of cluster-on round i: Redis' counters cover
    the warm-up too, so the calls are the measured rate times warm-up plus measured time."""
    j = cluster_runs.get(f"syn-cluster-on-{i}")
    try:
        fields = dict(line.split(":", 1) for line in open(os.path.join(results, f"redis-cluster-on-{i}.txt")) if ":" in line)
    except OSError:
        return None
    if not j or not j.get("callsPerSecond"):
        return None
    calls = j["callsPerSecond"] * (j.get("warmupSeconds", 0) + j.get("measuredSeconds", 0))
    stats = dict(kv.split("=", 1) for kv in fields.get("cmdstat_evalsha", "").strip().split(",") if "=" in kv)
    script = float(stats.get("usec", 0)) / calls
    cpu = int(fields.get("cpu_ticks", 0)) * 1e6 / int(fields.get("clk_tck", 100)) / calls
    return script, cpu
on = max([v for v in (throughput(f"syn-cluster-on-{i}") for i in (1, 2)) if v is not None], default=None)
off = max([v for v in (throughput(f"syn-cluster-off-{i}") for i in (1, 2)) if v is not None], default=None)
bench_path = os.path.join(results, "cluster-bench.json")
cluster_bench = json.load(open(bench_path)) if os.path.exists(bench_path) else {}
if on is not None or off is not None or cluster_bench:
    print()
    print("Issue 16: cluster mode (one Redis on loopback)")
    ro = ratio(on, off)
    verdict = "-" if ro is None else ("PASS" if ro >= 0.8 else "MISS")
    if verdict == "MISS": misses.append("issue 16 cluster on/off")
    print(f"  64x8 echo.syn (@idempotent) round trips/s, one node: cluster on {fmt(on)}, off {fmt(off)}, ratio "
          f"{(f'{ro:.2f}x' if ro is not None else '-')} (goal >= 0.80x): {verdict}")
    exact_on, exact_off = throughput("syn-cluster-on-exact"), throughput("syn-cluster-off-exact")
    rx = ratio(exact_on, exact_off)
    if rx is not None:
        verdict = "PASS" if rx >= 0.8 else "MISS"
        if verdict == "MISS": misses.append("issue 16 cluster on/off, exactly-once path")
        print(f"  64x8 test.echo (not @idempotent: runs once its acceptance is journaled), one round: cluster on "
              f"{fmt(exact_on)}, off {fmt(exact_off)}, ratio {rx:.2f}x (same goal): {verdict}")
    shares = [s for s in (redis_share(i) for i in (1, 2)) if s]
    if shares:
        print("  Redis per call at 64x8 (journal script / Redis process CPU, each round): "
              + ", ".join(f"{script:.1f} / {cpu:.1f} µs" for script, cpu in shares))
    for name, f in cluster_bench.items():
        goal = ""
        if name == "cross-node admin call":
            goal = " (goal p50 <= 1 ms): " + ("PASS" if f["p50"] <= 1.0 else "MISS")
            if f["p50"] > 1.0: misses.append("issue 16 cross-node admin call p50")
        print(f"  {name}: p50 {f['p50']:.2f} ms, p99 {f['p99']:.2f} ms (n {f['n']}){goal}")
    for how, verb in (("kill", "killed"), ("drain", "drained")):
        failover_path = os.path.join(results, f"cluster-failover-{how}.json")
        if not os.path.exists(failover_path):
            continue
        fo = json.load(open(failover_path))
        bad = sum(fo["counts"].values())
        verdict = "PASS" if bad == 0 else "MISS"
        if bad: misses.append(f"issue 16 node {verb} under many pages")
        t = fo["hello to welcome under the storm"]
        print(f"  node {verb} under {fo['pages']:,} pages ({fo['unacknowledged per page']} unacknowledged rets each), all "
              f"resuming on the other node: done in {fo['all resumed on B in s']:.2f} s, hello to welcome p50 "
              f"{1000 * (t['p50'] or 0):.0f} ms, p99 {1000 * (t['p99'] or 0):.0f} ms; CPU per takeover: node "
              f"{fo['node B CPU per takeover µs']:.0f} µs, Redis {fo['Redis CPU per takeover µs']:.0f} µs; not resumed, "
              f"lost, duplicated, out of order or changed: {bad} (goal 0): {verdict}")
    cross, same = throughput("invoke-cross-node"), throughput("invoke-same-node-cluster")
    if cross is not None:
        verdict = "PASS" if cross >= 50_000 else "MISS"
        if verdict == "MISS": misses.append("issue 16 cross-node invokes/s")
        print(f"  invokes across nodes (made on A, answered by pages on B that batch as dsbridge.js does): {fmt(cross)} /s "
              f"(goal >= 50,000): {verdict}; made on the pages' own node, cluster on: {fmt(same)} /s; "
              f"pages sending one frame per message: {fmt(throughput('invoke-cross-node-frames'))} /s")

# Issue 17: tracing on vs off (same load, same run, best of the alternating rounds).
def otel_figure(state, key):
    values = []
    for i in (1, 2):
        j = otel_runs.get(f"syn-otel-{state}-{i}")
        v = (j.get("throughput") if key == "throughput" else (j.get("server") or {}).get("cpuMicrosPerOperation")) if j else None
        if v is not None: values.append(v)
    if not values: return None
    return max(values) if key == "throughput" else min(values)
if any(otel_runs.values()):
    sinks = [os.path.join(results, f"otlp-sink-{i}.json") for i in (1, 2)]
    exported = [json.load(open(p)) for p in sinks if os.path.exists(p)]
    print()
    print("Issue 17: tracing (every call a span, OTLP/HTTP protobuf to a local receiver), on vs off, best of 2 rounds")
    t_on, t_off = otel_figure("on", "throughput"), otel_figure("off", "throughput")
    c_on, c_off = otel_figure("on", "cpu"), otel_figure("off", "cpu")
    rt = ratio(t_on, t_off)
    print(f"  64x8 echo.syn round trips/s: on {fmt(t_on)}, off {fmt(t_off)}"
          + (f", on/off {rt:.2f}x" if rt is not None else ""))
    if c_on is not None and c_off is not None:
        print(f"  server CPU per call: on {fmt(c_on)} µs, off {fmt(c_off)} µs, tracing adds {fmt(c_on - c_off)} µs")
    t_s, c_s = otel_figure("sampled", "throughput"), otel_figure("sampled", "cpu")
    if t_s is not None and c_s is not None and c_off is not None:
        rs = ratio(t_s, t_off)
        print(f"  one trace in 100 sampled (OTEL_TRACES_SAMPLER=parentbased_traceidratio, ARG 0.01): {fmt(t_s)} round trips/s"
              + (f" ({rs:.2f}x off)" if rs is not None else "") + f", {fmt(c_s)} µs per call, adds {fmt(c_s - c_off)} µs")
    if exported:
        print(f"  exported: {sum(e['requests'] for e in exported):,} requests, {sum(e['bytes'] for e in exported):,} bytes")
    if mode == "smoke" and not any(e["requests"] > 0 for e in exported):
        print("load-test: FAILED: tracing on exported nothing")
        failures += 1

# A run is missing only when its group ran (--only).
groups_run = set(os.environ.get("LOAD_TEST_ONLY", "").split())
def group_of(name):
    if name.startswith(("syn-budget-", "syn-baseline-")): return {"budget"}
    if name in ("echo-idle", "idle"): return {"idle"}
    if name in held_names: return {"held"}
    if name in ("paced", "echo-paced"): return {"paced", "efficiency"} if paced_sessions > 0 else set()
    if name == "uws-paced": return {"efficiency"}
    if name.startswith("eff-"): return {"efficiency"}
    if name.startswith("sat-"): return {"saturation"}
    return {"main"}
missing = [n for n, j in list(r.items()) + list(sat_runs.items()) if j is None and group_of(n) & groups_run]
print()
print(f"runs without a result: {', '.join(missing) if missing else 'none'}; targets missed: {len(misses)}")
errors = sum(sum(j["errors"].values()) for j in r.values() if j)
if mode == "smoke":
    bad = failures > 0 or missing or errors > 0
    print("smoke: " + ("FAILED" if bad else "ok") + f" ({failures} failed runs, {errors} errors)")
    sys.exit(1 if bad else 0)
sys.exit(1 if failures > 0 or (strict and misses) else 0)
PY

# Charts (--plot): after the report, whatever it said.
if [ -n "$plot_dir" ]; then
  # The first python3 on PATH if it has matplotlib, else Debian's, with Debian's package.
  plot_python=python3
  if ! python3 -c 'import matplotlib' >/dev/null 2>&1; then
    plot_python=/usr/bin/python3
    if ! /usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1; then
      echo "== installing python3-matplotlib for the charts"
      SUDO=""
      if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
      $SUDO apt-get update -qq
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-matplotlib
    fi
  fi
  if ! "$plot_python" scripts/plot_load.py "$results" "$plot_dir"; then
    echo "load-test: FAILED: the charts could not be drawn" >&2
    report_rc=1
  fi
fi
exit "$report_rc"
