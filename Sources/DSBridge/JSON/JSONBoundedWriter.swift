// SPDX-License-Identifier: MIT

/// Writes JSON text through a pointer into an array sized up front, when the size is known
/// before writing (``JSONWriter/estimatedSize(of:)`` is exact unless a string needs escapes
/// or a number is not an integer): no growth or uniqueness checks per append, where
/// ``JSONWriter`` checks its array on each. Text that does not fit is not returned: the
/// caller writes it again with a ``JSONWriter``.
struct JSONBoundedWriter: JSONOutput {
    private let base: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    /// Bytes written.
    private(set) var count = 0
    /// Whether an append did not fit (the text is incomplete).
    private(set) var overflowed = false

    private init(base: UnsafeMutablePointer<UInt8>, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    mutating func append(_ byte: UInt8) {
        guard count < capacity else {
            overflowed = true
            return
        }
        base[count] = byte
        count += 1
    }

    mutating func append(contentsOf run: UnsafeBufferPointer<UInt8>) {
        guard run.count <= capacity - count else {
            overflowed = true
            return
        }
        if let source = run.baseAddress { (base + count).initialize(from: source, count: run.count) }
        count += run.count
    }

    /// Messages up to this size go into an array reserved and zero-filled; larger ones into
    /// one made with uninitialized capacity. (That init is not specialized by the compiler
    /// and looks the array's type up at run time, 1.2% of the CPU of a small call; zero-filling
    /// costs more than that above a few KiB, and far more in a debug build, where it goes byte
    /// by byte.)
    static let zeroFilledLimit = 4_096
    /// The zeros a small message's array is filled with before it is written: memory of its
    /// own, where an array's storage would be retained and released for each message.
    /// (`nonisolated(unsafe)` is safe: the bytes are written once, when it is made, and only
    /// read after.)
    nonisolated(unsafe) private static let zeros = UnsafeBufferPointer(
        UnsafeMutableBufferPointer<UInt8>.allocate(capacity: zeroFilledLimit).initialized(repeating: 0))

    /// What `body` writes, in an array, when it is at most `capacity` bytes; `nil` when it
    /// wrote more. (Inlined: called through a closure, the message it writes was copied, three
    /// retains and releases more per message.)
    @inline(__always)
    static func bytes(capacity: Int, _ body: (inout JSONBoundedWriter) -> Void) -> [UInt8]? {
        if capacity > zeroFilledLimit {
            var fitted = false
            let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
                guard let base = buffer.baseAddress else { return }
                var writer = JSONBoundedWriter(base: base, capacity: capacity)
                body(&writer)
                fitted = !writer.overflowed
                // Bytes are trivial: those written past an overflow need no deinitialization.
                initialized = fitted ? writer.count : 0
            }
            return fitted ? bytes : nil
        }
        // Cut to what was written (the writer initializes over the zeros: bytes are trivial).
        var bytes: [UInt8] = []
        bytes.reserveCapacity(capacity)
        // Copied from zeros kept for it (one memcpy), where `repeatElement` went byte by byte.
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: zeros[0..<max(capacity, 1)]))
        let written = bytes.withUnsafeMutableBufferPointer { buffer -> Int? in
            guard let base = buffer.baseAddress else { return nil }
            var writer = JSONBoundedWriter(base: base, capacity: capacity)
            body(&writer)
            return writer.overflowed ? nil : writer.count
        }
        guard let written else { return nil }
        bytes.removeLast(bytes.count - written)
        return bytes
    }
}

extension UnsafeMutableBufferPointer where Element == UInt8 {
    /// The buffer with every byte set to `value`.
    fileprivate func initialized(repeating value: UInt8) -> Self {
        initialize(repeating: value)
        return self
    }
}
