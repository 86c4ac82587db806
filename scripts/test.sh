#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs everything the tests need (system packages, Chromium, selenium), builds, and
# runs every test: Swift unit and integration tests, then the browser end-to-end tests.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
scripts/install-deps.sh
scripts/install-test-deps.sh
swift build --build-tests
echo "== swift test"
swift test --skip-build --no-parallel
echo "== browser tests"
python_bin="$(cat .venv-test/python-path 2>/dev/null || echo python3)"
"$python_bin" scripts/browser_test.py --daemon .build/debug/dsbridged
