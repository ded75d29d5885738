import Foundation
import Testing
@testable import Tally
import TallyTestSupport
import TallyLog
@testable import TallyEngine
@testable import TallyProducts

/// The roll-up cells answer exactly what the scan over every posting answers, for every
/// (as of, known at) — including the edges of days, blocks and recorded blocks.
struct RollupTests {
    /// A ledger of journal entries recorded over two years, many backdated by up to a year
    /// (a few before 1970, where bucket division rounds down), compared with the scan at
    /// every kind of boundary.
    @Test func rollupsAnswerExactlyWhatTheScanOfEveryPostingAnswers() throws {
        let seed = TestSeed.value(default: 0x5EED_0001)
        var random = SplitMix64(seed: seed)
        try withTemporaryStore { root in
            let clock = ManualClock("2024-01-01T00:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock, timeZone: "Europe/London")
            defer { try? ledger.close() }
            let accounts = ["Assets:Bank", "Assets:Cash", "Expenses:Food", "Income:Salary", "Liabilities:Card"]
            var instants: [Int64] = []
            for _ in 0..<400 {
                clock.advance(seconds: Int64.random(in: 0...(3 * 86_400), using: &random))
                let now = clock.now.microsecondsSinceEpoch
                let backdate: Int64 = switch Int.random(in: 0..<10, using: &random) {
                case 0: Int64.random(in: 0...(400 * 86_400), using: &random) * 1_000_000
                case 1: now + 1_000_000 * 86_400 * 365 * 55   // before the epoch
                default: Int64.random(in: 0...86_400, using: &random) * 1_000_000
                }
                let effective = now - backdate
                let batch = (0..<Int.random(in: 1...3, using: &random)).map { _ in
                    let source = accounts.randomElement(using: &random)!
                    let target = accounts.filter { $0 != source }.randomElement(using: &random)!
                    let amount = Money(minorUnits: Int64.random(in: -50_000...50_000, using: &random), commodity: Bool.random(using: &random) ? .usd : .gbp)
                    return NewEvent(effectiveAt: Instant(microsecondsSinceEpoch: effective),
                                    body: EventBody(JournalEntryPosted(account: target, counterAccount: source, amount: amount)))
                }
                try ledger.appendEvents(batch)
                instants += [now, effective]
            }
            var points: [Int64] = []
            for instant in instants {
                let day = RollupBuckets.day(instant) * RollupBuckets.dayMicroseconds
                let block = RollupBuckets.start(ofBlock: RollupBuckets.block(instant))
                points += [instant, instant - 1, instant + 1, day, day - 1, block, block - 1]
            }
            var compared = 0
            try ledger.read { db in
                for _ in 0..<600 {
                    let asOf = Bool.random(using: &random) ? points.randomElement(using: &random).map(Instant.init(microsecondsSinceEpoch:)) : nil
                    let knownAt = Bool.random(using: &random) ? points.randomElement(using: &random).map(Instant.init(microsecondsSinceEpoch:)) : nil
                    let indexed = try BalanceQueries.balances(db, asOf: asOf, knownAt: knownAt)
                    let scanned = try BalanceQueries.scannedBalances(db, asOf: asOf, knownAt: knownAt)
                    #expect(indexed == scanned, "seed \(seed) (TALLY_TEST_SEED=\(seed)): as of \(String(describing: asOf)) known at \(String(describing: knownAt))")
                    // Some accounts only: what a product's summary asks for.
                    let some = Set(accounts.filter { _ in Bool.random(using: &random) })
                    let sums = try BalanceRollups.sums(
                        db, asOf: asOf?.microsecondsSinceEpoch ?? Instant.latest.microsecondsSinceEpoch,
                        knownAt: knownAt?.microsecondsSinceEpoch, of: { some.contains($0) })
                    let selected = Dictionary(uniqueKeysWithValues: sums.filter { $0.value != 0 }.map { ("\($0.key.account) \($0.key.commodity)", $0.value) })
                    let expected = Dictionary(uniqueKeysWithValues: scanned.filter { some.contains($0.account) }.map { ("\($0.account) \($0.amount.commodity.code)", $0.amount.minorUnits) })
                    #expect(selected == expected, "seed \(seed): accounts \(some.sorted()) as of \(String(describing: asOf)) known at \(String(describing: knownAt))")
                    compared += 1
                }
            }
            #expect(compared == 600)
            try ledger.expectConsistent()
        }
    }

    /// A bulk load recorded in one instant: every question about it reads the postings of
    /// one recorded block and still agrees with the scan.
    @Test func aBulkImportRecordedAtOneInstantAgreesWithTheScan() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-04-05T09:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            defer { try? ledger.close() }
            let start = try Instant(parsing: "2020-01-01T12:00:00Z").microsecondsSinceEpoch
            let entries = (0..<500).map { index in
                NewEvent(effectiveAt: Instant(microsecondsSinceEpoch: start + Int64(index) * 5 * RollupBuckets.dayMicroseconds),
                         body: EventBody(JournalEntryPosted(account: "Assets:Bank", counterAccount: "Income:Salary", amount: usd("10.00"))))
            }
            try ledger.appendEvents(entries)
            let before = try Instant(parsing: "2026-04-05T08:59:59Z")
            let march2021 = ledger.calendar.endOfDay(day("2021-03-31"))
            #expect(try ledger.balances(asOf: march2021, knownAt: before).isEmpty)
            let known = try ledger.balances(asOf: march2021, knownAt: clock.now)
            let scanned = try ledger.read { db in try BalanceQueries.scannedBalances(db, asOf: march2021, knownAt: clock.now) }
            #expect(known == scanned)
            #expect(known.first { $0.account == "Assets:Bank" }?.amount == usd("920.00"))
            try ledger.expectConsistent()
        }
    }

    /// A ledger whose latest events post nothing (an asset, a rate): asked as known in the
    /// recorded block of those events, the answer is the scan's, never a trap on an empty
    /// run of postings (found by net worth, which reads balances as known at any instant).
    @Test func knownAtAmongEventsThatPostNothingAgreesWithTheScan() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-04-05T09:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            defer { try? ledger.close() }
            try ledger.addAsset(assetId: "home", name: "Home", category: .property, type: .realEstate, currency: .usd)
            clock.advance(seconds: 1)
            try ledger.setFXRate(base: .gbp, quote: .usd, rate: try ExactDecimal(parsing: "1.25"))
            for knownAt in [clock.now, Instant(microsecondsSinceEpoch: clock.now.microsecondsSinceEpoch - 1)] {
                let known = try ledger.balances(asOf: clock.now, knownAt: knownAt)
                let scanned = try ledger.read { db in try BalanceQueries.scannedBalances(db, asOf: clock.now, knownAt: knownAt) }
                #expect(known == scanned && known.isEmpty)
            }
        }
    }
}
