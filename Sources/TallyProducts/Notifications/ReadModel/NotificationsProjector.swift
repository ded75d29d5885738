public import TallyEngine
public import GRDB

/// The notifications read model's own fold (docs/notifications.md): the event-driven
/// notifications a single event announces, kept as the events say them.
///
/// `notification_deposits` holds a row per `deposit_received`, completed by the
/// `deposit_split` that names it (its cause) and by the `wealth_entry_reversed` that takes it
/// back, each with its effective and recorded times, so that an answer as of a date and as
/// known at an instant reads one indexed table. `notification_bank_changes` holds each bank
/// connection, consent and disconnection with its times, for `bank_consent_expiring`. The state-driven kinds (a budget overspent,
/// a bill due) are derived at read time from the products' read models by the rules in
/// `Notifications/StandardNotifications.swift`; this fold never validates.
public struct NotificationsProjector: Projector {
    /// The read model, as ``NotificationsFeature`` registers it.
    public init() {}

    /// The checkpoint key, `notifications`.
    public let name = "notifications"
    /// The version of the table and the fold; a change folds it again from the log.
    public let version = 2
    /// `notification_deposits`, `notification_bank_changes`.
    public let tables = ["notification_deposits", "notification_bank_changes"]
    /// The wealth account's deposits, splits and reversals, and the banks' connections,
    /// consents and disconnections; every other event passes by.
    public var eventTypes: [any EventPayload.Type]? {
        [DepositReceived.self, DepositSplit.self, WealthEntryReversed.self, BankConnected.self, BankConsentGranted.self, BankDisconnected.self]
    }

    /// Creates the table and its index by account and time.
    public func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE notification_deposits (
                sequence INTEGER PRIMARY KEY NOT NULL,
                account TEXT NOT NULL,
                commodity TEXT NOT NULL,
                amount INTEGER NOT NULL,
                source TEXT NOT NULL,
                effective_at INTEGER NOT NULL,
                recorded_at INTEGER NOT NULL,
                split_sequence INTEGER,
                spend INTEGER,
                invest INTEGER,
                spend_weight INTEGER,
                invest_weight INTEGER,
                split_effective_at INTEGER,
                split_recorded_at INTEGER,
                reversed_sequence INTEGER,
                reversed_effective_at INTEGER,
                reversed_recorded_at INTEGER
            ) STRICT;
            CREATE INDEX notification_deposits_by_time ON notification_deposits (effective_at, sequence);
            CREATE TABLE notification_bank_changes (
                sequence INTEGER PRIMARY KEY NOT NULL,
                bank_id TEXT NOT NULL,
                change TEXT NOT NULL,
                name TEXT,
                expires_on TEXT,
                effective_at INTEGER NOT NULL,
                recorded_at INTEGER NOT NULL
            ) STRICT;
            CREATE INDEX notification_bank_changes_by_bank ON notification_bank_changes (bank_id, sequence);
            """)
    }

    /// Folds a deposit, its split or its reversal.
    ///
    /// Cached statements bound through the C API: a row per deposit and per split, on every
    /// deposit command (compiling them each time was a fifth of a deposit's cost).
    public func apply(_ event: Event, _ db: Database) throws {
        let effective = event.rowEffectiveAt
        let recorded = event.rowRecordedAt
        switch event.body.payload {
        case let deposit as DepositReceived:
            let insert = RawStatement(try db.cachedStatement(sql: """
                INSERT INTO notification_deposits (sequence, account, commodity, amount, source, effective_at, recorded_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """))
            insert.bind(1, event.rowSequence)
            insert.bind(2, deposit.account)
            insert.bind(3, deposit.amount.commodity.code)
            insert.bind(4, deposit.amount.minorUnits)
            insert.bind(5, deposit.source.rawValue)
            insert.bind(6, effective)
            insert.bind(7, recorded)
            try insert.step(db)
        case let split as DepositSplit:
            guard let deposit = event.cause else {
                throw LedgerError(.inconsistentLog, "deposit_split \(event.sequence) names no deposit as its cause")
            }
            let update = RawStatement(try db.cachedStatement(sql: """
                UPDATE notification_deposits SET split_sequence = ?, spend = ?, invest = ?, spend_weight = ?, invest_weight = ?,
                    split_effective_at = ?, split_recorded_at = ?
                WHERE sequence = ?
                """))
            update.bind(1, event.rowSequence)
            update.bind(2, split.spend.minorUnits)
            update.bind(3, split.invest.minorUnits)
            update.bind(4, split.spendWeight)
            update.bind(5, split.investWeight)
            update.bind(6, effective)
            update.bind(7, recorded)
            update.bind(8, Int64(deposit))
            try update.step(db)
        case let reversal as WealthEntryReversed:
            guard reversal.kind == .deposit else { return }
            let update = RawStatement(try db.cachedStatement(sql: """
                UPDATE notification_deposits SET reversed_sequence = ?, reversed_effective_at = ?, reversed_recorded_at = ?
                WHERE sequence = ?
                """))
            update.bind(1, event.rowSequence)
            update.bind(2, effective)
            update.bind(3, recorded)
            update.bind(4, reversal.entry)
            try update.step(db)
        case let bank as BankConnected:
            try bankChange(event, bank.bankId, "connected", name: bank.name, expiresOn: nil, db)
        case let consent as BankConsentGranted:
            try bankChange(event, consent.bankId, "consent", name: nil, expiresOn: consent.expiresOn, db)
        case let bank as BankDisconnected:
            try bankChange(event, bank.bankId, "disconnected", name: nil, expiresOn: nil, db)
        default:
            throw eventNotFolded(event)
        }
    }

    private func bankChange(_ event: Event, _ bank: String, _ change: String, name: String?, expiresOn: LocalDate?, _ db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO notification_bank_changes (sequence, bank_id, change, name, expires_on, effective_at, recorded_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [event.rowSequence, bank, change, name, expiresOn?.description,
                                     event.rowEffectiveAt, event.rowRecordedAt])
    }
}
