import Testing
import Tally
import TallyTestSupport
import TallyEngine
import TallyProducts

/// A purchase or withdrawal for a wealth account that does not exist is `notFound`: the
/// customer is unknown, not short of money. An account that exists but cannot cover it stays
/// `insufficientFunds`.
@Suite struct WealthUnknownAccountTests {
    static let start = "2026-05-04T09:00:00Z"

    @Test func aPaymentFromNoSuchAccountIsNotFoundAndAppendsNothing() throws {
        try withTemporaryStore { root in
            let clock = ManualClock(Self.start)
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            defer { try? ledger.close() }
            try ledger.deposit(account: "alice", amount: usd("10.00"))
            let head = ledger.head

            let purchase = #expect(throws: LedgerError.self) { try ledger.purchase(account: "bob", amount: usd("1.00"), merchant: "Kiosk") }
            #expect(purchase?.code == .notFound)
            #expect(purchase?.code.name == "not_found")
            #expect(purchase?.message.contains("'bob'") == true, "\(purchase?.message ?? "")")
            let withdrawal = #expect(throws: LedgerError.self) { try ledger.withdraw(account: "bob", amount: usd("1.00")) }
            #expect(withdrawal?.code == .notFound)
            #expect(ledger.head == head, "nothing appended")

            // The same as a command value (for run(batch:) or the async run).
            let command = try ledger.purchaseCommand(account: "bob", amount: usd("1.00"), merchant: "Kiosk")
            #expect(throws: LedgerError.self) { try ledger.run(command) }

            // An account that exists and cannot cover it: still insufficient funds.
            let short = #expect(throws: LedgerError.self) { try ledger.purchase(account: "alice", amount: usd("100.00"), merchant: "TV") }
            #expect(short?.code == .insufficientFunds)
        }
    }
}
