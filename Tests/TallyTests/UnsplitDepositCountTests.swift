import Testing
import TallyLog
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// The wealth summary's count of deposits waiting to be split, at a point in time and as the
/// ledger knew it then, is read from the deposits waiting now and the history rows outside
/// the question (the "tail"). Seeded random households of two accounts pause, deposit (some
/// backdated, some dated ahead), resume (which splits what waited), reverse deposits and move
/// the clock; at random (as of, known at) pairs the count from the tail must equal the count
/// over every deposit, with the tail read whole and with it cut short to force the scan.
@Suite struct UnsplitDepositCountTests {
    @Test func theCountFromTheTailEqualsTheCountOverEveryDeposit() throws {
        try withRandomLedgers(3, master: 0x5EED_36A1, clockAt: "2026-03-01T12:00:00Z") { ledger, clock, random, seed in
            let accounts = ["main", "joint"]
            var deposits: [String: [UInt64]] = [:]
            var instants: [Instant] = []
            var recorded: [Instant] = []
            for step in 0..<160 {
                let account = accounts.randomElement(using: &random)!
                let hours = Int64.random(in: -240...48, using: &random)
                let effective = Instant(microsecondsSinceEpoch: clock.now.microsecondsSinceEpoch + hours * 3_600_000_000)
                switch Int.random(in: 0..<10, using: &random) {
                case 0: _ = try? ledger.pauseAutomation(account: account)
                case 1: _ = try? ledger.resumeAutomation(account: account)
                case 2:
                    if let entry = deposits[account]?.randomElement(using: &random) {
                        _ = try? ledger.reverseWealthEntry(account: account, entry: entry)
                    }
                default:
                    let amount = Money(minorUnits: Int64.random(in: 100...50_000, using: &random), commodity: .usd)
                    let result = try ledger.deposit(account: account, amount: amount, effectiveAt: hours < 0 || step % 7 == 0 ? effective : nil)
                    deposits[account, default: []].append(result.events[0].sequence)
                    instants.append(effective)
                }
                recorded.append(clock.now)
                clock.advance(seconds: Int64.random(in: 1...20_000, using: &random))
            }
            instants += recorded
            for knownAt in TestSeed.knownAts(40, recorded: recorded, random: &random) {
                let asOf = instants.randomElement(using: &random)!.microsecondsSinceEpoch + [-1, 0, 1].randomElement(using: &random)!
                let question = (asOf: Instant(microsecondsSinceEpoch: asOf), knownAt: knownAt ?? .latest)
                for account in accounts {
                    try ledger.read { db in
                        let scanned = try WealthQueries.scannedUnsplitDepositCount(account, asOf: question.asOf, knownAt: question.knownAt, db)
                        for limit in [WealthQueries.unsplitTailLimit, 0, 5] {
                            let counted = try WealthQueries.unsplitDepositCount(
                                account, asOf: question.asOf, knownAt: question.knownAt, tailLimit: limit, db)
                            #expect(counted == scanned, "seed \(seed): \(account) as of \(question.asOf) known at \(question.knownAt), tail limit \(limit)")
                        }
                    }
                }
            }
            try ledger.close()
        }
    }
}
