import Foundation
import Testing
@testable import Tally
import TallyTestSupport
import TallyLog
@testable import TallyEngine
@testable import TallyProducts

/// The budget product "as of D, as known at K": budgets, the overview, the transaction
/// list and pots from indexed versions against a full replay of the log to (D, K), over
/// random budget ledgers with backdated amendments, deletions, re-categorisations, pots
/// reused after deletion and recurring items; plus the stories the issue names. Seeded:
/// `TALLY_TEST_SEED` replays a failure.
@Suite struct BudgetTimeTravelTests {
    static let ledgers = 4
    static let knownAtsPerLedger = 10
    static let asOfsPerKnownAt = 8

    @Test(arguments: LogBackend.allCases) func budgetAnswersEqualAFullReplayForOverThreeHundredRandomPoints(on backend: LogBackend) throws {
        let seed = TestSeed.value(default: 0xB0D6_E7_2026)
        var compared = 0
        for index in 0..<Self.ledgers {
            compared += try compare(ledgerSeed: TestSeed.ledger(index, of: seed), masterSeed: seed, on: backend)
        }
        #expect(compared == Self.ledgers * Self.knownAtsPerLedger * Self.asOfsPerKnownAt)
        #expect(compared >= 300)
    }

    /// Builds one random budget ledger and compares every triple on it; returns how many.
    private func compare(ledgerSeed: UInt64, masterSeed: UInt64, on backend: LogBackend) throws -> Int {
        var random = SplitMix64(seed: ledgerSeed)
        return try withTemporaryStore(on: backend) { store in
            let clock = ManualClock("2026-01-05T15:00:00Z")
            let ledger = try Ledger.forTesting(at: store, clock: clock)
            defer { try? ledger.close() }
            let story = try BudgetStory.play(on: ledger, clock: clock, steps: 140, random: &random)
            let context = "seed \(masterSeed) (TALLY_TEST_SEED=\(masterSeed)), ledger seed \(ledgerSeed)"
            #expect(story.counts["amend", default: 0] > 0 && story.counts["delete", default: 0] > 0
                    && story.counts["recategorise", default: 0] > 0, "\(context): the story changes transactions \(story.counts)")
            let knownAts = TestSeed.knownAts(Self.knownAtsPerLedger, recorded: story.recorded, random: &random)
            var compared = 0
            for knownAt in knownAts {
                let asOfs: [Instant] = (0..<Self.asOfsPerKnownAt).map { position in
                    let calendar = ledger.calendar
                    switch position {
                    case 0: return clock.now
                    case 1: return calendar.endOfDay(calendar.date(of: story.effective.randomElement(using: &random)!))
                    case 2: return calendar.endOfDay(calendar.month(of: story.effective.randomElement(using: &random)!).lastDay)
                    default:
                        let instant = story.effective.randomElement(using: &random)!.microsecondsSinceEpoch
                        return Instant(microsecondsSinceEpoch: instant + [-1, 0, 1, 3_600_000_000].randomElement(using: &random)!)
                    }
                }
                let replays = try Replay.run(at: ledger.layout.root, untilEach: asOfs, knownAt: knownAt)
                for replayed in replays {
                    let asOf = replayed.point.asOf
                    let where_ = "\(context): as of \(asOf) known at \(knownAt.map { "\($0)" } ?? "now")"
                    #expect(try ledger.budgets(month: replayed.month, knownAt: knownAt) == replayed.budgets, "budgets, \(where_)")
                    #expect(try ledger.budgetOverview(month: replayed.month, asOf: asOf, knownAt: knownAt) == replayed.budgetOverview,
                            "overview, \(where_)")
                    var query = TransactionQuery()
                    query.pageSize = BudgetSettings.pageSizeLimit
                    let listed = try ledger.transactions(query, asOf: asOf, knownAt: knownAt)
                    #expect(listed.totalCount == replayed.budgetTransactions.count, "transaction count, \(where_)")
                    #expect(listed.transactions == replayed.budgetTransactions, "transactions, \(where_)")
                    for transaction in replayed.budgetTransactions.prefix(3) {
                        #expect(try ledger.transaction(id: transaction.id, asOf: asOf, knownAt: knownAt) == transaction,
                                "transaction \(transaction.id), \(where_)")
                    }
                    #expect(try ledger.pots(asOf: asOf, knownAt: knownAt) == replayed.pots, "pots, \(where_)")
                    compared += 1
                }
            }
            try ledger.expectConsistent()
            return compared
        }
    }

    @Test func aBackdatedAmendmentChangesThePastOnlyFromWhenItIsRecorded() throws {
        try withBudgetLedger(at: "2026-03-20T15:00:00Z") { ledger, clock in
            try ledger.setBudget(category: .groceries, month: month("2026-03"), maximum: usd("300.00"))
            let id = try #require(try ledger.recordTransaction(
                payee: "Market", category: .groceries, amount: usd("-120.00"), date: day("2026-03-18")).transactionId)
            clock.set("2026-04-05T14:00:00Z")
            try ledger.amendTransaction(id: id, amount: usd("-180.00"))
            let march = month("2026-03")
            let fourthOfApril = try Instant(parsing: "2026-04-04T12:00:00Z")
            let sixthOfApril = try Instant(parsing: "2026-04-06T12:00:00Z")

            let before = try #require(try ledger.budgets(month: march, knownAt: fourthOfApril).first)
            let after = try #require(try ledger.budgets(month: march, knownAt: sixthOfApril).first)
            #expect(before.spent == usd("120.00") && before.remaining == usd("180.00"))
            #expect(after.spent == usd("180.00") && after.remaining == usd("120.00"))
            #expect(try ledger.budgets(month: march) == [after])
            #expect(try ledger.transaction(id: id, knownAt: fourthOfApril)?.amount == usd("-120.00"))
            #expect(try ledger.transaction(id: id, knownAt: fourthOfApril)?.isChanged == false)
            #expect(try ledger.transaction(id: id, knownAt: sixthOfApril)?.amount == usd("-180.00"))
            #expect(try ledger.budgetOverview(month: march, knownAt: fourthOfApril).expenses == usd("120.00"))
            #expect(try ledger.budgetOverview(month: march, knownAt: sixthOfApril).expenses == usd("180.00"))
            #expect(try ledger.transactionHistory(id: id, knownAt: fourthOfApril).map(\.kind) == [.recorded])
            #expect(try ledger.transactionHistory(id: id).map(\.kind) == [.recorded, .amended])
            try ledger.expectConsistent()
        }
    }

    @Test func aDeletedTransactionAndADeletedPotStillShowAsKnownBefore() throws {
        try withBudgetLedger(at: "2026-05-02T15:00:00Z") { ledger, clock in
            try ledger.setReferenceBalance(amount: usd("500.00"))
            let id = try #require(try ledger.recordTransaction(
                payee: "Cafe", category: .diningOut, amount: usd("-20.00"), date: day("2026-05-01")).transactionId)
            try ledger.createPot(id: "car", target: usd("1000.00"))
            try ledger.addToPot(id: "car", amount: usd("100.00"))
            let beforeDeletion = clock.now
            clock.set("2026-05-09T15:00:00Z")
            try ledger.deleteTransaction(id: id)
            try ledger.deletePot(id: "car")
            clock.set("2026-05-12T15:00:00Z")
            try ledger.createPot(id: "car", name: "New car", target: usd("2000.00"))

            #expect(try ledger.transactions(knownAt: beforeDeletion).transactions.map(\.id) == [id])
            #expect(try ledger.transactions().totalCount == 0)
            #expect(try ledger.pots(knownAt: beforeDeletion).map(\.total) == [usd("100.00")])
            let eighth = ledger.calendar.endOfDay(day("2026-05-08"))
            #expect(try ledger.pot(id: "car", asOf: eighth)?.target == usd("1000.00"))
            #expect(try ledger.pot(id: "car", asOf: ledger.calendar.endOfDay(day("2026-05-10"))) == nil)
            #expect(try ledger.pot(id: "car")?.name == "New car")
            #expect(try ledger.budgetOverview(month: month("2026-05"), asOf: eighth, knownAt: beforeDeletion).heldInPots == usd("100.00"))
            #expect(try ledger.budgetOverview(month: month("2026-05")).heldInPots == usd("0.00"))
            try ledger.expectConsistent()
        }
    }

    @Test func recurringStatusJudgesFromWhatWasKnown() throws {
        try withBudgetLedger(at: "2026-05-01T15:00:00Z") { ledger, clock in
            try ledger.defineRecurring(id: "rent", payee: "Landlord", category: .bills, amount: usd("-900.00"),
                                       dayOfMonth: 3, startMonth: month("2026-05"))
            let defined = clock.now
            clock.set("2026-05-04T15:00:00Z")
            try ledger.generateRecurring(month: month("2026-05"))
            let generated = clock.now
            clock.set("2026-05-06T15:00:00Z")
            try ledger.removeRecurring(id: "rent")

            let today = day("2026-05-05")
            // Due on the 3rd and, as then known, unpaid on the 5th: overdue.
            #expect(try ledger.recurringStatus(month: month("2026-05"), today: today, knownAt: defined).items.map(\.state) == [.overdue])
            #expect(try ledger.recurringStatus(month: month("2026-05"), today: today, knownAt: generated).items.map(\.state) == [.paid])
            #expect(try ledger.recurringStatus(month: month("2026-05"), today: today).items.isEmpty)
            #expect(try ledger.recurringItems(knownAt: generated).map(\.id) == ["rent"])
            #expect(try ledger.recurringItems(asOf: ledger.calendar.endOfDay(day("2026-05-05"))).map(\.id) == ["rent"])
            #expect(try ledger.recurringItems().isEmpty)
            try ledger.expectConsistent()
        }
    }

    @Test func anOverviewAsOfADayBeforeItsMonthIsRefused() throws {
        _ = try withBudgetLedger { ledger, _ in
            #expect {
                _ = try ledger.budgetOverview(month: month("2026-05"), asOf: ledger.calendar.endOfDay(day("2026-04-30")))
            } throws: { error in
                (error as? LedgerError)?.code == .invalidArgument && "\(error)".contains("before the month starts")
            }
        }
    }
}

/// A random budget household: transactions (some backdated), backdated amendments,
/// deletions, re-categorisations, bank imports (some repeated), budgets set and deleted
/// across months, pots created, funded, emptied, deleted and created again under the same
/// id, recurring items defined, generated and removed, reference resets. Commands the
/// ledger refuses are skipped, as a user would be told no.
enum BudgetStory {
    struct Played {
        /// The recorded instant of every command that appended.
        var recorded: [Instant] = []
        /// The effective instants the story used.
        var effective: [Instant] = []
        /// How many commands of each kind appended.
        var counts: [String: Int] = [:]
    }

    static func play(on ledger: Ledger, clock: ManualClock, steps: Int, random: inout SplitMix64) throws -> Played {
        var played = Played()
        var transactions: [String] = []
        let categories: [BudgetCategory] = [.groceries, .bills, .diningOut, .general]
        let pots = ["pot0", "pot1", "pot2"]
        try ledger.connectBank(id: "bank")
        func money(_ range: ClosedRange<Int64>) -> Money { Money(minorUnits: Int64.random(in: range, using: &random), commodity: .usd) }
        for step in 0..<steps {
            clock.advance(seconds: Int64.random(in: 600...(3 * 86_400), using: &random))
            let days = Int.random(in: 0..<3, using: &random) == 0 ? 90 : 3
            let effective = Instant(microsecondsSinceEpoch: clock.now.microsecondsSinceEpoch
                                    - Int64.random(in: 0...(Int64(days) * 86_400), using: &random) * 1_000_000)
            let date = ledger.calendar.date(of: effective)
            let thisMonth = ledger.calendar.month(of: clock.now)
            var result: Ledger.CommandResult?
            let kind: String
            do {
                switch Int.random(in: 0..<14, using: &random) {
                case 0, 1, 2:
                    kind = "record"
                    let amount = Int.random(in: 0..<4, using: &random) == 0 ? money(1_000...50_000) : money(-20_000 ... -100)
                    result = try ledger.recordTransaction(payee: "Payee \(step % 7)", category: categories.randomElement(using: &random)!,
                                                          amount: amount, date: date)
                    if let id = result?.transactionId { transactions.append(id) }
                case 3, 4:
                    kind = "amend"
                    guard let id = transactions.randomElement(using: &random) else { continue }
                    result = try ledger.amendTransaction(
                        id: id, category: Bool.random(using: &random) ? categories.randomElement(using: &random)! : nil,
                        amount: money(-20_000 ... -100), date: Bool.random(using: &random) ? date : nil)
                case 5:
                    kind = "delete"
                    guard let id = transactions.randomElement(using: &random) else { continue }
                    result = try ledger.deleteTransaction(id: id)
                case 6:
                    kind = "recategorise"
                    guard let id = transactions.randomElement(using: &random) else { continue }
                    result = try ledger.recategorise(id: id, category: categories.randomElement(using: &random)!)
                case 7:
                    kind = "import"
                    result = try ledger.importBankTransaction(
                        bankId: "bank", externalId: "T\(Int.random(in: 0..<25, using: &random))", payee: "Bank payee",
                        category: categories.randomElement(using: &random)!, amount: money(-9_000 ... -100), date: date)
                    if let id = result?.transactionId, result?.wasAlreadyApplied == false { transactions.append(id) }
                case 8:
                    kind = "budget"
                    let month = Month(ordinal: thisMonth.ordinal - Int.random(in: -1...3, using: &random))
                    let category = categories.randomElement(using: &random)!
                    result = Int.random(in: 0..<4, using: &random) == 0
                        ? try ledger.deleteBudget(category: category, month: month)
                        : try ledger.setBudget(category: category, month: month, maximum: money(5_000...60_000))
                case 9:
                    kind = "pot"
                    let id = pots.randomElement(using: &random)!
                    result = try ledger.pot(id: id) == nil
                        ? try ledger.createPot(id: id, name: "Pot \(step)", target: money(10_000...100_000))
                        : try ledger.deletePot(id: id)
                case 10:
                    kind = "pot move"
                    let id = pots.randomElement(using: &random)!
                    result = Bool.random(using: &random)
                        ? try ledger.addToPot(id: id, amount: money(100...20_000))
                        : try ledger.withdrawFromPot(id: id, amount: money(100...10_000))
                case 11:
                    kind = "reference"
                    result = try ledger.setReferenceBalance(amount: money(0...300_000))
                case 12:
                    kind = "recurring"
                    let id = "r\(Int.random(in: 0..<3, using: &random))"
                    result = try ledger.recurringItems().contains { $0.id == id }
                        ? try ledger.removeRecurring(id: id)
                        : try ledger.defineRecurring(id: id, payee: "Recurring \(id)", category: categories.randomElement(using: &random)!,
                                                     amount: money(-50_000 ... -1_000), dayOfMonth: Int.random(in: 1...31, using: &random),
                                                     startMonth: Month(ordinal: thisMonth.ordinal - 2))
                default:
                    kind = "generate"
                    result = try ledger.generateRecurring(month: Month(ordinal: thisMonth.ordinal + Int.random(in: -1...0, using: &random)))
                    transactions += result?.events.compactMap { event in
                        if let occurrence = event.body.as(RecurringOccurrenceGenerated.self) { return occurrence.transactionId }
                        return nil
                    } ?? []
                }
            } catch is LedgerError {
                continue
            }
            if let result, !result.events.isEmpty, !result.wasAlreadyApplied {
                played.recorded.append(result.events[0].recordedAt)
                played.effective.append(contentsOf: result.events.map(\.effectiveAt))
                played.effective.append(effective)
                played.counts[kind, default: 0] += 1
            }
        }
        return played
    }
}
