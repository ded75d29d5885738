import TallyEngine
import GRDB

/// The version in force of a transaction as the balances read model keeps it: the event
/// that recorded it and the account it moves. What envelope corrections read before they
/// plan (``Ledger/amendEnvelopeTransaction(_:amount:payee:effectiveAt:idempotencyKey:)``).
struct EnvelopeTransactionVersion: Hashable, Sendable {
    /// The event that recorded the version in force (`transaction_recorded` or `transaction_amended`).
    let sequence: UInt64
    /// The account it moves.
    let account: String
    /// Whether it was deleted (reversed): no version is in force.
    let deleted: Bool
}

enum EnvelopeTransactionVersions {
    /// The transaction's version as it stands; nil when no transaction has that id.
    static func version(of transactionId: String, _ db: Database) throws -> EnvelopeTransactionVersion? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT sequence, account, deleted FROM transaction_versions WHERE transaction_id = ?"),
                                         arguments: [transactionId]) else { return nil }
        let sequence: Int64 = row[0]
        let deleted: Int64 = row[2]
        return EnvelopeTransactionVersion(sequence: UInt64(sequence), account: row[1], deleted: deleted != 0)
    }
}
