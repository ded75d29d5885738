import GRDB
import Testing
import TallyLog
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// A projector that folds a run of events at once (a command's events, a rebuild's batch)
/// writes exactly the rows it writes folding them one by one, however the log is cut into
/// runs: deposits split in their own run and in a later one, split twice, reversed before and
/// after their split, and splits and reversals that name a deposit of another account or one
/// not yet recorded (a projector folds what the log says).
@Suite struct RunFoldTests {
    /// The wealth and notifications folds, which write fewer rows for a deposit split in its run.
    static let projectors: [any Projector] = [WealthProjector(), NotificationsProjector()]

    @Test(arguments: [UInt64(0x52_554E_0001), 0x52_554E_0002, 0x52_554E_0003, 0x52_554E_0004])
    func aRunFoldsIntoTheRowsOfTheOneByOneFold(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let events = try Self.wealthLog(count: 600, &random)
        for projector in Self.projectors {
            // One by one as the engine folds: each event of a type the read model reads.
            let reads = Set((projector.eventTypes ?? []).map { $0.eventType.code })
            let oneByOne = try Self.fold(events, projector) { events, db in
                for event in events where projector.eventTypes == nil || reads.contains(event.type.code) { try projector.apply(event, db) }
            }
            for cutting in 0..<4 {
                var cuts = SplitMix64(seed: seed &+ UInt64(cutting))
                let inRuns = try Self.fold(events, projector) { events, db in
                    var start = 0
                    while start < events.count {
                        // Runs of 1 to 40 events, and once in a while the rest of the log at once.
                        let length = cuts.next() % 10 == 0 ? events.count : Int(cuts.next() % 40) + 1
                        let end = min(events.count, start + length)
                        try projector.apply(events[start..<end], db)
                        start = end
                    }
                }
                for table in projector.tables where inRuns[table] != oneByOne[table] {
                    let runRows = inRuns[table] ?? [], oneRows = oneByOne[table] ?? []
                    let first = runRows.difference(from: oneRows).first.map { change -> String in
                        switch change {
                        case .insert(_, let row, _): "the runs wrote \(row)"
                        case .remove(_, let row, _): "the runs left out \(row)"
                        }
                    }
                    Issue.record("seed \(seed), cutting \(cutting): \(table) folded in runs differs from one by one (\(runRows.count) rows against \(oneRows.count)); \(first ?? "")")
                }
            }
            #expect(oneByOne.values.contains { !$0.isEmpty }, "seed \(seed): \(projector.name) folded nothing")
        }
    }

    /// Every table of `projector` after `body` folds `events` into a new database, each table's
    /// rows as text, sorted.
    private static func fold(
        _ events: [Event], _ projector: any Projector, _ body: ([Event], Database) throws -> Void
    ) throws -> [String: [String]] {
        let queue = try DatabaseQueue()
        return try queue.write { db in
            try projector.createTables(db)
            try body(events, db)
            var tables: [String: [String]] = [:]
            for table in projector.tables {
                tables[table] = try Row.fetchAll(db, sql: "SELECT * FROM \(table)").map(\.description).sorted()
            }
            return tables
        }
    }

    /// A log of deposits, splits (most in the deposit's command, some later, a few twice or
    /// naming another account or a deposit yet to come), reversals, purchases, withdrawals
    /// and setting changes of two wealth accounts.
    private static func wealthLog(count: Int, _ random: inout SplitMix64) throws -> [Event] {
        var events: [Event] = []
        var deposits: [(sequence: UInt64, account: String)] = []
        let accounts = ["main", "kids"]
        var at = Instant(microsecondsSinceEpoch: 1_767_225_600_000_000)
        func append(_ payload: some EventPayload, cause: UInt64? = nil) {
            at = Instant(microsecondsSinceEpoch: at.microsecondsSinceEpoch + Int64(random.next() % 90_000_000))
            events.append(Event(
                sequence: UInt64(events.count + 1), recordedAt: at, effectiveAt: at, cause: cause, idempotencyKey: nil, body: EventBody(payload)))
        }
        func amount() -> Money { Money(minorUnits: Int64(random.next() % 50_000) + 1, commodity: .usd) }
        func split(of deposit: UInt64, account: String) {
            let total = amount()
            append(DepositSplit(
                account: account, spend: Money(minorUnits: total.minorUnits * 7 / 10, commodity: .usd),
                invest: Money(minorUnits: total.minorUnits - total.minorUnits * 7 / 10, commodity: .usd), spendWeight: 70, investWeight: 30),
                   cause: deposit)
        }
        append(LedgerCreated(name: "Runs", baseCurrency: .usd, timeZone: "Europe/London"))
        while events.count < count {
            let account = accounts[Int(random.next() % 2)]
            switch random.next() % 20 {
            case 0..<9:
                // A deposit command: the deposit and, unless automation waits, its split.
                append(DepositReceived(account: account, amount: amount(), source: .bankTransfer))
                deposits.append((UInt64(events.count), account))
                if random.next() % 4 != 0 { split(of: UInt64(events.count), account: account) }
            case 9, 10:
                // A waiting deposit split later (a resume), now and then a second time or under another account.
                guard let deposit = deposits.randomElement(using: &random) else { continue }
                split(of: deposit.sequence, account: random.next() % 8 == 0 ? accounts[0] : deposit.account)
            case 11:
                // A split naming a deposit the log has not recorded yet.
                split(of: UInt64(events.count + 2), account: account)
            case 12, 13:
                guard let deposit = deposits.randomElement(using: &random) else { continue }
                append(WealthEntryReversed(account: deposit.account, entry: deposit.sequence, kind: .deposit, amount: amount()))
            case 14:
                // A reversal naming the deposit that comes next.
                append(WealthEntryReversed(account: account, entry: UInt64(events.count + 2), kind: .deposit, amount: amount()))
                append(DepositReceived(account: account, amount: amount(), source: .chain))
                deposits.append((UInt64(events.count), account))
            case 15:
                append(PurchaseMade(account: account, amount: amount(), merchant: "Grocer"))
            case 16:
                append(WithdrawalMade(account: account, amount: amount(), destination: "Bank"))
            case 17:
                append(AutomationPaused(account: account))
                append(AutomationResumed(account: account))
            case 18:
                append(SplitRuleSet(account: account, spendWeight: Int64(random.next() % 10) + 1, investWeight: 5))
            default:
                append(RoundUpApplied(account: account, amount: Money(minorUnits: Int64(random.next() % 99) + 1, commodity: .usd)), cause: UInt64(events.count))
            }
        }
        return events
    }
}
