import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// Answers that convert currencies list what they could not convert (issue 15, item 3):
/// what-if and the envelope total, as net worth does with its excluded items.
@Suite struct WhatIfCoverageTests {
    private func household(_ body: (Ledger) throws -> Void) throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-08-01T12:00:00Z"))
            try body(ledger)
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    private func eur(_ text: String) -> Money { try! Money(parsing: text, commodity: .eur) }

    @Test func aHouseholdWithAEURAccountAndNoEURRateIsToldWhatIfLeftTheEURAccountOut() throws {
        try household { ledger in
            let opened = ledger.calendar.startOfDay(day("2026-01-01"))
            try ledger.openEnvelopeAccount("Assets:Bank", commodity: .usd, openingBalance: usd("1000.00"), effectiveAt: opened)
            try ledger.openEnvelopeAccount("Assets:Euro", commodity: .eur, openingBalance: eur("300.00"), effectiveAt: opened)
            let head = ledger.head
            let projection = try ledger.whatIf(goal: usd("2000.00"), monthlySaving: usd("100.00"), on: day("2026-07-15"))
            #expect(projection.plan.startBalance == usd("1000.00"))   // the EUR account has no rate: left out …
            #expect(!projection.isComplete)                            // … and said so
            #expect(projection.notConverted == [.init(account: "Assets:Euro", balance: eur("300.00"), date: day("2026-07-15"))])
            #expect(ledger.head == head, "what-if records nothing")
        }
    }

    @Test func aloneTheEURAccountProjectsFromZeroAndIsListedOnEveryDayItWasRead() throws {
        try household { ledger in
            try ledger.openEnvelopeAccount("Assets:Euro", commodity: .eur, openingBalance: eur("300.00"), effectiveAt: ledger.calendar.startOfDay(day("2026-01-01")))
            let projection = try ledger.whatIf(goal: usd("500.00"), account: "Assets:Euro", on: day("2026-07-15"))
            #expect(projection.plan.startBalance == usd("0.00"))
            #expect(projection.plan.monthlySaving == usd("0.00"))
            // The start date, and the ends of March and June the monthly saving was averaged from.
            #expect(projection.notConverted.map(\.date) == [day("2026-07-15"), day("2026-03-31"), day("2026-06-30")])
            #expect(projection.notConverted.allSatisfy { $0.account == "Assets:Euro" && $0.balance == eur("300.00") })
        }
    }

    @Test func onceARateIsKnownTheEURAccountCountsAndNothingIsListed() throws {
        try household { ledger in
            let opened = ledger.calendar.startOfDay(day("2026-01-01"))
            try ledger.openEnvelopeAccount("Assets:Bank", commodity: .usd, openingBalance: usd("1000.00"), effectiveAt: opened)
            try ledger.openEnvelopeAccount("Assets:Euro", commodity: .eur, openingBalance: eur("300.00"), effectiveAt: opened)
            try ledger.setFXRate(base: .eur, quote: .usd, rate: rate("1.10"), effectiveAt: opened)
            let projection = try ledger.whatIf(goal: usd("2000.00"), monthlySaving: usd("100.00"), on: day("2026-07-15"))
            #expect(projection.plan.startBalance == usd("1330.00"))
            #expect(projection.isComplete && projection.notConverted.isEmpty)
            // Asked about the USD account alone, the EUR account is not part of the answer.
            #expect(try ledger.whatIf(goal: usd("2000.00"), account: "Assets:Bank", monthlySaving: usd("1.00"), on: day("2026-07-15")).isComplete)
        }
    }

    @Test func theEnvelopeTotalListsTheEURAccountAsNotConvertedAndIsIncomplete() throws {
        try household { ledger in
            let opened = ledger.calendar.startOfDay(day("2026-01-01"))
            try ledger.openEnvelopeAccount("Assets:Bank", commodity: .usd, openingBalance: usd("1000.00"), effectiveAt: opened)
            try ledger.openEnvelopeAccount("Assets:Euro", commodity: .eur, openingBalance: eur("300.00"), effectiveAt: opened)
            let total = try ledger.envelopeAccountsTotal(asOf: ledger.calendar.endOfDay(day("2026-07-15")))
            #expect(total.total == usd("1000.00"))
            #expect(!total.isComplete)
            #expect(total.unconverted.map(\.account) == ["Assets:Euro"])
        }
    }
}
