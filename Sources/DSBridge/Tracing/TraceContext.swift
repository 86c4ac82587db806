// SPDX-License-Identifier: MIT

/// A W3C trace context as a page sends it (`traceparent`, PROTOCOL.md 2.2 and 4): the
/// trace and the page's span that a call's span continues. Plain numbers, so carrying it
/// with every call costs no reference counting.
public struct TraceContext: Sendable, Equatable {
    /// The version byte (`00` today).
    public var version: UInt8
    /// The 128-bit trace id (high, low).
    public var traceIDHigh: UInt64
    public var traceIDLow: UInt64
    /// The page's span id.
    public var parentID: UInt64
    /// Trace flags (`01` = sampled).
    public var flags: UInt8

    public init(version: UInt8 = 0, traceIDHigh: UInt64, traceIDLow: UInt64, parentID: UInt64, flags: UInt8) {
        self.version = version
        self.traceIDHigh = traceIDHigh
        self.traceIDLow = traceIDLow
        self.parentID = parentID
        self.flags = flags
    }

    /// The context of a frame's `traceparent` member: `quoted` is the range of its JSON string
    /// in `frame`, quotes included (an escape in it makes it invalid, as any other invalid
    /// value: `nil`). The frame decoders' one reading of the member.
    init?(quotedIn frame: [UInt8], _ quoted: Range<Int>) {
        guard quoted.count > 2 else { return nil }
        self.init(traceparent: frame[(quoted.lowerBound + 1)..<(quoted.upperBound - 1)])
    }

    /// Parses a `traceparent` value: `VERSION-TRACEID-PARENTID-FLAGS` in lowercase hex (2, 32,
    /// 16, 2 digits). `nil` for anything else, as the W3C Trace Context rules say to ignore
    /// it: version `ff`, an all-zero trace or parent id, upper case, version `00` with more
    /// after the flags (a later version may have more, after a `-`).
    public init?(traceparent: some Collection<UInt8>) {
        var bytes = traceparent.makeIterator()
        func hex(_ digits: Int) -> UInt64? {
            var value: UInt64 = 0
            for _ in 0..<digits {
                guard let c = bytes.next() else { return nil }
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): value = value << 4 | UInt64(c - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): value = value << 4 | UInt64(c - UInt8(ascii: "a") + 10)
                default: return nil
                }
            }
            return value
        }
        func dash() -> Bool { bytes.next() == UInt8(ascii: "-") }
        guard let version = hex(2), version != 0xff, dash(),
            let high = hex(16), let low = hex(16), high != 0 || low != 0, dash(),
            let parent = hex(16), parent != 0, dash(),
            let flags = hex(2)
        else { return nil }
        if let next = bytes.next() {
            guard version != 0, next == UInt8(ascii: "-") else { return nil }
        }
        self.init(version: UInt8(version), traceIDHigh: high, traceIDLow: low, parentID: parent, flags: UInt8(flags))
    }

    /// ``init(traceparent:)`` of a string.
    public init?(traceparent: String) {
        self.init(traceparent: traceparent.utf8)
    }

    /// The `traceparent` text (version `00` form).
    public var traceparent: String {
        func hex(_ value: UInt64, _ digits: Int) -> String {
            let text = String(value, radix: 16)
            return String(repeating: "0", count: digits - text.count) + text
        }
        return "\(hex(UInt64(version), 2))-\(hex(traceIDHigh, 16))\(hex(traceIDLow, 16))-\(hex(parentID, 16))-\(hex(UInt64(flags), 2))"
    }
}
