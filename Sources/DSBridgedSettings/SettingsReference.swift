// SPDX-License-Identifier: MIT
import Foundation

/// The configuration reference of docs/CONFIGURATION.md, generated from the table: one Markdown row per
/// setting with its flag, environment variable, default, accepted values and meaning.
/// `scripts/update-settings-reference.sh` writes it between ``beginMarker`` and
/// ``endMarker``; a test fails when the copy in docs/CONFIGURATION.md is not current.
public enum SettingsReference {
    /// The line before the generated section.
    public static let beginMarker =
        "<!-- settings-reference: generated from Sources/DSBridgedSettings/SettingsTable.swift by scripts/update-settings-reference.sh -->"
    /// The line after it.
    public static let endMarker = "<!-- /settings-reference -->"

    /// The table, without the markers, each line ending in a newline.
    public static func markdown() -> String {
        let defaults = DaemonSettings()
        var lines = [
            "| flag | environment | default | accepted | meaning |",
            "|---|---|---|---|---|",
        ]
        for setting in Setting.all {
            let key = setting.key
            // A default that is a value (`8080`) is code; one in words (`none`) is not.
            let isValue = setting.defaultDescription == setting.shown(in: defaults)
            let cells = [
                "`\(key.flag)`",
                "`\(key.environmentVariable)`",
                isValue ? "`\(setting.defaultDescription)`" : setting.defaultDescription,
                setting.allowedValues ?? "",
                setting.help,
            ]
            lines.append("| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |")
        }
        return lines.map { $0 + "\n" }.joined()
    }

    /// `document` with the text between the markers replaced by ``markdown()``; `nil` when
    /// it lacks the markers.
    public static func updating(_ document: String) -> String? {
        guard let begin = document.range(of: beginMarker + "\n"),
            let end = document.range(of: endMarker, range: begin.upperBound..<document.endIndex)
        else { return nil }
        return document.replacingCharacters(in: begin.upperBound..<end.lowerBound, with: markdown())
    }
}
