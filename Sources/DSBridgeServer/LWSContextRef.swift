// SPDX-License-Identifier: MIT
import CLibWebSockets

/// A libwebsockets context pointer that may cross threads.
///
/// `@unchecked Sendable` is safe because the only use off the service thread is
/// `lws_cancel_service`, which libwebsockets documents as thread-safe, and it is only
/// called under `ServiceInbox`'s lock while the context is alive (the service thread
/// clears the reference under that lock before destroying the context).
struct LWSContextRef: @unchecked Sendable {
    let raw: OpaquePointer
}
