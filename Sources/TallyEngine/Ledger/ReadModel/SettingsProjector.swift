public import GRDB

/// The ledger's configuration as events set it: name, base currency, time zone, the
/// stale-price threshold (15 minutes unless set).
public struct SettingsProjector: Projector {
    /// Creates the projector; ``Ledger/projectors`` registers it in every ledger.
    public init() {}

    public let name = "settings"
    public let version = 1
    public let tables = ["settings"]
    /// The event types this read model folds; every other passes it by.
    public var eventTypes: [any EventPayload.Type]? {
        [LedgerCreated.self, BaseCurrencySet.self, PriceStalenessSet.self]
    }

    /// The stale-price threshold before any `price_staleness_set`.
    public static let defaultPriceStalenessSeconds: Int64 = 15 * 60

    public func createTables(_ db: Database) throws {
        try db.execute(sql: "CREATE TABLE settings (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) STRICT")
    }

    public func apply(_ event: Event, _ db: Database) throws {
        func set(_ key: String, _ value: String) throws {
            try db.execute(sql: "INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", arguments: [key, value])
        }
        switch event.body.payload {
        case let created as LedgerCreated:
            try set("name", created.name)
            try set("base_currency", created.baseCurrency.code)
            try set("time_zone", created.timeZone)
        case let change as BaseCurrencySet:
            try set("base_currency", change.currency.code)
        case let change as PriceStalenessSet:
            try set("price_staleness_seconds", String(change.thresholdSeconds))
        default:
            break
        }
    }
}

/// The ledger's settings, read from the settings read model.
public struct LedgerSettings: Hashable, Sendable {
    /// The ledger's display name, from `ledger_created`.
    public let name: String
    /// The currency net worth and market values are given in: `ledger_created`'s, or the
    /// last `base_currency_set`'s.
    public let baseCurrency: Commodity
    /// The IANA time zone whose days "as of a date" means, e.g. `Europe/London`.
    public let timeZone: String
    /// How old a price may be before answers flag it stale: the last
    /// `price_staleness_set`'s, else ``SettingsProjector/defaultPriceStalenessSeconds``.
    public let priceStalenessSeconds: Int64

    package static func read(_ db: Database) throws -> LedgerSettings {
        var values: [String: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT key, value FROM settings") { values[row["key"]] = row["value"] }
        return LedgerSettings(
            name: values["name"] ?? "",
            baseCurrency: try Commodity.named(values["base_currency"] ?? "USD"),
            timeZone: values["time_zone"] ?? "UTC",
            priceStalenessSeconds: values["price_staleness_seconds"].flatMap(Int64.init) ?? SettingsProjector.defaultPriceStalenessSeconds
        )
    }
}

extension Ledger {
    /// The ledger's current settings.
    public func settings() throws -> LedgerSettings { try read(LedgerSettings.read) }
}
