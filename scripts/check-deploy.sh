#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Test of deploy/: the systemd units (dsbridged.service and the cluster node template
# dsbridged@.service: required directives, the same hardening, systemd-analyze verify and
# security), install.sh into a temporary root (files, modes, idempotence, config kept, every
# file of the page client package refreshed on an upgrade), the installed daemon started with
# the installed config (listening line, /healthz, admin token, static files and the ES module,
# notify protocol, drain on SIGTERM), a cluster node started with the node
# example against a redis-server of its own (where Debian's redis-server is installed), and
# the HAProxy and nginx examples (haproxy -c / nginx -t, where installed). One line per
# check, then "N passed, M failed".
#
#   scripts/check-deploy.sh            # uses $DSBRIDGED or .build/debug/dsbridged
#
# Installs the systemd package when systemd-analyze is missing (Debian). Every step is
# bounded in time; temporary files are removed on exit.
set -uo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"

binary="${DSBRIDGED:-.build/debug/dsbridged}"
case "$binary" in /*) ;; *) binary="$repo/$binary" ;; esac
# Highest acceptable `systemd-analyze security` exposure (0 = best, 10 = worst). The unit
# scores 1.2 ("OK") on systemd 252; above 2.0 some hardening went missing.
max_exposure="2.0"

passed=0
failed=0
ok() { echo "ok   $*"; passed=$((passed + 1)); }
bad() { echo "FAIL $*"; failed=$((failed + 1)); }
skip() { echo "skip $*"; }
have() { command -v "$1" >/dev/null 2>&1; }
check() { # check DESCRIPTION COMMAND...: ok when the command succeeds
    local what="$1"; shift
    if "$@"; then ok "$what"; else bad "$what"; fi
}

work="$(mktemp -d /tmp/check-deploy.XXXXXX)"
daemon_pid=""
helper_pid=""
redis_pid=""
cleanup() {
    [ -n "$daemon_pid" ] && kill -KILL "$daemon_pid" 2>/dev/null
    [ -n "$helper_pid" ] && kill -KILL "$helper_pid" 2>/dev/null
    [ -n "$redis_pid" ] && kill -KILL "$redis_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# first_line OUT PID: the daemon's first stdout line (`listening port=P admin-port=A`), waited
# for up to 15 s while the process lives.
first_line() {
    local out="$1" pid="$2" line=""
    for _ in $(seq 150); do
        line="$(head -1 "$out" 2>/dev/null)"
        [ -n "$line" ] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    printf '%s' "$line"
}

# started LINE WHAT PREFIX: whether LINE is the daemon's listening line; then $port and
# $admin are its ports, WHAT is recorded and its admin /healthz checked (named after PREFIX).
started() {
    [[ "$1" =~ ^listening\ port=([0-9]+)\ admin-port=([0-9]+)$ ]] || return 1
    port="${BASH_REMATCH[1]}"
    admin="${BASH_REMATCH[2]}"
    ok "$2: $1"
    check "${3}admin /healthz answers ok" test "$(curl -s -m 5 "http://127.0.0.1:$admin/healthz")" = "ok"
}

# stop_daemon: SIGTERM to $daemon_pid and up to 20 s for its exit; its exit code in $rc
# ("" when it did not exit).
stop_daemon() {
    kill -TERM "$daemon_pid"
    rc=""
    for _ in $(seq 200); do
        kill -0 "$daemon_pid" 2>/dev/null || { wait "$daemon_pid"; rc=$?; break; }
        sleep 0.1
    done
    daemon_pid=""
}

finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit $?
}

# ---------------------------------------------------------------------------------------
# 0. Tools.
if ! command -v systemd-analyze >/dev/null 2>&1; then
    echo "installing systemd (for systemd-analyze)"
    SUDO=""
    [ "$(id -u)" != 0 ] && SUDO="sudo"
    $SUDO timeout 300 apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive $SUDO timeout 600 apt-get install -y -qq systemd >/dev/null
fi
check "systemd-analyze available" have systemd-analyze
check "binary $binary exists" test -x "$binary"
for f in deploy/dsbridged.service deploy/dsbridged.json deploy/nginx-dsbridged.conf deploy/install.sh deploy/README.md \
         deploy/dsbridged@.service deploy/dsbridged-node.json deploy/haproxy-dsbridged.cfg; do
    check "$f present" test -s "$f"
done
check "install.sh parses (bash -n)" bash -n deploy/install.sh
check "install.sh is executable" test -x deploy/install.sh
# The page client a deployment serves, which install.sh must install and refresh: the npm
# package dsbridged-client (web/package.json: its "files" and package.json itself).
client_files=(dsbridge.js dsbridge-module.mjs dsbridge.mjs dsbridge.d.ts package.json wvjb.js wvjb.d.ts webkit.js webkit.d.ts hotwire.js hotwire.d.ts)
package_files="$(awk '/"files": *\[/ { on = 1; next } on && /\]/ { exit } on' web/package.json | tr -d ' ",' | grep -v '^$')"
unlisted=""
for f in $package_files package.json; do
    case " ${client_files[*]} " in *" $f "*) ;; *) unlisted="$unlisted $f" ;; esac
done
if [ -n "$package_files" ] && [ -z "$unlisted" ]; then
    ok "the page client checked here covers web/package.json's files ($(echo $package_files | wc -w)) and package.json"
else
    bad "web/package.json ships files this check (and install.sh?) does not know:${unlisted:- (could not read its \"files\")}"
fi
if ! test -x "$binary" || ! command -v systemd-analyze >/dev/null 2>&1; then finish; fi

# Every key the daemon accepts in its config file (its flags but --config and --check-config) is documented in the guide.
known="$("$binary" --help 2>/dev/null | grep -o -- "--[a-z][a-z-]*" | sed "s/^--//" | grep -vx -e help -e config -e check-config -e version | sort -u)"
undocumented=""
for key in $known; do
    grep -q "^| \`$key\`" deploy/README.md || grep -q "^| \`[a-z-]*\`, \`$key\`" deploy/README.md || undocumented="$undocumented $key"
done
if [ -n "$known" ] && [ -z "$undocumented" ]; then
    ok "every config key ($(echo $known | wc -w)) documented in deploy/README.md"
else
    bad "config keys missing from deploy/README.md:${undocumented:- (could not read the key list of the daemon)}"
fi

# ---------------------------------------------------------------------------------------
# 1. install.sh into a temporary root.
root="$work/root"
mkdir -p "$root"
bin="$root/usr/local/bin/dsbridged"
web="$root/usr/local/share/dsbridged/web"
unit="$root/etc/systemd/system/dsbridged.service"
unit_template="$root/etc/systemd/system/dsbridged@.service"
conf="$root/etc/dsbridged/dsbridged.json"
node_example="$root/etc/dsbridged/node.json.example"
if timeout 60 deploy/install.sh --root "$root" --binary "$binary" >"$work/install1.log" 2>&1; then
    ok "install.sh --root (first run)"
else
    bad "install.sh --root (first run): $(tail -3 "$work/install1.log" | tr '\n' ' ')"
fi

mode_is() { # mode_is PATH MODE
    [ -e "$1" ] && [ "$(stat -c %a "$1")" = "$2" ]
}
for spec in "$bin 755" "$web 755" "$web/index.html 644" \
            "$unit 644" "$root/etc/dsbridged 750" "$conf 640" "$root/etc/dsbridged/dsbridged.json.example 640" \
            "$root/usr/local/share/doc/dsbridged/README.md 644" "$unit_template 644" "$node_example 640" \
            "$root/usr/local/share/doc/dsbridged/haproxy-dsbridged.cfg 644"; do
    set -- $spec
    check "installed ${1#$root} mode $2" mode_is "$1" "$2"
done
for f in "${client_files[@]}"; do
    check "installed ${web#$root}/$f mode 644, same as web/$f" eval 'mode_is "$web/$f" 644 && cmp -s "web/$f" "$web/$f"'
done
check "installed binary is the given one" cmp -s "$binary" "$bin"
check "installed unit is deploy/dsbridged.service" cmp -s deploy/dsbridged.service "$unit"
check "installed unit template is deploy/dsbridged@.service" cmp -s deploy/dsbridged@.service "$unit_template"
check "installed node example is deploy/dsbridged-node.json" cmp -s deploy/dsbridged-node.json "$node_example"
check "web root has no test pages" test ! -e "$web/tests"

token_of() { sed -n 's/^ *"admin-token": *"\([^"]*\)".*/\1/p' "$1"; }
token1="$(token_of "$conf" 2>/dev/null)"
if [ "${#token1}" -ge 24 ] && [ "$token1" != "@ADMIN_TOKEN@" ] && ! grep -q '@ADMIN_TOKEN@' "$conf"; then
    ok "config has a random admin token (${#token1} characters)"
else
    bad "config admin token missing or still the placeholder: '$token1'"
fi

# Second run, an upgrade: the config (and its token) stays, operator pages stay, the page
# client follows: old copies of its files are replaced, a missing one (a tree installed before
# the ES module existed) is installed.
sum1="$(sha256sum "$conf" 2>/dev/null)"
echo "<!-- operator's page -->" >"$web/index.html"
for f in "${client_files[@]}"; do
    echo "// stale $f of an older version" >"$web/$f"
done
rm -f "$web/dsbridge-module.mjs"
if timeout 60 deploy/install.sh --root "$root" --binary "$binary" >"$work/install2.log" 2>&1; then
    ok "install.sh --root (second run)"
else
    bad "install.sh --root (second run): $(tail -3 "$work/install2.log" | tr '\n' ' ')"
fi
check "second run keeps the config" test "$(sha256sum "$conf" 2>/dev/null)" = "$sum1"
check "second run keeps the admin token" test "$(token_of "$conf" 2>/dev/null)" = "$token1"
check "second run says it kept the config" grep -q "kept existing" "$work/install2.log"
check "second run keeps the operator's index.html" grep -q "operator's page" "$web/index.html"
for f in "${client_files[@]}"; do
    check "second run refreshes $f" eval 'mode_is "$web/$f" 644 && cmp -s "web/$f" "$web/$f"'
done
check "second run keeps modes (config 640)" mode_is "$conf" 640
check "no temporary files left by install.sh" test -z "$(find "$root" -name '.*.new.*')"

if "$bin" --config "$conf" --web-root "$web" --check-config >"$work/check-config.log" 2>&1 \
    && grep -q '^configuration ok' "$work/check-config.log" && ! grep -q "$token1" "$work/check-config.log"; then
    ok "dsbridged --check-config accepts the installed config and hides the admin token"
else
    bad "dsbridged --check-config: $(head -3 "$work/check-config.log" | tr '\n' ' ')"
fi

# ---------------------------------------------------------------------------------------
# 2. The units: required directives, systemd-analyze verify and security.
hardening_directives=("NoNewPrivileges=yes" "ProtectSystem=strict" "ProtectHome=yes" "PrivateTmp=yes" "PrivateDevices=yes"
    "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX" "CapabilityBoundingSet=" "SystemCallFilter=@system-service"
    "SystemCallArchitectures=native" "MemoryDenyWriteExecute=yes" "UMask=0077")
unit_directives() { # unit_directives FILE EXECSTART SYSLOG-IDENTIFIER: ok when every required line is there
    local file="$1" missing="" d
    for d in "Type=notify" "NotifyAccess=main" "ExecStart=$2" "WatchdogSec=30" "TimeoutStopSec=20" "KillSignal=SIGTERM" \
             "Restart=on-failure" "LimitNOFILE=262144" "${hardening_directives[@]}" "SyslogIdentifier=$3"; do
        grep -qx -- "$d" "$file" || missing="$missing [$d]"
    done
    if [ -z "$missing" ]; then ok "$(basename "$file") has the required directives"; else bad "$(basename "$file") lacks:$missing"; fi
}
unit_directives deploy/dsbridged.service "/usr/local/bin/dsbridged --config /etc/dsbridged/dsbridged.json" dsbridged
unit_directives deploy/dsbridged@.service "/usr/local/bin/dsbridged --config /etc/dsbridged/%i.json --node-id %H-%i" "dsbridged@%i"
# The template keeps every sandbox and limit line of dsbridged.service (from User= to the end
# of [Service]): only the description, ordering, ExecStart and log identifier differ.
sandbox() { sed -n '/^User=/,/^\[Install\]/p' "$1" | grep -v '^#' | grep -v '^SyslogIdentifier=' | grep -v '^$'; }
if diff <(sandbox deploy/dsbridged.service) <(sandbox deploy/dsbridged@.service) >"$work/sandbox.diff"; then
    ok "dsbridged@.service keeps dsbridged.service's user, limits and sandbox ($(sandbox deploy/dsbridged.service | wc -l) lines)"
else
    bad "dsbridged@.service differs from dsbridged.service in user, limits or sandbox:"
    sed 's/^/     /' "$work/sandbox.diff"
fi
# TimeoutStopSec must exceed the examples' drain-ms.
for pair in "deploy/dsbridged.json deploy/dsbridged.service" "deploy/dsbridged-node.json deploy/dsbridged@.service"; do
    set -- $pair
    drain_ms="$(sed -n 's/^ *"drain-ms": *\([0-9]*\).*/\1/p' "$1")"
    stop_s="$(sed -n 's/^TimeoutStopSec=\([0-9]*\)$/\1/p' "$2")"
    check "$(basename "$2"): TimeoutStopSec (${stop_s:-?} s) > drain-ms of $(basename "$1") (${drain_ms:-?} ms)" \
        test "$((${stop_s:-0} * 1000))" -gt "${drain_ms:-99999999}"
done

# verify needs the ExecStart binary: copies of the units pointing into the temporary root. A
# template is verified as an instance (dsbridged@1.service next to dsbridged@.service).
mkdir -p "$work/unit"
scores=()
for u in dsbridged.service dsbridged@.service; do
    sed -e "s#/usr/local/bin/dsbridged#$bin#g" -e "s#/etc/dsbridged/#$root/etc/dsbridged/#g" "deploy/$u" >"$work/unit/$u"
    target="$work/unit/${u/@./@1.}"
    name="$(basename "$target")"
    timeout 60 systemd-analyze verify "$target" >"$work/verify-$name.log" 2>&1
    verify_rc=$?
    if [ "$verify_rc" -eq 0 ] && ! grep -E -q 'Failed|Unknown|ignoring|Invalid' "$work/verify-$name.log"; then
        ok "systemd-analyze verify $name: clean"
    else
        bad "systemd-analyze verify $name (exit $verify_rc):"
        sed 's/^/     /' "$work/verify-$name.log"
    fi

    timeout 60 systemd-analyze security --offline=yes "$target" >"$work/security-$name.log" 2>&1
    score_line="$(grep -a 'Overall exposure level' "$work/security-$name.log" | tail -1)"
    score="$(echo "$score_line" | grep -o '[0-9][0-9]*\.[0-9]' | head -1)"
    scores+=("${score:-99}")
    echo "     $score_line"
    if [ -n "$score" ] && awk -v s="$score" -v m="$max_exposure" 'BEGIN { exit !(s <= m) }'; then
        ok "systemd-analyze security $name: exposure $score <= $max_exposure"
    else
        bad "systemd-analyze security $name: exposure ${score:-unknown} (want <= $max_exposure)"
        grep -a '^✗' "$work/security-$name.log" | sed 's/^/     /' | head -30
    fi
done
check "dsbridged@1.service exposure (${scores[1]}) not worse than dsbridged.service's (${scores[0]})" \
    awk -v t="${scores[1]}" -v s="${scores[0]}" 'BEGIN { exit !(t <= s) }'

# ---------------------------------------------------------------------------------------
# 3. The installed daemon with the installed config (ports overridden to free ones).
python=""
for p in python3 /usr/bin/python3; do command -v "$p" >/dev/null 2>&1 && { python="$p"; break; }; done
notify_sock="$work/notify.sock"
if [ -n "$python" ]; then
    # A datagram listener standing in for systemd's notify socket.
    "$python" - "$notify_sock" "$work/notify.log" <<'EOF' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1]); s.settimeout(1)
end = time.time() + 120
with open(sys.argv[2], "a", buffering=1) as log:
    while time.time() < end:
        try: log.write(s.recv(4096).decode() + "\n")
        except socket.timeout: pass
EOF
    helper_pid=$!
    for _ in $(seq 50); do [ -S "$notify_sock" ] && break; sleep 0.1; done
fi
: >"$work/notify.log"
# `timeout --foreground`: without it, timeout(1) passes our SIGTERM on twice (to the
# daemon and to its process group), and a second SIGTERM is the daemon's "exit at once"
# (PROTOCOL.md 7), which skips the drain and STOPPING=1.
env ${python:+NOTIFY_SOCKET="$notify_sock"} ${python:+WATCHDOG_USEC=400000} \
    timeout --foreground 60 "$bin" --config "$conf" --port 0 --admin-port 0 --web-root "$web" \
    >"$work/daemon.out" 2>"$work/daemon.err" &
daemon_pid=$!
line="$(first_line "$work/daemon.out" "$daemon_pid")"
if started "$line" "installed config accepted" ""; then
    check "admin /admin/sessions refuses without the token (401)" \
        test "$(curl -s -m 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$admin/admin/sessions")" = "401"
    check "admin /admin/sessions accepts the installed token" \
        test "$(curl -s -m 5 -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token1" "http://127.0.0.1:$admin/admin/sessions")" = "200"
    check "admin /metrics answers with the token" \
        test "$(curl -s -m 5 -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token1" "http://127.0.0.1:$admin/metrics")" = "200"
    check "installed web root serves /dsbridge.js" \
        test "$(curl -s -m 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/dsbridge.js")" = "200"
    # The ES module and the file it imports, as JavaScript (a browser refuses a module script
    # of another type) and as installed.
    for f in dsbridge.mjs dsbridge-module.mjs; do
        got="$(curl -s -m 5 -o "$work/served-$f" -w '%{http_code} %{content_type}' "http://127.0.0.1:$port/$f")"
        check "installed web root serves /$f as JavaScript ($got)" \
            eval '[[ "$got" =~ ^200\ text/javascript ]] && cmp -s "$web/$f" "$work/served-$f"'
    done
    check "the example's allowed-origin is allowed" \
        test "$(curl -s -m 5 -o /dev/null -w '%{http_code}' -X POST -H 'Origin: https://app.example.com' "http://127.0.0.1:$port/dsbridge/session")" = "200"
    check "another origin is refused (403)" \
        test "$(curl -s -m 5 -o /dev/null -w '%{http_code}' -X POST -H 'Origin: https://elsewhere.example.com' "http://127.0.0.1:$port/dsbridge/session")" = "403"
    if [ -n "$python" ]; then
        sleep 0.5 # a watchdog ping every 200 ms
        check "notify: READY=1 sent (Type=notify)" grep -q '^READY=1' "$work/notify.log"
        check "notify: WATCHDOG=1 sent when WATCHDOG_USEC is set" grep -q '^WATCHDOG=1' "$work/notify.log"
    else
        skip "notify protocol (no python3 for a datagram listener)"
    fi
    stop_daemon
    check "SIGTERM: daemon exits 0 within 20 s (TimeoutStopSec)" test "$rc" = "0"
    if [ -n "$python" ]; then
        # The listener may not have been scheduled yet to log what the daemon sent just
        # before it exited (a loaded machine): give it a few seconds.
        for _ in $(seq 50); do grep -q '^STOPPING=1' "$work/notify.log" && break; sleep 0.1; done
        check "notify: STOPPING=1 sent on SIGTERM" grep -q '^STOPPING=1' "$work/notify.log"
        grep -q "^STOPPING=1" "$work/notify.log" || { echo "     notify log:"; sed "s/^/       /" "$work/notify.log" | sort | uniq -c | head; tail -5 "$work/daemon.err" | sed "s/^/       /"; }
    fi
else
    bad "installed config refused or no listening line; stdout: '$line'; stderr: $(head -5 "$work/daemon.err" | tr '\n' ' ')"
    kill -KILL "$daemon_pid" 2>/dev/null
    daemon_pid=""
fi
if [ -n "$helper_pid" ]; then kill "$helper_pid" 2>/dev/null; wait "$helper_pid" 2>/dev/null; helper_pid=""; fi
# The unit's LimitNOFILE=262144 fits max-sessions; run from a shell whose hard limit is lower
# (a container), the daemon rightly warns that max-sessions does not fit: that warning alone
# is expected then.
if [ "$(ulimit -Hn)" != unlimited ] && [ "$(ulimit -Hn)" -lt 262144 ]; then
    check "daemon warned only that this shell's descriptor limit ($(ulimit -Hn)) is below the unit's" \
        test -z "$(grep -i 'warning' "$work/daemon.err" | grep -v 'warning: the descriptor limit')"
else
    check "daemon wrote no warning with the installed config" test -z "$(grep -i 'warning' "$work/daemon.err")"
fi

# ---------------------------------------------------------------------------------------
# 3b. A cluster node as dsbridged@1 would run it: the installed node example (an admin token
#     filled in), --node-id HOSTNAME-1, against a redis-server of its own on a free port.
if [ -x /usr/bin/redis-server ] && [ -n "$python" ] && command -v redis-cli >/dev/null 2>&1; then
    node_conf="$work/1.json"
    sed 's/@ADMIN_TOKEN@/node-token-of-the-deploy-check/' "$node_example" >"$node_conf"
    node_id="$(hostname)-1"
    if "$bin" --config "$node_conf" --web-root "$web" --node-id "$node_id" --check-config >"$work/node-check-config.log" 2>&1 \
        && grep -q '^configuration ok' "$work/node-check-config.log" && grep -q "^  redis  *redis://127.0.0.1:6379" "$work/node-check-config.log"; then
        ok "dsbridged --check-config accepts the node example (redis, node-id)"
    else
        bad "dsbridged --check-config with the node example: $(head -3 "$work/node-check-config.log" | tr '\n' ' ')"
    fi
    redis_port="$("$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
    /usr/bin/redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work" \
        >"$work/redis.log" 2>&1 &
    redis_pid=$!
    for _ in $(seq 100); do [ "$(redis-cli -p "$redis_port" ping 2>/dev/null)" = PONG ] && break; sleep 0.1; done
    timeout --foreground 60 "$bin" --config "$node_conf" --port 0 --admin-port 0 --web-root "$web" \
        --redis "redis://127.0.0.1:$redis_port" --node-id "$node_id" >"$work/node.out" 2>"$work/node.err" &
    daemon_pid=$!
    line="$(first_line "$work/node.out" "$daemon_pid")"
    if started "$line" "cluster node started with the node example" "node: "; then
        for _ in $(seq 50); do [ "$(redis-cli -p "$redis_port" exists "dsb:node:$node_id")" = 1 ] && break; sleep 0.1; done
        check "node: joined the cluster as $node_id (dsb:node:$node_id in Redis)" \
            test "$(redis-cli -p "$redis_port" exists "dsb:node:$node_id")" = 1
        check "node: admin /admin/sessions lists the cluster (200)" \
            test "$(curl -s -m 5 -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer node-token-of-the-deploy-check' "http://127.0.0.1:$admin/admin/sessions")" = "200"
        stop_daemon
        check "node: SIGTERM: exits 0 within 20 s (TimeoutStopSec)" test "$rc" = "0"
    else
        bad "cluster node with the node example did not start; stdout: '$line'; stderr: $(tail -5 "$work/node.err" | tr '\n' ' ')"
        kill -KILL "$daemon_pid" 2>/dev/null
        daemon_pid=""
    fi
    kill -TERM "$redis_pid" 2>/dev/null; wait "$redis_pid" 2>/dev/null; redis_pid=""
else
    skip "cluster node (needs /usr/bin/redis-server and redis-cli: scripts/install-test-deps.sh)"
fi

# ---------------------------------------------------------------------------------------
# 4. The HAProxy example parses, as shipped (a throwaway certificate in place of its crt
#    path) and as the cluster tests render it (scripts/dsbtest/haproxy.py), with and without
#    the affinity line. Only where HAProxy is installed.
if command -v haproxy >/dev/null 2>&1 && command -v openssl >/dev/null 2>&1 && [ -n "$python" ]; then
    hap="$work/haproxy"
    mkdir -p "$hap"
    timeout 30 openssl req -x509 -newkey rsa:2048 -nodes -keyout "$hap/key.pem" -out "$hap/cert.pem" \
        -days 1 -subj /CN=app.example.com >/dev/null 2>&1
    cat "$hap/cert.pem" "$hap/key.pem" >"$hap/app.pem"
    sed "s#/etc/haproxy/certs/app.example.com.pem#$hap/app.pem#" deploy/haproxy-dsbridged.cfg >"$hap/example.cfg"
    if timeout 30 haproxy -c -q -f "$hap/example.cfg" >"$hap/c.log" 2>&1; then
        ok "haproxy -c accepts deploy/haproxy-dsbridged.cfg"
    else
        bad "haproxy -c: $(grep -v '^$' "$hap/c.log" | head -3 | tr '\n' ' ')"
    fi
    for affinity in "" --affinity; do
        if "$python" scripts/dsbtest/haproxy.py render --port 18080 --node n1:18101:18201 --node n2:18102:18202 \
                $affinity --stats-socket "$hap/s.sock" >"$hap/rendered.cfg" 2>"$hap/r.log" \
            && timeout 30 haproxy -c -q -f "$hap/rendered.cfg" >"$hap/c.log" 2>&1; then
            ok "the cluster tests' rendering of it (${affinity:-no affinity}) passes haproxy -c"
        else
            bad "rendered (${affinity:-no affinity}): $(cat "$hap/r.log" "$hap/c.log" | grep -v '^$' | head -3 | tr '\n' ' ')"
        fi
    done
    if [ -n "$affinity" ]; then
        check "the rendering with --affinity enables the example's cookie line" grep -q '^    cookie DSBNODE ' "$hap/rendered.cfg"
    fi
else
    skip "haproxy -c (haproxy not installed)"
fi

# ---------------------------------------------------------------------------------------
# 5. The nginx example parses (only where nginx is installed; it is not needed otherwise).
if command -v nginx >/dev/null 2>&1 && command -v openssl >/dev/null 2>&1; then
    ngx="$work/nginx"
    mkdir -p "$ngx"
    timeout 30 openssl req -x509 -newkey rsa:2048 -nodes -keyout "$ngx/key.pem" -out "$ngx/cert.pem" \
        -days 1 -subj /CN=app.example.com >/dev/null 2>&1
    sed -e "s#/etc/ssl/certs/app.example.com.fullchain.pem#$ngx/cert.pem#" \
        -e "s#/etc/ssl/private/app.example.com.key#$ngx/key.pem#" deploy/nginx-dsbridged.conf >"$ngx/site.conf"
    cat >"$ngx/nginx.conf" <<EOF
pid $ngx/nginx.pid;
error_log $ngx/error.log;
events {}
http { access_log off; client_body_temp_path $ngx/body; proxy_temp_path $ngx/proxy;
       fastcgi_temp_path $ngx/fastcgi; uwsgi_temp_path $ngx/uwsgi; scgi_temp_path $ngx/scgi;
       include $ngx/site.conf; }
EOF
    if timeout 30 nginx -t -q -p "$ngx" -c "$ngx/nginx.conf" >"$ngx/t.log" 2>&1; then
        ok "nginx -t accepts deploy/nginx-dsbridged.conf"
    else
        bad "nginx -t: $(grep -v '^$' "$ngx/t.log" | head -3 | tr '\n' ' ')"
    fi
else
    skip "nginx -t (nginx not installed)"
fi

finish
