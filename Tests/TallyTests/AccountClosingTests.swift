import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// Closing an envelope account (issue 15, missing today 3, item 4), as the user lives it:
/// the old bank account is emptied into the new one and closed; from then on it takes no
/// transaction, and its history stays.
@Suite struct AccountClosingTests {
    static let now = "2026-07-15T12:00:00Z"

    private func household(_ body: (Ledger) throws -> Void) throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock(Self.now))
            try ledger.openEnvelopeAccount("Assets:Bank", commodity: .usd, openingBalance: usd("2000.00"), effectiveAt: start(ledger, "2026-05-01"))
            try ledger.openEnvelopeAccount("Assets:Old bank", commodity: .usd, openingBalance: usd("120.00"), effectiveAt: start(ledger, "2026-05-01"))
            try body(ledger)
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    private func start(_ ledger: Ledger, _ text: String) -> Instant { ledger.calendar.startOfDay(day(text)) }

    private func refusal(_ code: LedgerError.Code, by ledger: Ledger, sourceLocation: SourceLocation = #_sourceLocation, _ command: () throws -> Void) -> String {
        let head = ledger.head
        var message = ""
        #expect(sourceLocation: sourceLocation) { try command() } throws: { error in
            message = (error as? LedgerError)?.message ?? "\(error)"
            return (error as? LedgerError)?.code == code
        }
        #expect(ledger.head == head, "a refused command appends nothing", sourceLocation: sourceLocation)
        return message
    }

    @Test func anEmptiedAccountClosesAndTakesNothingDatedAfterItsClosing() throws {
        try household { ledger in
            // Not at zero: refused, naming the balance and the day.
            let message = refusal(.notAllowed, by: ledger) { try ledger.closeEnvelopeAccount("Assets:Old bank", effectiveAt: start(ledger, "2026-06-30")) }
            #expect(message.contains("120.00 USD") && message.contains("2026-06-30"), "\(message)")

            try ledger.transferBetweenAccounts("empty-old", from: "Assets:Old bank", to: "Assets:Bank", amount: usd("120.00"), effectiveAt: start(ledger, "2026-06-29"))
            let closed = try ledger.closeEnvelopeAccount("Assets:Old bank", effectiveAt: start(ledger, "2026-06-30"))
            #expect(closed.events.map(\.type.name) == ["account_closed"])

            let after = refusal(.notAllowed, by: ledger) {
                try ledger.recordEnvelopeTransaction("late", account: "Assets:Old bank", amount: usd("-5.00"), effectiveAt: start(ledger, "2026-07-02"))
            }
            #expect(after.contains("closed on 2026-06-30") && after.contains("2026-07-02"), "\(after)")
            _ = refusal(.notAllowed, by: ledger) {
                try ledger.transferBetweenAccounts("back", from: "Assets:Bank", to: "Assets:Old bank", amount: usd("1.00"), effectiveAt: start(ledger, "2026-07-01"))
            }
            let before = refusal(.notAllowed, by: ledger) {
                try ledger.recordEnvelopeTransaction("early", account: "Assets:Old bank", amount: usd("-5.00"), effectiveAt: start(ledger, "2026-06-01"))
            }
            #expect(before.contains("zero balance"), "\(before)")
            _ = refusal(.notAllowed, by: ledger) { try ledger.closeEnvelopeAccount("Assets:Old bank") }

            // Its history stays: the audit and the totals at a date before the closing.
            let audit = try ledger.audit(account: "Assets:Old bank")
            #expect(audit.map(\.eventType) == ["account_opened", "transfer_made"])
            #expect(try ledger.envelopeAccountsTotal(asOf: ledger.calendar.endOfDay(day("2026-06-01"))).total == usd("2120.00"))
            #expect(try ledger.envelopeAccountsTotal().total == usd("2120.00"))
            // The other account goes on.
            try ledger.recordEnvelopeTransaction("groceries", account: "Assets:Bank", amount: usd("-40.00"), effectiveAt: start(ledger, "2026-07-02"))
        }
    }

    @Test func anAccountWithATransactionAfterTheClosingDayIsNotClosedThen() throws {
        try household { ledger in
            try ledger.transferBetweenAccounts("empty-old", from: "Assets:Old bank", to: "Assets:Bank", amount: usd("120.00"), effectiveAt: start(ledger, "2026-06-29"))
            let message = refusal(.notAllowed, by: ledger) { try ledger.closeEnvelopeAccount("Assets:Old bank", effectiveAt: start(ledger, "2026-06-01")) }
            #expect(message.contains("2026-06-29"), "\(message)")
            _ = refusal(.notFound, by: ledger) { try ledger.closeEnvelopeAccount("Assets:Nowhere") }
            try ledger.closeEnvelopeAccount("Assets:Old bank", effectiveAt: start(ledger, "2026-06-29"))
        }
    }
}
