import Foundation
import GRDB
import Testing
import TallyLog
import TallyTestSupport
@testable import TallyEngine

/// The read-model layer as an embedder meets it: typed queries written beside a projector
/// and read by value through `Ledger.read(_:)`, and the engine's own tables evolving through
/// GRDB's `DatabaseMigrator`, including in a file made before the migrator existed.
@Suite struct ReadModelLayerTests {
    static let start = "2026-05-01T09:00:00Z"

    /// An embedder's read model: the last journal amount seen per account.
    struct LastEntryProjector: Projector {
        let name = "last_entries"
        let version = 1
        let tables = ["last_entries"]

        func createTables(_ db: Database) throws {
            try db.execute(sql: "CREATE TABLE last_entries (account TEXT PRIMARY KEY NOT NULL, minor_units INTEGER NOT NULL) STRICT")
        }

        func apply(_ event: Event, _ db: Database) throws {
            guard let entry = event.body.as(JournalEntryPosted.self) else { return }
            try db.execute(sql: "INSERT OR REPLACE INTO last_entries (account, minor_units) VALUES (?, ?)",
                           arguments: [entry.account, entry.amount.minorUnits])
        }
    }

    /// A read model that lists a type it forgot to fold: its `default:` throws.
    struct ForgetfulProjector: Projector {
        let name = "forgetful"
        let version = 1
        let tables = ["forgetful_entries"]
        var eventTypes: [any EventPayload.Type]? { [JournalEntryPosted.self, AccountOpened.self] }

        func createTables(_ db: Database) throws {
            try db.execute(sql: "CREATE TABLE forgetful_entries (sequence INTEGER PRIMARY KEY NOT NULL) STRICT")
        }

        func apply(_ event: Event, _ db: Database) throws {
            switch event.body.payload {
            case is JournalEntryPosted:
                try db.execute(sql: "INSERT INTO forgetful_entries (sequence) VALUES (?)", arguments: [Int64(event.sequence)])
            default:
                throw eventNotFolded(event)
            }
        }
    }

    /// Its queries: the only place outside the projector that names its table.
    enum LastEntryQueries {
        struct Row: FetchableRecord, TableRecord, Equatable {
            static let databaseTableName = "last_entries"
            enum Columns { static let account = Column("account"), minorUnits = Column("minor_units") }
            var account: String
            var minorUnits: Int64
            init(account: String, minorUnits: Int64) { self.account = account; self.minorUnits = minorUnits }
            init(row: GRDB.Row) throws {
                account = row[Columns.account]
                minorUnits = row[Columns.minorUnits]
            }
        }

        static let all = ReadModelQuery { db in try Row.order(Row.Columns.account).fetchAll(db) }

        static func last(of account: String) -> ReadModelQuery<Int64?> {
            ReadModelQuery { db in try Row.filter(Row.Columns.account == account).fetchOne(db)?.minorUnits }
        }

        static let broken = ReadModelQuery { db in try Int.fetchAll(db, sql: "SELECT nothing FROM no_such_table") }
    }

    private func options(_ clock: ManualClock) -> Ledger.Options {
        Ledger.Options(clock: clock.function, syncMode: .none, projectors: [LastEntryProjector()])
    }

    private func entry(_ amount: String, _ account: String, at clock: ManualClock) -> NewEvent {
        NewEvent(effectiveAt: clock.now, body: EventBody(JournalEntryPosted(account: account, counterAccount: "Income:Sales", amount: usd(amount))))
    }

    @Test func typedQueriesAnswerFromTheNewestCommittedState() throws {
        try withTemporaryStore { root in
            let clock = ManualClock(Self.start)
            let ledger = try Ledger.create(at: root, name: "Shop", baseCurrency: .usd, timeZone: "UTC", options: options(clock))
            defer { try? ledger.close() }
            try ledger.appendEvents([entry("1.00", "Assets:Till", at: clock), entry("2.50", "Assets:Bank", at: clock)])
            try ledger.appendEvents([entry("4.00", "Assets:Till", at: clock)])

            #expect(try ledger.read(LastEntryQueries.all) == [.init(account: "Assets:Bank", minorUnits: 250), .init(account: "Assets:Till", minorUnits: 400)])
            #expect(try ledger.read(LastEntryQueries.last(of: "Assets:Till")) == 400)
            #expect(try ledger.read(LastEntryQueries.last(of: "Assets:Nowhere")) == nil)
            #expect(try ledger.read(LastEntryQueries.all.map(\.count)) == 2)

            let reader = try Ledger.openForReading(at: root, options: options(clock))
            defer { try? reader.close() }
            #expect(try reader.read(LastEntryQueries.last(of: "Assets:Bank")) == 250, "a reader without the lock answers the same query")
        }
    }

    @Test func aQueryThatFailsThrowsTheLedgersErrorWithTheDatabasesAttached() throws {
        try withTemporaryStore { root in
            let clock = ManualClock(Self.start)
            let ledger = try Ledger.create(at: root, name: "Shop", baseCurrency: .usd, timeZone: "UTC", options: options(clock))
            defer { try? ledger.close() }
            let error = try #require(throws: LedgerError.self) { try ledger.read(LastEntryQueries.broken) }
            #expect(error.code == .readModels)
            #expect(error.underlying is DatabaseError)
        }
    }

    @Test func aTypeAReadModelListsButDoesNotFoldRefusesTheCommandNamingIt() throws {
        try withTemporaryStore { root in
            let clock = ManualClock(Self.start)
            let options = Ledger.Options(clock: clock.function, syncMode: .none, projectors: [ForgetfulProjector()])
            let ledger = try Ledger.create(at: root, name: "Shop", baseCurrency: .usd, timeZone: "UTC", options: options)
            defer { try? ledger.close() }
            try ledger.appendEvents([entry("1.00", "Assets:Till", at: clock)])
            let head = ledger.head
            let opened = NewEvent(effectiveAt: clock.now, body: EventBody(AccountOpened(account: "Assets:Safe", kind: .asset, commodity: .usd)))
            let error = try #require(throws: LedgerError.self) { try ledger.appendEvents([opened]) }
            #expect(error.code == .inconsistentLog)
            #expect(error.message.contains("forgetful") && error.message.contains("account_opened"), "\(error.message)")
            #expect(ledger.head == head, "nothing appended")
        }
    }

    @Test func theEnginesTablesAreMigratedAndRecordedByTheMigrator() throws {
        try withTemporaryStore { root in
            let clock = ManualClock(Self.start)
            try Ledger.create(at: root, name: "Shop", baseCurrency: .usd, timeZone: "UTC", options: options(clock)).close()
            let applied = try DatabaseQueue(path: StoreLayout(root: root).readModelPath).read { db in
                try ReadModelStore.engineMigrator.appliedIdentifiers(db)
            }
            #expect(applied == Set(ReadModelStore.engineMigrator.migrations))
            #expect(applied.count == 3)
        }
    }

    /// A store whose read models were made before checkpoints kept hashes and before the
    /// migrator: no `grdb_migrations`, no `hash` column. It opens, keeps every checkpoint (no
    /// read model is folded again), and its next commit records hashes.
    @Test func aFileMadeBeforeTheMigratorIsMigratedInPlace() throws {
        try withTemporaryStore { root in
            let clock = ManualClock(Self.start)
            let ledger = try Ledger.create(at: root, name: "Shop", baseCurrency: .usd, timeZone: "UTC", options: options(clock))
            try ledger.appendEvents([entry("1.00", "Assets:Till", at: clock)])
            try ledger.close()
            let path = StoreLayout(root: root).readModelPath
            let old = try DatabaseQueue(path: path)
            let before = try old.write { db -> [String: Int64] in
                try db.execute(sql: """
                    DROP TABLE grdb_migrations;
                    CREATE TABLE old_checkpoints (projector TEXT PRIMARY KEY NOT NULL, version INTEGER NOT NULL, sequence INTEGER NOT NULL) STRICT;
                    INSERT INTO old_checkpoints SELECT projector, version, sequence FROM projection_checkpoints;
                    DROP TABLE projection_checkpoints;
                    ALTER TABLE old_checkpoints RENAME TO projection_checkpoints;
                    """)
                return Dictionary(uniqueKeysWithValues: try GRDB.Row.fetchAll(db, sql: "SELECT projector, sequence FROM projection_checkpoints").map { ($0["projector"], $0["sequence"]) })
            }
            try old.close()
            #expect(before.values.allSatisfy { $0 == 2 })

            let reopened = try Ledger.open(at: root, options: options(clock))
            #expect(try reopened.read(LastEntryQueries.last(of: "Assets:Till")) == 100)
            try reopened.appendEvents([entry("3.00", "Assets:Till", at: clock)])
            try reopened.close()
            let after = try DatabaseQueue(path: path).read { db in
                (try ReadModelStore.engineMigrator.appliedIdentifiers(db),
                 try GRDB.Row.fetchAll(db, sql: "SELECT sequence, hash FROM projection_checkpoints").map { ($0["sequence"] as Int64, $0["hash"] as Data?) })
            }
            #expect(after.0.count == 3)
            #expect(after.1.allSatisfy { $0.0 == 3 && $0.1?.count == 32 }, "every checkpoint moved on, with its chain hash")
        }
    }
}
