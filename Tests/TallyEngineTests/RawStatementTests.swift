import GRDB
import Testing
@testable import TallyEngine

/// Statements stepped through the C API (`RawStatement`): rows read by column as GRDB would
/// read them, the statement reset for its next run, and a NULL where a read model holds a
/// value refused as a damaged read model naming the statement.
@Suite struct RawStatementTests {
    private static func withTable(_ body: (Database) throws -> Void) throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE t (id INTEGER PRIMARY KEY, label TEXT, amount INTEGER) STRICT;
                INSERT INTO t (id, label, amount) VALUES (1, 'rent', -120000), (2, '', 0), (3, 'café', NULL), (4, NULL, 9223372036854775807);
                """)
            try body(db)
        }
    }

    @Test func rowsReadByColumnMatchGRDBsReadingOfTheSameRows() throws {
        try Self.withTable { db in
            let sql = "SELECT id, label, amount FROM t WHERE id >= ? ORDER BY id"
            let expected = try Row.fetchAll(db, sql: sql, arguments: [2]).map { row in
                (row["id"] as Int64, row["label"] as String?, row["amount"] as Int64?)
            }
            let statement = RawStatement(try db.cachedStatement(sql: sql))
            // Twice: the statement is reset after each run and keeps its bindings.
            statement.bind(1, Int64(2))
            for _ in 0..<2 {
                var read: [(Int64, String?, Int64?)] = []
                try statement.forEachRow(db) { row in
                    let label = row.text(1)
                    let text: String? = label.baseAddress == nil ? nil : String(decoding: label, as: UTF8.self)
                    read.append((try row.requiredInteger(0), text, row.integer(2)))
                }
                #expect(read.count == expected.count)
                for (got, want) in zip(read, expected) {
                    #expect(got.0 == want.0 && got.2 == want.2)
                    // An empty text and NULL both read as no bytes; GRDB tells them apart.
                    #expect((got.1 ?? "") == (want.1 ?? ""))
                }
            }
        }
    }

    @Test func aNullWhereTheReadModelHoldsAValueIsADamagedReadModelNamingTheStatement() throws {
        try Self.withTable { db in
            let statement = RawStatement(try db.cachedStatement(sql: "SELECT amount FROM t WHERE id = 3"))
            do {
                try statement.forEachRow(db) { row in _ = try row.requiredInteger(0) }
                Issue.record("a NULL amount was read as a value")
            } catch let error as StoreError {
                #expect(error.code == .readModelsDisagree)
                #expect(error.description.contains("SELECT amount FROM t WHERE id = 3"), "\(error)")
            }
            // Reset by the failed run: the next one steps from its first row again.
            var rows = 0
            try statement.forEachRow(db) { _ in rows += 1 }
            #expect(rows == 1)
        }
    }

    @Test func aStatementThatFailsWhileSteppingThrowsSQLitesError() throws {
        try Self.withTable { db in
            // A run-time failure, not a compile-time one: `abs` of the least integer
            // overflows while stepping.
            try db.execute(sql: "INSERT INTO t (id, label, amount) VALUES (5, 'least', -9223372036854775807 - 1)")
            let statement = RawStatement(try db.cachedStatement(sql: "SELECT abs(amount) FROM t WHERE id = 5"))
            #expect(throws: DatabaseError.self) {
                try statement.forEachRow(db) { row in _ = row.integer(0) }
            }
        }
    }
}
