import Foundation
package import GRDB
import TallyLog

// Postings of the balances read model, stored one row per account-and-commodity pair and
// effective UTC day (docs/architecture.md "Time travel and audit"):
//
//   posting_days   (pair, day, span) → legs, the day's postings of the pair packed in log
//                  order, a row per 128 sequence numbers (span = sequence >> 7)
//   recorded_times (first_sequence → recorded_at), one row where the recorded time changes
//
// A posting row per leg cost ≈ 60 bytes and two B-tree writes (the table and its index by
// pair) per leg, the largest share of a fold and of the store. Packed, a leg takes ≈ 5 bytes
// (two, and its amount) and a run of events writes each (pair, day) it touched once. Every
// read of postings is by pair and effective time (balances, audit, products), so the packing
// loses no query; "as known at K" becomes "sequence below the first one recorded after K",
// recorded times never decreasing in log order.
//
// A leg's bytes stand alone (no delta from the leg before), so a run appends to what the
// row holds and a rebuild, whatever its batches, writes the same bytes as the folds did:
//
//   place        one byte: the sequence number less the span's first (0–127), and in its
//                top bit whether the leg is effective at the day's first microsecond
//   shape        one byte: the leg's number (bits 0–1; 3: a varint follows), whether it has
//                a cause (bit 2), the event's code (bits 3–7; 31: a varint follows)
//   amount       zigzag varint
//   time in day  varint, unless at the day's start: `2·s` for a whole second s, else `2·µs + 1`
//   leg, code    varints, where the shape byte could not hold them
//   cause        varint sequence − cause, when there is one
//
// Most legs are a journal's: the day's start, leg 0 or 1, no cause, a code below 31: two
// bytes and the amount (they were six and the amount, one varint each, before version 11).
// The full sequence number costs nothing to restore: the span is part of the row's key.

/// One leg as stored in `posting_days`.
struct StoredLeg {
    let sequence: Int64
    let leg: Int64
    let amount: Int64
    let effectiveAt: Int64
    let eventCode: Int64
    let cause: Int64?
}

/// The packed form of one day's legs, and the reads of `posting_days` and `recorded_times`.
enum PostingDays {
    /// The tables, owned by ``BalancesProjector``.
    static let tables = ["posting_days", "recorded_times"]
    /// The rows by span: the postings of a run of sequence numbers, for a question known at
    /// an instant inside a recorded block.
    static let spanIndex = "posting_days_by_span"
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
            CREATE TABLE recorded_times (
                first_sequence INTEGER PRIMARY KEY NOT NULL,
                recorded_at INTEGER NOT NULL
            ) STRICT;
            CREATE INDEX recorded_times_by_time ON recorded_times (recorded_at);
            CREATE INDEX \(spanIndex) ON posting_days (span);
            """)
    }

    /// The shape byte's values that say a varint follows with the leg's number (bits 0–1)
    /// or the event's code (bits 3–7): the numbers and codes below them are held in place.
    private static let legEscape: Int64 = 3
    private static let codeEscape: Int64 = 31

    /// Appends one leg's bytes; `day` is the UTC day of its effective time (the row's span
    /// is the leg's sequence number shifted right by ``spanShift``).
    static func append(_ leg: StoredLeg, day: Int64, to writer: inout BinaryWriter) {
        let inDay = UInt64(leg.effectiveAt - day * RollupBuckets.dayMicroseconds)
        let legFits = leg.leg >= 0 && leg.leg < legEscape
        let codeFits = leg.eventCode >= 0 && leg.eventCode < codeEscape
        writer.writeByte(UInt8(leg.sequence & spanMask) | (inDay == 0 ? 0x80 : 0))
        let shape = (legFits ? leg.leg : legEscape) | (leg.cause == nil ? 0 : 4) | (codeFits ? leg.eventCode : codeEscape) << 3
        writer.writeByte(UInt8(shape))
        writer.writeZigZag(leg.amount)
        if inDay != 0 { writer.writeVarint(inDay % 1_000_000 == 0 ? (inDay / 1_000_000) << 1 : (inDay << 1) | 1) }
        if !legFits { writer.writeVarint(UInt64(bitPattern: leg.leg)) }
        if !codeFits { writer.writeVarint(UInt64(bitPattern: leg.eventCode)) }
        if let cause = leg.cause { writer.writeVarint(UInt64(leg.sequence - cause)) }
    }

    /// Calls `body` with each leg of one row's bytes (the row of `day` and `span`), in log order.
    static func forEachLeg(in bytes: UnsafeRawBufferPointer, day: Int64, span: Int64, _ body: (StoredLeg) throws -> Void) throws {
        var reader = ByteReader(bytes)
        let dayStart = day * RollupBuckets.dayMicroseconds
        let spanStart = span << spanShift
        func damaged() -> StoreError {
            StoreError(.readModelsDisagree, "the postings of day \(day) in the balances read model are damaged; run `tally rebuild`")
        }
        while reader.remaining > 0 {
            guard let place = reader.readByte(), let shape = reader.readByte().map(Int64.init), let amount = reader.readZigzag() else { throw damaged() }
            var micros: UInt64 = 0
            if place & 0x80 == 0 {
                guard let inDay = reader.readVarint() else { throw damaged() }
                micros = inDay & 1 == 0 ? (inDay >> 1) * 1_000_000 : inDay >> 1
            }
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
            let sequence = spanStart + Int64(place & 0x7F)
            var cause: Int64?
            if shape & 4 != 0 {
                guard let distance = reader.readVarint() else { throw damaged() }
                cause = sequence - Int64(bitPattern: distance)
            }
            try body(StoredLeg(sequence: sequence, leg: leg, amount: amount, effectiveAt: dayStart + Int64(bitPattern: micros),
                               eventCode: eventCode, cause: cause))
        }
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
    /// `throughDay`, with its pair: the rows of the spans the run covers, through
    /// `posting_days_by_span`.
    static func forEachLeg(inSequences sequences: Range<Int64>, throughDay: Int64, _ db: Database, _ body: (_ pair: Int64, StoredLeg) throws -> Void) throws {
        guard !sequences.isEmpty else { return }
        try HeldPostings.writeHeld(db)
        try forEachLeg(ofRows: db.cachedStatement(sql: """
            SELECT pair, day, legs, span FROM posting_days WHERE span >= ? AND span <= ? AND day <= ?
            """), arguments: [sequences.lowerBound >> spanShift, (sequences.upperBound - 1) >> spanShift, throughDay]) { pair, leg in
            if sequences.contains(leg.sequence) { try body(pair, leg) }
        }
    }

    /// One past the highest sequence number a row can hold (the end of the last span).
    static func sequenceEnd(_ db: Database) throws -> Int64 {
        try HeldPostings.writeHeld(db)
        let span = try Int64.fetchOne(db.cachedStatement(sql: "SELECT MAX(span) FROM posting_days")) ?? -1
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

/// The postings a fold run has packed but not yet written, by (pair, day): each is appended
/// to its row once, at the end of the run.
struct PendingPostingDays {
    private struct Key: Hashable {
        let pair: Int64
        let day: Int64
        let span: Int64
    }
    private var index: [Key: Int] = [:]
    private var keys: [Key] = []
    private var writers: [BinaryWriter] = []
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
    /// pair's last row is found.
    mutating func add(_ leg: StoredLeg, pair: Int64, number: Int) {
        let day = RollupBuckets.day(leg.effectiveAt)
        let key = Key(pair: pair, day: day, span: leg.sequence >> PostingDays.spanShift)
        while lastByNumber.count <= number { lastByNumber.append(nil) }
        let slot: Int
        if let last = lastByNumber[number], last.key == key {
            slot = last.slot
        } else {
            slot = self.slot(of: key)
            lastByNumber[number] = (key, slot)
        }
        PostingDays.append(leg, day: day, to: &writers[slot])
    }

    /// The slot of the row `key`, made when the run has none yet.
    private mutating func slot(of key: Key) -> Int {
        if let found = index[key] { return found }
        let slot = writers.count
        index[key] = slot
        keys.append(key)
        writers.append(BinaryWriter(capacity: 64))
        return slot
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
    /// the cast keeps the column a blob.
    mutating func flush(_ db: Database) throws {
        guard !keys.isEmpty else { return }
        let append = RawStatement(try db.cachedStatement(sql: """
            INSERT INTO posting_days (pair, day, span, legs) VALUES (?, ?, ?, ?)
            ON CONFLICT (pair, day, span) DO UPDATE SET legs = CAST(legs || excluded.legs AS BLOB)
            """))
        for (slot, key) in keys.enumerated() {
            append.bind(1, key.pair)
            append.bind(2, key.day)
            append.bind(3, key.span)
            try append.step(db, bindingBlob: writers[slot].bytes, at: 4)
        }
        index.removeAll(keepingCapacity: true)
        keys.removeAll(keepingCapacity: true)
        writers.removeAll(keepingCapacity: true)
        lastByNumber.removeAll(keepingCapacity: true)
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
