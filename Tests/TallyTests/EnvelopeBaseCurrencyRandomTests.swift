import Testing
@testable import Tally
import TallyLog
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// Issue 15, wrong today 2, for envelopes, randomised: households switch their base
/// currency between USD and EUR at random, often backdated, while receipts in both
/// currencies, amendments and reversals arrive at random past dates. Every receipt the
/// ledger accepted was decided by the base currency in force at its own date as the ledger
/// knew it then (a rate for a currency other than that base, or none when the ledger knew
/// one on that day; none for the base itself), and every
/// envelope answer at random dates and known-at times equals a full replay of the log.
@Suite struct EnvelopeBaseCurrencyRandomTests {
    @Test(arguments: LogBackend.allCases) func receiptsAreDecidedByTheBaseCurrencyOfTheirDayAndTheAnswersEqualAReplay(on backend: LogBackend) throws {
        try withRandomLedgers(4, master: 0x15_02, on: backend) { ledger, clock, random, seed in
            let start = day("2026-01-02")
            try ledger.openEnvelopeAccount("Assets:Dollars", commodity: .usd, openingBalance: usd("5000.00"), effectiveAt: ledger.calendar.startOfDay(start))
            try ledger.openEnvelopeAccount("Assets:Euros", commodity: .eur, openingBalance: try Money(parsing: "5000.00", commodity: .eur),
                                           effectiveAt: ledger.calendar.startOfDay(start))
            try ledger.createEnvelope("food", name: "Food", interval: .monthly, budgeted: usd("300.00"), startDate: start)
            var recorded: [Instant] = []
            for number in 0..<50 {
                clock.advance(seconds: Int64.random(in: 3_600...(3 * 86_400), using: &random))
                let today = ledger.calendar.date(of: clock.now)
                let date = max(start, today.adding(days: -Int.random(in: 0...40, using: &random)))
                let at = ledger.calendar.startOfDay(date)
                do {
                    switch Int.random(in: 0..<8, using: &random) {
                    case 0:
                        try ledger.setBaseCurrency(Bool.random(using: &random) ? .usd : .eur, effectiveAt: at)
                    case 1 where number > 0:
                        try ledger.amendEnvelopeTransaction("r\(Int.random(in: 0..<number, using: &random))", effectiveAt: at)
                    case 2 where number > 0:
                        try ledger.reverseEnvelopeTransaction("r\(Int.random(in: 0..<number, using: &random))")
                    default:
                        let euros = Bool.random(using: &random)
                        let amount = euros ? Money(minorUnits: -Int64.random(in: 1...9_999, using: &random), commodity: .eur)
                                           : Money(minorUnits: -Int64.random(in: 1...9_999, using: &random), commodity: .usd)
                        // Half give a rate, half none: the ledger refuses the wrong half (none where it knows no rate).
                        let rate = Bool.random(using: &random) ? try ExactDecimal(significand: Int64.random(in: 8_000...12_000, using: &random), scale: 4) : nil
                        try ledger.recordEnvelopeTransaction("r\(number)", account: euros ? "Assets:Euros" : "Assets:Dollars", amount: amount,
                                                             rateToBase: rate, envelope: "food", effectiveAt: at)
                    }
                    recorded.append(clock.now)
                } catch is LedgerError {
                    continue
                }
            }
            // Every receipt recorded was decided by the base currency of its day, as known when it was recorded.
            for event in try ledger.loggedEvents() {
                guard let receipt = event.body.as(TransactionRecorded.self) else { continue }
                let base = try ledger.settings(asOf: event.effectiveAt, knownAt: event.recordedAt).baseCurrency
                // In another currency with no rate of its own, the ledger knew one on its day (issue 32, rule 2).
                let convertible = try receipt.rateToBase != nil || ledger.read { db in
                    try RateBook(quotes: EnvelopeBook.quotes(db, through: event.effectiveAt, knownAt: event.recordedAt, after: nil))
                        .convert(Money(minorUnits: 1, commodity: receipt.amount.commodity), to: base, at: event.effectiveAt) != nil
                }
                #expect(receipt.amount.commodity == base ? receipt.rateToBase == nil : convertible,
                        "seed \(seed): \(receipt.transactionId) on \(ledger.calendar.date(of: event.effectiveAt)) in \(receipt.amount.commodity.code), base \(base.code), rate \(String(describing: receipt.rateToBase))")
            }
            for knownAt in TestSeed.knownAts(4, recorded: recorded, random: &random) {
                for _ in 0..<4 {
                    let date = start.adding(days: Int.random(in: -2...150, using: &random))
                    try ledger.expectAnswersMatchReplay(on: date, knownAt: knownAt, context: "seed \(seed), known at \(String(describing: knownAt))")
                }
            }
            try ledger.expectConsistent()
            try ledger.close()
        }
    }
}
