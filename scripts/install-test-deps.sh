#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what the browser end-to-end tests need: Debian's chromium and chromium-driver, and
# selenium in a virtual environment at .venv-test/ (works with Debian 12's python3 and with a
# pyenv python first on PATH). Idempotent; needs only the Debian mirrors and PyPI (selenium
# never downloads a driver: the tests run with SE_OFFLINE=true and /usr/bin/chromedriver).
# Writes the venv's interpreter path to .venv-test/python-path for scripts/test.sh.
# Also Debian's redis-server: the DSBridgeRedis tests run /usr/bin/redis-server themselves, on a
# free port of 127.0.0.1 (the package's own service on 6379, if it runs, is not used); and
# Debian's haproxy (2.6): the cluster tests (cluster_fault_run.py, cluster_browser_test.py,
# cluster-demo.sh --check, check-deploy.sh) run /usr/sbin/haproxy in front of their nodes, on
# free loopback ports (the package's own service, if it runs, is not used). And node, for the
# page client's and the admin page's tests under node's test runner (web/tests/node/,
# Sources/DSBridgeServer/AdminUI/tests/): Debian's nodejs when no node
# is on PATH (Debian 12's 18 has `node --test`). And gcc with libssl-dev: scripts/load-test.sh
# builds the C load generator bench/dsb-load (its TLS mode is OpenSSL's) and bench/min-load.c.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

# 1. System packages (skip apt entirely when everything is already there).
packages=(chromium chromium-driver python3 python3-venv python3-pip openssl redis-server haproxy gcc libssl-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ! command -v node >/dev/null 2>&1; then
  packages+=(nodejs)
  missing+=(nodejs)
fi
if [ "${#missing[@]}" -gt 0 ]; then
  echo "== apt-get install ${missing[*]}"
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y "${packages[@]}"
fi
test -x /usr/bin/chromium || { echo "error: /usr/bin/chromium missing" >&2; exit 1; }
test -x /usr/bin/chromedriver || { echo "error: /usr/bin/chromedriver missing" >&2; exit 1; }
test -x /usr/bin/redis-server || { echo "error: /usr/bin/redis-server missing" >&2; exit 1; }
test -x /usr/sbin/haproxy || { echo "error: /usr/sbin/haproxy missing" >&2; exit 1; }
command -v node >/dev/null 2>&1 || { echo "error: node missing" >&2; exit 1; }

# 2. selenium in .venv-test/, made with the first python3 on PATH (pyenv or system). A python
#    that cannot make a venv (no ensurepip) falls back to Debian's /usr/bin/python3.
venv=.venv-test
make_venv() {
  local py="$1"
  rm -rf "$venv"
  "$py" -m venv "$venv"
}
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import sys' >/dev/null 2>&1; then
  py="$(command -v python3 || true)"
  if [ -z "$py" ] || ! make_venv "$py"; then
    echo "== $py cannot make a venv; using /usr/bin/python3"
    make_venv /usr/bin/python3
  fi
fi
if ! "$venv/bin/python" -c 'import selenium' >/dev/null 2>&1; then
  echo "== pip install selenium (into $venv)"
  "$venv/bin/python" -m pip install --disable-pip-version-check --quiet "selenium>=4.11"
fi
"$venv/bin/python" -c 'import selenium; print("selenium", selenium.__version__)'
# opentelemetry-proto: scripts/otel_test.py decodes the daemon's OTLP/protobuf export with it.
if ! "$venv/bin/python" -c 'import opentelemetry.proto.collector.trace.v1.trace_service_pb2' >/dev/null 2>&1; then
  echo "== pip install opentelemetry-proto (into $venv)"
  "$venv/bin/python" -m pip install --disable-pip-version-check --quiet "opentelemetry-proto>=1.20"
fi
echo "$(pwd)/$venv/bin/python" > "$venv/python-path"
echo "browser test dependencies ready: $(cat "$venv/python-path")"
