internal import Foundation
import GRDB

// What `StoreVerifier` reads from the read-model database: checkpoints, the trial balance
// and balance assertions, through a read-only connection.

extension StoreVerifier {
    /// A read-only connection: it takes no write lock, and waits (up to 10 s) while a writer's
    /// connection briefly locks the file (opening, or checkpointing the WAL as it closes)
    /// instead of failing with "database is locked".
    static func openReadOnly(_ layout: StoreLayout) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = ReadModelStore.busyMode
        return try DatabaseQueue(path: layout.readModelPath, configuration: configuration)
    }

    /// Every built-in projector's checkpoint (0, without a hash, for one that has none yet),
    /// then every other projector's that has one.
    static func readCheckpoints(_ layout: StoreLayout, registered: [String]) -> CheckpointRead {
        do {
            let database = try openReadOnly(layout)
            defer { try? database.close() }
            return .read(try database.read { db in try storedCheckpoints(db, registered: registered) })
        } catch let error as DatabaseError where error.resultCode == .SQLITE_READONLY {
            // A process killed mid-write leaves a journal only a writer can recover.
            return .needsRecovery
        } catch {
            return .unreadable(describe(error, layout))
        }
    }

    static func storedCheckpoints(_ db: Database, registered: [String]) throws -> [StoredCheckpoint] {
        var found: [String: StoredCheckpoint] = [:]
        // A process killed while it first opened the ledger leaves a read-model file without its tables.
        if try db.tableExists("projection_checkpoints") {
            let hasHash = try db.columns(in: "projection_checkpoints").contains { $0.name == "hash" }
            let sql = "SELECT projector, sequence\(hasHash ? ", hash" : "") FROM projection_checkpoints"
            for row in try Row.fetchAll(db, sql: sql) {
                let name: String = row[CheckpointColumns.projector]
                guard let sequence = UInt64(exactly: row[CheckpointColumns.sequence] as Int64) else {
                    throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "projector \(name) has a negative checkpoint")
                }
                let hash = hasHash ? (row[CheckpointColumns.hash] as Data?).map { Array($0) } : nil
                found[name] = StoredCheckpoint(projector: name, sequence: sequence, hash: hash)
            }
        }
        // The registered projectors always (0 for one not folded yet), and every other
        // projector that has a checkpoint: read models of features left out are verified too.
        let others = found.keys.filter { !registered.contains($0) }.sorted()
        return (registered + others).map { found[$0] ?? StoredCheckpoint(projector: $0, sequence: 0, hash: nil) }
    }

    /// The trial balance of the newest committed read models, and every balance assertion when they are at the head.
    static func checkBooks(_ check: inout ReadModelCheck, layout: StoreLayout, scan: PayloadScan, registered: [String]) throws {
        let database = try openReadOnly(layout)
        defer { try? database.close() }
        let calendar = try LedgerCalendar(timeZoneIdentifier: scan.timeZone ?? "UTC")
        let head = check.head
        let (trialBalance, failed, checked) = try database.read { db -> ([Money], [FailedAssertion], Int) in
            guard try db.tableExists("balances") else { return ([], [], 0) }
            let trialBalance = try BalanceQueries.trialBalance(db)
            // Assertions are about the whole log: only read models at its head can answer them.
            let checkpoints = try storedCheckpoints(db, registered: registered)
            guard checkpoints.allSatisfy({ $0.sequence == head }) else { return (trialBalance, [], 0) }
            return (trialBalance, try failedAssertions(scan.assertions, calendar: calendar, db), scan.assertions.count)
        }
        check.trialBalance = trialBalance
        check.failedAssertions = failed
        check.assertionsChecked = checked
    }

    static func failedAssertions(_ assertions: [Event], calendar: LedgerCalendar, _ db: Database) throws -> [FailedAssertion] {
        var failed: [FailedAssertion] = []
        for event in assertions {
            guard let assertion = event.body.as(BalanceAsserted.self) else { continue }
            let date = calendar.date(of: event.effectiveAt)
            let actual = try PostingSums.sum(account: assertion.account, commodity: assertion.amount.commodity.code,
                                             effectiveThrough: calendar.endOfDay(date).microsecondsSinceEpoch, db)
            if actual != assertion.amount.minorUnits {
                failed.append(FailedAssertion(sequence: event.sequence, account: assertion.account, date: date, expected: assertion.amount,
                                              actual: Money(minorUnits: actual, commodity: assertion.amount.commodity)))
            }
        }
        return failed
    }
}
