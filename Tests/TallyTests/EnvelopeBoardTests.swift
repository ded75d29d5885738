import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// Issue 32, "Envelope status": the envelope app's status screen: each envelope's budgeted,
/// spent and remaining, their totals in the base currency in force that day (an envelope
/// with no rate into it named, not counted as zero), and the latest activity.
@Suite struct EnvelopeBoardTests {
    @Test func theStatusScreenAddsUpTheEnvelopesAndListsTheLatestActivity() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-05-20T16:00:00Z"))
            let opened = ledger.calendar.startOfDay(day("2026-05-01"))
            try ledger.openEnvelopeAccount("Assets:Bank", commodity: .usd, openingBalance: usd("2000.00"), effectiveAt: opened)
            try ledger.createEnvelope("food", name: "Food", interval: .monthly, budgeted: usd("400.00"), startDate: day("2026-05-01"))
            try ledger.createEnvelope("fun", name: "Fun", interval: .monthly, budgeted: usd("100.00"), startDate: day("2026-05-01"))
            for (index, amount) in ["-20.00", "-35.50", "-12.25", "-80.00", "-5.00", "-60.00"].enumerated() {
                try ledger.recordEnvelopeTransaction("t\(index)", account: "Assets:Bank", amount: usd(amount), envelope: index.isMultiple(of: 2) ? "food" : "fun",
                                                     effectiveAt: ledger.calendar.startOfDay(day("2026-05-0\(index + 2)")))
            }
            let board = try ledger.envelopeBoard()
            #expect(board.statuses == (try ledger.envelopeStatuses()))
            #expect(board.currency == .usd && board.notConverted.isEmpty)
            #expect(board.budgeted == usd("500.00"))
            #expect(board.spent == usd("212.75"))  // 20.00 + 35.50 + 12.25 + 80.00 + 5.00 + 60.00
            #expect(board.remaining == usd("287.25"))
            // The latest five, newest first: t5 on the 7th back to t1 on the 3rd.
            #expect(board.recentActivity.map(\.amount) == ["-60.00", "-5.00", "-80.00", "-12.25", "-35.50"].map(usd))
        }
    }

    @Test func anEnvelopeWithoutARateIsNamedAndLeftOutOfTheTotals() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-05-20T16:00:00Z"))
            try ledger.createEnvelope("food", name: "Food", interval: .monthly, budgeted: usd("400.00"), startDate: day("2026-05-01"))
            try ledger.setBaseCurrency(.eur, effectiveAt: ledger.calendar.startOfDay(day("2026-05-10")))
            try ledger.createEnvelope("trips", name: "Trips", interval: .monthly, budgeted: try Money(parsing: "300.00", commodity: .eur), startDate: day("2026-05-10"))
            let board = try ledger.envelopeBoard()
            #expect(board.currency == .eur)
            #expect(board.notConverted == ["food"])
            #expect(board.budgeted == (try Money(parsing: "300.00", commodity: .eur)))
            try ledger.setFXRate(base: .eur, quote: .usd, rate: rate("1.25"))
            let converted = try ledger.envelopeBoard()
            #expect(converted.notConverted.isEmpty)
            #expect(converted.budgeted == (try Money(parsing: "620.00", commodity: .eur)))  // 300.00 + 400.00 USD ÷ 1.25
        }
    }
}
