// SPDX-License-Identifier: MIT
import Dispatch

/// Where the service thread sends HTTP work that may block or grows with the number of
/// sessions (static files, session creation with its authenticator, admin lists,
/// metrics). Answers come back through the inbox (`respondLater`).
enum OffloadedWork {
    static let queue = DispatchQueue(label: "dsbridged.http-work", qos: .userInitiated, attributes: .concurrent)
}
