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
    /// The last day of the user's consent in force (``BankConsentGranted``); nil when none was
    /// recorded since the bank was last connected.
    public var consentExpires: LocalDate? = nil
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
    public func connectBank(id: String, name: String? = nil, consentExpires: LocalDate? = nil, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(connectBankCommand(id: id, name: name, consentExpires: consentExpires, idempotencyKey: idempotencyKey))
    }

    /// The command ``connectBank(id:name:consentExpires:idempotencyKey:)`` runs, as a value: for
    /// `run(batch:)` (many commands, one commit) or the async `run(_:)`. It checks its input at
    /// once and is planned when the pipeline reaches it.
    ///
    /// With `consentExpires`, the connection and the user's consent (``BankConsentGranted``,
    /// caused by it) are recorded together. A repeat of the idempotency key is compared by
    /// the connection (id and name), as every command is by its first event: to change the
    /// consent later, renew it (``renewBankConsent(id:expiresOn:idempotencyKey:)``).
    public func connectBankCommand(id: String, name: String? = nil, consentExpires: LocalDate? = nil, idempotencyKey: String? = nil) throws -> LedgerCommand {
        let id = try BudgetSettings.validIdentifier(id, "the bank id")
        let at = now
        let connected = NewEvent(effectiveAt: at, body: EventBody(BankConnected(
            bankId: id, name: try NameRule.name(name ?? id, "the bank name"))))
        let consent = try consentExpires.map { day in
            try BankRules.requireConsent(day, givenAt: at, calendar: calendar)
            return NewEvent(effectiveAt: at, cause: .earlierInBatch(0), body: EventBody(BankConsentGranted(bankId: id, expiresOn: day)))
        }
        return LedgerCommand(idempotencyKey: idempotencyKey, request: connected, requestHasEffectiveTime: false) { db in
            if try BankRules.connection(id, db)?.isConnected == true {
                throw LedgerError(.alreadyExists, "bank '\(id)' is connected already")
            }
            return [connected] + (consent.map { [$0] } ?? [])
        }
    }

    /// Records the user's renewed consent to read a connected bank until the end of
    /// `expiresOn` (docs/domain.md §2): it replaces the consent in force, and a renewal before
    /// the `bank_consent_expiring` window opens withdraws that notification.
    ///
    /// ```swift
    /// try ledger.renewBankConsent(id: "chase", expiresOn: try LocalDate(parsing: "2026-11-30"))
    /// ```
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat with the same bank and day
    ///   returns the first result and appends nothing, one with others is refused.
    /// - Throws: ``LedgerError`` `notFound` (the bank is not connected), `invalidArgument`
    ///   (a day before today), `idempotencyConflict`.
    @discardableResult
    public func renewBankConsent(id: String, expiresOn: LocalDate, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(renewBankConsentCommand(id: id, expiresOn: expiresOn, idempotencyKey: idempotencyKey))
    }

    /// The command ``renewBankConsent(id:expiresOn:idempotencyKey:)`` runs, as a value: for
    /// `run(batch:)` (many commands, one commit) or the async `run(_:)`. It checks its input at
    /// once and is planned when the pipeline reaches it.
    public func renewBankConsentCommand(id: String, expiresOn: LocalDate, idempotencyKey: String? = nil) throws -> LedgerCommand {
        let at = now
        try BankRules.requireConsent(expiresOn, givenAt: at, calendar: calendar)
        let consent = NewEvent(effectiveAt: at, body: EventBody(BankConsentGranted(bankId: id, expiresOn: expiresOn)))
        return LedgerCommand(idempotencyKey: idempotencyKey, request: consent, requestHasEffectiveTime: false) { db in
            guard try BankRules.connection(id, db)?.isConnected == true else {
                throw LedgerError(.notFound, "bank '\(id)' is not connected; connect it with its consent (--consent-expires) instead")
            }
            return [consent]
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

    /// How many days before a bank consent's last day `bank_consent_expiring` tells: from the
    /// first instant of the day 7 days before it (docs/domain.md §2).
    static let consentExpiringDays = 7

    /// A consent must cover the day it is given, at least.
    static func requireConsent(_ expiresOn: LocalDate, givenAt: Instant, calendar: LedgerCalendar) throws {
        let today = calendar.date(of: givenAt)
        guard expiresOn >= today else {
            throw LedgerError(.invalidArgument, "the consent's last day \(expiresOn) is before today (\(today)); give the day the bank's consent ends")
        }
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
