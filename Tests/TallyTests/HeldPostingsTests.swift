import Foundation
import Testing
@testable import Tally
@testable import TallyEngine
import TallyTestSupport
import TallyLog

/// A write group holds its postings and roll-up cells until its commands are planned
/// (`HeldPostings`). Whatever a batch holds, the commands meet the state one at a time would
/// give them, and the read models end as one at a time leaves them: the same refusals, the
/// same rows.
@Suite struct HeldPostingsTests {
    static let start = "2026-03-02T09:00:00Z"

    /// Two households given the same commands: one runs them as one batch, the other one
    /// by one. Deposits, purchases (some too large, some backdated, so the checks read the
    /// postings and cells a batch holds, and some refused after reading them), withdrawals,
    /// split rules and journal entries, some arriving decided. `TALLY_TEST_SEED` replays.
    @Test func aBatchEndsWhereOneCommandAtATimeEnds() throws {
        let master = TestSeed.value(default: 0x4E1D)
        for round in 0..<6 {
            let seed = TestSeed.ledger(round, of: master)
            let context = "TALLY_TEST_SEED=\(master), round \(round) (seed \(seed))"
            try Self.withTwoHouseholds { batched, oneByOne in
                var random = SplitMix64(seed: seed)
                let script = (0..<Int.random(in: 40...120, using: &random)).map { _ in Step.random(using: &random) }

                let batchResults = try batched.run(batch: script.map { try $0.command(for: batched) })
                let oneResults = script.map { step in Result { try oneByOne.run(step.command(for: oneByOne)) } }

                #expect(batchResults.map(Self.outcome) == oneResults.map(Self.outcome), "\(context): outcomes")
                #expect(batchResults.contains { (try? $0.get()) == nil }, "\(context): some command is refused")
                #expect(zip(script, batchResults.map(Self.outcome)).contains { step, outcome in
                    if case .decidedPurchase = step { return outcome == "insufficient funds" }
                    return false
                }, "\(context): some purchase arriving decided is refused once folded")
                let batchTables = try batched.readModels.dump().filter { $0.key != "projection_checkpoints" }
                let oneTables = try oneByOne.readModels.dump().filter { $0.key != "projection_checkpoints" }
                for table in Set(batchTables.keys).union(oneTables.keys).sorted() {
                    #expect(batchTables[table] == oneTables[table], "\(context): table \(table)")
                }
                try batched.expectConsistent()
            }
        }
    }

    /// A roll-up cell can pass 64 bits while every balance stays within them (a large
    /// amount on one day, taken out the next, then put on the first day again). One command
    /// at a time, the third entry is refused; a batch holding the cells finds out only when it
    /// writes them, and then plans the group again writing as it goes: the same refusal, alone.
    @Test func aCellBeyondSixtyFourBitsIsRefusedAloneInABatchToo() throws {
        let large = Money(minorUnits: Int64.max, commodity: .usd)
        let entries: [(day: String, amount: Money)] = [
            ("2026-03-01T12:00:00Z", large), ("2026-03-02T08:00:00Z", Money(minorUnits: -Int64.max, commodity: .usd)), ("2026-03-01T13:00:00Z", large),
            ("2026-03-03T14:00:00Z", usd("1.00")),
        ]
        func commands(_ ledger: Ledger) throws -> [LedgerCommand] {
            try entries.map { entry in
                let event = NewEvent(effectiveAt: try Instant(parsing: entry.day), body: EventBody(JournalEntryPosted(
                    account: "Assets:Vault", counterAccount: "Equity:Opening", amount: entry.amount)))
                return LedgerCommand { _ in [event] }
            }
        }
        try Self.withTwoHouseholds { batched, oneByOne in
            let batchResults = try batched.run(batch: commands(batched))
            let oneResults = try commands(oneByOne).map { command in Result { try oneByOne.run(command) } }
            #expect(oneResults.map(Self.outcome) == ["ok", "ok", "invalid argument", "ok"])
            #expect(batchResults.map(Self.outcome) == oneResults.map(Self.outcome))
            #expect(try batched.readModels.dump().filter { $0.key != "projection_checkpoints" }
                    == oneByOne.readModels.dump().filter { $0.key != "projection_checkpoints" })
            try batched.expectConsistent()
        }
    }

    /// Two empty households, each in a temporary store, on the same clock's start.
    private static func withTwoHouseholds(_ body: (_ batched: Ledger, _ oneByOne: Ledger) throws -> Void) throws {
        try withTemporaryStore { batchRoot in
            try withTemporaryStore { oneRoot in
                let batched = try Ledger.forTesting(at: batchRoot, clock: ManualClock(start))
                let oneByOne = try Ledger.forTesting(at: oneRoot, clock: ManualClock(start))
                defer {
                    try? batched.close()
                    try? oneByOne.close()
                }
                try body(batched, oneByOne)
            }
        }
    }

    private static func outcome(_ result: Result<Ledger.CommandResult, any Error>) -> String {
        switch result {
        case .success: "ok"
        case .failure(let error as LedgerError): "\(error.code)"
        case .failure(let error): "\(error)"
        }
    }

    /// One step of a household's day, as a command either household can build.
    private enum Step {
        case deposit(cents: Int64, daysBack: Int64)
        case purchase(cents: Int64, daysBack: Int64)
        case withdraw(cents: Int64)
        case splitRule(spend: Int64, invest: Int64, daysBack: Int64)
        case journal(cents: Int64, daysBack: Int64, decided: Bool)
        /// A purchase arriving decided: folded, then refused when it left Spend below zero.
        case decidedPurchase(cents: Int64, daysBack: Int64)

        static func random(using random: inout SplitMix64) -> Step {
            let daysBack = Bool.random(using: &random) ? 0 : Int64.random(in: 1...20, using: &random)
            switch Int.random(in: 0..<12, using: &random) {
            case 0..<4: return .deposit(cents: Int64.random(in: 1...50_000, using: &random), daysBack: daysBack)
            case 4..<7: return .purchase(cents: Int64.random(in: 1...60_000, using: &random), daysBack: daysBack)
            case 7: return .withdraw(cents: Int64.random(in: 1...40_000, using: &random))
            case 8: return .splitRule(spend: Int64.random(in: 0...10, using: &random), invest: Int64.random(in: 1...10, using: &random), daysBack: daysBack)
            case 9, 10: return .decidedPurchase(cents: Int64.random(in: 1...60_000, using: &random), daysBack: daysBack)
            default: return .journal(cents: Int64.random(in: -30_000...30_000, using: &random), daysBack: daysBack, decided: Bool.random(using: &random))
            }
        }

        func command(for ledger: Ledger) throws -> LedgerCommand {
            func at(_ daysBack: Int64) throws -> Instant? {
                guard daysBack > 0 else { return nil }
                return Instant(microsecondsSinceEpoch: try Instant(parsing: HeldPostingsTests.start).microsecondsSinceEpoch - daysBack * 86_400_000_000 + 3_600_000_000)
            }
            let usd = { (cents: Int64) in Money(minorUnits: cents, commodity: .usd) }
            switch self {
            case .deposit(let cents, let daysBack):
                return try ledger.depositCommand(account: "main", amount: usd(cents), effectiveAt: at(daysBack))
            case .purchase(let cents, let daysBack):
                return try ledger.purchaseCommand(account: "main", amount: usd(cents), merchant: "Shop", effectiveAt: at(daysBack))
            case .withdraw(let cents):
                return try ledger.withdrawCommand(account: "main", amount: usd(cents))
            case .splitRule(let spend, let invest, let daysBack):
                return try ledger.setSplitRuleCommand(account: "main", spendWeight: spend, investWeight: invest, effectiveAt: at(daysBack))
            case .journal(let cents, let daysBack, let decided):
                let event = NewEvent(effectiveAt: try at(daysBack) ?? Instant(parsing: HeldPostingsTests.start), body: EventBody(JournalEntryPosted(
                    account: "Assets:Cash", counterAccount: "Income:Salary", amount: usd(cents == 0 ? 1 : cents))))
                return decided ? Ledger.admitting([event]) : LedgerCommand { _ in [event] }
            case .decidedPurchase(let cents, let daysBack):
                return Ledger.admitting([NewEvent(effectiveAt: try at(daysBack) ?? Instant(parsing: HeldPostingsTests.start), body: EventBody(
                    PurchaseMade(account: "main", amount: usd(cents), merchant: "Shop", externalId: nil)))])
            }
        }
    }
}
