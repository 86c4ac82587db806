// SPDX-License-Identifier: MIT

/// Writes JSON text through a pointer into memory sized up front, when the size is known
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

    /// What `body` writes, in an array, when it is at most `capacity` bytes; `nil` when it
    /// wrote more. (Written into scratch memory, on the stack when small, then copied into
    /// an array allocated at its size: creating an array with uninitialized capacity is not
    /// specialized by the compiler and looks up the array's type at run time.)
    static func bytes(capacity: Int, _ body: (inout JSONBoundedWriter) -> Void) -> [UInt8]? {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(capacity, 1)) { scratch -> [UInt8]? in
            guard let base = scratch.baseAddress else { return nil }
            var writer = JSONBoundedWriter(base: base, capacity: capacity)
            body(&writer)
            // Bytes are trivial: the scratch memory needs no deinitialization.
            return writer.overflowed ? nil : Array(UnsafeBufferPointer(start: base, count: writer.count))
        }
    }
}
