#!/bin/bash
# Builds bench/uws-echo.cpp, the uWebSockets echo server issue 21 compares dsbridged with
# (scripts/load-test.sh --uws-echo BIN). uWebSockets is not a dependency of dsbridged and is
# not downloaded here: give a checkout of it, e.g.
#   git clone --recurse-submodules https://github.com/uNetworking/uWebSockets /tmp/uWebSockets
#   scripts/build-uws-echo.sh /tmp/uWebSockets /tmp/uws-echo
# usage: scripts/build-uws-echo.sh UWEBSOCKETS_DIR OUT [USOCKETS_DIR]
#   USOCKETS_DIR defaults to UWEBSOCKETS_DIR/uSockets (the submodule).
# Needs g++ (C++20) and zlib's headers (Debian: build-essential zlib1g-dev). Without TLS
# (LIBUS_NO_SSL), on uSockets' epoll loop, -O3 as uWebSockets' own Makefile builds it.
set -euo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
uws=$(cd "$1" && pwd)
out=$2
usockets=${3:-$uws/uSockets}
usockets=$(cd "$usockets" && pwd)
for need in "$uws/src/App.h" "$usockets/src/libusockets.h"; do
  [ -f "$need" ] || { echo "build-uws-echo: $need not found (a uWebSockets checkout with its uSockets submodule?)" >&2; exit 1; }
done
objects=$(mktemp -d)
trap 'rm -rf "$objects"' EXIT
(cd "$objects" && gcc -O3 -DLIBUS_NO_SSL -std=c11 -I"$usockets/src" -c \
  "$usockets"/src/*.c "$usockets"/src/eventing/*.c "$usockets"/src/crypto/*.c)
g++ -O3 -DLIBUS_NO_SSL -DUWS_NO_ZLIB -std=c++20 -I"$uws/src" -I"$usockets/src" \
  -o "$out" "$root/bench/uws-echo.cpp" "$objects"/*.o
echo "built $out"
