import Testing
@testable import Tally
import TallyLog
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// Issue 32, rule 3 (nothing happens before it exists), randomised: households open
/// accounts, start envelopes and add assets at random past days, and record transactions,
/// fundings and valuations at random days around those, often before. Each record dated
/// before the day its account opened, its envelope started or its asset was added is
/// refused naming both days; every other is taken; and every answer (envelope status,
/// spending, audit, total, net worth) at random (as-of, known-at) pairs equals a full replay.
@Suite struct NothingBeforeItExistsRandomTests {
    @Test(arguments: LogBackend.allCases) func recordsBeforeTheirAccountEnvelopeOrAssetAreRefusedAndTheRestAnswerAlike(on backend: LogBackend) throws {
        try withRandomLedgers(3, master: 0x32_03, on: backend) { ledger, clock, random, seed in
            let calendar = ledger.calendar
            let first = day("2026-01-01")
            var accounts: [(name: String, opened: LocalDate)] = []
            var envelopes: [(id: String, start: LocalDate)] = []
            var assets: [(id: String, added: LocalDate)] = []
            var recorded: [Instant] = []
            var refusals = 0
            for number in 0..<60 {
                clock.advance(seconds: Int64.random(in: 3_600...(3 * 86_400), using: &random))
                let today = calendar.date(of: clock.now)
                let date = max(first, today.adding(days: -Int.random(in: 0...30, using: &random)))
                let at = calendar.startOfDay(date)
                /// The days the record comes before, if any: it must be refused naming itself and one of them.
                var before: [LocalDate] = []
                do {
                    switch Int.random(in: 0..<8, using: &random) {
                    case 0 where accounts.count < 4:
                        try ledger.openEnvelopeAccount("Assets:A\(number)", commodity: .usd, openingBalance: usd("500.00"), effectiveAt: at)
                        accounts.append(("Assets:A\(number)", date))
                    case 1 where envelopes.count < 3:
                        try ledger.createEnvelope("e\(number)", name: "E\(number)", interval: .monthly, budgeted: usd("200.00"), startDate: date)
                        envelopes.append(("e\(number)", date))
                    case 2 where assets.count < 3:
                        try ledger.addAsset(assetId: "a\(number)", name: "A\(number)", category: .cash, type: .cash, currency: .usd, effectiveAt: at)
                        assets.append(("a\(number)", date))
                    case 3:
                        guard let asset = assets.randomElement(using: &random) else { continue }
                        before = date < asset.added ? [asset.added] : []
                        try ledger.recordValuation(itemKind: .asset, itemId: asset.id, value: Money(minorUnits: Int64.random(in: 100...900_000, using: &random), commodity: .usd),
                                                   source: .manual, effectiveAt: at)
                    case 4:
                        guard let envelope = envelopes.randomElement(using: &random) else { continue }
                        before = date < envelope.start ? [envelope.start] : []
                        try ledger.fundEnvelope(envelope.id, amount: usd("15.00"), effectiveAt: at)
                    default:
                        guard let account = accounts.randomElement(using: &random) else { continue }
                        let envelope = envelopes.randomElement(using: &random)
                        before = [date < account.opened ? account.opened : nil, envelope.flatMap { date < $0.start ? $0.start : nil }].compactMap { $0 }
                        try ledger.recordEnvelopeTransaction("t\(number)", account: account.name, amount: Money(minorUnits: -Int64.random(in: 1...5_000, using: &random), commodity: .usd),
                                                             envelope: envelope?.id, effectiveAt: at)
                    }
                    #expect(before.isEmpty, "seed \(seed): a record dated \(date) before \(before) was taken")
                    recorded.append(clock.now)
                } catch let error as LedgerError {
                    if !before.isEmpty {
                        refusals += 1
                        #expect(before.contains { error.message.contains("\($0)") } && error.message.contains("\(date)") && error.message.contains("comes before it"),
                                "seed \(seed): \(error.message)")
                    } else {
                        #expect(!error.message.contains("comes before it"), "seed \(seed): refused on \(date): \(error.message)")
                    }
                }
            }
            #expect(refusals > 0, "seed \(seed): the household tried records before their days")
            let today = calendar.date(of: clock.now)
            for knownAt in TestSeed.knownAts(3, recorded: recorded, random: &random) {
                let days = (0..<4).map { _ in first.adding(days: Int.random(in: 0...(today.daysSinceEpoch - first.daysSinceEpoch + 3), using: &random)) }
                let replays = try Replay.run(at: ledger.layout.root, untilEach: days.map { calendar.endOfDay($0) }, knownAt: knownAt)
                for (position, date) in days.enumerated() {
                    let context = "seed \(seed), \(date), known at \(String(describing: knownAt))"
                    try ledger.expectAnswersMatchReplay(on: date, knownAt: knownAt, context: context)
                    #expect(try ledger.netWorth(asOf: calendar.endOfDay(date), knownAt: knownAt) == replays[position].netWorth, "net worth, \(context)")
                }
            }
            try ledger.expectConsistent()
            try ledger.close()
        }
    }
}
