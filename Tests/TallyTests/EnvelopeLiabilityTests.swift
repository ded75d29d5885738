import Testing
@testable import Tally
import TallyTestSupport
import TallyLog
@testable import TallyEngine
@testable import TallyProducts

/// A liability in the envelope product (issue 15, item 8): an amount given for a liability
/// is what is owed, as in net worth, and it lowers every total.
@Suite struct EnvelopeLiabilityTests {
    private func household(_ body: (Ledger) throws -> Void) throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-07-15T12:00:00Z"))
            try ledger.openEnvelopeAccount("Assets:Bank", commodity: .usd, openingBalance: usd("2000.00"), effectiveAt: ledger.calendar.startOfDay(day("2026-05-01")))
            try body(ledger)
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    @Test func aCardOpenedOwing300LowersTheTotalBy300() throws {
        try household { ledger in
            let before = try ledger.envelopeAccountsTotal(asOf: ledger.calendar.endOfDay(day("2026-05-31"))).total
            try ledger.openEnvelopeAccount("Liabilities:Card", commodity: .usd, openingBalance: usd("300.00"), effectiveAt: ledger.calendar.startOfDay(day("2026-05-01")))
            let total = try ledger.envelopeAccountsTotal(asOf: ledger.calendar.endOfDay(day("2026-05-31")))
            #expect(before == usd("2000.00"))
            #expect(total.total == usd("1700.00"))
            let card = try #require(total.lines.first { $0.account == "Liabilities:Card" })
            #expect(card.kind == .liability)
            #expect(try card.owed == usd("300.00"))
            #expect(card.inBase == usd("-300.00"))
            #expect(try total.lines.first { $0.account == "Assets:Bank" }?.owed == nil)
            try ledger.expectAnswersMatchReplay(on: day("2026-05-31"))
        }
    }

    @Test func anExpensePaidByCardIncreasesWhatIsOwedAndCountsAsSpentFromItsEnvelope() throws {
        try household { ledger in
            try ledger.openEnvelopeAccount("Liabilities:Card", commodity: .usd, openingBalance: usd("300.00"), effectiveAt: ledger.calendar.startOfDay(day("2026-05-01")))
            try ledger.createEnvelope("dining", name: "Dining out", interval: .monthly, budgeted: usd("100.00"), startDate: day("2026-05-01"))
            try ledger.recordEnvelopeTransaction("dinner", account: "Liabilities:Card", amount: usd("-45.00"), envelope: "dining",
                                                 effectiveAt: ledger.calendar.startOfDay(day("2026-05-10")))
            // Paying 100.00 of the card from the bank: owed less, the total unchanged by it.
            try ledger.transferBetweenAccounts("pay-card", from: "Assets:Bank", to: "Liabilities:Card", amount: usd("100.00"),
                                               effectiveAt: ledger.calendar.startOfDay(day("2026-05-20")))
            let total = try ledger.envelopeAccountsTotal(asOf: ledger.calendar.endOfDay(day("2026-05-31")))
            #expect(try total.lines.first { $0.account == "Liabilities:Card" }?.owed == usd("245.00"))   // 300 + 45 − 100
            #expect(total.total == usd("1655.00"))                                                        // 1900 − 245
            let dining = try ledger.envelopeStatus("dining", asOf: ledger.calendar.endOfDay(day("2026-05-31")))
            #expect(dining.spent == usd("45.00"))
            #expect(dining.remaining == usd("55.00"))
            try ledger.expectAnswersMatchReplay(on: day("2026-05-31"))
        }
    }

    @Test func whatIfCountsWhatTheCardOwesAgainstSavings() throws {
        try household { ledger in
            try ledger.openEnvelopeAccount("Liabilities:Card", commodity: .usd, openingBalance: usd("300.00"), effectiveAt: ledger.calendar.startOfDay(day("2026-05-01")))
            let projection = try ledger.whatIf(goal: usd("5000.00"), monthlySaving: usd("100.00"), on: day("2026-07-15"))
            #expect(projection.plan.startBalance == usd("1700.00"))
        }
    }

    @Test func randomCardHistoriesOweTheOpeningPlusExpensesLessPayments() throws {
        let seed = TestSeed.value(default: 0x15_08)
        var random = SplitMix64(seed: seed)
        try household { ledger in
            let opening = Int64.random(in: 0...100_000, using: &random)
            try ledger.openEnvelopeAccount("Liabilities:Card", commodity: .usd, openingBalance: Money(minorUnits: opening, commodity: .usd),
                                           effectiveAt: ledger.calendar.startOfDay(day("2026-05-01")))
            var owed = opening
            var bank: Int64 = 200_000
            for number in 0..<40 {
                let amount = Int64.random(in: 1...20_000, using: &random)
                let date = ledger.calendar.startOfDay(day("2026-05-02").adding(days: number))
                switch Int.random(in: 0..<3, using: &random) {
                case 0:   // an expense on the card
                    try ledger.recordEnvelopeTransaction("e\(number)", account: "Liabilities:Card", amount: Money(minorUnits: -amount, commodity: .usd), effectiveAt: date)
                    owed += amount
                case 1:   // a refund to the card
                    try ledger.recordEnvelopeTransaction("r\(number)", account: "Liabilities:Card", amount: Money(minorUnits: amount, commodity: .usd), effectiveAt: date)
                    owed -= amount
                default:  // a payment from the bank
                    try ledger.transferBetweenAccounts("p\(number)", from: "Assets:Bank", to: "Liabilities:Card", amount: Money(minorUnits: amount, commodity: .usd), effectiveAt: date)
                    owed -= amount
                    bank -= amount
                }
            }
            let total = try ledger.envelopeAccountsTotal(asOf: ledger.calendar.endOfDay(day("2026-06-30")))
            // A card owing exactly nothing has no line.
            #expect(try total.lines.first { $0.account == "Liabilities:Card" }?.owed?.minorUnits ?? 0 == owed, "seed \(seed)")
            #expect(total.total.minorUnits == bank - owed, "seed \(seed)")
        }
    }
}
