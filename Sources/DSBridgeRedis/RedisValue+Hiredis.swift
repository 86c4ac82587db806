// SPDX-License-Identifier: MIT
import CHiredis

extension RedisValue {
    /// The value of a hiredis reply object (copied: the object is freed by the caller).
    init(reply: UnsafePointer<redisReply>) {
        let r = reply.pointee
        switch r.type {
        case REDIS_REPLY_STRING:
            self = .string(Self.bytes(r.str, r.len))
        case REDIS_REPLY_INTEGER:
            self = .integer(Int64(r.integer))
        case REDIS_REPLY_ARRAY:
            var elements: [RedisValue] = []
            elements.reserveCapacity(r.elements)
            if let element = r.element {
                for index in 0..<r.elements {
                    if let child = element[index] { elements.append(RedisValue(reply: child)) } else { elements.append(.null) }
                }
            }
            self = .array(elements)
        case REDIS_REPLY_STATUS:
            self = .status(String(decoding: Self.bytes(r.str, r.len), as: UTF8.self))
        case REDIS_REPLY_ERROR:
            self = .error(String(decoding: Self.bytes(r.str, r.len), as: UTF8.self))
        default:
            self = .null
        }
    }

    private static func bytes(_ pointer: UnsafeMutablePointer<CChar>?, _ count: Int) -> [UInt8] {
        guard let pointer, count > 0 else { return [] }
        return pointer.withMemoryRebound(to: UInt8.self, capacity: count) { Array(UnsafeBufferPointer(start: $0, count: count)) }
    }
}
