internal import GRDBSQLite
import GRDB

/// Binds and steps a prepared statement through the SQLite C API: the hot path of a fold,
/// without building `StatementArguments` for every row.
struct RawStatement {
    let statement: Statement

    init(_ statement: Statement) { self.statement = statement }

    @inline(__always)
    func bind(_ index: Int32, _ value: Int64) {
        sqlite3_bind_int64(statement.sqliteStatement, index, value)
    }

    @inline(__always)
    /// Binds an integer, or NULL when absent.
    func bind(_ index: Int32, _ value: Int64?) {
        if let value {
            sqlite3_bind_int64(statement.sqliteStatement, index, value)
        } else {
            sqlite3_bind_null(statement.sqliteStatement, index)
        }
    }

    func bind(_ index: Int32, _ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            _ = sqlite3_bind_text(statement.sqliteStatement, index, utf8.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }, Int32(utf8.count), SQLITE_TRANSIENT)
        }
    }

    /// Runs the statement once with the values bound, then resets it.
    func step(_ db: Database) throws {
        let handle = statement.sqliteStatement
        let code = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard code == SQLITE_DONE || code == SQLITE_ROW else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: db.lastErrorMessage, sql: statement.sql)
        }
    }
}

/// SQLite's "copy the bytes now" destructor marker.
private let SQLITE_TRANSIENT = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
