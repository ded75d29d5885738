import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// Corrections of envelope transactions (issue 15, missing today 3), as the user lives them:
/// a grocery receipt typed wrong is amended, one entered twice is reversed; the envelope and
/// the account move, the audit keeps the original, its reversal and the new version, and
/// what the ledger said before the correction is still there as known then.
@Suite struct EnvelopeCorrectionsTests {
    static let now = "2026-03-15T12:00:00Z"

    private func household(_ body: (Ledger, ManualClock) throws -> Void) throws {
        try withTemporaryStore { root in
            let clock = ManualClock(Self.now)
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            try ledger.openEnvelopeAccount("Assets:Bank", commodity: .usd, openingBalance: usd("1000.00"), effectiveAt: start(ledger, "2026-01-01"))
            try ledger.createEnvelope("food", name: "Food", interval: .monthly, budgeted: usd("300.00"), startDate: day("2026-01-01"))
            try ledger.recordEnvelopeTransaction("t1", account: "Assets:Bank", amount: usd("-40.00"), envelope: "food", payee: "Grocer",
                                                 effectiveAt: start(ledger, "2026-02-10"))
            try body(ledger, clock)
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    private func start(_ ledger: Ledger, _ text: String) -> Instant { ledger.calendar.startOfDay(day(text)) }
    private func end(_ ledger: Ledger, _ text: String) -> Instant { ledger.calendar.endOfDay(day(text)) }

    private func spent(_ ledger: Ledger, _ text: String, knownAt: Instant? = nil) throws -> Money {
        try ledger.envelopeStatus("food", asOf: end(ledger, text), knownAt: knownAt).spent
    }

    private func bank(_ ledger: Ledger, _ text: String) throws -> Money {
        try ledger.balances(asOf: end(ledger, text)).first { $0.account == "Assets:Bank" }?.amount ?? usd("0.00")
    }

    @Test func anAmendedReceiptMovesTheEnvelopeAndTheAccountAndTheAuditShowsAllThreeVersions() throws {
        try household { ledger, clock in
            let before = clock.now
            clock.advance(seconds: 60)
            try ledger.amendEnvelopeTransaction("t1", amount: usd("-45.00"))
            #expect(try spent(ledger, "2026-02-28") == usd("45.00"))
            #expect(try bank(ledger, "2026-02-28") == usd("955.00"))
            // As the ledger knew it before the amendment: the original.
            #expect(try spent(ledger, "2026-02-28", knownAt: before) == usd("40.00"))
            let audit = try ledger.envelopeAudit("food", through: day("2026-02-28")).filter { $0.eventType.hasPrefix("transaction") }
            #expect(audit.map(\.eventType) == ["transaction_recorded", "transaction_amended", "transaction_amended"])
            #expect(audit.map(\.amount) == [usd("-40.00"), usd("40.00"), usd("-45.00")])

            // Moved to March: February no longer counts it, March does.
            try ledger.amendEnvelopeTransaction("t1", effectiveAt: start(ledger, "2026-03-02"))
            #expect(try spent(ledger, "2026-02-28") == usd("0.00"))
            #expect(try spent(ledger, "2026-03-31") == usd("45.00"))
            #expect(try bank(ledger, "2026-02-28") == usd("1000.00"))
        }
    }

    @Test func aReceiptEnteredTwiceIsReversedAndCannotBeReversedAgain() throws {
        try household { ledger, _ in
            let reversed = try ledger.reverseEnvelopeTransaction("t1")
            #expect(reversed.events.map(\.type.name) == ["transaction_deleted"])
            #expect(try spent(ledger, "2026-02-28") == usd("0.00"))
            #expect(try bank(ledger, "2026-02-28") == usd("1000.00"))
            let head = ledger.head
            #expect { try ledger.reverseEnvelopeTransaction("t1") } throws: { ($0 as? LedgerError)?.code == .notFound }
            #expect { try ledger.amendEnvelopeTransaction("t1", amount: usd("-1.00")) } throws: { ($0 as? LedgerError)?.code == .notFound }
            #expect(ledger.head == head)
        }
    }

    @Test func whatCannotBeCorrectedIsRefusedAndRecordsNothing() throws {
        try household { ledger, _ in
            let head = ledger.head
            // Nothing to do: the same amount.
            #expect(try ledger.amendEnvelopeTransaction("t1", amount: usd("-40.00")).events.isEmpty)
            #expect { try ledger.amendEnvelopeTransaction("t1", amount: usd("0.00")) } throws: { ($0 as? LedgerError)?.code == .invalidArgument }
            #expect { try ledger.amendEnvelopeTransaction("t1", amount: try Money(parsing: "-5.00", commodity: .eur)) } throws: {
                ($0 as? LedgerError)?.code == .currencyMismatch
            }
            #expect { try ledger.amendEnvelopeTransaction("nope", amount: usd("-1.00")) } throws: { ($0 as? LedgerError)?.code == .notFound }
            #expect(ledger.head == head)
            // A budget transaction is corrected by the budget's commands.
            try ledger.recordTransaction(payee: "Shop", category: .general, amount: usd("-5.00"), date: day("2026-03-01"), id: "b1")
            #expect { try ledger.reverseEnvelopeTransaction("b1") } throws: { ($0 as? LedgerError)?.code == .notAllowed }
        }
    }

    @Test func aCorrectionOfAClosedAccountsTransactionIsRefused() throws {
        try household { ledger, _ in
            try ledger.recordEnvelopeTransaction("t2", account: "Assets:Bank", amount: usd("-960.00"), effectiveAt: start(ledger, "2026-02-20"))
            try ledger.closeEnvelopeAccount("Assets:Bank", effectiveAt: start(ledger, "2026-03-01"))
            let head = ledger.head
            #expect { try ledger.amendEnvelopeTransaction("t1", amount: usd("-41.00")) } throws: { ($0 as? LedgerError)?.code == .notAllowed }
            #expect { try ledger.reverseEnvelopeTransaction("t2") } throws: { ($0 as? LedgerError)?.code == .notAllowed }
            #expect(ledger.head == head)
        }
    }
}
