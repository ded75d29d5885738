import Foundation
import Testing
import TallyLog
@testable import Tally

/// Deterministic fault simulation of a `Ledger` (issue 10, item 9): random commands through the public API
/// with the log on a `SimulatedDisk`, crashes (some inside a group commit) with the read models kept,
/// deleted or set back, and checks after every reopen. See `LedgerSimulator`.
struct LedgerSimulationTests {
    /// The short run, in the test command.
    @Test func shortRun() {
        let environment = ProcessInfo.processInfo.environment
        let count = environment["TALLY_SIM_LEDGER_SEEDS"].flatMap(Int.init) ?? 30
        let first = environment["TALLY_SIM_FIRST_SEED"].flatMap(UInt64.init) ?? 1
        let figures = runLedgerSimulation(first: first, count: count)
        print("ledger simulation: \(figures)")
        for failure in figures.failures.prefix(5) { Issue.record("\(failure)") }
        let failing = figures.failures.count
        #expect(failing == 0, "failing seeds")
    }

    /// Replays `seed`; on failure the message holds the trace.
    func replay(_ seed: UInt64) {
        var simulator = LedgerSimulator(seed: seed)
        do { _ = try simulator.run() } catch { Issue.record("\(error)") }
    }
}
