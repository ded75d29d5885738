public import TallyEngine
import GRDB

// Bank connections (docs/domain.md §2): transactions are imported only from a connected bank;
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
    /// - Parameter idempotencyKey: an optional key; a repeat with the same id and name
    ///   returns the first result and appends nothing, one with others is refused.
    /// - Throws: ``LedgerError`` `alreadyExists` (connected already), `invalidArgument`,
    ///   `idempotencyConflict`.
    @discardableResult
    public func connectBank(id: String, name: String? = nil, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(connectBankCommand(id: id, name: name, idempotencyKey: idempotencyKey))
    }

    /// The command ``connectBank(id:name:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func connectBankCommand(id: String, name: String? = nil, idempotencyKey: String? = nil) throws -> LedgerCommand {
        let id = try BudgetSettings.validIdentifier(id, "the bank id")
        let connected = NewEvent(effectiveAt: now, body: EventBody(BankConnected(
            bankId: id, name: try BudgetSettings.validName(name ?? id, "the bank name"))))
        return LedgerCommand(idempotencyKey: idempotencyKey, request: connected, requestHasEffectiveTime: false) { db in
            if try BankRules.connection(id, db)?.isConnected == true {
                throw LedgerError(.alreadyExists, "bank '\(id)' is connected already")
            }
            return [connected]
        }
    }

    /// Disconnects a bank. Every transaction it imported stays.
    ///
    /// ```swift
    /// try ledger.disconnectBank(id: "chase")
    /// ```
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat for the same bank returns the
    ///   first result and appends nothing, one for another bank is refused.
    /// - Throws: ``LedgerError`` `notFound` (not connected), `idempotencyConflict`.
    @discardableResult
    public func disconnectBank(id: String, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(disconnectBankCommand(id: id, idempotencyKey: idempotencyKey))
    }

    /// The command ``disconnectBank(id:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func disconnectBankCommand(id: String, idempotencyKey: String? = nil) throws -> LedgerCommand {
        let disconnected = NewEvent(effectiveAt: now, body: EventBody(BankDisconnected(bankId: id)))
        return LedgerCommand(idempotencyKey: idempotencyKey, request: disconnected, requestHasEffectiveTime: false) { db in
            guard try BankRules.connection(id, db)?.isConnected == true else {
                throw LedgerError(.notFound, "bank '\(id)' is not connected")
            }
            return [disconnected]
        }
    }

    /// Every bank ever connected, by id; disconnected ones included.
    ///
    /// ```swift
    /// for bank in try ledger.banks() where bank.isConnected { print(bank.bankId, bank.name) }
    /// ```
    public func banks() throws -> [BankConnection] {
        try read { db in
            try BankRecords.all(db)
        }
    }
}

/// The checks bank commands share.
enum BankRules {
    static func connection(_ id: String, _ db: Database) throws -> BankConnection? {
        try BankRecords.connection(id, db)
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
