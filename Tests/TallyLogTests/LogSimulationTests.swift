import Foundation
import Testing
@testable import TallyLog

/// Deterministic fault simulation of the log (issue 10, item 9): a `LogWriter` on a `SimulatedDisk`
/// under random appends, syncs, crashes, failed writes and syncs, and bit flips. See `LogSimulator`.
struct LogSimulationTests {
    /// The short run, in the test command: a few hundred seeds.
    @Test func shortRun() {
        let environment = ProcessInfo.processInfo.environment
        let count = environment["TALLY_SIM_SEEDS"].flatMap(Int.init) ?? 300
        let first = environment["TALLY_SIM_FIRST_SEED"].flatMap(UInt64.init) ?? 1
        let figures = runLogSimulation(first: first, count: count)
        print("log simulation: \(figures)")
        for failure in figures.failures.prefix(5) { Issue.record("\(failure)") }
        let failing = figures.failures.count
        #expect(failing == 0, "failing seeds")
    }

    /// Replays `seed`; on failure the message holds the trace.
    func replay(_ seed: UInt64) {
        var simulator = LogSimulator(seed: seed)
        do { _ = try simulator.run() } catch { Issue.record("\(error)") }
    }
}
