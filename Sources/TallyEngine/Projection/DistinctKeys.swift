package import GRDB

extension Database {
    /// The distinct values of `columns` in `table`, in order, found by skipping through an
    /// index that starts with those columns: one indexed lookup per distinct value, where
    /// `SELECT DISTINCT` would visit every row (a table of rates grows with every
    /// transaction; its currency pairs stay few).
    package func distinctKeys(_ table: String, _ columns: [String]) throws -> [[String]] {
        let list = columns.joined(separator: ", ")
        let placeholders = columns.map { _ in "?" }.joined(separator: ", ")
        let next = try cachedStatement(sql: "SELECT \(list) FROM \(table) WHERE (\(list)) > (\(placeholders)) ORDER BY \(list) LIMIT 1")
        var keys: [[String]] = []
        var row = try Row.fetchOne(cachedStatement(sql: "SELECT \(list) FROM \(table) ORDER BY \(list) LIMIT 1"))
        while let found = row {
            let key = columns.map { found[$0] as String }
            keys.append(key)
            row = try Row.fetchOne(next, arguments: StatementArguments(key))
        }
        return keys
    }
}
