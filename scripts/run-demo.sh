#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what is needed, builds dsbridged and serves the demo page on http://127.0.0.1:8080/
# (admin page on http://127.0.0.1:8081/admin/ui/, token change-me). Once the daemon serves, it
# says where both are and how to stop it (Ctrl-C: it drains, then exits).
# Usage: scripts/run-demo.sh [extra dsbridged flags...]
#   PORT, ADMIN_PORT (0 = any free port) and ADMIN_TOKEN override the defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
scripts/install-deps.sh
# SwiftPM warns on every build that swift-distributed-tracing ships CMakeLists.txt files its
# manifest does not declare (two lines each; harmless, and not ours to fix): left out here, so
# that a newcomer's screen shows no warning that is not theirs to act on.
swift build --product dsbridged 2>&1 |
  sed -u "/^warning: 'swift-distributed-tracing': found [0-9]* file(s) which are unhandled/{N;d;}"
token="${ADMIN_TOKEN:-change-me}"

# Copies the daemon's stdout; after its first line, `listening port=P admin-port=A`
# (PROTOCOL.md 7), says where everything is. Ctrl-C reaches the daemon, which drains and
# exits; this reader ignores it and ends with the daemon's stdout. (The daemon replaces this
# script, so a signal sent to the script's process id reaches it too.)
announce() {
  trap '' INT
  local line
  while IFS= read -r line; do
    printf '%s\n' "$line"
    if [[ $line =~ ^listening\ port=([0-9]+)\ admin-port=([0-9]+) ]]; then
      printf '\n  demo page:   http://127.0.0.1:%s/\n' "${BASH_REMATCH[1]}"
      printf '  admin page:  http://127.0.0.1:%s/admin/ui/  (token: %s)\n' "${BASH_REMATCH[2]}" "$token"
      printf '  stop:        Ctrl-C\n\n'
    fi
  done
}

exec .build/debug/dsbridged --host 127.0.0.1 --port "${PORT:-8080}" --admin-port "${ADMIN_PORT:-8081}" \
  --admin-token "$token" --web-root web --demo "$@" > >(announce)
