// SPDX-License-Identifier: MIT
import Testing

/// One row of a machine's state × event table: in `state`, `event` makes the machine say
/// `says` and go to `goesTo` (each in the words of that machine's tests).
typealias TransitionRow = (state: String, event: String, says: String, goesTo: String)

/// A suite that tests a machine with a state × event table, the way the connection
/// machines' tests do (`HTTPConnectionMachineTests`): it names states and events, and
/// says what the machine said and where it is, in words.
protocol TransitionTable {
    associatedtype Machine
    /// Every state × event the machine takes.
    static var table: [TransitionRow] { get }
    /// A machine in the state `name`.
    static func inState(_ name: String) -> Machine
    /// The machine's state, in words.
    static func describe(_ machine: Machine) -> String
    /// Feeds `event` to `machine`. - Returns: what it said, in words.
    static func apply(_ event: String, to machine: inout Machine) throws -> String
}

extension TransitionTable {
    /// Checks row `index` of ``table``: what the machine said to the event, and the state
    /// it went to.
    static func check(_ index: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let row = table[index]
        var machine = inState(row.state)
        let said = try apply(row.event, to: &machine)
        #expect(said == row.says, "\(row.state) × \(row.event): said", sourceLocation: sourceLocation)
        #expect(describe(machine) == row.goesTo, "\(row.state) × \(row.event): went to", sourceLocation: sourceLocation)
    }
}
