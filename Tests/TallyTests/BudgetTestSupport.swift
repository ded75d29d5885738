import Foundation
import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts


/// A ledger (USD, New York) on a manual clock, for a budget story; closed at the end.
func withBudgetLedger<T>(at start: String = "2026-05-20T16:00:00Z", _ body: (Ledger, ManualClock) throws -> T) throws -> T {
    try withTemporaryStore { root in
        let clock = ManualClock(start)
        let ledger = try Ledger.forTesting(at: root, clock: clock)
        defer { try? ledger.close() }
        return try body(ledger, clock)
    }
}

extension Ledger {
    /// Every event of the log, in order, for stories that look at what was recorded.
    func allEvents() throws -> [Event] {
        var events: [Event] = []
        try EventStoreReader.open(at: layout.root, catalog: .standard).forEach { events.append($0) }
        return events
    }
}

/// Runs `body`, expecting a ``LedgerError`` with `code`, and that nothing was appended.
func expectRefusal(
    _ code: LedgerError.Code, by ledger: Ledger, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) throws {
    let before = ledger.head
    #expect(sourceLocation: sourceLocation) { try body() } throws: { error in
        (error as? LedgerError)?.code == code
    }
    #expect(ledger.head == before, "a refused command appended events", sourceLocation: sourceLocation)
}
