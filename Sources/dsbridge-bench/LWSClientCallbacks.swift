// SPDX-License-Identifier: MIT
import CLibWebSockets

/// The worker whose context `wsi` belongs to (its thread).
private func worker(_ wsi: OpaquePointer?) -> ClientWorker? {
    guard let wsi, let ctx = lws_get_context(wsi), let user = lws_context_user(ctx) else { return nil }
    return Unmanaged<ClientWorker>.fromOpaque(user).takeUnretainedValue()
}

/// The live link `wsi` carries (its opaque user data is the link's id).
private func link(_ wsi: OpaquePointer?, in worker: ClientWorker) -> Link? {
    guard let wsi, let raw = lws_get_opaque_user_data(wsi) else { return nil }
    guard let link = worker.link(Int(bitPattern: raw)) else { return nil }
    if link.wsi == nil { link.wsi = wsi }
    return link.wsi == wsi ? link : nil
}

private func errorText(_ input: UnsafeMutableRawPointer?, _ len: Int) -> String {
    guard let input else { return "connection error" }
    let text = String(cString: input.assumingMemoryBound(to: CChar.self))
    return text.isEmpty ? "connection error" : String(text.prefix(80))
}

/// lws callback of the bench's WebSocket client protocol (worker thread).
func benchWebSocketCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ len: Int
) -> Int32 {
    if reason == LWS_CALLBACK_EVENT_WAIT_CANCELLED { return 0 }  // the loop looks at the phase after each service
    guard let worker = worker(wsi), let link = link(wsi, in: worker) else { return 0 }
    switch reason {
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
        worker.established(link)
    case LWS_CALLBACK_CLIENT_RECEIVE:
        guard let wsi else { return 0 }
        let final = lws_is_final_fragment(wsi) != 0 && lws_remaining_packet_payload(wsi) == 0
        let chunk = UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : len)
        if final, !link.rxAssembling {
            link.received(chunk)
        } else {
            if !link.rxAssembling {
                link.rxBytes.removeAll(keepingCapacity: true)
                link.rxAssembling = true
            }
            link.rxBytes.append(contentsOf: chunk)
            if final {
                link.rxAssembling = false
                let message = link.rxBytes
                message.withUnsafeBytes { link.received($0) }
            }
        }
    case LWS_CALLBACK_CLIENT_WRITEABLE:
        return link.writeable()
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        if let input, len >= 2 {
            let b = input.assumingMemoryBound(to: UInt8.self)
            link.peerCloseCode = Int(b[0]) << 8 | Int(b[1])
        } else {
            link.peerCloseCode = 1005
        }
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
        worker.end(link, error: errorText(input, len))
    case LWS_CALLBACK_CLIENT_CLOSED:
        worker.end(link, error: nil)
    case LWS_CALLBACK_WSI_DESTROY:
        worker.end(link, error: link.established ? nil : "closed before opening")
    default:
        break
    }
    return 0
}

/// lws callback of the bench's raw-socket protocol, used for HTTP/1.1 (worker thread).
func benchRawCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ len: Int
) -> Int32 {
    if reason == LWS_CALLBACK_EVENT_WAIT_CANCELLED { return 0 }
    guard let worker = worker(wsi), let link = link(wsi, in: worker) else { return 0 }
    switch reason {
    case LWS_CALLBACK_RAW_CONNECTED:
        worker.established(link)
    case LWS_CALLBACK_RAW_RX:
        link.received(UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : len))
    case LWS_CALLBACK_RAW_WRITEABLE:
        return link.writeable()
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
        worker.end(link, error: errorText(input, len))
    case LWS_CALLBACK_RAW_CLOSE:
        worker.end(link, error: link.established ? nil : "closed before opening")
    case LWS_CALLBACK_WSI_DESTROY:
        worker.end(link, error: link.established ? nil : "closed before opening")
    default:
        break
    }
    return 0
}
