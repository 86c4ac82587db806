#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks that the Swift sources follow .swift-format with swift-format (shipped with the
# toolchain): its rules, and the layout its formatter would give (indentation, line breaks,
# line length). Exits non-zero on any finding, which it prints as file:line:column.
# Takes a few seconds. To fix: swift-format format -i <files>, then review the diff.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
# Named one by one: `--recursive Fuzz` or `Benchmarks` would also read their .build/ checkouts.
paths=(Package.swift Sources Tests Fuzz/Sources Benchmarks/Package.swift Benchmarks/Sources Benchmarks/Benchmarks)
if command -v swift-format >/dev/null 2>&1; then
  format=(swift-format)
else
  format=(swift format)
fi
if ! "${format[@]}" lint --strict --parallel --recursive "${paths[@]}"; then
  echo "format check FAILED: see the findings above; fix with swift-format format -i FILE..." >&2
  exit 1
fi
echo "format check: clean"
