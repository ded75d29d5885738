import Foundation
import Testing
import TallyTestSupport
@testable import TallyEngine
import TallyLog

/// Deterministic simulation of the PostgreSQL backend's failures at the `LogWriting` interface
/// (issue 29): lost commit acknowledgements, connections lost before a commit, fenced writers.
/// The write pipeline never applies a command twice and never drops an acknowledged one. See
/// `RemoteLogSimulator`; `scripts/sim/run.sh` runs more seeds.
struct RemoteLogSimulationTests {
    /// The short run, in the test command.
    @Test func shortRun() {
        let environment = ProcessInfo.processInfo.environment
        let count = TestScale.count("TALLY_SIM_REMOTE_SEEDS", default: 12)
        let first = environment["TALLY_SIM_FIRST_SEED"].flatMap(UInt64.init) ?? 1
        let figures = runRemoteLogSimulation(first: first, count: count)
        print("remote log simulation: \(figures)")
        for failure in figures.failures.prefix(5) { Issue.record("\(failure)") }
        #expect(figures.failures.isEmpty, "failing seeds")
        #expect(figures.lostAcknowledgements > 0 && figures.fences > 0, "the faults were not injected")
    }
}
