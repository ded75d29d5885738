internal import GRDBSQLite
package import GRDB

/// Binds and steps a prepared statement through the SQLite C API: the hot path of a fold,
/// without building `StatementArguments` for every row. The products' read models use it
/// for their hottest rows too.
package struct RawStatement {
    let statement: Statement

    /// Wraps a prepared statement, reset: GRDB resets a statement it ran only before its next
    /// run, and SQLite refuses a binding to a statement that is not reset.
    package init(_ statement: Statement) {
        self.statement = statement
        sqlite3_reset(statement.sqliteStatement)
    }

    @inline(__always)
    package func bind(_ index: Int32, _ value: Int64) {
        sqlite3_bind_int64(statement.sqliteStatement, index, value)
    }

    @inline(__always)
    /// Binds an integer, or NULL when absent.
    package func bind(_ index: Int32, _ value: Int64?) {
        if let value {
            sqlite3_bind_int64(statement.sqliteStatement, index, value)
        } else {
            sqlite3_bind_null(statement.sqliteStatement, index)
        }
    }

    /// Binds a text (SQLite copies it).
    package func bind(_ index: Int32, _ value: String) {
        var value = value
        value.withUTF8 { bindText(index, UnsafeRawBufferPointer($0), SQLITE_TRANSIENT) }
    }

    /// Binds a text (SQLite copies it), or NULL when absent.
    package func bind(_ index: Int32, _ value: String?) {
        if let value {
            bind(index, value)
        } else {
            sqlite3_bind_null(statement.sqliteStatement, index)
        }
    }

    /// Binds UTF-8 text in place: the bytes must stay put, and bound, until the statement
    /// has run and ``clearBindings()`` unbound them.
    func bindText(_ index: Int32, _ utf8: UnsafeRawBufferPointer) {
        bindText(index, utf8, SQLITE_STATIC)
    }

    private func bindText(_ index: Int32, _ utf8: UnsafeRawBufferPointer, _ destructor: sqlite3_destructor_type?) {
        // An empty text still needs an address: SQLite binds NULL for a null one.
        sqlite3_bind_text(statement.sqliteStatement, index, (utf8.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!).assumingMemoryBound(to: CChar.self),
                          Int32(utf8.count), destructor)
    }

    /// Runs the statement with `text` bound in place at `index` and returns the first
    /// column of its first row as an integer (nil when there is no row or it is NULL), then
    /// resets it and unbinds the text: a point lookup without building a `Row`.
    func integer(_ db: Database, binding text: String, at index: Int32) throws -> Int64? {
        var text = text
        return try text.withUTF8 { try integer(db, bindingText: UnsafeRawBufferPointer($0), at: index) }
    }

    /// ``integer(_:binding:at:)`` with the text's UTF-8 bytes lying elsewhere.
    func integer(_ db: Database, bindingText utf8: UnsafeRawBufferPointer, at index: Int32) throws -> Int64? {
        bindText(index, utf8)
        defer { sqlite3_bind_null(statement.sqliteStatement, index) }
        return try integer(db)
    }

    /// Runs the statement with the values bound before and returns the first column of its
    /// first row as an integer (nil when there is no row or it is NULL), then resets it.
    package func integer(_ db: Database) throws -> Int64? {
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        switch sqlite3_step(handle) {
        case SQLITE_ROW:
            return sqlite3_column_type(handle, 0) == SQLITE_NULL ? nil : sqlite3_column_int64(handle, 0)
        case SQLITE_DONE:
            return nil
        case let code:
            throw failure(code, db)
        }
    }

    /// Runs the statement with the values bound before and calls `body` with each row it
    /// returns, read by column through ``Columns`` (valid only during the call); then resets it.
    package func forEachRow(_ db: Database, _ body: (Columns) throws -> Void) throws {
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        while true {
            switch sqlite3_step(handle) {
            case SQLITE_ROW:
                try body(Columns(handle: handle))
            case SQLITE_DONE:
                return
            case let code:
                throw failure(code, db)
            }
        }
    }

    /// ``forEachRow(_:_:)`` while `body` returns true: it stops at the first row it
    /// returns false for.
    func forEachRowWhile(_ db: Database, _ body: (Columns) throws -> Bool) throws {
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        while true {
            switch sqlite3_step(handle) {
            case SQLITE_ROW:
                guard try body(Columns(handle: handle)) else { return }
            case SQLITE_DONE:
                return
            case let code:
                throw failure(code, db)
            }
        }
    }

    /// The row a stepped statement stands on, read by column (numbered from 0).
    package struct Columns {
        fileprivate let handle: OpaquePointer

        /// The column as an integer; nil when it is NULL.
        package func integer(_ column: Int32) -> Int64? {
            sqlite3_column_type(handle, column) == SQLITE_NULL ? nil : sqlite3_column_int64(handle, column)
        }

        /// The column as an integer that may not be NULL.
        /// - Throws: ``StoreError`` (`readModelsDisagree`) when it is: a damaged read model.
        package func requiredInteger(_ column: Int32) throws -> Int64 {
            guard let value = integer(column) else {
                // The statement's text only now: GRDB's `sql` trims it, a cost per row.
                let sql = sqlite3_sql(handle).map { String(cString: $0) } ?? "?"
                throw StoreError(.readModelsDisagree, "column \(column) of a row of `\(sql)` is NULL where the read model holds a value; run `tally rebuild`")
            }
            return value
        }

        /// The column's text as UTF-8 bytes, valid only while the row is.
        package func text(_ column: Int32) -> UnsafeRawBufferPointer {
            let text = sqlite3_column_text(handle, column)
            let count = Int(sqlite3_column_bytes(handle, column))
            return UnsafeRawBufferPointer(start: text, count: text == nil ? 0 : count)
        }

        /// The column's bytes as a blob, valid only while the row is.
        func blob(_ column: Int32) -> UnsafeRawBufferPointer {
            let blob = sqlite3_column_blob(handle, column)
            let count = Int(sqlite3_column_bytes(handle, column))
            return UnsafeRawBufferPointer(start: blob, count: blob == nil ? 0 : count)
        }
    }

    /// Runs the statement once with `bytes` bound in place as a blob at `index` (and the
    /// other values bound before), then resets it and unbinds the blob.
    func step(_ db: Database, bindingBlob bytes: [UInt8], at index: Int32) throws {
        try bytes.withUnsafeBytes { buffer in try step(db, bindingBlob: buffer, at: index) }
    }

    /// ``step(_:bindingBlob:at:)-([UInt8],_)`` with the bytes lying elsewhere.
    func step(_ db: Database, bindingBlob buffer: UnsafeRawBufferPointer, at index: Int32) throws {
        let handle = statement.sqliteStatement
        // A zero-length blob still needs an address: SQLite binds NULL for a null one.
        sqlite3_bind_blob(handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count), SQLITE_STATIC)
        defer { sqlite3_bind_null(handle, index) }
        try step(db)
    }

    /// Unbinds every parameter (text bound in place must not outlive its owner).
    func clearBindings() {
        sqlite3_clear_bindings(statement.sqliteStatement)
    }

    /// Runs the statement once with the values bound, then resets it.
    package func step(_ db: Database) throws {
        let handle = statement.sqliteStatement
        let code = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard code == SQLITE_DONE || code == SQLITE_ROW else {
            throw failure(code, db)
        }
    }

    /// SQLite's error for a step that ended with `code`, naming the statement.
    private func failure(_ code: Int32, _ db: Database) -> DatabaseError {
        DatabaseError(resultCode: ResultCode(rawValue: code), message: db.lastErrorMessage, sql: statement.sql)
    }
}

/// SQLite's "copy the bytes now" destructor marker.
private let SQLITE_TRANSIENT = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
/// SQLite's "the bytes stay put" destructor marker.
private let SQLITE_STATIC: sqlite3_destructor_type? = nil
