import GRDB

// Bank connections (DOMAIN.md §2): transactions are imported only from a connected bank;
// disconnecting keeps every transaction it imported.

/// A bank connection.
public struct BankConnection: Hashable, Sendable {
    /// The bank's id, chosen when connected.
    public let bankId: String
    /// Its display name.
    public let name: String
    /// False once disconnected; its transactions stay.
    public let isConnected: Bool
}

extension Ledger {
    /// Connects a bank, so its transactions can be imported; reconnecting one that was
    /// disconnected is allowed.
    ///
    /// ```swift
    /// try ledger.connectBank(id: "chase", name: "Chase Checking")
    /// ```
    ///
    /// - Throws: ``LedgerError`` `alreadyExists` (connected already), `invalidArgument`.
    @discardableResult
    public func connectBank(id: String, name: String? = nil) throws -> CommandResult {
        try perform { db in
            let id = try BudgetSettings.validIdentifier(id, "the bank id")
            let name = try BudgetSettings.validName(name ?? id, "the bank name")
            if try BankRules.connection(id, db)?.isConnected == true {
                throw LedgerError(.alreadyExists, "bank '\(id)' is connected already")
            }
            return [NewEvent(effectiveAt: now, body: .bankConnected(BankConnected(bankId: id, name: name)))]
        }
    }

    /// Disconnects a bank. Every transaction it imported stays.
    ///
    /// ```swift
    /// try ledger.disconnectBank(id: "chase")
    /// ```
    ///
    /// - Throws: ``LedgerError`` `notFound` (not connected).
    @discardableResult
    public func disconnectBank(id: String) throws -> CommandResult {
        try perform { db in
            guard try BankRules.connection(id, db)?.isConnected == true else {
                throw LedgerError(.notFound, "bank '\(id)' is not connected")
            }
            return [NewEvent(effectiveAt: now, body: .bankDisconnected(BankDisconnected(bankId: id)))]
        }
    }

    /// Every bank ever connected, by id.
    public func banks() throws -> [BankConnection] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM budget_banks ORDER BY bank_id").map(BankRules.connection(from:))
        }
    }
}

/// The checks bank commands share.
enum BankRules {
    static func connection(from row: Row) -> BankConnection {
        BankConnection(bankId: row["bank_id"], name: row["name"], isConnected: row["connected"])
    }

    static func connection(_ id: String, _ db: Database) throws -> BankConnection? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM budget_banks WHERE bank_id = ?"), arguments: [id]).map(connection(from:))
    }

    /// Imports need a connected bank.
    static func requireConnected(_ id: String, _ db: Database) throws {
        guard let bank = try connection(id, db) else {
            throw LedgerError(.notFound, "bank '\(id)' was never connected; connect it first")
        }
        guard bank.isConnected else {
            throw LedgerError(.notAllowed, "bank '\(id)' is disconnected; reconnect it to import its transactions")
        }
    }
}
