// SPDX-License-Identifier: MIT
import DSBridgeRedis

/// Changes to the fields of one Redis hash, in the order they happened, folded to what
/// they leave: each field's last change wins. Written as one `HDEL` of the fields that end
/// deleted and one `HSET` of those that end with a value, which leaves the hash as the
/// changes one by one would. A field made by these changes (``create(_:with:)``: it did not
/// exist before them) and deleted again by them is left out altogether. Pure.
struct HashChanges {
    /// The changes in order (`nil`: the field is deleted; `created`: it did not exist before).
    private var changes: [(field: Int64, value: [UInt8]?, created: Bool)] = []
    /// Whether any change is a ``create(_:with:)``.
    private var creates = false

    init(capacity: Int) {
        changes.reserveCapacity(capacity)
    }

    /// Records that `field` now holds `value` (`nil`: it is deleted).
    mutating func change(_ field: Int64, to value: [UInt8]?) {
        changes.append((field, value, false))
    }

    /// Records that `field`, which the hash did not hold before these changes, now holds
    /// `value`: if a later change deletes it, neither is written.
    mutating func create(_ field: Int64, with value: [UInt8]) {
        changes.append((field, value, true))
        creates = true
    }

    /// The fields that end deleted and those that end with a value, each in the order of
    /// their last change.
    func folded() -> (deleted: [Int64], set: [(field: Int64, value: [UInt8])]) {
        var deleted: [Int64] = []
        var set: [(field: Int64, value: [UInt8])] = []
        // A field changed twice is rare (a `ret` and the final `cb` of one call in one
        // round): look for one before paying for a set of the fields seen.
        let fields = changes.map(\.field)
        let last = Self.lastChangeIndices(fields)
        let created = creates ? Set(changes.lazy.filter(\.created).map(\.field)) : []
        for (index, change) in changes.enumerated() where last[index] {
            if let value = change.value {
                set.append((change.field, value))
            } else if !created.contains(change.field) {
                deleted.append(change.field)
            }
        }
        return (deleted, set)
    }

    /// ``write(to:)`` for a few changes (the usual round: one or two per session), with no
    /// array made: each change is checked against the others in place, once to count each
    /// section, once to write it.
    private func writeFew(to sink: inout some RedisArgumentSink) {
        func isLast(_ i: Int) -> Bool {
            for j in (i + 1)..<changes.count where changes[j].field == changes[i].field { return false }
            return true
        }
        func isDeleted(_ i: Int) -> Bool {
            guard changes[i].value == nil, isLast(i) else { return false }
            return !(creates && changes[..<i].contains { $0.created && $0.field == changes[i].field })
        }
        var deleted = 0
        var set = 0
        for i in changes.indices {
            if isDeleted(i) { deleted += 1 } else if changes[i].value != nil, isLast(i) { set += 1 }
        }
        sink.appendArgument(decimal: Int64(deleted))
        for i in changes.indices where isDeleted(i) { sink.appendArgument(decimal: changes[i].field) }
        sink.appendArgument(decimal: Int64(set * 2))
        for i in changes.indices {
            guard let value = changes[i].value, isLast(i) else { continue }
            sink.appendArgument(decimal: changes[i].field)
            sink.appendArgument(value)
        }
    }

    /// For each position, whether no later position holds the same field.
    static func lastChangeIndices(_ fields: [Int64]) -> [Bool] {
        var isLast = [Bool](repeating: true, count: fields.count)
        if fields.count <= 16 {
            for i in fields.indices {
                for j in (i + 1)..<fields.count where fields[j] == fields[i] {
                    isLast[i] = false
                    break
                }
            }
        } else {
            var seen = Set<Int64>(minimumCapacity: fields.count)
            for i in fields.indices.reversed() where !seen.insert(fields[i]).inserted { isLast[i] = false }
        }
        return isLast
    }

    /// Writes the two sections of ``ClusterScripts/journal``: the count of deleted fields
    /// and the fields, then the count of field/value arguments and the pairs.
    func write(to sink: inout some RedisArgumentSink) {
        guard !changes.isEmpty else {
            sink.appendArgument(decimal: 0)
            sink.appendArgument(decimal: 0)
            return
        }
        if changes.count <= 16 {
            writeFew(to: &sink)
            return
        }
        let (deleted, set) = folded()
        Self.write(deleted: deleted, set: set, to: &sink)
    }

    /// Writes the two sections for changes folded to `deleted` and `set`.
    static func write(deleted: [Int64], set: [(field: Int64, value: [UInt8])], to sink: inout some RedisArgumentSink) {
        sink.appendArgument(decimal: Int64(deleted.count))
        for field in deleted { sink.appendArgument(decimal: field) }
        sink.appendArgument(decimal: Int64(set.count * 2))
        for (field, value) in set {
            sink.appendArgument(decimal: field)
            sink.appendArgument(value)
        }
    }
}
