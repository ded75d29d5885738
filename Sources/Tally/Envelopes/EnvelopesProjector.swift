public import GRDB

/// The envelopes read model: envelopes and their changes, the money assigned to them,
/// exchange rates, base currencies and the user accounts, each row with its effective and
/// recorded times, so that an answer for any date reads only rows up to it.
public struct EnvelopesProjector: Projector {
    /// The projector; its tables are created by ``createTables(_:)``.
    public init() {}

    public let name = "envelopes"
    public let version = 1
    public let tables = ["envelopes", "envelope_changes", "envelope_activity", "envelope_rates", "envelope_base_currencies", "envelope_accounts"]

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
            CREATE TABLE envelope_activity (
                sequence INTEGER PRIMARY KEY NOT NULL,
                envelope_id TEXT NOT NULL,
                commodity TEXT NOT NULL,
                amount INTEGER NOT NULL,
                rate_to_base TEXT,
                base TEXT NOT NULL,
                received_commodity TEXT,
                received_amount INTEGER,
                effective_at INTEGER NOT NULL,
                recorded_at INTEGER NOT NULL
            ) STRICT;
            CREATE INDEX envelope_activity_by_time ON envelope_activity (effective_at);
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
    }

    public func apply(_ event: Event, _ db: Database) throws {
        let sequence = Int64(event.sequence)
        let effective = event.effectiveAt.microsecondsSinceEpoch
        let recorded = event.recordedAt.microsecondsSinceEpoch
        func change(_ envelopeId: String, _ kind: String, interval: EnvelopeInterval? = nil, amount: Money? = nil, policy: RolloverPolicy? = nil) throws {
            try db.execute(
                sql: """
                    INSERT INTO envelope_changes (sequence, envelope_id, kind, interval, commodity, amount, policy, effective_at, recorded_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [sequence, envelopeId, kind, interval?.rawValue, amount?.commodity.code, amount?.minorUnits, policy?.rawValue, effective, recorded]
            )
        }
        func currentBase() throws -> String {
            try String.fetchOne(db, sql: "SELECT currency FROM envelope_base_currencies ORDER BY sequence DESC LIMIT 1") ?? "USD"
        }
        func activity(_ envelopeId: String, _ amount: Money, rate: ExactDecimal?, received: Money?) throws {
            try db.execute(
                sql: """
                    INSERT INTO envelope_activity
                        (sequence, envelope_id, commodity, amount, rate_to_base, base, received_commodity, received_amount, effective_at, recorded_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [sequence, envelopeId, amount.commodity.code, amount.minorUnits, rate?.decimalString, try currentBase(),
                            received?.commodity.code, received?.minorUnits, effective, recorded]
            )
        }
        func rate(base: Commodity, quote: String, rate: ExactDecimal, source: ExchangeQuote.Source) throws {
            try db.execute(
                sql: "INSERT INTO envelope_rates (sequence, base, quote, rate, source, effective_at, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                arguments: [sequence, base.code, quote, rate.decimalString, source.rawValue, effective, recorded]
            )
        }
        func base(_ currency: Commodity) throws {
            try db.execute(
                sql: "INSERT INTO envelope_base_currencies (sequence, currency, effective_at, recorded_at) VALUES (?, ?, ?, ?)",
                arguments: [sequence, currency.code, effective, recorded]
            )
        }
        switch event.body {
        case .ledgerCreated(let created):
            try base(created.baseCurrency)
        case .baseCurrencySet(let change):
            try base(change.currency)
        case .accountOpened(let opened) where opened.kind == .asset || opened.kind == .liability:
            try db.execute(
                sql: "INSERT OR REPLACE INTO envelope_accounts (account, kind, commodity, sequence, effective_at, recorded_at) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [opened.account, opened.kind.rawValue, opened.commodity.code, sequence, effective, recorded]
            )
        case .envelopeCreated(let created):
            // A second creation of the same id starts its history again, as the fold does.
            try db.execute(sql: "DELETE FROM envelope_changes WHERE envelope_id = ?", arguments: [created.envelopeId])
            try db.execute(
                sql: "INSERT OR REPLACE INTO envelopes (envelope_id, name, start_date, sequence, effective_at, recorded_at) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [created.envelopeId, created.name, created.startDate.daysSinceEpoch, sequence, effective, recorded]
            )
            try change(created.envelopeId, "created", interval: created.interval, amount: created.budgeted)
        case .envelopeBudgetChanged(let budget):
            try change(budget.envelopeId, "budget", interval: budget.interval, amount: budget.budgeted)
        case .envelopeRolloverSet(let rollover):
            try change(rollover.envelopeId, "rollover", policy: rollover.policy)
        case .envelopeFunded(let funded):
            try change(funded.envelopeId, "funded", amount: funded.amount)
        case .envelopeDeleted(let deleted):
            try change(deleted.envelopeId, "deleted")
        case .transactionRecorded(let transaction):
            let base = try currentBase()
            if let rateToBase = transaction.rateToBase, transaction.amount.commodity.code != base {
                try rate(base: transaction.amount.commodity, quote: base, rate: rateToBase, source: .transaction)
            }
            if let envelope = transaction.envelope {
                try activity(envelope, transaction.amount, rate: transaction.rateToBase, received: nil)
            }
        case .transferMade(let transfer):
            if let envelope = transfer.envelope {
                try activity(envelope, try transfer.amount.negated(), rate: nil, received: try transfer.received?.negated())
            }
        case .fxRateSet(let fx):
            try rate(base: fx.base, quote: fx.quote.code, rate: fx.rate, source: .fxRate)
        default:
            break
        }
    }
}

extension EnvelopeBook {
    /// The book as of `bound` (and as known at `knownAt`): the rows of events effective at
    /// or before it, read from the envelopes read model. Balances are not loaded (they
    /// come from the postings).
    static func load(_ db: Database, effectiveThrough bound: Instant, knownAt: Instant? = nil) throws -> EnvelopeBook {
        let arguments: StatementArguments = [bound.microsecondsSinceEpoch, knownAt?.microsecondsSinceEpoch ?? Int64.max]
        let window = "effective_at <= ? AND recorded_at <= ?"
        var book = EnvelopeBook()
        func instant(_ row: Row) -> Instant { Instant(microsecondsSinceEpoch: row["effective_at"]) }
        func sequence(_ row: Row) -> UInt64 { UInt64(row["sequence"] as Int64) }
        for row in try Row.fetchAll(db, sql: "SELECT * FROM envelope_base_currencies WHERE \(window) ORDER BY sequence", arguments: arguments) {
            book.baseCurrencies.append(.init(effectiveAt: instant(row), sequence: sequence(row), value: try Commodity.named(row["currency"])))
        }
        for row in try Row.fetchAll(db, sql: "SELECT * FROM envelope_accounts WHERE \(window)", arguments: arguments) {
            let account: String = row["account"]
            book.accounts[account] = EnvelopeAccount(account: account, kind: AccountKind(rawValue: row["kind"]) ?? .asset,
                                                     commodity: try Commodity.named(row["commodity"]), openedAt: instant(row))
        }
        for row in try Row.fetchAll(db, sql: "SELECT * FROM envelopes WHERE \(window)", arguments: arguments) {
            let id: String = row["envelope_id"]
            book.envelopes[id] = EnvelopeRecord(envelopeId: id, name: row["name"], startDate: LocalDate(daysSinceEpoch: row["start_date"]),
                                                createdAt: instant(row), settings: [])
        }
        for row in try Row.fetchAll(db, sql: "SELECT * FROM envelope_changes WHERE \(window) ORDER BY sequence", arguments: arguments) {
            let id: String = row["envelope_id"]
            guard book.envelopes[id] != nil else { continue }
            let amount: Money? = try (row["commodity"] as String?).map { Money(minorUnits: row["amount"], commodity: try Commodity.named($0)) }
            switch row["kind"] as String {
            case "created", "budget":
                let interval = EnvelopeInterval(rawValue: row["interval"]) ?? .monthly
                book.envelopes[id]?.settings.append(.init(effectiveAt: instant(row), sequence: sequence(row), interval: interval, budgeted: amount!))
            case "rollover":
                book.envelopes[id]?.policies.append(.init(effectiveAt: instant(row), sequence: sequence(row), value: RolloverPolicy(rawValue: row["policy"]) ?? .default))
            case "funded":
                book.envelopes[id]?.fundings.append(.init(effectiveAt: instant(row), sequence: sequence(row), value: amount!))
            default:
                book.envelopes[id]?.deletedAt = instant(row)
            }
        }
        book.envelopes = book.envelopes.filter { !$0.value.settings.isEmpty }
        for row in try Row.fetchAll(db, sql: "SELECT * FROM envelope_activity WHERE \(window) ORDER BY sequence", arguments: arguments) {
            let received: Money? = try (row["received_commodity"] as String?).map { Money(minorUnits: row["received_amount"], commodity: try Commodity.named($0)) }
            book.activity.append(EnvelopeActivity(
                envelopeId: row["envelope_id"], sequence: sequence(row), effectiveAt: instant(row),
                amount: Money(minorUnits: row["amount"], commodity: try Commodity.named(row["commodity"])),
                rateToBase: try (row["rate_to_base"] as String?).map(ExactDecimal.init(parsing:)),
                base: try Commodity.named(row["base"]), received: received
            ))
        }
        for row in try Row.fetchAll(db, sql: "SELECT * FROM envelope_rates WHERE \(window) ORDER BY sequence", arguments: arguments) {
            book.quotes.append(ExchangeQuote(
                base: try Commodity.named(row["base"]), quote: try Commodity.named(row["quote"]), rate: try ExactDecimal(parsing: row["rate"]),
                effectiveAt: instant(row), sequence: sequence(row), source: ExchangeQuote.Source(rawValue: row["source"]) ?? .fxRate
            ))
        }
        return book
    }

    /// The user accounts' balances at `bound` from the postings, for ``total(balances:at:)``.
    static func accountBalances(_ db: Database, effectiveThrough bound: Instant, knownAt: Instant? = nil) throws -> [(account: String, amount: Money)] {
        try Row.fetchAll(db, sql: """
            SELECT p.account, p.commodity, SUM(p.amount) AS amount FROM postings p
            JOIN envelope_accounts a ON a.account = p.account AND a.effective_at <= ?1 AND a.recorded_at <= ?2
            WHERE p.effective_at <= ?1 AND p.recorded_at <= ?2
            GROUP BY p.account, p.commodity HAVING SUM(p.amount) != 0
            """, arguments: [bound.microsecondsSinceEpoch, knownAt?.microsecondsSinceEpoch ?? Int64.max]
        ).map { row in (row["account"], Money(minorUnits: row["amount"], commodity: try Commodity.named(row["commodity"]))) }
    }
}
