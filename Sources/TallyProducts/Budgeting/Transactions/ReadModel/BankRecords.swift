import TallyEngine
import GRDB

/// The statements of the bank connections read model (`budget_banks`).
enum BankRecords {
    /// Every bank ever connected, by id.
    static func all(_ db: Database) throws -> [BankConnection] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT bank_id, name, connected, consent_expires FROM budget_banks ORDER BY bank_id")).map(connection(from:))
    }

    /// The bank with this id, if it was ever connected.
    static func connection(_ id: String, _ db: Database) throws -> BankConnection? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT bank_id, name, connected, consent_expires FROM budget_banks WHERE bank_id = ?"), arguments: [id])
            .map(connection(from:))
    }

    private static func connection(from row: Row) -> BankConnection {
        BankConnection(bankId: row[BudgetTransactionColumns.bankId], name: row[BudgetTransactionColumns.name], isConnected: row[BudgetTransactionColumns.connected],
                       consentExpires: (row[BudgetTransactionColumns.consentExpires] as String?).flatMap { try? LocalDate(parsing: $0) })
    }
}
