public import GRDB

/// A setting of the ledger, as `tally settings` lists it.
public enum LedgerSetting: String, CaseIterable, Sendable {
    /// The display name (`ledger_created`); never changes.
    case name
    /// The time zone whose days "as of a date" means (`ledger_created`); fixed at creation.
    case timeZone = "time_zone"
    /// The currency net worth and market values are given in (`ledger_created`, `base_currency_set`).
    case baseCurrency = "base_currency"
    /// How long a price may go without a newer one while its market is open (`price_staleness_set`).
    case priceStalenessSeconds = "price_staleness_seconds"
    /// How many days ahead a bill counts as due soon (`due_soon_window_set`).
    case dueSoonDays = "due_soon_days"
    /// Rows per page of a list when no page size is given (`page_size_set`).
    case pageSize = "page_size"

    /// The value before any event set it; nil for those `ledger_created` sets.
    public var defaultValue: String? {
        switch self {
        case .name, .timeZone, .baseCurrency: nil
        case .priceStalenessSeconds: String(SettingsProjector.defaultPriceStalenessSeconds)
        case .dueSoonDays: String(SettingsProjector.defaultDueSoonDays)
        case .pageSize: String(SettingsProjector.defaultPageSize)
        }
    }
}

/// The ledger's configuration as events set it, with its history: every value a setting
/// took, from when (effective time) and since when the ledger knew it (recorded time), so
/// that an answer about any date reads the value in force then, as known then; and the
/// commodities the ledger declared (`commodity_declared`).
///
/// A change with a backdated effective time applies from its date until the next change
/// by effective time: it never replaces a value in force from a later time.
public struct SettingsProjector: Projector {
    /// Creates the projector; ``Ledger/projectors`` registers it in every ledger.
    public init() {}

    public let name = "settings"
    /// 2: a history of values (setting, value, effective_at, sequence, recorded_at) in place
    /// of the latest one; declared commodities.
    public let version = 2
    public let tables = ["settings_history", "commodities"]
    /// The event types this read model folds; every other passes it by.
    public var eventTypes: [any EventPayload.Type]? {
        [LedgerCreated.self, BaseCurrencySet.self, PriceStalenessSet.self, DueSoonWindowSet.self, PageSizeSet.self, CommodityDeclared.self]
    }

    /// The stale-price threshold before any `price_staleness_set`: 15 minutes of market hours.
    public static let defaultPriceStalenessSeconds: Int64 = 15 * 60
    /// The due-soon window before any `due_soon_window_set` (docs/domain.md §2).
    public static let defaultDueSoonDays: Int64 = 5
    /// The page size before any `page_size_set`.
    public static let defaultPageSize: Int64 = 10

    public func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE settings_history (
                setting TEXT NOT NULL, value TEXT NOT NULL,
                effective_at INTEGER NOT NULL, sequence INTEGER NOT NULL, recorded_at INTEGER NOT NULL,
                PRIMARY KEY (setting, sequence)
            ) STRICT;
            CREATE INDEX settings_history_in_force ON settings_history (setting, effective_at, sequence);
            CREATE TABLE commodities (
                code TEXT PRIMARY KEY NOT NULL, scale INTEGER NOT NULL,
                effective_at INTEGER NOT NULL, sequence INTEGER NOT NULL, recorded_at INTEGER NOT NULL
            ) STRICT;
            """)
    }

    public func apply(_ event: Event, _ db: Database) throws {
        func set(_ setting: LedgerSetting, _ value: String) throws {
            try db.cachedStatement(sql: "INSERT INTO settings_history VALUES (?, ?, ?, ?, ?)").execute(arguments: [
                setting.rawValue, value, event.rowEffectiveAt, event.rowSequence, event.rowRecordedAt,
            ])
        }
        switch event.body.payload {
        case let created as LedgerCreated:
            try set(.name, created.name)
            try set(.baseCurrency, created.baseCurrency.code)
            try set(.timeZone, created.timeZone)
        case let change as BaseCurrencySet:
            try set(.baseCurrency, change.currency.code)
        case let change as PriceStalenessSet:
            try set(.priceStalenessSeconds, String(change.thresholdSeconds))
        case let change as DueSoonWindowSet:
            try set(.dueSoonDays, String(change.days))
        case let change as PageSizeSet:
            try set(.pageSize, String(change.rows))
        case let declared as CommodityDeclared:
            GroupMemo.of(db)?.forget(LedgerSettings.DeclaredScales.self)
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO commodities VALUES (?, ?, ?, ?, ?)").execute(arguments: [
                declared.code, declared.scale, event.rowEffectiveAt, event.rowSequence, event.rowRecordedAt,
            ])
        default:
            throw eventNotFolded(event)
        }
    }
}

/// A setting's value in force at a point in time, and where it came from.
public struct SettingValue: Hashable, Sendable {
    /// Which setting.
    public let setting: LedgerSetting
    /// Its value as text: a name, a currency code, a time zone, a number of seconds, days or rows.
    public let value: String
    /// When the event that set it took effect, never after the instant asked about; nil for
    /// a default never set, and for a value the ledger was created with asked about a time
    /// before its creation (in force then, as answers about that time use it, but set by no
    /// event at or before it).
    public let since: Instant?
    /// When the ledger recorded that event; nil for a default never set.
    public let recordedAt: Instant?
    /// The event that set it; nil for a default never set.
    public let sequence: Int64?
    /// True when no event set it by then: the value is the default.
    public var isDefault: Bool { sequence == nil }
}

/// The ledger's settings in force at a point in time, read from the settings read model.
public struct LedgerSettings: Hashable, Sendable {
    /// The ledger's display name, from `ledger_created`.
    public let name: String
    /// The currency net worth and market values are given in: `ledger_created`'s, or the
    /// `base_currency_set` in force.
    public let baseCurrency: Commodity
    /// The IANA time zone whose days "as of a date" means, e.g. `Europe/London`.
    public let timeZone: String
    /// How long a price may go without a newer one during its market's hours before answers
    /// flag it stale: the `price_staleness_set` in force, else ``SettingsProjector/defaultPriceStalenessSeconds``.
    public let priceStalenessSeconds: Int64
    /// How many days ahead a bill counts as due soon: the `due_soon_window_set` in force,
    /// else ``SettingsProjector/defaultDueSoonDays``.
    public let dueSoonDays: Int64
    /// Rows per page of a list when none is given: the `page_size_set` in force, else
    /// ``SettingsProjector/defaultPageSize``.
    public let pageSize: Int64
    /// Every setting with its value, since when, and whether it is the default, in
    /// ``LedgerSetting`` order.
    public let values: [SettingValue]
    /// When the ledger was created (`ledger_created`'s effective time), as known at the point
    /// asked about; nil when it was not known then. Asked about a time before it, every
    /// setting is what the ledger was created with, or the default.
    public let createdAt: Instant?

    /// The settings in force at the end of time as known now: the latest value of each by
    /// effective time, a change dated in the future included. For a command that must know
    /// whether a change is already recorded; an answer about a date reads
    /// ``read(_:point:)`` at that date.
    package static func read(_ db: Database) throws -> LedgerSettings {
        try read(db, point: PointInTime(asOf: Instant(microsecondsSinceEpoch: Int64.max)))
    }

    /// The base currency in force at `point.asOf` as the ledger knew it at `point.knownAt`:
    /// the one rule every product asks (docs/domain.md, "One base currency per day").
    ///
    /// A `base_currency_set` is in force from its effective time until the next one by
    /// effective time (of two at one instant, the later recorded); before any took effect,
    /// the currency the ledger was created with (whatever the day: a ledger created today
    /// answers about last year in it). A change dated in the future therefore
    /// applies only from its date, and a backdated one re-decides every answer about the
    /// days after it, as known from when it was recorded.
    package static func baseCurrency(at point: PointInTime, _ db: Database) throws -> Commodity {
        try Commodity.named(try value(of: .baseCurrency, at: point, db).value)
    }

    /// The settings in force at `point.asOf`, as recorded by `point.knownAt`: for each
    /// setting the change whose effective time is latest at or before `asOf` (of two at one
    /// instant, the later recorded); before any, the value the ledger was created with (name,
    /// time zone, base currency, whatever the day) or the default.
    package static func read(_ db: Database, point: PointInTime) throws -> LedgerSettings {
        let values = try LedgerSetting.allCases.map { try value(of: $0, at: point, db) }
        func text(_ setting: LedgerSetting) -> String { values.first { $0.setting == setting }!.value }
        func number(_ setting: LedgerSetting) throws -> Int64 {
            guard let number = Int64(text(setting)) else {
                throw LedgerError(.inconsistentLog, "the setting \(setting.rawValue) holds '\(text(setting))', which is no whole number")
            }
            return number
        }
        return LedgerSettings(
            name: text(.name), baseCurrency: try Commodity.named(text(.baseCurrency)), timeZone: text(.timeZone),
            priceStalenessSeconds: try number(.priceStalenessSeconds), dueSoonDays: try number(.dueSoonDays),
            pageSize: try number(.pageSize), values: values, createdAt: try createdAt(db, point: point)
        )
    }

    /// `ledger_created`'s effective time, when the ledger knew it by `point.knownAt`.
    private static func createdAt(_ db: Database, point: PointInTime) throws -> Instant? {
        try Row.fetchOne(db.cachedStatement(sql: """
            SELECT effective_at FROM settings_history WHERE setting = ? AND recorded_at <= ? ORDER BY sequence LIMIT 1
            """), arguments: [LedgerSetting.name.rawValue, point.recordedBound]).map { $0.instant(SettingsColumns.effectiveAt) }
    }

    private static func value(of setting: LedgerSetting, at point: PointInTime, _ db: Database) throws -> SettingValue {
        // What `ledger_created` set is the value before any change, whatever the day asked
        // about (records are often backdated before the ledger was created): it never
        // competes by effective time with a change.
        let created = setting.defaultValue == nil ? try Row.fetchOne(db.cachedStatement(sql: """
            SELECT value, effective_at, sequence, recorded_at FROM settings_history
            WHERE setting = ? ORDER BY sequence LIMIT 1
            """), arguments: [setting.rawValue]) : nil
        let createdSequence: Int64 = created?[SettingsColumns.sequence] ?? -1
        let inForce = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT value, effective_at, sequence, recorded_at FROM settings_history
            WHERE setting = ? AND effective_at <= ? AND recorded_at <= ? AND sequence > ?
            ORDER BY effective_at DESC, sequence DESC LIMIT 1
            """), arguments: [setting.rawValue, point.effectiveBound, point.recordedBound, createdSequence])
        if let row = inForce ?? created {
            // A value the ledger was created with, asked about a time before the creation, is
            // in force then but was set by no event at or before it: no "since" after the asking.
            let since = row.instant(SettingsColumns.effectiveAt)
            return SettingValue(setting: setting, value: row[SettingsColumns.value], since: since > point.asOf ? nil : since,
                                recordedAt: row.instant(SettingsColumns.recordedAt), sequence: row[SettingsColumns.sequence])
        }
        // Nothing folded yet (a replay as known before the ledger was created): the values
        // answers have always used then.
        let fallback = setting.defaultValue ?? (setting == .baseCurrency ? "USD" : setting == .timeZone ? "UTC" : "")
        return SettingValue(setting: setting, value: fallback, since: nil, recordedAt: nil, sequence: nil)
    }

    /// The scale a commodity was declared with by `commodity_declared`; nil when it was not.
    package static func declaredScale(of code: String, _ db: Database) throws -> Int64? {
        // Asked by every command that checks an amount's scale (a deposit's): once per code in
        // a write group (``DeclaredScales``), else through the C API.
        if let scales = GroupMemo.of(db)?.entry(DeclaredScales.self, make: DeclaredScales.init) {
            if let known = scales.byCode[code] { return known }
            let scale = try RawStatement(db.cachedStatement(sql: "SELECT scale FROM commodities WHERE code = ?")).integer(db, binding: code, at: 1)
            scales.byCode[code] = .some(scale)
            return scale
        }
        return try RawStatement(db.cachedStatement(sql: "SELECT scale FROM commodities WHERE code = ?")).integer(db, binding: code, at: 1)
    }

    /// The declared scales a write group's plans asked for, by code (nil: not declared); the
    /// fold of a declaration forgets them (``GroupMemo``).
    final class DeclaredScales {
        var byCode: [String: Int64?] = [:]
    }

    /// Every declared commodity with its scale, by code.
    package static func declaredCommodities(_ db: Database) throws -> [(code: String, scale: Int64)] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT code, scale FROM commodities ORDER BY code")).map { ($0[SettingsColumns.code], $0[SettingsColumns.scale]) }
    }
}

extension Ledger {
    /// The ledger's settings in force now, as known now: a change dated in the future is
    /// not in force yet (``settings(asOf:knownAt:)`` at its date shows it).
    public func settings() throws -> LedgerSettings {
        let point = PointInTime(asOf: now)
        return try read { try LedgerSettings.read($0, point: point) }
    }

    /// The base currency in force at `asOf` (now when absent) as the ledger knew it at
    /// `knownAt` (now when absent): the one place every product (net worth, X-ray,
    /// envelopes, budget, what-if, wealth) takes its base currency from. A
    /// `base_currency_set` is in force from its effective date until the next by date
    /// (``LedgerSettings/baseCurrency(at:_:)``).
    ///
    /// ```swift
    /// let base = try ledger.baseCurrency(asOf: ledger.calendar.endOfDay(try LocalDate(parsing: "2026-03-31")))
    /// ```
    public func baseCurrency(asOf: Instant? = nil, knownAt: Instant? = nil) throws -> Commodity {
        let point = PointInTime(asOf: asOf ?? now, knownAt: knownAt)
        return try read { try LedgerSettings.baseCurrency(at: point, $0) }
    }

    /// The ledger's settings in force at the end of `asOf` (now when absent), as the ledger
    /// knew them at `knownAt` (now when absent): each with its value, since when, and
    /// whether it is the default.
    ///
    /// ```swift
    /// let settings = try ledger.settings(asOf: ledger.calendar.endOfDay(try LocalDate(parsing: "2026-03-31")))
    /// print(settings.dueSoonDays, settings.pageSize)
    /// ```
    public func settings(asOf: Instant?, knownAt: Instant? = nil) throws -> LedgerSettings {
        let point = PointInTime(asOf: asOf ?? now, knownAt: knownAt)
        return try read { try LedgerSettings.read($0, point: point) }
    }
}

/// The columns of this read model's tables and query results, by name: the one place a
/// column's name is spelled outside the statements that create, write and select it.
enum SettingsColumns {
    static let code = Column("code")
    static let effectiveAt = Column("effective_at")
    static let recordedAt = Column("recorded_at")
    static let scale = Column("scale")
    static let sequence = Column("sequence")
    static let value = Column("value")
}

extension LedgerSettings {
    /// The one rule for a list's page size (issue 32, rule 7): the size the caller asked for,
    /// else the `page_size` setting in force at the point the list answers for (10 rows by
    /// default). Every paged list asks it: transactions, the wealth history, their service routes.
    package static func pageSize(_ requested: Int?, at point: PointInTime, _ db: Database) throws -> Int {
        if let requested { return requested }
        return Int(try read(db, point: point).pageSize)
    }
}

extension Ledger {
    /// The rows a page of a list holds: `requested` when given, else the `page_size` setting
    /// in force at `asOf` (now when nil) as known at `knownAt`.
    ///
    /// ```swift
    /// try ledger.setPageSize(25)
    /// try ledger.pageSize()       // 25
    /// try ledger.pageSize(100)    // 100
    /// ```
    public func pageSize(_ requested: Int? = nil, asOf: Instant? = nil, knownAt: Instant? = nil) throws -> Int {
        try read { db in try LedgerSettings.pageSize(requested, at: PointInTime(asOf: asOf ?? now, knownAt: knownAt), db) }
    }
}
