import TallyEngine
import GRDB

/// The state net worth is computed from at the end of a boundary day: every item held then
/// with its active value. It depends only on rows effective through that day. The base
/// currency, the conversion into it (``ConversionRule`` over the quotes in force at the
/// instant asked about, as known then) and the stale-price threshold are applied when
/// answering, as a replay to that instant has them, so none is in it, and changing the
/// base currency or the threshold retires no snapshot.
struct NetWorthSnapshot: Hashable, Sendable {
    /// The snapshot's day.
    let day: LocalDate
    /// The items held at the end of ``day``, by kind then id, each with its active value.
    let holdings: [NetWorthHolding]

    init(day: LocalDate, holdings: [NetWorthHolding]) {
        self.day = day
        self.holdings = holdings
    }

    /// The compact form stored in ``SnapshotTable``: a count, then per item its kind, id,
    /// name, category and active value (commodity, minor units, source, valued at, priced
    /// symbol, and for a position its quantity and unit price) (strings, varints and
    /// zig-zag varints).
    var encoded: [UInt8] {
        var writer = BinaryWriter(capacity: 16 + holdings.count * 64)
        writer.writeVarint(UInt64(holdings.count))
        for holding in holdings {
            writer.writeString(holding.kind.rawValue)
            writer.writeString(holding.itemId)
            writer.writeString(holding.name)
            writer.writeString(holding.category)
            guard let value = holding.value else {
                writer.writeByte(0)
                continue
            }
            writer.writeByte(value.pricing != nil ? 3 : value.pricedSymbol == nil ? 1 : 2)
            writer.writeString(value.value.commodity.code)
            writer.writeZigZag(value.value.minorUnits)
            writer.writeString(value.source.rawValue)
            writer.writeZigZag(value.valuedAt.microsecondsSinceEpoch)
            if let symbol = value.pricedSymbol { writer.writeString(symbol) }
            if let pricing = value.pricing {
                writer.writeString(pricing.quantity.commodity.code)
                writer.writeZigZag(pricing.quantity.minorUnits)
                writer.writeZigZag(pricing.unitPrice.significand)
                writer.writeVarint(UInt64(pricing.unitPrice.scale))
            }
        }
        return writer.bytes
    }

    /// Decodes a stored snapshot.
    ///
    /// - Throws: ``NetWorthSnapshotDamage`` or a decoding error when the bytes are not a snapshot.
    init(_ snapshot: Snapshot) throws {
        var reader = BinaryReader(snapshot.state)
        var holdings: [NetWorthHolding] = []
        for _ in 0..<(try reader.readVarint()) {
            let kindName = try reader.readString()
            guard let kind = ItemKind(rawValue: kindName) else { throw NetWorthSnapshotDamage(day: snapshot.day, what: "item kind '\(kindName)'") }
            let id = try reader.readString()
            let name = try reader.readString()
            let category = try reader.readString()
            var value: ActiveValue?
            let form = try reader.readByte()
            if form != 0 {
                let commodity = try Commodity.named(try reader.readString())
                let money = Money(minorUnits: try reader.readZigZag(), commodity: commodity)
                let sourceName = try reader.readString()
                guard let source = ValueSource(rawValue: sourceName) else { throw NetWorthSnapshotDamage(day: snapshot.day, what: "value source '\(sourceName)'") }
                let valuedAt = Instant(microsecondsSinceEpoch: try reader.readZigZag())
                let pricedSymbol = form >= 2 ? try reader.readString() : nil
                var pricing: PositionPricing?
                if form == 3 {
                    let symbol = try Commodity.named(try reader.readString())
                    pricing = PositionPricing(
                        quantity: Money(minorUnits: try reader.readZigZag(), commodity: symbol),
                        unitPrice: try ExactDecimal(significand: try reader.readZigZag(), scale: Int(try reader.readVarint())))
                }
                value = ActiveValue(value: money, source: source, valuedAt: valuedAt, pricedSymbol: pricedSymbol, pricing: pricing)
            }
            holdings.append(NetWorthHolding(kind: kind, itemId: id, name: name, category: category, value: value))
        }
        try reader.expectEnd()
        self.init(day: snapshot.day, holdings: holdings)
    }
}

/// A stored net worth snapshot that does not decode (the read models are damaged; `tally
/// rebuild` makes them again).
struct NetWorthSnapshotDamage: Error, CustomStringConvertible {
    let day: LocalDate
    let what: String
    var description: String { "the net worth snapshot of \(day) holds an unknown \(what); run `tally rebuild`" }
}

/// Taking and reading net worth's snapshots (``SnapshotTable`` `nw_snapshots`).
enum NetWorthSnapshots {
    static var table: SnapshotTable { NetWorthProjector.snapshots }

    /// Takes the snapshots missing from the latest current one through the day before the
    /// day `last` was recorded (a snapshot of today would be retired by every event today),
    /// from the day the first item was added. Each is read with the lookups of an answer
    /// as known now, at the end of its day.
    static func take(_ db: Database, settings: SnapshotSettings, last: Event) throws {
        let calendar = settings.calendar
        // Asked after every fold (a write group's end, a rebuild's batch), and nil in a ledger without net-worth items:
        // through the C API, without GRDB's cursor.
        guard let firstAdded = try RawStatement(db.cachedStatement(sql: "SELECT MIN(added_at) FROM nw_items")).integer(db),
              let latestRow = try sources.latestEffective(db) else { return }
        try table.pruneUnreadable(db)
        let latest = try table.latestCurrent(db)
        let days = settings.interval.boundaries(after: latest?.day, from: calendar.date(of: Instant(microsecondsSinceEpoch: firstAdded)),
                                                through: calendar.date(of: last.recordedAt).adding(days: -1))
        // After the latest dated row nothing changes what is held: those days carry the state
        // of the first of them instead of looking it up again (a history imported in date
        // order would otherwise look up every later month again after every batch).
        let rowsThrough = calendar.date(of: latestRow)
        var carried: [NetWorthHolding]?
        guard !days.isEmpty else { return }
        var previous = latest?.effectiveThrough
        var knownSince = latest?.knownSince ?? .earliest
        for day in days {
            let bound = calendar.endOfDay(day)
            let holdings: [NetWorthHolding]
            if day > rowsThrough, let carried {
                holdings = carried
            } else {
                holdings = try Valuations(db: db, point: PointInTime(asOf: bound)).holdings()
                if day > rowsThrough { carried = holdings }
            }
            knownSince = max(knownSince, try sources.latestRecorded(db, after: previous, through: bound) ?? .earliest)
            let state = NetWorthSnapshot(day: day, holdings: holdings)
            try table.write(Snapshot(day: day, effectiveThrough: bound, sequence: last.sequence, knownSince: knownSince, state: state.encoded), db)
            previous = bound
        }
    }

    /// Every row net worth reads by effective time.
    static let sources = SnapshotSources(columns: [
        ("nw_items", "added_at", "added_recorded_at"), ("nw_items", "removed_at", "removed_recorded_at"),
        ("nw_valuations", "effective_at", "recorded_at"), ("nw_override_clears", "effective_at", "recorded_at"),
        ("nw_positions", "effective_at", "recorded_at"), ("nw_prices", "effective_at", "recorded_at"),
    ])

    /// Net worth at `point` from the snapshot of its day, when `point.asOf` is the end of a
    /// day and a snapshot of that day holds the state as known at `point.knownAt`; nil
    /// otherwise. In `base` when given, else the base currency in force at the point; the
    /// staleness threshold is the one in force at `point.asOf`, as for the lookups.
    /// `accounts` (the household's) are counted after the snapshot's items.
    static func report(_ db: Database, point: PointInTime, calendar: LedgerCalendar, in base: Commodity? = nil,
                       accounts: [NetWorthHolding]) throws -> NetWorthReport? {
        guard calendar.endOfDay(calendar.date(of: point.asOf)) == point.asOf,
              let stored = try table.latest(through: point.asOf, knownAt: point.knownAt, db),
              stored.effectiveThrough == point.asOf else { return nil }
        let valuations = Valuations(db: db, point: point)
        return try report(stored, db, point: point, baseCurrency: try base ?? valuations.baseCurrency(),
                          stalenessSeconds: try valuations.priceStalenessSeconds(), accounts: accounts)
    }

    /// Net worth at `point` (the end of `stored`'s day) from a snapshot that holds the state
    /// as known at `point.knownAt`, in `base` with the staleness threshold known then, each
    /// value converted by the one rule at the point (``MarketValuation``).
    static func report(_ stored: Snapshot, _ db: Database, point: PointInTime, baseCurrency base: Commodity, stalenessSeconds: Int64,
                       accounts: [NetWorthHolding]) throws -> NetWorthReport {
        precondition(stored.effectiveThrough == point.asOf, "the snapshot of \(stored.day) answers for the end of its day only")
        let snapshot = try NetWorthSnapshot(stored)
        var market = try MarketValuation(db, point: point, currency: base)
        return try NetWorthQueries.report(point: point, baseCurrency: base, stalenessSeconds: stalenessSeconds,
                                          holdings: snapshot.holdings + accounts) { value in try market.converted(value) }
    }

    /// How many snapshots net worth keeps and their size.
    static func statistics(_ db: Database) throws -> SnapshotStatistics {
        try table.statistics(db)
    }
}
