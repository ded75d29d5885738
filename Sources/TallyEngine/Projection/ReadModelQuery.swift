public import GRDB

/// A typed read of the read models: the one way an application reads a feature's tables.
///
/// A query is written once, in the read-model layer of the feature that owns the tables
/// (beside its projector, where its SQL lives), and called by value everywhere else, so
/// call sites hold no SQL and never see the database:
///
/// ```swift
/// // MerchantTags/ReadModel/MerchantTagQueries.swift: the statements and row types.
/// enum MerchantTagQueries {
///     static func merchant(of account: String) -> ReadModelQuery<String?> {
///         ReadModelQuery { db in
///             try String.fetchOne(db.cachedStatement(sql: "SELECT merchant FROM merchant_tags WHERE account = ?"), arguments: [account])
///         }
///     }
/// }
///
/// // Anywhere else: a value, read in one consistent snapshot.
/// let merchant = try ledger.read(MerchantTagQueries.merchant(of: "Assets:Till"))
/// ```
///
/// Several queries read in one snapshot by composing them into one
/// (``ReadModelQuery/fetch(_:)`` inside another query's body), and the same query serves
/// a command's plan, which is handed the database it plans against.
public struct ReadModelQuery<Value>: Sendable {
    private let body: @Sendable (Database) throws -> Value

    /// Makes a query from the statements that answer it; write it in the read-model layer.
    ///
    /// - Parameter body: reads the tables and returns the typed answer; it must not write.
    public init(_ body: @escaping @Sendable (Database) throws -> Value) {
        self.body = body
    }

    /// Runs the query inside a read (or a command's plan) that is already open.
    ///
    /// - Throws: whatever the query's statements throw.
    public func fetch(_ db: Database) throws -> Value {
        try body(db)
    }

    /// A query whose answer is this one's, transformed.
    ///
    /// ```swift
    /// let tagged = MerchantTagQueries.all.map(\.count)
    /// ```
    public func map<Other>(_ transform: @escaping @Sendable (Value) throws -> Other) -> ReadModelQuery<Other> {
        let body = self.body
        return ReadModelQuery<Other> { db in try transform(body(db)) }
    }
}
