// SPDX-License-Identifier: MIT
import Foundation

/// The checks that need more than one setting's value, or the file system, run once every
/// setting is resolved (defaults included).
enum SettingsChecks {
    static func check(_ s: DaemonSettings) throws(SettingsError) {
        if (s.server.tlsCertificatePath == nil) != (s.server.tlsKeyPath == nil) {
            throw SettingsError(description: "\(SettingKey.tlsCert.flag) and \(SettingKey.tlsKey.flag) go together: give both or neither")
        }
        for path in [s.server.tlsCertificatePath, s.server.tlsKeyPath].compactMap({ $0 })
        where !FileManager.default.isReadableFile(atPath: path) {
            throw SettingsError(description: "cannot read TLS file \(path)")
        }
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: s.server.webRoot, isDirectory: &isDirectory) || !isDirectory.boolValue {
            throw SettingsError(
                description:
                    "\(SettingKey.webRoot.flag) \(s.server.webRoot) is not a directory (relative paths start at \(FileManager.default.currentDirectoryPath))")
        }
    }
}
