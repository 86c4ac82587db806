#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what is needed, builds dsbridged and runs a three-node cluster on this machine:
# Redis, three nodes (--demo, --redis, node1..node3) and HAProxy in front of them
# (deploy/haproxy-dsbridged.cfg rendered for loopback by scripts/dsbtest/haproxy.py), all on
# 127.0.0.1. The demo page is served through the balancer on http://127.0.0.1:8080/ (PORT);
# kill a node (the PIDs are printed) and the page carries on on another one. Stop it with
# Ctrl-C: everything it started is stopped.
#
# Usage: scripts/cluster-demo.sh [--check] [extra dsbridged flags...]
#
#   --check   start it all on free ports, fetch the demo page and /dsbridge.js through HAProxy,
#             run one WebSocket call through HAProxy (and see the session in the admin API
#             of another node), stop everything; exit 0 when all of that worked, else 1
#
# Environment: PORT (balancer, 8080), NODE_PORTS ("8101 8102 8103"), ADMIN_PORTS
# ("8201 8202 8203"), REDIS_PORT (6380), ADMIN_TOKEN (change-me). The balancer runs without
# affinity: any node serves any page, its WebSocket and its sync calls (POST /dsbridge/call)
# alike (docs/CLUSTER.md); AFFINITY=1 turns on the example's cookie, which saves takeovers.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

check=no
if [ "${1:-}" = "--check" ]; then check=yes; shift; fi

# 1. What it needs: the build dependencies (libhiredis-dev among them), Redis and HAProxy.
scripts/install-deps.sh
need=()
for pkg in redis-server haproxy python3; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  echo "installing: ${need[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}"
fi
swift build --product dsbridged
daemon=.build/debug/dsbridged

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
if [ "$check" = yes ]; then
  port="$(free_port)"; redis_port="$(free_port)"
  node_ports="$(free_port) $(free_port) $(free_port)"
  admin_ports="$(free_port) $(free_port) $(free_port)"
else
  port="${PORT:-8080}"; redis_port="${REDIS_PORT:-6380}"
  node_ports="${NODE_PORTS:-8101 8102 8103}"
  admin_ports="${ADMIN_PORTS:-8201 8202 8203}"
fi
read -r -a nports <<<"$node_ports"
read -r -a aports <<<"$admin_ports"
token="${ADMIN_TOKEN:-change-me}"

work="$(mktemp -d /tmp/dsbridged-cluster-demo.XXXXXX)"
pids=()
names=()
cleanup() {
  local i
  # Nodes first (SIGTERM drains them), then the balancer and Redis; SIGKILL whatever is left.
  for i in "${!pids[@]}"; do kill -TERM "${pids[$i]}" 2>/dev/null || true; done
  for _ in $(seq 50); do
    local alive=no
    for i in "${!pids[@]}"; do kill -0 "${pids[$i]}" 2>/dev/null && alive=yes; done
    [ "$alive" = no ] && break
    sleep 0.1
  done
  for i in "${!pids[@]}"; do kill -KILL "${pids[$i]}" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ "$check" = yes ] || [ -z "${KEEP_LOGS:-}" ]; then rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

started() { pids+=("$1"); names+=("$2"); }
fail() {
  echo "FAIL $*"
  for f in "$work"/*.log; do
    [ -f "$f" ] || continue
    echo "---- $f"; tail -n 15 "$f"
  done
  exit 1
}

# 2. Redis (no persistence, loopback only; the system's own Redis, if any, is not used).
redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --daemonize no --dir "$work" \
  >"$work/redis.log" 2>&1 &
started $! redis
for _ in $(seq 100); do
  [ "$(redis-cli -p "$redis_port" ping 2>/dev/null)" = PONG ] && break
  sleep 0.1
done
[ "$(redis-cli -p "$redis_port" ping 2>/dev/null)" = PONG ] || fail "redis-server does not answer on port $redis_port"

# 3. Three nodes. Each allows the balancer's origin (the page's origin is HAProxy's).
for i in 0 1 2; do
  name="node$((i + 1))"
  "$daemon" --host 127.0.0.1 --port "${nports[$i]}" --admin-port "${aports[$i]}" --admin-token "$token" \
    --web-root web --demo --redis "redis://127.0.0.1:$redis_port" --node-id "$name" \
    --allowed-origin "http://127.0.0.1:$port" --allowed-origin "http://localhost:$port" \
    --trusted-proxy 127.0.0.1 "$@" >"$work/$name.out" 2>"$work/$name.log" &
  started $! "$name"
done
for i in 0 1 2; do
  for _ in $(seq 300); do
    grep -q '^listening ' "$work/node$((i + 1)).out" 2>/dev/null && break
    kill -0 "${pids[$((i + 1))]}" 2>/dev/null || break
    sleep 0.1
  done
  grep -q '^listening ' "$work/node$((i + 1)).out" 2>/dev/null || fail "node$((i + 1)) did not start"
done

# 4. HAProxy, configured from the deploy example.
nodes=()
for i in 0 1 2; do nodes+=(--node "node$((i + 1)):${nports[$i]}:${aports[$i]}"); done
affinity=()
if [ "${AFFINITY:-0}" = 1 ]; then affinity=(--affinity); fi
python3 scripts/dsbtest/haproxy.py render --port "$port" "${nodes[@]}" "${affinity[@]}" \
  --stats-socket "$work/haproxy.sock" >"$work/haproxy.cfg"
haproxy -c -q -f "$work/haproxy.cfg" >"$work/haproxy-check.log" 2>&1 || fail "haproxy -c refuses $work/haproxy.cfg: $(cat "$work/haproxy-check.log")"
haproxy -db -f "$work/haproxy.cfg" >"$work/haproxy.log" 2>&1 &
started $! haproxy
wait_nodes=()
for i in 0 1 2; do wait_nodes+=(--node "node$((i + 1))"); done
for _ in $(seq 100); do [ -S "$work/haproxy.sock" ] && break; sleep 0.1; done
python3 scripts/dsbtest/haproxy.py wait-up --socket "$work/haproxy.sock" "${wait_nodes[@]}" --timeout 20 \
  || fail "HAProxy does not see the three nodes up"

if [ "$check" = no ]; then
  echo
  echo "open http://127.0.0.1:$port/ in a browser (HAProxy in front of three dsbridged nodes)"
  for i in 0 1 2; do
    echo "  node$((i + 1)): pid ${pids[$((i + 1))]}, port ${nports[$i]}, admin http://127.0.0.1:${aports[$i]} (log $work/node$((i + 1)).log)"
  done
  echo "  Redis: 127.0.0.1:$redis_port (pid ${pids[0]}); HAProxy: pid ${pids[4]}, config $work/haproxy.cfg"
  echo "  sessions of the whole cluster: curl -s -H 'Authorization: Bearer $token' http://127.0.0.1:${aports[0]}/admin/sessions"
  echo "  kill the node holding a page (kill -9 PID) and watch the page resume on another one"
  echo "Ctrl-C stops everything."
  wait "${pids[4]}"
  exit 0
fi

# 5. --check: the page, the bridge script and one call, all through HAProxy.
passed=0
ok() { echo "ok   $*"; passed=$((passed + 1)); }
code="$(curl -s -m 10 -o "$work/index.html" -w '%{http_code}' "http://127.0.0.1:$port/")"
[ "$code" = 200 ] && grep -q 'dsbridged demo' "$work/index.html" || fail "GET / through HAProxy: HTTP $code"
ok "GET / through HAProxy: the demo page"
code="$(curl -s -m 10 -o "$work/dsbridge.js" -w '%{http_code}' "http://127.0.0.1:$port/dsbridge.js")"
[ "$code" = 200 ] && cmp -s web/dsbridge.js "$work/dsbridge.js" || fail "GET /dsbridge.js through HAProxy: HTTP $code"
ok "GET /dsbridge.js through HAProxy"
if out="$(timeout 30 python3 - "$port" "$token" "${aports[@]}" <<'EOF' 2>&1
import json, sys, urllib.request
sys.path.insert(0, "scripts")
from dsbtest.page import connect

port, token, admin_ports = int(sys.argv[1]), sys.argv[2], [int(a) for a in sys.argv[3:]]
ws, welcome = connect(port, timeout=10, origin="http://127.0.0.1:%d" % port)
ws.call(1, "echo.asyn", {"hello": "cluster"}, stub="dscb1")
ret = ws.expect_ret(1, timeout=10)
cb = ws.next_message(10, lambda m: m.get("t") == "cb")
assert ret and ret.get("code") == 0, "ret %r" % ret
assert cb and cb.get("data") == {"hello": "cluster"} and cb.get("complete"), "cb %r" % cb
owner = None
for admin in admin_ports:
    req = urllib.request.Request("http://127.0.0.1:%d/admin/sessions" % admin, headers={"Authorization": "Bearer " + token})
    listed = json.load(urllib.request.urlopen(req, timeout=10))
    mine = [s for s in listed if s.get("session") == welcome["session"]]
    assert len(mine) == 1 and mine[0].get("connected"), "admin port %d lists %r" % (admin, listed)
    owner = mine[0].get("node")
ws.send_close(1000)
print("session %s on %s: echo.asyn answered %s; listed by every node's admin API" % (welcome["session"], owner, json.dumps(cb["data"])))
EOF
)"; then
  ok "WebSocket call through HAProxy: $out"
else
  fail "WebSocket call through HAProxy: $out"
fi
echo "$passed passed, 0 failed"
