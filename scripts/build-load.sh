#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the C load generators of issue 45 into OUT_DIR (seconds; gcc and libssl-dev):
#   dsb-load  the saturating generator (bench/dsb-load/: WebSocket and keep-alive HTTP,
#             against dsbridged or an echo server, plain or TLS)
#   min-load    the minimal epoll client dsb-load's rate is held against (bench/min-load.c)
# usage: scripts/build-load.sh OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/build-load.sh OUT_DIR}
mkdir -p "$out"
gcc -O2 -Wall -Wextra -Werror -std=gnu11 -pthread -o "$out/dsb-load" bench/dsb-load/*.c -lssl -lcrypto
gcc -O2 -Wall -Wextra -Werror -std=gnu11 -o "$out/min-load" bench/min-load.c
