#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what is needed, builds dsbridged and serves the demo page on http://127.0.0.1:8080/
# (admin API on 127.0.0.1:8081). Stop it with Ctrl-C.
# Usage: scripts/run-demo.sh [extra dsbridged flags...]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
scripts/install-deps.sh
swift build --product dsbridged
echo "open http://127.0.0.1:${PORT:-8080}/ in a browser"
exec .build/debug/dsbridged --host 127.0.0.1 --port "${PORT:-8080}" --admin-port "${ADMIN_PORT:-8081}" \
  --admin-token "${ADMIN_TOKEN:-change-me}" --web-root web --demo "$@"
