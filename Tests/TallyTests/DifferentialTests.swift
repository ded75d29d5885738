import Foundation
import Testing
@testable import Tally
import TallyTestSupport
import TallyLog
@testable import TallyEngine
@testable import TallyProducts

/// Indexed point-in-time answers (balances from roll-ups, net worth from latest-value-at
/// lookups, pots, budgets, the budget overview and transaction list from versioned rows)
/// against a full replay of the log into fresh state, over random
/// ledgers and random (as of, known at) pairs. Seeded: `TALLY_TEST_SEED` replays a failure.
///
/// On files, 8 ledgers: 1,008 points. On PostgreSQL, where only the log differs (the answers
/// come from the same read models, and the log's interface has suites of its own on both
/// backends), the first 3 of them: 378 points. `TALLY_DIFF_LEDGERS=N` runs N on both.
struct DifferentialTests {
    static let knownAtsPerLedger = 14
    static let asOfsPerKnownAt = 9

    static func ledgers(on backend: LogBackend) -> Int {
        TestScale.count("TALLY_DIFF_LEDGERS", default: backend == .files ? 8 : 3)
    }

    @Test(arguments: LogBackend.allCases) func indexedAnswersEqualAFullReplayAtHundredsOfRandomPoints(on backend: LogBackend) throws {
        let seed = TestSeed.value(default: 0xD1FF_2026)
        let ledgers = Self.ledgers(on: backend)
        var compared = 0
        for index in 0..<ledgers {
            compared += try compare(ledgerSeed: TestSeed.ledger(index, of: seed), masterSeed: seed, on: backend)
        }
        #expect(compared == ledgers * Self.knownAtsPerLedger * Self.asOfsPerKnownAt)
        #expect(backend != .files || compared >= 1_000)
    }

    /// Builds one random ledger and compares every triple on it; returns how many.
    private func compare(ledgerSeed: UInt64, masterSeed: UInt64, on backend: LogBackend) throws -> Int {
        var random = SplitMix64(seed: ledgerSeed)
        return try withTemporaryStore(on: backend) { store in
            let clock = ManualClock("2025-01-06T14:00:00Z")
            let ledger = try Ledger.forTesting(at: store, clock: clock, timeZone: "Europe/London")
            defer { try? ledger.close() }
            let story = try RandomStory.play(on: ledger, clock: clock, steps: 160, random: &random)
            #expect(story.recorded.count >= 100, "ledger seed \(ledgerSeed): most commands should append")
            var amended = 0
            try ledger.read { db in
                try PostingDays.forEveryLeg(db) { _, leg in
                    if leg.eventCode == Int64(TransactionAmended.eventType.code) { amended += 1 }
                }
            }
            #expect(amended > 0, "ledger seed \(ledgerSeed): the story amends transactions")
            let knownAts = TestSeed.knownAts(Self.knownAtsPerLedger, recorded: story.recorded, random: &random)
            var compared = 0
            for knownAt in knownAts {
                let asOfs: [Instant] = (0..<Self.asOfsPerKnownAt).map { position in
                    if position == 0 { return clock.now }
                    if position == 1 { return ledger.calendar.endOfDay(ledger.calendar.date(of: story.effective.randomElement(using: &random)!)) }
                    let instant = story.effective.randomElement(using: &random)!.microsecondsSinceEpoch
                    return Instant(microsecondsSinceEpoch: instant + [-1, 0, 0, 1, 3_600_000_000].randomElement(using: &random)!)
                }
                let replays = try Replay.run(at: ledger.layout.root, untilEach: asOfs, knownAt: knownAt)
                for replayed in replays {
                    let asOf = replayed.point.asOf
                    let where_ = "seed \(masterSeed) (TALLY_TEST_SEED=\(masterSeed)), ledger seed \(ledgerSeed): as of \(asOf) known at \(knownAt.map { "\($0)" } ?? "now")"
                    let balances = try ledger.balances(asOf: asOf, knownAt: knownAt)
                    #expect(balances == replayed.balances, "balances, \(where_)")
                    let netWorth = try ledger.netWorth(asOf: asOf, knownAt: knownAt)
                    #expect(netWorth == replayed.netWorth, "net worth, \(where_)")
                    for pot in replayed.pots {
                        let indexed = balances.first { $0.account == LedgerAccounts.pot(pot.id) && $0.amount.commodity == pot.total.commodity }?.amount
                        #expect((indexed ?? Money.zero(pot.total.commodity)) == pot.total, "pot \(pot.id), \(where_)")
                    }
                    #expect(try ledger.budgets(month: replayed.month, knownAt: knownAt) == replayed.budgets, "budgets \(replayed.month), \(where_)")
                    #expect(try ledger.budgetOverview(month: replayed.month, asOf: asOf, knownAt: knownAt) == replayed.budgetOverview,
                            "budget overview \(replayed.month), \(where_)")
                    var query = TransactionQuery()
                    query.pageSize = BudgetSettings.pageSizeLimit
                    #expect(try ledger.transactions(query, asOf: asOf, knownAt: knownAt).transactions == replayed.budgetTransactions,
                            "budget transactions, \(where_)")
                    #expect(try ledger.pots(asOf: asOf, knownAt: knownAt) == replayed.pots, "pots, \(where_)")
                    if knownAt == nil && asOf == clock.now {
                        #expect(try ledger.pots() == replayed.pots, "pots now, \(where_)")
                    }
                    compared += 1
                }
            }
            try ledger.expectConsistent()
            return compared
        }
    }
}

/// A random household: journal entries (some backdated), wealth deposits and purchases,
/// budget transactions with backdated amendments, deletions and re-categorisations, bank
/// imports, reference resets, pots, budgets, assets with backdated valuations and FX rates.
/// Commands the ledger refuses are skipped, as a user would be told no.
enum RandomStory {
    struct Played {
        /// The recorded instant of every command that appended.
        var recorded: [Instant] = []
        /// The effective instants the story used.
        var effective: [Instant] = []
    }

    static func play(on ledger: Ledger, clock: ManualClock, steps: Int, random: inout SplitMix64) throws -> Played {
        var played = Played()
        var transactions: [String] = []
        var pots: [String] = []
        var assets: [String] = []
        let categories: [BudgetCategory] = [.groceries, .bills, .diningOut, .transportation, .general]
        try ledger.connectBank(id: "bank")
        func money(_ range: ClosedRange<Int64>) -> Money { Money(minorUnits: Int64.random(in: range, using: &random), commodity: .usd) }
        func backdated(days: Int64) -> Instant {
            Instant(microsecondsSinceEpoch: clock.now.microsecondsSinceEpoch - Int64.random(in: 0...(days * 86_400), using: &random) * 1_000_000)
        }
        for step in 0..<steps {
            clock.advance(seconds: Int64.random(in: 60...(4 * 86_400), using: &random))
            let effective: Instant = backdated(days: Int.random(in: 0..<4, using: &random) == 0 ? 120 : 2)
            let date = ledger.calendar.date(of: effective)
            var result: Ledger.CommandResult?
            do {
                switch Int.random(in: 0..<16, using: &random) {
                case 0, 1:
                    let accounts = ["Assets:Bank", "Expenses:Food", "Income:Salary", "Liabilities:Card"]
                    let source = accounts.randomElement(using: &random)!
                    let target = accounts.filter { $0 != source }.randomElement(using: &random)!
                    result = try ledger.appendEvents([NewEvent(effectiveAt: effective, body: EventBody(
                        JournalEntryPosted(account: target, counterAccount: source, amount: money(-20_000...20_000))))])
                case 2:
                    result = try ledger.deposit(account: "main", amount: money(1_000...50_000), effectiveAt: effective)
                case 3:
                    result = try ledger.purchase(account: "main", amount: money(100...5_000), merchant: "Shop", effectiveAt: effective)
                case 4, 5:
                    let amount = Bool.random(using: &random) ? money(-20_000 ... -100) : money(100...30_000)
                    result = try ledger.recordTransaction(payee: "Payee \(step)", category: categories.randomElement(using: &random)!, amount: amount, date: date)
                    if let id = result?.transactionId { transactions.append(id) }
                case 6:
                    guard let id = transactions.randomElement(using: &random) else { continue }
                    result = try ledger.amendTransaction(id: id, amount: money(-20_000 ... -100), date: Bool.random(using: &random) ? date : nil)
                case 7:
                    guard let id = transactions.randomElement(using: &random) else { continue }
                    result = try ledger.deleteTransaction(id: id)
                case 8:
                    guard let id = transactions.randomElement(using: &random) else { continue }
                    result = try ledger.recategorise(id: id, category: categories.randomElement(using: &random)!)
                case 9:
                    result = try ledger.importBankTransaction(bankId: "bank", externalId: "T\(Int.random(in: 0..<40, using: &random))", payee: "Bank payee",
                                                              category: categories.randomElement(using: &random)!, amount: money(-9_000 ... -100), date: date)
                    if let id = result?.transactionId { transactions.append(id) }
                case 10:
                    if pots.count < 3 || Bool.random(using: &random) {
                        let id = "pot\(step)"
                        result = try ledger.createPot(id: id, target: money(10_000...100_000))
                        pots.append(id)
                    } else if let id = pots.randomElement(using: &random) {
                        result = try ledger.deletePot(id: id)
                        pots.removeAll { $0 == id }
                    }
                case 11:
                    guard let id = pots.randomElement(using: &random) else { continue }
                    result = Bool.random(using: &random)
                        ? try ledger.addToPot(id: id, amount: money(100...10_000))
                        : try ledger.withdrawFromPot(id: id, amount: money(100...5_000))
                case 12:
                    result = try ledger.setReferenceBalance(amount: money(0...200_000))
                case 13:
                    if assets.count < 3 {
                        let id = "asset\(step)"
                        let currency: Commodity = Bool.random(using: &random) ? .usd : .gbp
                        result = try ledger.addAsset(assetId: id, name: "Asset \(step)", category: .cash, type: .cash, currency: currency, effectiveAt: effective)
                        assets.append(id)
                    } else {
                        result = try ledger.addLiability(liabilityId: "loan\(step)", name: "Loan", category: .loan, currency: .usd, effectiveAt: effective)
                    }
                case 14:
                    guard let id = assets.randomElement(using: &random) else { continue }
                    let currency = try ledger.read { db in try String.fetchOne(db, sql: "SELECT currency FROM nw_items WHERE item_id = ?", arguments: [id]) } ?? "USD"
                    let value = Money(minorUnits: Int64.random(in: 100_000...9_000_000, using: &random), commodity: try Commodity.named(currency))
                    result = try ledger.recordValuation(itemKind: .asset, itemId: id, value: value,
                                                                          source: Bool.random(using: &random) ? .manual : .live, effectiveAt: effective)
                default:
                    let rate = try ExactDecimal(parsing: "1.\(Int.random(in: 10...40, using: &random))")
                    result = try ledger.setFXRate(base: .gbp, quote: .usd, rate: rate, effectiveAt: effective)
                }
            } catch is LedgerError {
                continue
            }
            if let result, !result.events.isEmpty {
                played.recorded.append(result.events[0].recordedAt)
                played.effective.append(contentsOf: result.events.map(\.effectiveAt))
                played.effective.append(effective)
            }
            if step % 40 == 0 {
                _ = try? ledger.setBudget(category: categories.randomElement(using: &random)!, month: ledger.calendar.month(of: clock.now), maximum: money(10_000...90_000))
            }
        }
        return played
    }
}
