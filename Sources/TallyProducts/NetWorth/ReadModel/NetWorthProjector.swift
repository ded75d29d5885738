public import TallyEngine
public import GRDB

/// The history behind net worth and the X-ray: assets and liabilities with their tags,
/// every valuation, position, price and FX rate, and reminders — each with its effective
/// and recorded time, so that "the latest value at a date, as known at an instant" is one
/// indexed lookup. Snapshots of the state net worth is computed from, at the end of every
/// boundary day of the ledger's snapshot interval, answer a month's net worth without the
/// lookups (``NetWorthSnapshot``).
public struct NetWorthProjector: SnapshotTaking {
    /// The read model, as ``NetWorthFeature`` registers it; its tables are created by ``createTables(_:)``.
    public init() {}

    public let name = "net_worth"
    /// 8: no base currency table; answers ask the settings read model (``Ledger/baseCurrency(asOf:knownAt:)``).
    public let version = 10
    public let tables = [
        "nw_items", "nw_item_tags", "nw_valuations", "nw_override_clears", "nw_positions", "nw_prices", "nw_fx_rates",
        "nw_price_pairs", "nw_fx_pairs", "nw_price_staleness", "nw_reminders", "nw_snapshots", "nw_item_names",
    ]
    /// The event types this read model folds; every other passes it by.
    public var eventTypes: [any EventPayload.Type]? {
        [AssetAdded.self, AssetTagged.self, AssetRemoved.self, LiabilityAdded.self, LiabilityRemoved.self, ValuationRecorded.self, ValuationOverrideCleared.self, PositionSet.self, PriceQuoted.self, FXRateSet.self, PriceStalenessSet.self, ReminderSet.self, ReminderCompleted.self, AssetRenamed.self]
    }
    public let cacheTables = ["nw_snapshots"]

    /// Snapshots of every item's active value (``NetWorthSnapshot``).
    static let snapshots = SnapshotTable(name: "nw_snapshots")

    public func createTables(_ db: Database) throws {
        try Self.createItemTables(db)
        try Self.createValueTables(db)
        try Self.createMarketTables(db)
        try Self.createReminderTable(db)
        try Self.snapshots.create(db)
        try ItemNames.createTable(db)
    }

    /// Assets and liabilities, and the tags of assets.
    private static func createItemTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE nw_items (
                kind TEXT NOT NULL, item_id TEXT NOT NULL, name TEXT NOT NULL, category TEXT NOT NULL,
                type TEXT, currency TEXT NOT NULL, linked_asset_id TEXT,
                added_at INTEGER NOT NULL, added_recorded_at INTEGER NOT NULL,
                removed_at INTEGER, removed_recorded_at INTEGER, removed_sequence INTEGER,
                PRIMARY KEY (kind, item_id)
            ) STRICT, WITHOUT ROWID;
            CREATE TABLE nw_item_tags (
                asset_id TEXT NOT NULL, effective_at INTEGER NOT NULL, recorded_at INTEGER NOT NULL, sequence INTEGER NOT NULL,
                country TEXT, sector TEXT, symbol TEXT,
                PRIMARY KEY (asset_id, sequence)
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX nw_item_tags_at ON nw_item_tags (asset_id, effective_at);
            """)
    }

    /// What items are worth: valuations, cleared overrides, positions.
    private static func createValueTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE nw_valuations (
                kind TEXT NOT NULL, item_id TEXT NOT NULL, effective_at INTEGER NOT NULL, recorded_at INTEGER NOT NULL,
                sequence INTEGER NOT NULL, commodity TEXT NOT NULL, amount INTEGER NOT NULL, source TEXT NOT NULL,
                PRIMARY KEY (kind, item_id, sequence)
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX nw_valuations_at ON nw_valuations (kind, item_id, source, effective_at);
            CREATE INDEX nw_valuations_by_time ON nw_valuations (effective_at, recorded_at);
            CREATE TABLE nw_override_clears (
                asset_id TEXT NOT NULL, effective_at INTEGER NOT NULL, recorded_at INTEGER NOT NULL, sequence INTEGER NOT NULL,
                PRIMARY KEY (asset_id, sequence)
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX nw_override_clears_by_time ON nw_override_clears (effective_at, recorded_at);
            CREATE INDEX nw_override_clears_at ON nw_override_clears (asset_id, effective_at);
            CREATE TABLE nw_positions (
                asset_id TEXT NOT NULL, effective_at INTEGER NOT NULL, recorded_at INTEGER NOT NULL, sequence INTEGER NOT NULL,
                symbol TEXT NOT NULL, quantity INTEGER NOT NULL, cost_commodity TEXT, cost_amount INTEGER,
                PRIMARY KEY (asset_id, sequence)
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX nw_positions_by_time ON nw_positions (effective_at, recorded_at);
            CREATE INDEX nw_positions_at ON nw_positions (asset_id, effective_at);
            """)
    }

    /// Prices, exchange rates, the pairs they connect and the staleness threshold.
    private static func createMarketTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE nw_prices (
                symbol TEXT NOT NULL, effective_at INTEGER NOT NULL, recorded_at INTEGER NOT NULL, sequence INTEGER NOT NULL,
                commodity TEXT NOT NULL, significand INTEGER NOT NULL, scale INTEGER NOT NULL, source TEXT NOT NULL,
                PRIMARY KEY (symbol, sequence)
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX nw_prices_at ON nw_prices (symbol, effective_at);
            CREATE INDEX nw_prices_by_time ON nw_prices (effective_at, recorded_at);
            -- "The latest price of a symbol in a currency, effective by D, known at K": a seek to
            -- (symbol, commodity, D) walking back, answered from the index alone.
            CREATE INDEX nw_prices_in ON nw_prices (symbol, commodity, effective_at, sequence, recorded_at, significand, scale);
            -- Which symbol is priced in which currency, and which currencies have a rate: the
            -- graph market values are found on (a handful of rows, read whole).
            CREATE TABLE nw_price_pairs (
                symbol TEXT NOT NULL, commodity TEXT NOT NULL, PRIMARY KEY (symbol, commodity)
            ) STRICT, WITHOUT ROWID;
            CREATE TABLE nw_fx_pairs (
                base TEXT NOT NULL, quote TEXT NOT NULL, PRIMARY KEY (base, quote)
            ) STRICT, WITHOUT ROWID;
            CREATE TABLE nw_fx_rates (
                base TEXT NOT NULL, quote TEXT NOT NULL, effective_at INTEGER NOT NULL, recorded_at INTEGER NOT NULL,
                sequence INTEGER NOT NULL, significand INTEGER NOT NULL, scale INTEGER NOT NULL,
                PRIMARY KEY (base, quote, sequence)
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX nw_fx_rates_at ON nw_fx_rates (base, quote, effective_at);
            CREATE INDEX nw_fx_rates_by_time ON nw_fx_rates (effective_at, recorded_at);
            CREATE TABLE nw_price_staleness (
                sequence INTEGER PRIMARY KEY NOT NULL, effective_at INTEGER NOT NULL, recorded_at INTEGER NOT NULL,
                threshold_seconds INTEGER NOT NULL
            ) STRICT;
            """)
    }

    /// Reminders to value an asset.
    private static func createReminderTable(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE nw_reminders (
                reminder_id TEXT NOT NULL, sequence INTEGER NOT NULL, asset_id TEXT NOT NULL, due_date INTEGER NOT NULL, note TEXT,
                set_at INTEGER NOT NULL, set_recorded_at INTEGER NOT NULL,
                completed_at INTEGER, completed_recorded_at INTEGER,
                PRIMARY KEY (reminder_id, sequence)
            ) STRICT, WITHOUT ROWID;
            """)
    }

    public func apply(_ event: Event, _ db: Database) throws {
        let rows = NetWorthRows(event: event, db: db)
        switch event.body.payload {
        case let asset as AssetAdded: try rows.asset(asset)
        case let tags as AssetTagged: try rows.tags(tags.assetId, country: tags.country, sector: tags.sector, symbol: tags.symbol)
        case let renamed as AssetRenamed: try rows.renamed(renamed)
        case let removed as AssetRemoved: try rows.removed(.asset, removed.assetId)
        case let liability as LiabilityAdded: try rows.liability(liability)
        case let removed as LiabilityRemoved: try rows.removed(.liability, removed.liabilityId)
        case let valuation as ValuationRecorded: try rows.valuation(valuation)
        case let cleared as ValuationOverrideCleared: try rows.overrideCleared(cleared)
        case let position as PositionSet: try rows.position(position)
        case let quote as PriceQuoted: try rows.price(quote)
        case let rate as FXRateSet: try rows.rate(rate)
        case let change as PriceStalenessSet: try rows.staleness(change)
        case let reminder as ReminderSet: try rows.reminder(reminder)
        case let done as ReminderCompleted: try rows.reminderDone(done)
        default: throw eventNotFolded(event)
        }
    }

    public func takeSnapshots(_ db: Database, settings: SnapshotSettings, last: Event) throws {
        try NetWorthSnapshots.take(db, settings: settings, last: last)
    }
}

/// The columns of this read model's tables and query results, by name: the one place a
/// column's name is spelled outside the statements that create, write and select it.
enum NetWorthColumns {
    static let addedAt = Column("added_at")
    static let amount = Column("amount")
    static let assetId = Column("asset_id")
    static let base = Column("base")
    static let category = Column("category")
    static let commodity = Column("commodity")
    static let completedAt = Column("completed_at")
    static let costAmount = Column("cost_amount")
    static let costCommodity = Column("cost_commodity")
    static let country = Column("country")
    static let currency = Column("currency")
    static let dueDate = Column("due_date")
    static let effectiveAt = Column("effective_at")
    static let itemId = Column("item_id")
    static let kind = Column("kind")
    static let name = Column("name")
    static let note = Column("note")
    static let quantity = Column("quantity")
    static let quote = Column("quote")
    static let recordedAt = Column("recorded_at")
    static let reminderId = Column("reminder_id")
    static let removedAt = Column("removed_at")
    static let removedRecordedAt = Column("removed_recorded_at")
    static let removedSequence = Column("removed_sequence")
    static let scale = Column("scale")
    static let sector = Column("sector")
    static let sequence = Column("sequence")
    static let setAt = Column("set_at")
    static let significand = Column("significand")
    static let source = Column("source")
    static let symbol = Column("symbol")
    static let type = Column("type")
}

/// The rows one event writes to the net worth read model, one step per kind of event: the
/// projector's `apply` names the step each event takes.
private struct NetWorthRows {
    let event: Event
    let db: Database

    /// A row that net worth reads by its effective time retires the snapshots it falls in.
    /// Base currencies, FX rates and the staleness threshold are not in snapshots (answers
    /// apply the ones known at the instant asked about), nor are tags and reminders.
    func changed(at instant: Int64) throws {
        try NetWorthProjector.snapshots.supersede(effectiveAt: Instant(microsecondsSinceEpoch: instant), recordedAt: event.recordedAt, db)
    }

    /// Adding an item replaces any earlier row of its id, and with it the dates it held.
    func replacing(_ kind: ItemKind, _ id: String) throws {
        let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT added_at, removed_at FROM nw_items WHERE kind = ? AND item_id = ?"), arguments: [kind.rawValue, id])
        let held: [Int64?] = [row?[NetWorthColumns.addedAt], row?[NetWorthColumns.removedAt]]
        try changed(at: held.compactMap { $0 }.reduce(event.rowEffectiveAt, min))
    }

    /// An asset, with the tags it was added with.
    func asset(_ asset: AssetAdded) throws {
        try replacing(.asset, asset.assetId)
        try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO nw_items (kind, item_id, name, category, type, currency, linked_asset_id, added_at, added_recorded_at)
            VALUES ('asset', ?, ?, ?, ?, ?, NULL, ?, ?)
            """).execute(arguments: [asset.assetId, asset.name, asset.category.rawValue, asset.type.rawValue, asset.currency.code, event.rowEffectiveAt, event.rowRecordedAt])
        try tags(asset.assetId, country: asset.country, sector: asset.sector, symbol: asset.symbol)
    }

    /// An asset's tags from the event's effective time on.
    func tags(_ assetId: String, country: String?, sector: String?, symbol: String?) throws {
        try db.cachedStatement(sql: "INSERT INTO nw_item_tags VALUES (?, ?, ?, ?, ?, ?, ?)")
            .execute(arguments: [assetId, event.rowEffectiveAt, event.rowRecordedAt, event.rowSequence, country, sector, symbol])
    }

    /// An asset's new name.
    func renamed(_ renamed: AssetRenamed) throws {
        try ItemNames.record(renamed, effective: event.rowEffectiveAt, recorded: event.rowRecordedAt, sequence: event.rowSequence, db)
        try changed(at: event.rowEffectiveAt)
    }

    /// A liability, perhaps linked to the asset it finances.
    func liability(_ liability: LiabilityAdded) throws {
        try replacing(.liability, liability.liabilityId)
        try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO nw_items (kind, item_id, name, category, type, currency, linked_asset_id, added_at, added_recorded_at)
            VALUES ('liability', ?, ?, ?, NULL, ?, ?, ?, ?)
            """).execute(arguments: [liability.liabilityId, liability.name, liability.category.rawValue, liability.currency.code,
                             liability.linkedAssetId, event.rowEffectiveAt, event.rowRecordedAt])
    }

    /// An item's removal date: moving it retires the snapshots from the earlier of the old
    /// and the new date.
    func removed(_ kind: ItemKind, _ id: String) throws {
        if let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT removed_at FROM nw_items WHERE kind = ? AND item_id = ?"), arguments: [kind.rawValue, id]) {
            try changed(at: min(event.rowEffectiveAt, (row[NetWorthColumns.removedAt] as Int64?) ?? event.rowEffectiveAt))
        }
        try db.cachedStatement(sql: "UPDATE nw_items SET removed_at = ?, removed_recorded_at = ?, removed_sequence = ? WHERE kind = ? AND item_id = ?")
            .execute(arguments: [event.rowEffectiveAt, event.rowRecordedAt, event.rowSequence, kind.rawValue, id])
    }

    /// An item's value, entered or derived.
    func valuation(_ valuation: ValuationRecorded) throws {
        try db.cachedStatement(sql: "INSERT INTO nw_valuations VALUES (?, ?, ?, ?, ?, ?, ?, ?)").execute(arguments: [valuation.itemKind.rawValue, valuation.itemId, event.rowEffectiveAt, event.rowRecordedAt, event.rowSequence,
                                   valuation.value.commodity.code, valuation.value.minorUnits, valuation.source.rawValue])
        try changed(at: event.rowEffectiveAt)
    }

    /// An asset's entered value no longer overrides its market value.
    func overrideCleared(_ cleared: ValuationOverrideCleared) throws {
        try db.cachedStatement(sql: "INSERT INTO nw_override_clears VALUES (?, ?, ?, ?)")
            .execute(arguments: [cleared.assetId, event.rowEffectiveAt, event.rowRecordedAt, event.rowSequence])
        try changed(at: event.rowEffectiveAt)
    }

    /// A position's quantity and cost basis.
    func position(_ position: PositionSet) throws {
        try db.cachedStatement(sql: "INSERT INTO nw_positions VALUES (?, ?, ?, ?, ?, ?, ?, ?)").execute(arguments: [position.assetId, event.rowEffectiveAt, event.rowRecordedAt, event.rowSequence, position.quantity.commodity.code,
                                   position.quantity.minorUnits, position.costBasis?.commodity.code, position.costBasis?.minorUnits])
        try changed(at: event.rowEffectiveAt)
    }

    /// A price with its own decimals (80.123 GBP): significand and scale.
    func price(_ quote: PriceQuoted) throws {
        try db.cachedStatement(sql: "INSERT INTO nw_prices VALUES (?, ?, ?, ?, ?, ?, ?, ?)").execute(arguments: [quote.symbol.code, event.rowEffectiveAt, event.rowRecordedAt, event.rowSequence, quote.currency.code,
                                   quote.price.significand, quote.price.scale, quote.source.rawValue])
        try db.cachedStatement(sql: "INSERT OR IGNORE INTO nw_price_pairs VALUES (?, ?)").execute(arguments: [quote.symbol.code, quote.currency.code])
        try changed(at: event.rowEffectiveAt)
    }

    /// An exchange rate. Snapshots hold no rates (answers convert at read time): a rate
    /// retires none.
    func rate(_ rate: FXRateSet) throws {
        try db.cachedStatement(sql: "INSERT INTO nw_fx_rates VALUES (?, ?, ?, ?, ?, ?, ?)")
            .execute(arguments: [
                rate.base.code, rate.quote.code, event.rowEffectiveAt, event.rowRecordedAt, event.rowSequence, rate.rate.significand, rate.rate.scale,
            ])
        try db.cachedStatement(sql: "INSERT OR IGNORE INTO nw_fx_pairs VALUES (?, ?)").execute(arguments: [rate.base.code, rate.quote.code])
    }

    /// The age past which a price is stale.
    func staleness(_ change: PriceStalenessSet) throws {
        try db.cachedStatement(sql: "INSERT INTO nw_price_staleness VALUES (?, ?, ?, ?)")
            .execute(arguments: [event.rowSequence, event.rowEffectiveAt, event.rowRecordedAt, change.thresholdSeconds])
    }

    /// A reminder (setting one again keeps its earlier versions).
    func reminder(_ reminder: ReminderSet) throws {
        try db.cachedStatement(sql: """
            INSERT INTO nw_reminders (reminder_id, sequence, asset_id, due_date, note, set_at, set_recorded_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [reminder.reminderId, event.rowSequence, reminder.assetId, reminder.dueDate.daysSinceEpoch, reminder.note, event.rowEffectiveAt, event.rowRecordedAt])
    }

    /// Done applies to the version of the reminder set last.
    func reminderDone(_ done: ReminderCompleted) throws {
        try db.cachedStatement(sql: """
            UPDATE nw_reminders SET completed_at = ?, completed_recorded_at = ?
            WHERE reminder_id = ? AND sequence = (SELECT MAX(sequence) FROM nw_reminders WHERE reminder_id = ?)
            """).execute(arguments: [event.rowEffectiveAt, event.rowRecordedAt, done.reminderId, done.reminderId])
    }
}
