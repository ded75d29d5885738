public import TallyEngine
public import GRDB

/// The envelopes read model: envelopes and their changes, the money assigned to them,
/// exchange rates, base currencies and the user accounts, each row with its effective and
/// recorded times, so that an answer for any date reads only rows up to it.
public struct EnvelopesProjector: SnapshotTaking {
    /// The projector; its tables are created by ``createTables(_:)``.
    public init() {}

    public let name = "envelopes"
    public let version = 4
    public let tables = [
        "envelopes", "envelope_changes", "envelope_activity", "envelope_rates", "envelope_base_currencies",
        "envelope_accounts", "envelope_snapshots",
    ]
    /// The event types this read model folds; every other passes it by.
    public var eventTypes: [any EventPayload.Type]? {
        [LedgerCreated.self, BaseCurrencySet.self, AccountOpened.self, EnvelopeCreated.self, EnvelopeBudgetChanged.self, EnvelopeRolloverSet.self, EnvelopeFunded.self, EnvelopeDeleted.self, TransactionRecorded.self, TransactionAmended.self, TransactionDeleted.self, TransferMade.self, FXRateSet.self]
    }
    public let cacheTables = ["envelope_snapshots"]

    /// Snapshots of every envelope's interval fold (``EnvelopeProgress``).
    static let snapshots = SnapshotTable(name: "envelope_snapshots")
    /// The events whose activity rows are a transaction's versions (a transfer's rows, which
    /// share the `entry_id` column, are never amended).
    static let transactionEventNames = [TransactionRecorded.eventType.name, TransactionAmended.eventType.name, TransactionDeleted.eventType.name]

    public func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE envelopes (
                envelope_id TEXT PRIMARY KEY NOT NULL,
                name TEXT NOT NULL,
                start_date INTEGER NOT NULL,
                sequence INTEGER NOT NULL,
                effective_at INTEGER NOT NULL,
                recorded_at INTEGER NOT NULL
            ) STRICT, WITHOUT ROWID;
            CREATE TABLE envelope_changes (
                sequence INTEGER PRIMARY KEY NOT NULL,
                envelope_id TEXT NOT NULL,
                kind TEXT NOT NULL,
                interval TEXT,
                commodity TEXT,
                amount INTEGER,
                policy TEXT,
                effective_at INTEGER NOT NULL,
                recorded_at INTEGER NOT NULL
            ) STRICT;
            CREATE INDEX envelope_changes_by_envelope ON envelope_changes (envelope_id, effective_at);
            CREATE INDEX envelope_changes_by_time ON envelope_changes (effective_at);
            CREATE TABLE envelope_activity (
                sequence INTEGER NOT NULL,
                part INTEGER NOT NULL,
                envelope_id TEXT NOT NULL,
                entry_id TEXT NOT NULL,
                event TEXT NOT NULL,
                reversal INTEGER NOT NULL,
                commodity TEXT NOT NULL,
                amount INTEGER NOT NULL,
                rate_to_base TEXT,
                base TEXT NOT NULL,
                received_commodity TEXT,
                received_amount INTEGER,
                effective_at INTEGER NOT NULL,
                recorded_at INTEGER NOT NULL,
                PRIMARY KEY (sequence, part)
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX envelope_activity_by_time ON envelope_activity (effective_at);
            CREATE INDEX envelope_activity_by_envelope ON envelope_activity (envelope_id, effective_at);
            CREATE INDEX envelope_activity_by_entry ON envelope_activity (entry_id, sequence, part);
            CREATE TABLE envelope_rates (
                sequence INTEGER PRIMARY KEY NOT NULL,
                base TEXT NOT NULL,
                quote TEXT NOT NULL,
                rate TEXT NOT NULL,
                source TEXT NOT NULL,
                effective_at INTEGER NOT NULL,
                recorded_at INTEGER NOT NULL
            ) STRICT;
            CREATE INDEX envelope_rates_by_time ON envelope_rates (effective_at);
            CREATE INDEX envelope_rates_by_pair ON envelope_rates (base, quote, source, effective_at);
            CREATE TABLE envelope_base_currencies (
                sequence INTEGER PRIMARY KEY NOT NULL,
                currency TEXT NOT NULL,
                effective_at INTEGER NOT NULL,
                recorded_at INTEGER NOT NULL
            ) STRICT;
            CREATE TABLE envelope_accounts (
                account TEXT PRIMARY KEY NOT NULL,
                kind TEXT NOT NULL,
                commodity TEXT NOT NULL,
                sequence INTEGER NOT NULL,
                effective_at INTEGER NOT NULL,
                recorded_at INTEGER NOT NULL
            ) STRICT, WITHOUT ROWID;
            """)
        try Self.snapshots.create(db)
    }

    public func apply(_ event: Event, _ db: Database) throws {
        let rows = EnvelopeRows(event: event, db: db)
        switch event.body.payload {
        case let created as LedgerCreated:
            try rows.base(created.baseCurrency)
        case let change as BaseCurrencySet:
            try rows.base(change.currency)
        case let opened as AccountOpened where opened.kind == .asset || opened.kind == .liability:
            try rows.account(opened)
        case let created as EnvelopeCreated:
            try rows.envelope(created)
        case let budget as EnvelopeBudgetChanged:
            try rows.change(budget.envelopeId, "budget", interval: budget.interval, amount: budget.budgeted)
        case let rollover as EnvelopeRolloverSet:
            try rows.change(rollover.envelopeId, "rollover", policy: rollover.policy)
        case let funded as EnvelopeFunded:
            try rows.change(funded.envelopeId, "funded", amount: funded.amount)
        case let deleted as EnvelopeDeleted:
            try rows.change(deleted.envelopeId, "deleted")
        case let transaction as TransactionRecorded:
            try rows.transaction(transaction)
        case let amended as TransactionAmended:
            guard let previous = try rows.reverse(amended.transactionId) else { break }
            try rows.activity(previous.amended(amount: amended.amount, by: event), part: 1, entryId: amended.transactionId)
        case let deleted as TransactionDeleted:
            _ = try rows.reverse(deleted.transactionId)
        case let transfer as TransferMade:
            try rows.transfer(transfer)
        case let fx as FXRateSet:
            try rows.rate(base: fx.base, quote: fx.quote.code, rate: fx.rate, source: .fxRate)
        default:
            throw eventNotFolded(event)
        }
    }

    public func takeSnapshots(_ db: Database, settings: SnapshotSettings, last: Event) throws {
        try EnvelopeSnapshots.take(db, settings: settings, last: last)
    }
}

extension EnvelopeBook {
    /// The earliest start date an envelope of this id had (nil: never created), for where a
    /// fold of it can begin.
    static func earliestStart(of envelopeId: String, _ db: Database) throws -> LocalDate? {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT MIN(start_date) FROM envelopes WHERE envelope_id = ?"), arguments: [envelopeId])
            .map { LocalDate(daysSinceEpoch: $0) }
    }

    /// The book as of `bound` (and as known at `knownAt`): the rows of events effective at
    /// or before it, read from the envelopes read model. Balances are not loaded (they
    /// come from the postings).
    ///
    /// With `after` (a snapshot's instant), money rows (fundings, activity) are loaded only
    /// when effective after it, and exchange rates after it plus the latest of each pair and
    /// source at it: what a fold resumed from the snapshot reads. Envelopes, their settings,
    /// policies and deletions, base currencies and accounts are always loaded whole: they
    /// are few; `envelopesThrough` loads them (and their changes) through a later instant.
    static func load(_ db: Database, effectiveThrough bound: Instant, knownAt: Instant? = nil, after: Instant? = nil,
                     envelopesThrough: Instant? = nil) throws -> EnvelopeBook {
        let known = knownAt?.microsecondsSinceEpoch ?? Int64.max
        let lower = after?.microsecondsSinceEpoch ?? Int64.min
        let arguments: StatementArguments = [bound.microsecondsSinceEpoch, known]
        let definitions = (envelopesThrough ?? bound).microsecondsSinceEpoch
        let window = "effective_at <= ? AND recorded_at <= ?"
        var book = EnvelopeBook()
        func instant(_ row: Row) -> Instant { row.instant(EnvelopeColumns.effectiveAt) }
        func sequence(_ row: Row) -> UInt64 { row.sequence(EnvelopeColumns.sequence) }
        func recorded(_ row: Row) -> Instant { row.instant(EnvelopeColumns.recordedAt) }
        // The first row is the ledger's creation: the base currency before any change, whatever the day.
        let created = try Row.fetchOne(db.cachedStatement(sql: "SELECT sequence, currency FROM envelope_base_currencies ORDER BY sequence LIMIT 1"))
        book.createdBaseCurrency = try created.map { try Commodity.named($0[EnvelopeColumns.currency]) }
        for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM envelope_base_currencies WHERE \(window) AND sequence > ? ORDER BY sequence"),
                                    arguments: arguments + [created.map(sequence).map(Int64.init) ?? -1]) {
            book.baseCurrencies.append(.init(effectiveAt: instant(row), sequence: sequence(row), recordedAt: recorded(row), value: try Commodity.named(row[EnvelopeColumns.currency])))
        }
        for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM envelope_accounts WHERE \(window)"), arguments: arguments) {
            let account: String = row[EnvelopeColumns.account]
            book.accounts[account] = EnvelopeAccount(account: account, kind: try row.kind(EnvelopeColumns.kind),
                                                     commodity: try Commodity.named(row[EnvelopeColumns.commodity]), openedAt: instant(row))
        }
        for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM envelopes WHERE \(window)"), arguments: [definitions, known]) {
            let id: String = row[EnvelopeColumns.envelopeId]
            book.envelopes[id] = EnvelopeRecord(envelopeId: id, name: row[EnvelopeColumns.name], startDate: LocalDate(daysSinceEpoch: row[EnvelopeColumns.startDate]),
                                                createdAt: instant(row), settings: [])
        }
        let changes = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT * FROM envelope_changes WHERE recorded_at <= ?
                AND ((kind != 'funded' AND effective_at <= ?) OR (kind = 'funded' AND effective_at > ? AND effective_at <= ?))
            ORDER BY sequence
            """), arguments: [known, definitions, lower, bound.microsecondsSinceEpoch])
        for row in changes {
            let id: String = row[EnvelopeColumns.envelopeId]
            guard book.envelopes[id] != nil else { continue }
            let amount: Money? = try (row[EnvelopeColumns.commodity] as String?).map { Money(minorUnits: row[EnvelopeColumns.amount], commodity: try Commodity.named($0)) }
            switch row[EnvelopeColumns.kind] as String {
            case "created", "budget":
                let interval: EnvelopeInterval = try row.kind(EnvelopeColumns.interval)
                book.envelopes[id]?.settings.append(.init(effectiveAt: instant(row), sequence: sequence(row), recordedAt: recorded(row), interval: interval, budgeted: amount!))
            case "rollover":
                book.envelopes[id]?.policies.append(.init(effectiveAt: instant(row), sequence: sequence(row), recordedAt: recorded(row), value: try row.kind(EnvelopeColumns.policy)))
            case "funded":
                book.envelopes[id]?.fundings.append(.init(effectiveAt: instant(row), sequence: sequence(row), recordedAt: recorded(row), value: amount!))
            case "deleted":
                book.envelopes[id]?.deletedAt = instant(row)
            case let kind:
                throw LedgerError(.inconsistentLog, "the envelope read model holds a change of kind '\(kind)' for envelope '\(id)'; run `tally rebuild`")
            }
        }
        book.envelopes = book.envelopes.filter { !$0.value.settings.isEmpty }
        for row in try Row.fetchAll(db.cachedStatement(sql: """
            SELECT * FROM envelope_activity WHERE \(window) AND effective_at > ? ORDER BY sequence, part
            """), arguments: arguments + [lower]) {
            book.activity.append(try activity(row))
        }
        book.quotes = try quotes(db, through: bound, knownAt: knownAt, after: after)
        return book
    }

    /// The exchange rates effective through `bound` (recorded by `knownAt`): with `after`,
    /// those effective after it and the latest of each pair and source at it.
    static func quotes(_ db: Database, through bound: Instant, knownAt: Instant?, after: Instant?) throws -> [ExchangeQuote] {
        let known = knownAt?.microsecondsSinceEpoch ?? Int64.max
        func quote(_ row: Row) throws -> ExchangeQuote {
            ExchangeQuote(
                base: try Commodity.named(row[EnvelopeColumns.base]), quote: try Commodity.named(row[EnvelopeColumns.quote]), rate: try ExactDecimal(parsing: row[EnvelopeColumns.rate]),
                effectiveAt: row.instant(EnvelopeColumns.effectiveAt), sequence: row.sequence(EnvelopeColumns.sequence),
                source: try row.kind(EnvelopeColumns.source)
            )
        }
        guard let after else {
            return try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM envelope_rates WHERE effective_at <= ? AND recorded_at <= ? ORDER BY sequence"),
                                    arguments: [bound.microsecondsSinceEpoch, known]).map(quote)
        }
        let start = min(after, bound).microsecondsSinceEpoch
        var result: [ExchangeQuote] = []
        // The latest quote of each pair and source at `after`: one indexed lookup per pair.
        for key in try db.distinctKeys("envelope_rates", ["base", "quote", "source"]) {
            if let row = try Row.fetchOne(db.cachedStatement(sql: """
                SELECT * FROM envelope_rates WHERE base = ? AND quote = ? AND source = ? AND effective_at <= ? AND recorded_at <= ?
                ORDER BY effective_at DESC, sequence DESC LIMIT 1
                """), arguments: StatementArguments(key) + [start, known]) {
                result.append(try quote(row))
            }
        }
        result += try Row.fetchAll(db.cachedStatement(sql: """
            SELECT * FROM envelope_rates WHERE effective_at > ? AND effective_at <= ? AND recorded_at <= ? ORDER BY sequence
            """), arguments: [start, bound.microsecondsSinceEpoch, known]).map(quote)
        return result
    }

    /// An activity row of the read model.
    static func activity(_ row: Row) throws -> EnvelopeActivity {
        let received: Money? = try (row[EnvelopeColumns.receivedCommodity] as String?).map { Money(minorUnits: row[EnvelopeColumns.receivedAmount], commodity: try Commodity.named($0)) }
        return EnvelopeActivity(
            envelopeId: row[EnvelopeColumns.envelopeId], sequence: row.sequence(EnvelopeColumns.sequence), eventType: row[EnvelopeColumns.event],
            effectiveAt: row.instant(EnvelopeColumns.effectiveAt), recordedAt: row.instant(EnvelopeColumns.recordedAt),
            amount: try row.money(EnvelopeColumns.amount, EnvelopeColumns.commodity),
            rateToBase: try (row[EnvelopeColumns.rateToBase] as String?).map(ExactDecimal.init(parsing:)),
            base: try Commodity.named(row[EnvelopeColumns.base]), received: received, isReversal: (row[EnvelopeColumns.reversal] as Int) != 0
        )
    }

    /// The user accounts' balances at `bound`, from the balances' roll-ups (sub-linear),
    /// for ``total(balances:at:)``.
    static func accountBalances(_ db: Database, effectiveThrough bound: Instant, knownAt: Instant? = nil) throws -> [(account: String, amount: Money)] {
        let opened = Set(try String.fetchAll(db.cachedStatement(sql: "SELECT account FROM envelope_accounts WHERE effective_at <= ? AND recorded_at <= ?"),
                                             arguments: [bound.microsecondsSinceEpoch, knownAt?.microsecondsSinceEpoch ?? Int64.max]))
        return try BalanceQueries.balances(db, asOf: bound, knownAt: knownAt)
            .filter { opened.contains($0.account) }
            .map { (account: $0.account, amount: $0.amount) }
    }
}

/// The columns of this read model's tables and query results, by name: the one place a
/// column's name is spelled outside the statements that create, write and select it.
enum EnvelopeColumns {
    static let account = Column("account")
    static let amount = Column("amount")
    static let base = Column("base")
    static let commodity = Column("commodity")
    static let currency = Column("currency")
    static let effectiveAt = Column("effective_at")
    static let envelopeId = Column("envelope_id")
    static let event = Column("event")
    static let interval = Column("interval")
    static let kind = Column("kind")
    static let name = Column("name")
    static let policy = Column("policy")
    static let quote = Column("quote")
    static let rate = Column("rate")
    static let rateToBase = Column("rate_to_base")
    static let receivedAmount = Column("received_amount")
    static let receivedCommodity = Column("received_commodity")
    static let recordedAt = Column("recorded_at")
    static let reversal = Column("reversal")
    static let sequence = Column("sequence")
    static let source = Column("source")
    static let startDate = Column("start_date")
}

/// The rows one event writes to the envelopes read model, one step per kind of row: the
/// projector's `apply` names the step each event takes.
private struct EnvelopeRows {
    let event: Event
    let db: Database

    /// Every row that changes an envelope's answers retires the snapshots it falls in.
    func changed(at instant: Instant) throws {
        try EnvelopesProjector.snapshots.supersede(effectiveAt: instant, recordedAt: event.recordedAt, db)
    }
    /// A change to an envelope's definition (created, budget, rollover, funded, deleted).
    func change(_ envelopeId: String, _ kind: String, interval: EnvelopeInterval? = nil, amount: Money? = nil, policy: RolloverPolicy? = nil) throws {
        try db.cachedStatement(sql: """
                INSERT INTO envelope_changes (sequence, envelope_id, kind, interval, commodity, amount, policy, effective_at, recorded_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """).execute(arguments: [
                    event.rowSequence, envelopeId, kind, interval?.rawValue, amount?.commodity.code, amount?.minorUnits, policy?.rawValue, event.rowEffectiveAt, event.rowRecordedAt,
                ])
        try changed(at: event.effectiveAt)
    }
    /// The base currency in force at the event's effective time, as recorded so far (the
    /// one the command decided by, ``EnvelopeBook/decisionBase(at:)``): the latest change
    /// by then; before any, the one the ledger was created with (the first row).
    func currentBase() throws -> String {
        try String.fetchOne(db.cachedStatement(sql: """
            SELECT currency FROM envelope_base_currencies
            WHERE effective_at <= ? AND sequence > (SELECT MIN(sequence) FROM envelope_base_currencies)
            ORDER BY effective_at DESC, sequence DESC LIMIT 1
            """), arguments: [event.rowEffectiveAt])
            ?? String.fetchOne(db.cachedStatement(sql: "SELECT currency FROM envelope_base_currencies ORDER BY sequence LIMIT 1"))
            ?? { throw LedgerError(.inconsistentLog, "event \(event.sequence) (\(event.type.name)) comes before any base currency: the log has no ledger_created before it") }()
    }
    /// One activity row (a transaction's version or a transfer) of an envelope.
    func activity(_ row: EnvelopeActivity, part: Int, entryId: String) throws {
        try db.cachedStatement(sql: """
            INSERT INTO envelope_activity
                (sequence, part, envelope_id, entry_id, event, reversal, commodity, amount, rate_to_base, base, received_commodity, received_amount, effective_at, recorded_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [
                event.rowSequence, part, row.envelopeId, entryId, row.eventType, row.isReversal ? 1 : 0, row.amount.commodity.code, row.amount.minorUnits,
                row.rateToBase?.decimalString, row.base.code, row.received?.commodity.code, row.received?.minorUnits,
                row.effectiveAt.microsecondsSinceEpoch, event.rowRecordedAt,
            ])
        try changed(at: row.effectiveAt)
    }
    /// The version in force of a transaction assigned to an envelope, if any: its last
    /// activity row, unless that row took it out (a deletion's reversal). The rows
    /// themselves are the history of its versions; no second table keeps which is current.
    func currentEntry(_ entryId: String) throws -> EnvelopeActivity? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT * FROM envelope_activity WHERE entry_id = ? AND event IN (?, ?, ?)
            ORDER BY sequence DESC, part DESC LIMIT 1
            """), arguments: StatementArguments([entryId] + EnvelopesProjector.transactionEventNames)) else { return nil }
        let latest = try EnvelopeBook.activity(row)
        return latest.isReversal ? nil : latest
    }
    /// Takes a transaction's current version out (a reversal row at its date), for an
    /// amendment or a deletion.
    func reverse(_ entryId: String) throws -> EnvelopeActivity? {
        guard let previous = try currentEntry(entryId) else { return nil }
        try activity(try previous.reversal(by: event), part: 0, entryId: entryId)
        return previous
    }
    /// An exchange rate, from a transaction or an `fx_rate_set`.
    func rate(base: Commodity, quote: String, rate: ExactDecimal, source: ExchangeQuote.Source) throws {
        try db.cachedStatement(sql: "INSERT INTO envelope_rates (sequence, base, quote, rate, source, effective_at, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
            .execute(arguments: [event.rowSequence, base.code, quote, rate.decimalString, source.rawValue, event.rowEffectiveAt, event.rowRecordedAt])
        try changed(at: event.effectiveAt)
    }
    /// The base currency from the event's effective time on.
    func base(_ currency: Commodity) throws {
        try db.cachedStatement(sql: "INSERT INTO envelope_base_currencies (sequence, currency, effective_at, recorded_at) VALUES (?, ?, ?, ?)")
            .execute(arguments: [event.rowSequence, currency.code, event.rowEffectiveAt, event.rowRecordedAt])
        try changed(at: event.effectiveAt)
    }

    /// An asset or liability account, which envelopes' transactions may name.
    func account(_ opened: AccountOpened) throws {
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO envelope_accounts (account, kind, commodity, sequence, effective_at, recorded_at) VALUES (?, ?, ?, ?, ?, ?)")
            .execute(arguments: [
                opened.account, opened.kind.rawValue, opened.commodity.code, event.rowSequence, event.rowEffectiveAt, event.rowRecordedAt,
            ])
    }

    /// A created envelope: a second creation of the same id starts its history again, as
    /// the fold does, and every snapshot is retired.
    func envelope(_ created: EnvelopeCreated) throws {
        try db.cachedStatement(sql: "DELETE FROM envelope_changes WHERE envelope_id = ?").execute(arguments: [created.envelopeId])
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO envelopes (envelope_id, name, start_date, sequence, effective_at, recorded_at) VALUES (?, ?, ?, ?, ?, ?)")
            .execute(arguments: [
                created.envelopeId, created.name, created.startDate.daysSinceEpoch, event.rowSequence, event.rowEffectiveAt, event.rowRecordedAt,
            ])
        try EnvelopesProjector.snapshots.supersedeAll(recordedAt: event.recordedAt, db)
        try change(created.envelopeId, "created", interval: created.interval, amount: created.budgeted)
    }

    /// A transaction: its rate to the base currency in force, and its activity row when it
    /// is assigned to an envelope.
    func transaction(_ transaction: TransactionRecorded) throws {
        let base = try currentBase()
        if let rateToBase = transaction.rateToBase, transaction.amount.commodity.code != base {
            try rate(base: transaction.amount.commodity, quote: base, rate: rateToBase, source: .transaction)
        }
        if let envelope = transaction.envelope {
            try activity(EnvelopeActivity(
                envelopeId: envelope, sequence: event.sequence, eventType: event.type.name, effectiveAt: event.effectiveAt,
                recordedAt: event.recordedAt, amount: transaction.amount,
                rateToBase: transaction.rateToBase, base: try Commodity.named(base), received: nil
            ), part: 0, entryId: transaction.transactionId)
        }
    }

    /// A transfer out of an envelope's account: an activity row for what left it.
    func transfer(_ transfer: TransferMade) throws {
        if let envelope = transfer.envelope {
            try activity(EnvelopeActivity(
                envelopeId: envelope, sequence: event.sequence, eventType: event.type.name, effectiveAt: event.effectiveAt,
                recordedAt: event.recordedAt, amount: try transfer.amount.negated(),
                rateToBase: nil, base: try Commodity.named(try currentBase()), received: try transfer.received?.negated()
            ), part: 0, entryId: transfer.transferId)
        }
    }
}
