// SPDX-License-Identifier: MIT

/// One measured operation: a name, a group, and a factory that prepares its state and
/// returns the step to repeat. The benchmarks time the step; the profiling executable runs
/// it under callgrind.
public struct Workload: Sendable {
    /// What is repeated.
    public enum Step {
        case sync(() -> Void)
        case async(() async -> Void)
    }

    /// `decode`, `dispatch`, `encode`, `json`, `coding`.
    public let group: String
    public let name: String
    /// Prepares the state (outside any measurement) and returns the step.
    public let prepare: @Sendable () -> Step

    public init(group: String, name: String, prepare: @escaping @Sendable () -> Step) {
        self.group = group
        self.name = name
        self.prepare = prepare
    }

    /// `group/name`, as benchmarks and the profiler name the workload.
    public var id: String { "\(group)/\(name)" }
}

/// Keeps a result alive so the optimiser cannot drop the work that made it.
@inline(never)
public func sink<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
