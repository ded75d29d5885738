internal import Foundation
internal import GRDB
public import TallyLog

/// The outcome of checking a whole store: the log's checksums, hash chain and sequence,
/// and that every payload decodes with this build's catalog.
public struct StoreVerification: Sendable {
    /// What the log check found (head digest, counts, problems).
    public let log: LogVerification
    /// Payloads that did not decode, as messages naming the sequence number.
    public let undecodableEvents: [String]
    /// The read models' checks, when the store has read models.
    public let readModels: ReadModelCheck?

    /// True when nothing is wrong.
    public var isIntact: Bool {
        log.isValid && undecodableEvents.isEmpty && (readModels?.problems.isEmpty ?? true)
    }
}

/// A balance assertion that does not hold.
public struct FailedAssertion: Hashable, Sendable {
    public let sequence: UInt64
    public let account: String
    /// The day whose end the assertion is about, in the ledger's time zone.
    public let date: LocalDate
    public let expected: Money
    public let actual: Money
}

/// What `verify` checks in the read models: every projector's checkpoint is the log's
/// head, the books balance, and every balance assertion holds.
public struct ReadModelCheck: Sendable {
    /// Projectors whose checkpoint is behind (or past) the log head, with their checkpoint.
    public let laggingProjectors: [(name: String, sequence: UInt64)]
    /// Non-zero sums of all balances per commodity (empty when the books balance).
    public let trialBalance: [Money]
    public let failedAssertions: [FailedAssertion]
    /// How many balance assertions were checked.
    public let assertionsChecked: Int
    /// Whether the read models were left mid-write by a process that stopped: a read-only
    /// check cannot read them until a ledger opens them and SQLite recovers its
    /// write-ahead log (nothing else was checked).
    public var needsRecovery = false

    /// Each problem as a sentence (amounts included: verify's output is the user's own).
    public var problems: [String] {
        (needsRecovery ? ["the read models were left mid-write by a process that stopped; open the ledger (any tally command) to recover them and catch up, or `tally rebuild`"] : [])
            + laggingProjectors.map { "read model \($0.name) has folded events up to \($0.sequence), not the log head; open the ledger (any tally command) to catch up, or `tally rebuild`" }
            + trialBalance.map { "the books do not balance: \($0.commodity.code) postings sum to \($0.decimalString)" }
            + failedAssertions.map { "balance assertion (event \($0.sequence)) failed: \($0.account) at the end of \($0.date) is \($0.actual.decimalString) \($0.actual.commodity.code), expected \($0.expected.decimalString) \($0.expected.commodity.code)" }
    }
}

/// Checks a store end to end: `tally verify`.
public enum StoreVerifier {
    /// Verifies the log, then decodes every event.
    ///
    /// - Parameters:
    ///   - expect: a digest kept elsewhere (`seq:hash`); the recomputed hash at that
    ///     sequence number must match.
    ///   - progress: called with the last sequence number checked.
    /// - Throws: ``StoreError`` when there is no store at `root`.
    public static func verify(at root: String, expect: LogDigest? = nil, progress: ((UInt64) -> Void)? = nil) throws -> StoreVerification {
        let layout = StoreLayout(root: root)
        try layout.requireStore()
        let log = try verifyLog(directory: layout.logDirectory, expect: expect, progress: progress)
        var undecodable: [String] = []
        var assertions: [Event] = []
        if log.problems.isEmpty {
            let reader = try LogReader.open(directory: layout.logDirectory)
            try reader.forEach { logged in
                do {
                    let event = try EventCatalog.decode(logged)
                    if case .balanceAsserted = event.body { assertions.append(event) }
                } catch {
                    if undecodable.count < 100 { undecodable.append("\(error)") }
                }
            }
        }
        var readModels: ReadModelCheck?
        if log.problems.isEmpty, FileManager.default.fileExists(atPath: layout.readModelPath) {
            let calendar = try EventStoreReader.open(at: root).ledgerCalendar()
            readModels = try checkReadModels(layout, head: log.head.sequence, assertions: assertions, calendar: calendar)
        }
        return StoreVerification(log: log, undecodableEvents: undecodable, readModels: readModels)
    }

    private static func checkReadModels(_ layout: StoreLayout, head: UInt64, assertions: [Event], calendar: LedgerCalendar) throws -> ReadModelCheck {
        do {
            return try readReadModels(layout, head: head, assertions: assertions, calendar: calendar)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_READONLY {
            // A process killed mid-write leaves a write-ahead log only a writer can recover.
            var check = ReadModelCheck(laggingProjectors: [], trialBalance: [], failedAssertions: [], assertionsChecked: 0)
            check.needsRecovery = true
            return check
        }
    }

    private static func readReadModels(_ layout: StoreLayout, head: UInt64, assertions: [Event], calendar: LedgerCalendar) throws -> ReadModelCheck {
        var configuration = Configuration()
        configuration.readonly = true
        let database = try DatabaseQueue(path: layout.readModelPath, configuration: configuration)
        defer { try? database.close() }
        return try database.read { db in
            // A process killed while it first opened the ledger leaves a read-model file without
            // its tables (or without some projectors' rows): those projectors are at 0, behind.
            var checkpoints = try db.tableExists("projection_checkpoints") ? ReadModelStore.checkpoints(db) : [:]
            for projector in Ledger.projectors where checkpoints[projector.name] == nil { checkpoints[projector.name] = 0 }
            let lagging = checkpoints.filter { $0.value != head }.map { (name: $0.key, sequence: $0.value) }.sorted { $0.name < $1.name }
            guard lagging.isEmpty else {
                return ReadModelCheck(laggingProjectors: lagging, trialBalance: [], failedAssertions: [], assertionsChecked: 0)
            }
            var failed: [FailedAssertion] = []
            for event in assertions {
                guard case .balanceAsserted(let assertion) = event.body else { continue }
                let date = calendar.date(of: event.effectiveAt)
                let actual = try Int64.fetchOne(db, sql: """
                    SELECT COALESCE(SUM(amount), 0) FROM postings WHERE account = ? AND commodity = ? AND effective_at <= ?
                    """, arguments: [assertion.account, assertion.amount.commodity.code, calendar.endOfDay(date).microsecondsSinceEpoch]) ?? 0
                if actual != assertion.amount.minorUnits {
                    failed.append(FailedAssertion(sequence: event.sequence, account: assertion.account, date: date, expected: assertion.amount,
                                                  actual: Money(minorUnits: actual, commodity: assertion.amount.commodity)))
                }
            }
            return ReadModelCheck(laggingProjectors: [], trialBalance: try BalanceQueries.trialBalance(db), failedAssertions: failed,
                                  assertionsChecked: assertions.count)
        }
    }
}
