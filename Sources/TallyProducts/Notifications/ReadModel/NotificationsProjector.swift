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
        var state = RunState()
        try apply(event, laterSplit: nil, db, &state)
    }

    /// Folds a run of events into exactly the rows the one-by-one fold gives, with fewer
    /// writes: a deposit split later in the run (a deposit command's own split) is written with
    /// its split, the last of the run that names it, and no split of the run updates it after.
    public func apply(_ events: ArraySlice<Event>, _ db: Database) throws {
        var state = RunState()
        // Where each deposit's last split lies in the run, its cause the deposit's sequence number.
        EventCodeSet.forEach(of: Self.splits, in: events) { split, index in
            if let cause = split.cause { state.lastSplit[cause] = index }
        }
        try EventCodeSet.forEach(of: Self.codes, in: events) { event, index in
            var laterSplit: Event?
            if let place = state.lastSplit[event.sequence], place > index { laterSplit = events[events.startIndex + place] }
            try apply(event, laterSplit: laterSplit, db, &state)
        }
    }

    /// The codes of ``eventTypes``, for the run fold's test of each event.
    private static let codes = EventCodeSet(types: NotificationsProjector().eventTypes ?? [])
    /// The code of `deposit_split`, for the run's look ahead.
    private static let splits = EventCodeSet(types: [DepositSplit.self])

    /// Folds one event of a run; `laterSplit`: for a deposit, the last split of the run that
    /// names it, when it comes later in the run.
    private func apply(_ event: Event, laterSplit: Event?, _ db: Database, _ state: inout RunState) throws {
        let effective = event.rowEffectiveAt
        let recorded = event.rowRecordedAt
        switch event.body.payload {
        case let deposit as DepositReceived:
            if let laterSplit, let split = laterSplit.body.as(DepositSplit.self) {
                try insert(deposit, event, split: split, laterSplit, db)
                state.writtenWithSplit.insert(event.sequence)
                return
            }
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
            // The deposit's row was written with the run's last split that names it.
            if state.writtenWithSplit.contains(deposit) { return }
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

    /// A deposit's row written with its split's columns: the row its insert and the split's
    /// update give.
    private func insert(_ deposit: DepositReceived, _ event: Event, split: DepositSplit, _ splitEvent: Event, _ db: Database) throws {
        let insert = RawStatement(try db.cachedStatement(sql: """
            INSERT INTO notification_deposits (sequence, account, commodity, amount, source, effective_at, recorded_at,
                split_sequence, spend, invest, spend_weight, invest_weight, split_effective_at, split_recorded_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """))
        insert.bind(1, event.rowSequence)
        insert.bind(2, deposit.account)
        insert.bind(3, deposit.amount.commodity.code)
        insert.bind(4, deposit.amount.minorUnits)
        insert.bind(5, deposit.source.rawValue)
        insert.bind(6, event.rowEffectiveAt)
        insert.bind(7, event.rowRecordedAt)
        insert.bind(8, splitEvent.rowSequence)
        insert.bind(9, split.spend.minorUnits)
        insert.bind(10, split.invest.minorUnits)
        insert.bind(11, split.spendWeight)
        insert.bind(12, split.investWeight)
        insert.bind(13, splitEvent.rowEffectiveAt)
        insert.bind(14, splitEvent.rowRecordedAt)
        try insert.step(db)
    }

    private func bankChange(_ event: Event, _ bank: String, _ change: String, name: String?, expiresOn: LocalDate?, _ db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO notification_bank_changes (sequence, bank_id, change, name, expires_on, effective_at, recorded_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [event.rowSequence, bank, change, name, expiresOn?.description,
                                     event.rowEffectiveAt, event.rowRecordedAt])
    }
}

/// What the fold of one run of events knows of the run: where the last split naming each
/// deposit lies, and the deposits whose rows were written with it.
private struct RunState {
    var lastSplit: [UInt64: Int] = [:]
    var writtenWithSplit: Set<UInt64> = []
}
