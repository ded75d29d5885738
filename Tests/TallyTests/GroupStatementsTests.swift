import Foundation
import GRDB
import Synchronization
import Testing
@testable import Tally
@testable import TallyEngine
import TallyTestSupport

/// What a group of deposit commands asks of SQLite, statement by statement, traced on the
/// write connection (Benchmarks/README.md's table of a command's statements is this test's
/// output: `swift test --filter GroupStatementsTests`, with TALLY_TRACE_STATEMENTS=1 to
/// print it).
@Suite struct GroupStatementsTests {
    static let deposits = 400

    /// A household's bank feed as one batch of keyed deposits into a wealth account that
    /// exists: no command is refused, so the group is planned once, without a savepoint
    /// per command, and each command's statements stay few.
    @Test func aBatchOfDepositsRunsFewStatementsPerCommand() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-03-02T09:00:00Z"))
            defer { try? ledger.close() }
            let amount = Money(minorUnits: 1_000, commodity: .usd)
            try ledger.deposit(account: "main", amount: amount, idempotencyKey: "bank:warm-up")
            let commands = try (0..<Self.deposits).map { index in
                try ledger.depositCommand(account: "main", amount: amount, externalId: "tx-\(index)", idempotencyKey: "bank:\(index)")
            }
            var results: [Result<Ledger.CommandResult, any Error>] = []
            let trace = try StatementTrace.during(ledger) { results = try ledger.run(batch: commands) }
            #expect(results.allSatisfy { (try? $0.get()) != nil })
            if ProcessInfo.processInfo.environment["TALLY_TRACE_STATEMENTS"] != nil { print(trace.table(commands: Self.deposits)) }

            #expect(trace.count { $0.verb == "SAVEPOINT" } == 0, "a group with no refusal is planned without a savepoint per command")
            #expect(trace.count { $0.verb == "COMMIT" } == 1, "one transaction for the group")
            #expect(trace.count { $0.table == "idempotency_keys" && $0.verb == "INSERT" } <= Self.deposits / 50 + 1,
                    "the group's keys are written together, many to a statement")
            #expect(trace.count { $0.table == "balances" && $0.verb == "UPDATE" } <= 8, "each balance the group moved is written once")
            #expect(trace.count { $0.table == "balances" && $0.verb == "SELECT" } <= 8, "a plan's balance the group moved is read from memory")
            #expect(trace.count { $0.table == "wealth_unsplit_deposits" } == 0, "a deposit split in its own command never waits")
            #expect(trace.count { $0.table == "notification_deposits" && $0.verb == "UPDATE" } == 0, "a deposit's row is written with its split")
            #expect(trace.count { $0.table == "wealth_accounts" } <= 1, "the account's row is made once per group")
            #expect(try ledger.wealthSummary(account: "main").balance(in: .usd).spend.minorUnits == Int64(Self.deposits + 1) * 700)
            try ledger.expectConsistent()
        }
    }

    /// The same batch with one deposit refused in the middle by its plan (a key used
    /// before with another amount): it changed nothing, so it is refused alone and the
    /// group goes on without savepoints; every other deposit is recorded.
    @Test func aCommandRefusedBeforeItWritesIsRefusedAloneWithoutSavepoints() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-03-02T09:00:00Z"))
            defer { try? ledger.close() }
            let amount = Money(minorUnits: 1_000, commodity: .usd)
            try ledger.deposit(account: "main", amount: amount, idempotencyKey: "bank:first")
            let refused = Self.deposits / 2
            let commands = try (0..<Self.deposits).map { index in
                try ledger.depositCommand(
                    account: "main", amount: index == refused ? Money(minorUnits: 2_000, commodity: .usd) : amount, externalId: "tx-\(index)",
                    idempotencyKey: index == refused ? "bank:first" : "bank:\(index)")
            }
            var results: [Result<Ledger.CommandResult, any Error>] = []
            let trace = try StatementTrace.during(ledger) { results = try ledger.run(batch: commands) }

            #expect(results.indices.filter { (try? results[$0].get()) == nil } == [refused])
            #expect(Self.code(results[refused]) == .idempotencyConflict)
            #expect(trace.count { $0.verb == "SAVEPOINT" } == 0)
            #expect(try ledger.wealthSummary(account: "main").balance(in: .usd).spend.minorUnits == Int64(Self.deposits) * 700)
            try ledger.expectConsistent()
        }
    }

    /// A purchase arriving decided for more than Spend holds, in the middle of the deposits:
    /// it is refused only once folded, so the group is planned again with a savepoint per
    /// command; the purchase leaves nothing and every deposit is recorded.
    @Test func aCommandRefusedAfterItWritesPlansTheGroupAgainCommandByCommand() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-03-02T09:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            defer { try? ledger.close() }
            let amount = Money(minorUnits: 1_000, commodity: .usd)
            try ledger.deposit(account: "main", amount: amount, idempotencyKey: "bank:first")
            let refused = Self.deposits / 2
            let purchase = NewEvent(effectiveAt: try Instant(parsing: "2026-03-02T09:00:00Z"), body: EventBody(
                PurchaseMade(account: "main", amount: Money(minorUnits: 1_000_000, commodity: .usd), merchant: "Shop", externalId: nil)))
            let commands = try (0..<Self.deposits).map { index in
                index == refused ? Ledger.admitting([purchase])
                    : try ledger.depositCommand(account: "main", amount: amount, externalId: "tx-\(index)", idempotencyKey: "bank:\(index)")
            }
            var results: [Result<Ledger.CommandResult, any Error>] = []
            let trace = try StatementTrace.during(ledger) { results = try ledger.run(batch: commands) }

            #expect(results.indices.filter { (try? results[$0].get()) == nil } == [refused])
            #expect(Self.code(results[refused]) == .insufficientFunds)
            #expect(trace.count { $0.verb == "SAVEPOINT" } >= Self.deposits, "planned again with a savepoint per command")
            #expect(try ledger.wealthSummary(account: "main").balance(in: .usd).spend.minorUnits == Int64(Self.deposits) * 700)
            try ledger.expectConsistent()
        }
    }

    /// Deposits and purchases in one batch: each purchase spends what the deposits before it
    /// in the same batch put in Spend (balances the group holds in memory), and the purchase
    /// that asks for more than is left is refused alone, as one at a time.
    @Test func aPurchaseInTheBatchSpendsTheDepositsBeforeIt() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-03-02T09:00:00Z"))
            defer { try? ledger.close() }
            let usd = { (cents: Int64) in Money(minorUnits: cents, commodity: .usd) }
            try ledger.deposit(account: "main", amount: usd(1_000))  // Spend 7.00
            let commands = [
                try ledger.depositCommand(account: "main", amount: usd(10_000), idempotencyKey: "bank:1"),  // Spend 77.00
                try ledger.purchaseCommand(account: "main", amount: usd(7_000), merchant: "Grocer"),  // 7.00 left
                try ledger.purchaseCommand(account: "main", amount: usd(800), merchant: "Bakery"),  // refused: 7.00 left
                try ledger.depositCommand(account: "main", amount: usd(1_000), idempotencyKey: "bank:2"),  // Spend 14.00
                try ledger.purchaseCommand(account: "main", amount: usd(800), merchant: "Bakery"),  // 6.00 left
            ]
            let results = try ledger.run(batch: commands)
            #expect(results.map { (try? $0.get()) != nil } == [true, true, false, true, true])
            #expect(Self.code(results[2]) == .insufficientFunds)
            #expect(try ledger.wealthSummary(account: "main").balance(in: .usd).spend == usd(600))
            try ledger.expectConsistent()
        }
    }

    private static func code(_ result: Result<Ledger.CommandResult, any Error>) -> LedgerError.Code? {
        if case .failure(let error as LedgerError) = result { return error.code }
        return nil
    }
}

/// The statements run on a ledger's write connection while `body` runs, each with the time
/// from its first step to its end.
struct StatementTrace {
    struct Statement {
        let verb: String
        let table: String
        let nanoseconds: Int64
    }

    let statements: [Statement]

    static func during(_ ledger: Ledger, _ body: () throws -> Void) rethrows -> StatementTrace {
        let seen = Mutex<[Statement]>([])
        // SQLite's own profile times are in whole milliseconds here: each statement is timed
        // from its first step to its end instead.
        let started = Mutex<[String: ContinuousClock.Instant]>([:])
        ledger.readModels.database.writeWithoutTransaction { db in
            db.trace(options: [.statement, .profile]) { event in
                switch event {
                case .statement(let statement):
                    let now = ContinuousClock.now
                    started.withLock { $0[statement.sql] = now }
                case .profile(let statement, _):
                    let end = ContinuousClock.now
                    let sql = statement.sql
                    let elapsed = started.withLock { $0.removeValue(forKey: sql) }.map { end - $0 } ?? .zero
                    let parsed = Self.parse(sql)
                    let nanoseconds = elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
                    seen.withLock { $0.append(Statement(verb: parsed.verb, table: parsed.table, nanoseconds: nanoseconds)) }
                }
            }
        }
        defer { ledger.readModels.database.writeWithoutTransaction { db in db.trace(options: [], nil) } }
        try body()
        return StatementTrace(statements: seen.withLock { $0 })
    }

    func count(where predicate: (Statement) -> Bool) -> Int { statements.filter(predicate).count }

    /// The statement's first word and the table it names first.
    static func parse(_ sql: String) -> (verb: String, table: String) {
        let words = sql.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "(" || $0 == "," }).map(String.init)
        let verb = words.first?.uppercased() ?? ""
        let marker = words.firstIndex { ["FROM", "INTO", "UPDATE"].contains($0.uppercased()) }
        let table = marker.flatMap { $0 + 1 < words.count ? words[$0 + 1] : nil } ?? ""
        return (verb, table)
    }

    /// A Markdown table: statements and their microseconds per command, by verb and table.
    func table(commands: Int) -> String {
        var rows: [String: (count: Int, nanoseconds: Int64)] = [:]
        for statement in statements {
            let key = "\(statement.verb) \(statement.table)"
            rows[key, default: (0, 0)].count += 1
            rows[key, default: (0, 0)].nanoseconds += statement.nanoseconds
        }
        var lines = ["| statement | per command | µs per command |", "|---|---:|---:|"]
        for (key, row) in rows.sorted(by: { $0.value.nanoseconds > $1.value.nanoseconds }) {
            lines.append("| \(key) | \(String(format: "%.2f", Double(row.count) / Double(commands))) | \(String(format: "%.2f", Double(row.nanoseconds) / 1_000 / Double(commands))) |")
        }
        let total = statements.reduce(Int64(0)) { $0 + $1.nanoseconds }
        lines.append("| all | \(String(format: "%.2f", Double(statements.count) / Double(commands))) | \(String(format: "%.2f", Double(total) / 1_000 / Double(commands))) |")
        return lines.joined(separator: "\n")
    }
}
