// SPDX-License-Identifier: MIT

/// Writes JSON text through a pointer into an array sized up front, when the size is known
/// before writing (``JSONWriter/estimatedSize(of:)`` is exact unless a string needs escapes
/// or a number is not an integer): one allocation and no growth or uniqueness checks per
/// append, where ``JSONWriter`` checks its array on each. Text that does not fit is not
/// returned: the caller writes it again with a ``JSONWriter``.
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

    /// What `body` writes, in an array of at most `capacity` bytes; `nil` when it wrote more.
    static func bytes(capacity: Int, _ body: (inout JSONBoundedWriter) -> Void) -> [UInt8]? {
        var fitted = false
        let bytes = [UInt8](unsafeUninitializedCapacity: max(capacity, 1)) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            var writer = JSONBoundedWriter(base: base, capacity: capacity)
            body(&writer)
            fitted = !writer.overflowed
            // Bytes are trivial: those written past an overflow need no deinitialization.
            initialized = fitted ? writer.count : 0
        }
        return fitted ? bytes : nil
    }
}
