#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the system packages dsbridged builds against (Debian 12). Idempotent.
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
need=()
# libwebsockets runs on libuv (its evlib plugin, and libuv's headers for the loop dsbridged owns);
# DSBridgeRedis builds on hiredis 0.14 (libhiredis-dev).
for pkg in libwebsockets-dev libwebsockets-evlib-uv libuv1-dev libhiredis-dev pkg-config; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}"
fi
if ! command -v swift >/dev/null 2>&1 && [ ! -x /opt/swift/usr/bin/swift ]; then
  echo "error: Swift 6.2 or newer is needed (https://www.swift.org/install/linux/); put it on PATH" >&2
  exit 1
fi
