import Foundation
package import GRDB
import TallyLog

// Postings of the balances read model, stored one row per account-and-commodity pair and
// effective UTC day (docs/architecture.md "Time travel and audit"):
//
//   posting_days   (pair, day, span) → legs, the day's postings of the pair packed in log
//                  order, a row per 128 sequence numbers (span = sequence >> 7)
//   posting_spans  span → the rows of `posting_days` holding legs of that span, packed
//   recorded_times (first_sequence → recorded_at), one row where the recorded time changes
//
// A posting row per leg cost ≈ 60 bytes and two B-tree writes (the table and its index by
// pair) per leg, the largest share of a fold and of the store. Packed, a leg takes ≈ 5 bytes
// (two, and its amount) and a run of events writes each (pair, day) it touched once. Every
// read of postings is by pair and effective time (balances, audit, products), so the packing
// loses no query; "as known at K" becomes "sequence below the first one recorded after K",
// recorded times never decreasing in log order.
//
// A row's bytes do not depend on how the log was batched when it was folded: a run appends
// to what the row holds and a rebuild, whatever its batches, writes the same bytes as the
// folds did. A leg's head (its number, cause flag, event code and time in the day) is most
// often the one of the leg before it in its row (a journal's legs to one account: the same
// side, the same event type, the day's start), and then it is not stored again:
//
//   place        one byte: the sequence number less the span's first (0–127), and in its
//                top bit whether the leg's head is the one of the leg before it in the row
//   shape        one byte, unless the head repeats: the leg's number (bits 0–1; 3: a varint
//                follows), whether it has a cause (bit 2), the event's code (bits 3–7; 31: a
//                varint follows)
//   amount       zigzag varint
//   time in day  varint, unless the head repeats: 0 at the day's start, `2·s` for a whole
//                second s, else `2·µs + 1`
//   leg, code    varints, where the shape byte could not hold them (and the head does not repeat)
//   cause        varint sequence − cause, when there is one
//
// Most legs are a journal's: one byte and the amount, the row's first leg three and the amount
// (version 11 stored two and the amount for each, the head's byte and a flag for the day's
// start in every leg; before version 11, six and the amount). Since the head a leg repeats can
// be one an earlier run wrote, a run that appends to a row it did not make reads that row's
// last head first (``PendingPostingDays/flush(_:)``); only rows of the run's first span can
// exist already, its sequence numbers being above every one folded before.
// The full sequence number costs nothing to restore: the span is part of the row's key.
//
// The rows of each span are listed in `posting_spans` (span → the (pair, day) of each of its
// rows, packed): what a question known at an instant inside a recorded block reads. An index
// of `posting_days` by span held the same in 14 bytes a row and its B-tree's free space; the
// list takes about 2.5 (version 12).
//
//   posting_spans  span → varint count, zigzag first day, then per row in (pair, day) order:
//                  varint pair − the pair before (the first: the pair), varint day − first day

/// One leg as stored in `posting_days`.
struct StoredLeg {
    let sequence: Int64
    let leg: Int64
    let amount: Int64
    let effectiveAt: Int64
    let eventCode: Int64
    let cause: Int64?
}

/// What a leg stores once for a run of legs in its row: its number, whether it has a cause,
/// its event's code, and its time in the day (microseconds since the UTC day's start).
struct LegHead: Equatable {
    let leg: Int64
    let hasCause: Bool
    let eventCode: Int64
    let inDay: UInt64

    init(_ leg: StoredLeg, day: Int64) {
        self.leg = leg.leg
        hasCause = leg.cause != nil
        eventCode = leg.eventCode
        inDay = UInt64(bitPattern: leg.effectiveAt - day * RollupBuckets.dayMicroseconds)
    }

    init(leg: Int64, hasCause: Bool, eventCode: Int64, inDay: UInt64) {
        self.leg = leg
        self.hasCause = hasCause
        self.eventCode = eventCode
        self.inDay = inDay
    }
}

/// The packed form of one day's legs, and the reads of `posting_days`, `posting_spans` and
/// `recorded_times`.
enum PostingDays {
    /// The tables, owned by ``BalancesProjector``.
    static let tables = ["posting_days", "posting_spans", "recorded_times"]
    /// A row holds the legs of events whose sequence numbers agree but for their low 7 bits
    /// (its `span`, the sequence number shifted right by this): a pair busy all day appends to
    /// a row of at most 128 events' legs, never to one that grows with the day.
    static let spanShift: Int64 = 7
    /// The bits of a sequence number below its span: what a leg stores of it.
    static let spanMask: Int64 = (1 << spanShift) - 1

    static func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE posting_days (
                pair INTEGER NOT NULL,
                day INTEGER NOT NULL,
                span INTEGER NOT NULL,
                legs BLOB NOT NULL,
                PRIMARY KEY (pair, day, span)
            ) STRICT, WITHOUT ROWID;
            CREATE TABLE posting_spans (
                span INTEGER PRIMARY KEY NOT NULL,
                rows BLOB NOT NULL
            ) STRICT;
            CREATE TABLE recorded_times (
                first_sequence INTEGER PRIMARY KEY NOT NULL,
                recorded_at INTEGER NOT NULL
            ) STRICT;
            CREATE INDEX recorded_times_by_time ON recorded_times (recorded_at);
            """)
    }

    /// The shape byte's values that say a varint follows with the leg's number (bits 0–1)
    /// or the event's code (bits 3–7): the numbers and codes below them are held in place.
    private static let legEscape: Int64 = 3
    private static let codeEscape: Int64 = 31
    /// The place byte's flag: the leg's head is the one of the leg before it in the row.
    private static let repeatsHead: UInt8 = 0x80

    /// Appends one leg's bytes to a row whose last leg has the head `previous` (nil: the
    /// row's first leg); `day` is the UTC day of its effective time (the row's span is the
    /// leg's sequence number shifted right by ``spanShift``). Returns the leg's head.
    @discardableResult
    static func append(_ leg: StoredLeg, day: Int64, after previous: LegHead?, to writer: inout BinaryWriter) -> LegHead {
        let head = LegHead(leg, day: day)
        let repeats = head == previous
        writer.writeByte(UInt8(leg.sequence & spanMask) | (repeats ? repeatsHead : 0))
        if repeats {
            writer.writeZigZag(leg.amount)
        } else {
            let legFits = leg.leg >= 0 && leg.leg < legEscape
            let codeFits = leg.eventCode >= 0 && leg.eventCode < codeEscape
            let shape = (legFits ? leg.leg : legEscape) | (leg.cause == nil ? 0 : 4) | (codeFits ? leg.eventCode : codeEscape) << 3
            writer.writeByte(UInt8(shape))
            writer.writeZigZag(leg.amount)
            let inDay = head.inDay
            writer.writeVarint(inDay % 1_000_000 == 0 ? (inDay / 1_000_000) << 1 : (inDay << 1) | 1)
            if !legFits { writer.writeVarint(UInt64(bitPattern: leg.leg)) }
            if !codeFits { writer.writeVarint(UInt64(bitPattern: leg.eventCode)) }
        }
        if let cause = leg.cause { writer.writeVarint(UInt64(leg.sequence - cause)) }
        return head
    }

    /// Calls `body` with each leg of one row's bytes (the row of `day` and `span`), in log
    /// order; returns the head of its last leg (nil: no leg).
    @discardableResult
    static func forEachLeg(in bytes: UnsafeRawBufferPointer, day: Int64, span: Int64, _ body: (StoredLeg) throws -> Void) throws -> LegHead? {
        var reader = ByteReader(bytes)
        let dayStart = day * RollupBuckets.dayMicroseconds
        let spanStart = span << spanShift
        func damaged() -> StoreError {
            StoreError(.readModelsDisagree, "the postings of day \(day) in the balances read model are damaged; run `tally rebuild`")
        }
        var head: LegHead?
        while reader.remaining > 0 {
            guard let place = reader.readByte() else { throw damaged() }
            let amount: Int64
            if place & repeatsHead == 0 {
                guard let shape = reader.readByte().map(Int64.init), let stored = reader.readZigzag(), let time = reader.readVarint() else { throw damaged() }
                amount = stored
                var leg = shape & 3
                if leg == legEscape {
                    guard let stored = reader.readVarint() else { throw damaged() }
                    leg = Int64(bitPattern: stored)
                }
                var eventCode = shape >> 3
                if eventCode == codeEscape {
                    guard let stored = reader.readVarint() else { throw damaged() }
                    eventCode = Int64(bitPattern: stored)
                }
                let (seconds, overflow) = (time >> 1).multipliedReportingOverflow(by: 1_000_000)
                guard time & 1 == 1 || !overflow else { throw damaged() }
                head = LegHead(leg: leg, hasCause: shape & 4 != 0, eventCode: eventCode, inDay: time & 1 == 0 ? seconds : time >> 1)
            } else {
                // A repeated head needs a leg before it in the row.
                guard head != nil, let stored = reader.readZigzag() else { throw damaged() }
                amount = stored
            }
            let legHead = head!
            let sequence = spanStart + Int64(place & 0x7F)
            var cause: Int64?
            if legHead.hasCause {
                guard let distance = reader.readVarint() else { throw damaged() }
                cause = sequence - Int64(bitPattern: distance)
            }
            try body(StoredLeg(sequence: sequence, leg: legHead.leg, amount: amount, effectiveAt: dayStart &+ Int64(bitPattern: legHead.inDay),
                               eventCode: legHead.eventCode, cause: cause))
        }
        return head
    }

    /// Calls `body` with each leg of the pair whose `balances` row is `pair`, effective on the
    /// UTC days `fromDay` through `throughDay`: by day, then log order (not by time within a day).
    static func forEachLeg(ofPair pair: Int64, fromDay: Int64, throughDay: Int64, _ db: Database, _ body: (StoredLeg) throws -> Void) throws {
        try HeldPostings.writeHeld(db)
        try forEachLeg(ofRows: db.cachedStatement(sql: """
            SELECT pair, day, legs, span FROM posting_days WHERE pair = ? AND day >= ? AND day <= ? ORDER BY day, span
            """), arguments: [pair, fromDay, throughDay]) { try body($1) }
    }

    /// Calls `body` with each leg of the pair on the UTC days `fromDay` through `throughDay`,
    /// by day (log order within a day), until `body` answers false: the rest of that day's
    /// legs are still given (a day's legs are not in time order), then reading stops. A
    /// page of an audit reads the days it returns, not the account's whole history.
    static func forEachLeg(
        ofPair pair: Int64, fromDay: Int64, throughDay: Int64, _ db: Database, untilDayDone body: (StoredLeg) throws -> Bool
    ) throws {
        try HeldPostings.writeHeld(db)
        let rows = try Row.fetchCursor(
            db.cachedStatement(sql: "SELECT day, legs, span FROM posting_days WHERE pair = ? AND day >= ? AND day <= ? ORDER BY day, span"),
            arguments: [pair, fromDay, throughDay])
        var lastDay: Int64?
        while let row = try rows.next() {
            let day: Int64 = row[0]
            if let lastDay, day > lastDay { return }
            try legs(of: row, column: 1, day: day, span: row[2]) { leg in
                if try !body(leg), lastDay == nil { lastDay = day }
            }
        }
    }

    /// Calls `body` with each pair's legs effective on one UTC day (by pair, then log order): one seek per pair the
    /// balances know (`CROSS JOIN` keeps them the outer loop), no index by day.
    static func forEachLeg(onDay day: Int64, _ db: Database, _ body: (_ pair: Int64, StoredLeg) throws -> Void) throws {
        try HeldPostings.writeHeld(db)
        try forEachLeg(ofRows: db.cachedStatement(sql: """
            SELECT d.pair, d.day, d.legs, d.span FROM balances b CROSS JOIN posting_days d WHERE d.pair = b.pair AND d.day = ? ORDER BY b.pair, d.span
            """), arguments: [day], body)
    }

    /// Calls `body` with each leg of the events `sequences` effective on a UTC day up to
    /// `throughDay`, with its pair: the rows `posting_spans` lists for the spans the run covers,
    /// by span, then pair and day.
    static func forEachLeg(inSequences sequences: Range<Int64>, throughDay: Int64, _ db: Database, _ body: (_ pair: Int64, StoredLeg) throws -> Void) throws {
        guard !sequences.isEmpty else { return }
        try HeldPostings.writeHeld(db)
        let spans = try Row.fetchAll(db.cachedStatement(sql: "SELECT span, rows FROM posting_spans WHERE span >= ? AND span <= ? ORDER BY span"),
                                     arguments: [sequences.lowerBound >> spanShift, (sequences.upperBound - 1) >> spanShift])
        let row = try db.cachedStatement(sql: "SELECT pair, day, legs, span FROM posting_days WHERE pair = ? AND day = ? AND span = ?")
        for spanRow in spans {
            let span: Int64 = spanRow[0]
            let rows = try spanRow.withUnsafeData(atIndex: 1) { data in
                try data.map { data in try data.withUnsafeBytes { try SpanRows.decode($0, span: span) } } ?? []
            }
            for (pair, day) in rows where day <= throughDay {
                try forEachLeg(ofRows: row, arguments: [pair, day, span]) { pair, leg in
                    if sequences.contains(leg.sequence) { try body(pair, leg) }
                }
            }
        }
    }

    /// One past the highest sequence number a row can hold (the end of the last span).
    static func sequenceEnd(_ db: Database) throws -> Int64 {
        try HeldPostings.writeHeld(db)
        let span = try Int64.fetchOne(db.cachedStatement(sql: "SELECT MAX(span) FROM posting_spans")) ?? -1
        return (span + 1) << spanShift
    }

    /// Calls `body` with every leg of every pair, with its pair, by pair then day.
    static func forEveryLeg(_ db: Database, _ body: (_ pair: Int64, StoredLeg) throws -> Void) throws {
        try HeldPostings.writeHeld(db)
        try forEachLeg(ofRows: db.cachedStatement(sql: "SELECT pair, day, legs, span FROM posting_days ORDER BY pair, day, span"), arguments: [], body)
    }

    /// The earliest effective time of the pair's legs from `fromDay` on that pass `where`:
    /// reads day rows in order and stops at the first that has one.
    static func earliestEffective(ofPair pair: Int64, fromDay: Int64, where passes: (StoredLeg) -> Bool, _ db: Database) throws -> Int64? {
        try HeldPostings.writeHeld(db)
        let rows = try Row.fetchCursor(
            db.cachedStatement(sql: "SELECT day, legs, span FROM posting_days WHERE pair = ? AND day >= ? ORDER BY day, span"), arguments: [pair, fromDay])
        var earliest: (day: Int64, at: Int64)?
        while let row = try rows.next() {
            let day: Int64 = row[0]
            // Every span of the first day with a leg that passes counts; a later day cannot be earlier.
            if let earliest, earliest.day != day { return earliest.at }
            try legs(of: row, column: 1, day: day, span: row[2]) { leg in
                if passes(leg) { earliest = (day, min(earliest?.at ?? leg.effectiveAt, leg.effectiveAt)) }
            }
        }
        return earliest?.at
    }

    /// Calls `body` with each leg of the rows `statement` selects as (pair, day, legs, span),
    /// with its pair.
    private static func forEachLeg(ofRows statement: Statement, arguments: StatementArguments, _ body: (_ pair: Int64, StoredLeg) throws -> Void) throws {
        let rows = try Row.fetchCursor(statement, arguments: arguments)
        while let row = try rows.next() {
            let pair: Int64 = row[0]
            try legs(of: row, column: 2, day: row[1], span: row[3]) { try body(pair, $0) }
        }
    }

    private static func legs(of row: Row, column: Int, day: Int64, span: Int64, _ body: (StoredLeg) throws -> Void) throws {
        try row.withUnsafeData(atIndex: column) { data in
            guard let data else { return }
            try data.withUnsafeBytes { try forEachLeg(in: $0, day: day, span: span, body) }
        }
    }

    /// The last UTC day with a leg of the pair, nil when it has none.
    static func lastDay(ofPair pair: Int64, _ db: Database) throws -> Int64? {
        try HeldPostings.writeHeld(db)
        return try Int64.fetchOne(db.cachedStatement(sql: "SELECT MAX(day) FROM posting_days WHERE pair = ?"), arguments: [pair])
    }

    /// The `balances` row of an account and commodity, nil when nothing ever posted to it.
    static func pair(of account: String, commodity: String, _ db: Database) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT pair FROM balances WHERE account = ? AND commodity = ?"), arguments: [account, commodity])
    }

    /// The `balances` rows of an account, with their commodities.
    static func pairs(ofAccount account: String, _ db: Database) throws -> [(pair: Int64, commodity: String)] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT pair, commodity FROM balances WHERE account = ? ORDER BY commodity"), arguments: [account])
            .map { ($0[BalancesColumns.pair], $0[BalancesColumns.commodity]) }
    }

    /// The first sequence number recorded after `instant` (`Int64.max` when none is, or for
    /// `Int64.max`): a leg was recorded by `instant` exactly when its sequence is below it.
    static func sequenceBound(recordedThrough instant: Int64, _ db: Database) throws -> Int64 {
        guard instant < Int64.max else { return Int64.max }
        return try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT first_sequence FROM recorded_times WHERE recorded_at > ? ORDER BY recorded_at LIMIT 1"),
            arguments: [instant]) ?? Int64.max
    }

    /// The recorded time of the event `sequence`.
    static func recordedAt(ofSequence sequence: Int64, _ db: Database) throws -> Int64 {
        guard let recorded = try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT recorded_at FROM recorded_times WHERE first_sequence <= ? ORDER BY first_sequence DESC LIMIT 1"),
            arguments: [sequence]) else {
            throw StoreError(.readModelsDisagree, "the balances read model has no recorded time for event \(sequence); run `tally rebuild`")
        }
        return recorded
    }
}

/// The packed list of one span's rows in `posting_spans` (see above): each row's (pair, day),
/// in (pair, day) order, each once.
enum SpanRows {
    static func encode(_ rows: [(pair: Int64, day: Int64)]) -> [UInt8] {
        var writer = BinaryWriter(capacity: 2 * rows.count + 8)
        writer.writeVarint(UInt64(rows.count))
        let first = rows.map(\.day).min() ?? 0
        writer.writeZigZag(first)
        var pair: Int64 = 0
        for row in rows {
            writer.writeVarint(UInt64(row.pair - pair))
            writer.writeVarint(UInt64(row.day - first))
            pair = row.pair
        }
        return writer.bytes
    }

    static func decode(_ bytes: UnsafeRawBufferPointer, span: Int64) throws -> [(pair: Int64, day: Int64)] {
        var reader = ByteReader(bytes)
        func damaged() -> StoreError {
            StoreError(.readModelsDisagree, "the list of span \(span)'s postings in the balances read model is damaged; run `tally rebuild`")
        }
        guard let count = reader.readVarint(), count <= UInt64(bytes.count), let first = reader.readZigzag() else { throw damaged() }
        var rows: [(pair: Int64, day: Int64)] = []
        rows.reserveCapacity(Int(count))
        var pair: Int64 = 0
        for _ in 0..<count {
            guard let pairStep = reader.readVarint(), let dayStep = reader.readVarint(),
                  let nextPair = Int64(exactly: pairStep).flatMap({ pair.addingReportingOverflow($0).overflow ? nil : pair + $0 }),
                  let day = Int64(exactly: dayStep).flatMap({ first.addingReportingOverflow($0).overflow ? nil : first + $0 }) else { throw damaged() }
            pair = nextPair
            rows.append((pair, day))
        }
        guard reader.remaining == 0 else { throw damaged() }
        return rows
    }
}

/// The postings a fold run has packed but not yet written, by (pair, day, span): each is
/// appended to its row once, at the end of the run, and each span's rows listed.
struct PendingPostingDays {
    private struct Key: Hashable {
        let pair: Int64
        let day: Int64
        let span: Int64
    }
    /// A row's legs packed by this run: its bytes, its first leg (written as the first of a
    /// row: whether its head repeats the row's stored last one is known at the flush) and
    /// that leg's byte count, and the head of its last leg.
    private struct Slot {
        var writer = BinaryWriter(capacity: 64)
        var first: StoredLeg
        var firstCount: Int
        var last: LegHead
    }
    private var index: [Key: Int] = [:]
    private var keys: [Key] = []
    private var slots: [Slot] = []
    /// The last key and slot of each pair, by the caller's number for it
    /// (``add(_:pair:number:)``): each pair's last row is where its next leg lands until the
    /// span or the day turns, while an event's legs go to different pairs (a purchase: the
    /// expense, then the card), so one "last row" for all pairs missed at every leg.
    /// Compared, not hashed: each leg of a journal entry cost a dictionary look-up here.
    private var lastByNumber: [(key: Key, slot: Int)?] = []
    /// The last recorded time noted, and whether `recorded_times` has been read for it.
    private var lastRecorded: Int64?

    /// Packs one leg for the row of `pair` (a `balances` row) and its effective day. The
    /// caller numbers its pairs `0, 1, 2, …`: `number` is its number for `pair`, by which the
    /// pair's last row is found. Legs come in log order.
    mutating func add(_ leg: StoredLeg, pair: Int64, number: Int) {
        let day = RollupBuckets.day(leg.effectiveAt)
        let key = Key(pair: pair, day: day, span: leg.sequence >> PostingDays.spanShift)
        while lastByNumber.count <= number { lastByNumber.append(nil) }
        let slot: Int
        if let last = lastByNumber[number], last.key == key {
            slot = last.slot
        } else if let found = index[key] {
            slot = found
            lastByNumber[number] = (key, found)
        } else {
            // The row's first leg in this run: kept for the flush, which may find it repeats
            // the head the row holds.
            var writer = BinaryWriter(capacity: 64)
            let head = PostingDays.append(leg, day: day, after: nil, to: &writer)
            lastByNumber[number] = (key, slots.count)
            index[key] = slots.count
            keys.append(key)
            slots.append(Slot(writer: writer, first: leg, firstCount: writer.bytes.count, last: head))
            return
        }
        slots[slot].last = PostingDays.append(leg, day: day, after: slots[slot].last, to: &slots[slot].writer)
    }

    /// Notes an event's recorded time: a row of `recorded_times` where it changes.
    mutating func note(sequence: Int64, recordedAt: Int64, _ db: Database) throws {
        if lastRecorded == nil {
            lastRecorded = try Int64.fetchOne(db.cachedStatement(sql: "SELECT recorded_at FROM recorded_times ORDER BY first_sequence DESC LIMIT 1"))
        }
        guard recordedAt != lastRecorded else { return }
        lastRecorded = recordedAt
        try db.cachedStatement(sql: "INSERT INTO recorded_times (first_sequence, recorded_at) VALUES (?, ?)").execute(arguments: [sequence, recordedAt])
    }

    /// Appends the packed legs to their rows: a row the run made is inserted, one it found
    /// gets the legs after its own. One statement per row, in SQLite: `||` joins the stored
    /// bytes and the new ones as they are (in a UTF-8 database, which every store is), and
    /// the cast keeps the column a blob. Rows of the run's first span may exist (an earlier
    /// run folded the span's first events): each is read first, for the head of its last leg,
    /// and its span's list is merged with what it lists already. Every later span is new.
    mutating func flush(_ db: Database) throws {
        guard !keys.isEmpty else { return }
        let append = RawStatement(try db.cachedStatement(sql: """
            INSERT INTO posting_days (pair, day, span, legs) VALUES (?, ?, ?, ?)
            ON CONFLICT (pair, day, span) DO UPDATE SET legs = CAST(legs || excluded.legs AS BLOB)
            """))
        let firstSpan = keys.lazy.map(\.span).min()!
        do {
            let stored = try db.cachedStatement(sql: "SELECT legs FROM posting_days WHERE pair = ? AND day = ? AND span = ?")
            for (slot, key) in keys.enumerated() where key.span == firstSpan {
                let rows = try Row.fetchCursor(stored, arguments: [key.pair, key.day, key.span])
                guard let row = try rows.next() else { continue }
                let last = try row.withUnsafeData(atIndex: 0) { data in
                    try data.flatMap { data in try data.withUnsafeBytes { try PostingDays.forEachLeg(in: $0, day: key.day, span: key.span) { _ in } } }
                }
                let first = slots[slot].first
                guard let last, last == LegHead(first, day: key.day) else { continue }
                var writer = BinaryWriter(capacity: slots[slot].writer.bytes.count)
                PostingDays.append(first, day: key.day, after: last, to: &writer)
                writer.bytes += slots[slot].writer.bytes[slots[slot].firstCount...]
                slots[slot].writer = writer
            }
        }
        for (slot, key) in keys.enumerated() {
            append.bind(1, key.pair)
            append.bind(2, key.day)
            append.bind(3, key.span)
            try append.step(db, bindingBlob: slots[slot].writer.bytes, at: 4)
        }
        try listSpans(firstSpan: firstSpan, db)
        index.removeAll(keepingCapacity: true)
        keys.removeAll(keepingCapacity: true)
        slots.removeAll(keepingCapacity: true)
        lastByNumber.removeAll(keepingCapacity: true)
    }

    /// Writes each span's list of rows: the run's rows of the span, with those listed before
    /// for its first span (`firstSpan`), the one span earlier runs can have listed.
    private func listSpans(firstSpan: Int64, _ db: Database) throws {
        var bySpan: [Int64: [(pair: Int64, day: Int64)]] = [:]
        for key in keys { bySpan[key.span, default: []].append((key.pair, key.day)) }
        let write = try db.cachedStatement(sql: "INSERT INTO posting_spans (span, rows) VALUES (?, ?) ON CONFLICT (span) DO UPDATE SET rows = excluded.rows")
        let listed = try db.cachedStatement(sql: "SELECT rows FROM posting_spans WHERE span = ?")
        for span in bySpan.keys.sorted() {
            var rows = bySpan[span]!
            if span == firstSpan, let bytes = try Data.fetchOne(listed, arguments: [span]) {
                let known = try bytes.withUnsafeBytes { try SpanRows.decode($0, span: span) }
                let new = Set(rows.map { Key(pair: $0.pair, day: $0.day, span: span) })
                rows += known.filter { !new.contains(Key(pair: $0.pair, day: $0.day, span: span)) }
            }
            rows.sort { ($0.pair, $0.day) < ($1.pair, $1.day) }
            try write.execute(arguments: [span, Data(SpanRows.encode(rows))])
        }
    }
}

/// Sums of postings by account and commodity up to a point in time, for the products' reads
/// (the budget's current balance and pots, the wealth summary) and the verifier's balance
/// assertions.
package enum PostingSums {
    /// The sum of the postings to `account` in `commodity` effective at or before
    /// `effectiveThrough` and recorded at or before `recordedThrough` (microseconds).
    package static func sum(
        account: String, commodity: String, effectiveThrough: Int64, recordedThrough: Int64 = Int64.max, _ db: Database
    ) throws -> Int64 {
        try sums(of: .named([account]), commodity: commodity, effectiveThrough: effectiveThrough, recordedThrough: recordedThrough, db)
            .first?.amount ?? 0
    }

    /// The sum per account and commodity of the postings to the accounts that `accounts`
    /// selects, effective and recorded by the bounds (from the roll-up cells: sub-linear),
    /// by account then commodity; a pair that never moved by then is left out.
    package static func sums(
        of accounts: AccountSelection, commodity: String? = nil, effectiveThrough: Int64, recordedThrough: Int64 = Int64.max, _ db: Database
    ) throws -> [(account: String, commodity: String, amount: Int64)] {
        let includes: (String) -> Bool
        switch accounts {
        case .named(let names):
            let names = Set(names)
            includes = { names.contains($0) }
        case .prefixed(let prefix):
            includes = { $0.hasPrefix(prefix) }
        }
        let sums = try BalanceRollups.sums(db, asOf: effectiveThrough, knownAt: recordedThrough, of: includes)
        return sums.filter { commodity == nil || $0.key.commodity == commodity }
            .sorted { $0.key.precedes($1.key) }
            .map { ($0.key.account, $0.key.commodity, $0.value) }
    }

    /// Which accounts a sum reads.
    package enum AccountSelection {
        /// These accounts.
        case named([String])
        /// Every account whose name starts with this text.
        case prefixed(String)
    }
}
