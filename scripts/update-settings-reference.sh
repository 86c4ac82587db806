#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Rewrites docs/CONFIGURATION.md's configuration table (between the settings-reference
# markers) from the settings table, Sources/DSBridgedSettings/SettingsTable.swift. The test
# that checks the table is current (Tests/DSBridgedSettingsTests/DocumentationTests.swift)
# writes it instead when DSBRIDGED_UPDATE_SETTINGS_REFERENCE=1.
#
#   scripts/update-settings-reference.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
swift build --build-tests >/dev/null
DSBRIDGED_UPDATE_SETTINGS_REFERENCE=1 swift test --skip-build --no-parallel \
    --filter DSBridgedSettingsTests.DocumentationTests >/dev/null
git --no-pager diff --stat -- docs/CONFIGURATION.md
