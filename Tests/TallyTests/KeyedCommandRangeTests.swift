import Foundation
import Testing
import TallyLog
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// Idempotency of commands that cause several events (issue 34, item 6): a key maps to its
/// command's whole range, recorded in the log (``CommandCompleted`` ends a keyed command whose
/// later events its first did not cause), so a retry returns exactly what the first run
/// returned, also after a rebuild, and never an event a later command recorded.
@Suite struct KeyedCommandRangeTests {
    /// Repeats `body`, expecting the first result again, already applied, nothing appended.
    private func expectSameRepeat(_ first: Ledger.CommandResult, _ ledger: Ledger, _ body: () throws -> Ledger.CommandResult,
                                  sourceLocation: SourceLocation = #_sourceLocation) throws {
        let head = ledger.head
        let repeated = try body()
        #expect(repeated.wasAlreadyApplied, sourceLocation: sourceLocation)
        #expect(repeated.events == first.events, "\(repeated.events.map(\.type.name)) against \(first.events.map(\.type.name))", sourceLocation: sourceLocation)
        #expect(ledger.head == head, "a repeat appended events", sourceLocation: sourceLocation)
    }

    @Test func aRetriedResumeReturnsEverySplitItMadeAlsoAfterARebuild() throws {
        try withBudgetLedger { ledger, _ in
            try ledger.pauseAutomation(account: "main")
            try ledger.deposit(account: "main", amount: usd("10.00"))
            try ledger.deposit(account: "main", amount: usd("20.00"))
            let first = try ledger.resumeAutomation(account: "main", idempotencyKey: "resume")
            #expect(first.events.map(\.type.name) == ["automation_resumed", "deposit_split", "deposit_split", "command_completed"])
            #expect(first.events.last?.cause == first.events.first?.sequence)
            try expectSameRepeat(first, ledger) { try ledger.resumeAutomation(account: "main", idempotencyKey: "resume") }
            try ledger.rebuild()
            try expectSameRepeat(first, ledger) { try ledger.resumeAutomation(account: "main", idempotencyKey: "resume") }
            try ledger.expectConsistent()
        }
    }

    @Test func aRetriedDepositDoesNotReturnASplitALaterCommandMade() throws {
        try withBudgetLedger { ledger, _ in
            try ledger.pauseAutomation(account: "main")
            let deposit = try ledger.deposit(account: "main", amount: usd("10.00"), idempotencyKey: "d")
            #expect(deposit.events.count == 1)
            try ledger.setPriceStaleness(seconds: 60)
            try ledger.resumeAutomation(account: "main")
            try expectSameRepeat(deposit, ledger) { try ledger.deposit(account: "main", amount: usd("10.00"), idempotencyKey: "d") }
            // The resume right after the deposit: its split follows the resume's own event.
            let next = try ledger.deposit(account: "main", amount: usd("5.00"), idempotencyKey: "e")
            #expect(next.events.count == 2, "automation is on again: a deposit and its split")
            try ledger.pauseAutomation(account: "main")
            let paused = try ledger.deposit(account: "main", amount: usd("7.00"), idempotencyKey: "f")
            try ledger.resumeAutomation(account: "main")
            try ledger.rebuild()
            try expectSameRepeat(paused, ledger) { try ledger.deposit(account: "main", amount: usd("7.00"), idempotencyKey: "f") }
            try expectSameRepeat(next, ledger) { try ledger.deposit(account: "main", amount: usd("5.00"), idempotencyKey: "e") }
        }
    }

    @Test func aRetriedDepositAmendmentReturnsItsNewSplit() throws {
        try withBudgetLedger { ledger, _ in
            let deposit = try ledger.deposit(account: "main", amount: usd("100.00"))
            let entry = deposit.events[0].sequence
            let first = try ledger.amendWealthEntry(account: "main", entry: entry, amount: usd("80.00"), idempotencyKey: "amend")
            #expect(first.events.contains { $0.type.name == "deposit_split" }, "\(first.events.map(\.type.name))")
            try ledger.setPriceStaleness(seconds: 60)
            try expectSameRepeat(first, ledger) {
                try ledger.amendWealthEntry(account: "main", entry: entry, amount: usd("80.00"), idempotencyKey: "amend")
            }
            try ledger.rebuild()
            try expectSameRepeat(first, ledger) {
                try ledger.amendWealthEntry(account: "main", entry: entry, amount: usd("80.00"), idempotencyKey: "amend")
            }
            try ledger.expectConsistent()
        }
    }

    @Test func aKeyedCommandWhoseEventsItsFirstCausedNeedsNoEnd() throws {
        try withBudgetLedger { ledger, _ in
            let deposit = try ledger.deposit(account: "main", amount: usd("10.00"), idempotencyKey: "plain")
            #expect(deposit.events.map(\.type.name) == ["deposit_received", "deposit_split"])
            try expectSameRepeat(deposit, ledger) { try ledger.deposit(account: "main", amount: usd("10.00"), idempotencyKey: "plain") }
        }
    }
}
