import TallyEngine
import GRDB

/// The state net worth is computed from at the end of a boundary day: every item held then
/// with its active value, and the latest FX quote of every pair that can convert one of those
/// values. It depends only on rows effective through that day. The base currency and the
/// stale-price threshold are applied when answering (those known at the instant asked
/// about, as a replay to that instant has them), so neither is in it, and changing either
/// retires no snapshot.
struct NetWorthSnapshot: Hashable, Sendable {
    /// The snapshot's day.
    let day: LocalDate
    /// The items held at the end of ``day``, by kind then id, each with its active value.
    let holdings: [NetWorthHolding]
    /// The latest quote in force of every pair with a held value's currency on either side.
    let quotes: [FXPair: FXQuote]

    /// A currency pair: 1 `base` = r `quote`.
    struct FXPair: Hashable, Sendable {
        let base: String
        let quote: String
    }

    init(day: LocalDate, holdings: [NetWorthHolding], quotes: [FXQuote]) {
        self.day = day
        self.holdings = holdings
        self.quotes = Dictionary(quotes.map { (FXPair(base: $0.base, quote: $0.quote), $0) }) { first, _ in first }
    }

    /// `money` in `target` at the quotes of the snapshot, by the rule of the lookups
    /// (``FXQuote/convert(_:to:direct:inverse:)``).
    func convert(_ money: Money, to target: Commodity) throws -> Money {
        try FXQuote.convert(money, to: target, direct: quotes[FXPair(base: money.commodity.code, quote: target.code)],
                            inverse: quotes[FXPair(base: target.code, quote: money.commodity.code)])
    }

    /// The compact form stored in ``SnapshotTable``: a count, then per item its kind, id,
    /// name, category and active value (commodity, minor units, source, valued at, priced
    /// symbol); a count, then per quote its pair, rate and effective time and sequence
    /// (strings, varints and zig-zag varints).
    var encoded: [UInt8] {
        var writer = BinaryWriter(capacity: 16 + holdings.count * 64 + quotes.count * 24)
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
            writer.writeByte(value.pricedSymbol == nil ? 1 : 2)
            writer.writeString(value.value.commodity.code)
            writer.writeZigZag(value.value.minorUnits)
            writer.writeString(value.source.rawValue)
            writer.writeZigZag(value.valuedAt.microsecondsSinceEpoch)
            if let symbol = value.pricedSymbol { writer.writeString(symbol) }
        }
        writer.writeVarint(UInt64(quotes.count))
        for quote in quotes.values.sorted(by: { ($0.base, $0.quote) < ($1.base, $1.quote) }) {
            writer.writeString(quote.base)
            writer.writeString(quote.quote)
            writer.writeZigZag(quote.rate.significand)
            writer.writeVarint(UInt64(quote.rate.scale))
            writer.writeZigZag(quote.effectiveAt)
            writer.writeZigZag(quote.sequence)
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
                value = ActiveValue(value: money, source: source, valuedAt: valuedAt, pricedSymbol: form == 2 ? try reader.readString() : nil)
            }
            holdings.append(NetWorthHolding(kind: kind, itemId: id, name: name, category: category, value: value))
        }
        var quotes: [FXQuote] = []
        for _ in 0..<(try reader.readVarint()) {
            let base = try reader.readString()
            let quote = try reader.readString()
            let rate = try ExactDecimal(significand: try reader.readZigZag(), scale: Int(try reader.readVarint()))
            quotes.append(FXQuote(base: base, quote: quote, rate: rate, effectiveAt: try reader.readZigZag(), sequence: try reader.readZigZag()))
        }
        try reader.expectEnd()
        self.init(day: snapshot.day, holdings: holdings, quotes: quotes)
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
        // Asked after every fold (every command), and nil in a ledger without net-worth items:
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
        var carried: (holdings: [NetWorthHolding], quotes: [FXQuote])?
        guard !days.isEmpty else { return }
        let pairs = try db.distinctKeys("nw_fx_rates", ["base", "quote"]).map { key in NetWorthSnapshot.FXPair(base: key[0], quote: key[1]) }
        var previous = latest?.effectiveThrough
        var knownSince = latest?.knownSince ?? .earliest
        for day in days {
            let bound = calendar.endOfDay(day)
            let holdings: [NetWorthHolding]
            var quotes: [FXQuote] = []
            if day > rowsThrough, let carried {
                (holdings, quotes) = carried
            } else {
                let valuations = Valuations(db: db, point: PointInTime(asOf: bound))
                holdings = try valuations.holdings()
                let currencies = Set(holdings.compactMap { $0.value?.value.commodity.code })
                for pair in pairs where currencies.contains(pair.base) || currencies.contains(pair.quote) {
                    if let quote = try valuations.latestQuote(base: pair.base, quote: pair.quote) { quotes.append(quote) }
                }
                if day > rowsThrough { carried = (holdings, quotes) }
            }
            knownSince = max(knownSince, try sources.latestRecorded(db, after: previous, through: bound) ?? .earliest)
            let state = NetWorthSnapshot(day: day, holdings: holdings, quotes: quotes)
            try table.write(Snapshot(day: day, effectiveThrough: bound, sequence: last.sequence, knownSince: knownSince, state: state.encoded), db)
            previous = bound
        }
    }

    /// Every row net worth reads by effective time.
    static let sources = SnapshotSources(columns: [
        ("nw_items", "added_at", "added_recorded_at"), ("nw_items", "removed_at", "removed_recorded_at"),
        ("nw_valuations", "effective_at", "recorded_at"), ("nw_override_clears", "effective_at", "recorded_at"),
        ("nw_positions", "effective_at", "recorded_at"), ("nw_prices", "effective_at", "recorded_at"),
        ("nw_fx_rates", "effective_at", "recorded_at"),
    ])

    /// Net worth at `point` from the snapshot of its day, when `point.asOf` is the end of a
    /// day and a snapshot of that day holds the state as known at `point.knownAt`; nil
    /// otherwise. In `base` when given, else the base currency in force at the point; the
    /// staleness threshold is the one in force at `point.asOf`, as for the lookups.
    static func report(_ db: Database, point: PointInTime, calendar: LedgerCalendar, in base: Commodity? = nil) throws -> NetWorthReport? {
        guard calendar.endOfDay(calendar.date(of: point.asOf)) == point.asOf,
              let stored = try table.latest(through: point.asOf, knownAt: point.knownAt, db),
              stored.effectiveThrough == point.asOf else { return nil }
        let valuations = Valuations(db: db, point: point)
        return try report(stored, point: point, baseCurrency: try base ?? valuations.baseCurrency(), stalenessSeconds: try valuations.priceStalenessSeconds())
    }

    /// Net worth at `point` (the end of `stored`'s day) from a snapshot that holds the state
    /// as known at `point.knownAt`, in `base` with the staleness threshold known then.
    static func report(_ stored: Snapshot, point: PointInTime, baseCurrency base: Commodity, stalenessSeconds: Int64) throws -> NetWorthReport {
        precondition(stored.effectiveThrough == point.asOf, "the snapshot of \(stored.day) answers for the end of its day only")
        let snapshot = try NetWorthSnapshot(stored)
        return try NetWorthQueries.report(point: point, baseCurrency: base, stalenessSeconds: stalenessSeconds,
                                          holdings: snapshot.holdings, convert: snapshot.convert)
    }

    /// How many snapshots net worth keeps and their size.
    static func statistics(_ db: Database) throws -> SnapshotStatistics {
        try table.statistics(db)
    }
}
