// SPDX-License-Identifier: MIT

/// Which tags a session may carry: those a group call can name
/// (`POST /admin/groups/TAG/call`, where TAG is one path segment, percent-decoded).
enum SessionTag {
    /// A tag no URL can name: empty, `.` or `..` (a path's dot segments, which clients and
    /// the server resolve away), or holding a `/` (it would be two segments).
    static func isAddressable(_ tag: String) -> Bool {
        !tag.isEmpty && tag != "." && tag != ".." && !tag.contains("/")
    }
}
