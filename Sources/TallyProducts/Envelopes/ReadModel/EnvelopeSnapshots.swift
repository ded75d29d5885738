import TallyEngine
import GRDB

/// Where one envelope's interval fold stands at the end of a day: the interval running
/// then, what the previous one carried into it, and what it has had so far. It depends only
/// on events effective through that day, which makes it a snapshot's content.
struct EnvelopeProgress: Hashable, Sendable {
    /// The envelope.
    let envelopeId: String
    /// The sequence number of its creation (a second creation of the id starts again).
    let creation: UInt64
    /// The last day counted.
    var through: LocalDate
    /// The first day of the interval running on `through`.
    var periodFirst: LocalDate
    /// What the previous interval carried in, in minor units of the envelope's currency.
    var carriedIn: Int64 = 0
    /// The previous interval's overspending covered by what is left to assign.
    var takenFromToAssign: Int64 = 0
    /// `envelope_funded` amounts in the interval so far.
    var funded: Int64 = 0
    /// Spent in the interval so far.
    var spent: Int64 = 0
    /// Transactions in the interval so far with no known rate.
    var unconverted: Int = 0
}

/// An envelope's snapshot could not be resumed: the book does not match it. The ledger
/// answers from the beginning instead (never seen in tests; kept as a guard).
struct EnvelopeSnapshotMismatch: Error, CustomStringConvertible {
    let envelopeId: String
    let day: LocalDate
    var description: String { "the snapshot of envelope '\(envelopeId)' at \(day) does not fit its intervals" }
}

/// The progress of every envelope at the end of a snapshot's day.
struct EnvelopeSnapshot: Sendable {
    /// The snapshot's day.
    let day: LocalDate
    /// The instant it counts events through (the end of ``day``).
    let effectiveThrough: Instant
    /// Each envelope's progress, by id; envelopes starting after ``day`` have none.
    let progress: [String: EnvelopeProgress]

    /// The progress to resume `envelope` from: nil when it starts after the snapshot's day
    /// (it is folded from its start).
    ///
    /// - Throws: ``EnvelopeSnapshotMismatch`` when an envelope that had started has none.
    func progress(of envelope: EnvelopeRecord) throws -> EnvelopeProgress? {
        guard envelope.startDate <= day else { return nil }
        guard let progress = progress[envelope.envelopeId] else {
            throw EnvelopeSnapshotMismatch(envelopeId: envelope.envelopeId, day: day)
        }
        return progress
    }

    /// The compact form stored in ``SnapshotTable``: a count, then per envelope its id,
    /// creation, period start and sums (varints and zig-zag varints).
    var encoded: [UInt8] {
        var writer = BinaryWriter(capacity: 16 + progress.count * 48)
        writer.writeVarint(UInt64(progress.count))
        for (id, entry) in progress.sorted(by: { $0.key < $1.key }) {
            writer.writeString(id)
            writer.writeVarint(entry.creation)
            writer.writeZigZag(Int64(entry.periodFirst.daysSinceEpoch))
            for value in [entry.carriedIn, entry.takenFromToAssign, entry.funded, entry.spent, Int64(entry.unconverted)] {
                writer.writeZigZag(value)
            }
        }
        return writer.bytes
    }

    init(day: LocalDate, effectiveThrough: Instant, progress: [String: EnvelopeProgress]) {
        self.day = day
        self.effectiveThrough = effectiveThrough
        self.progress = progress
    }

    /// Decodes a stored snapshot.
    init(_ snapshot: Snapshot) throws {
        var reader = BinaryReader(snapshot.state)
        var progress: [String: EnvelopeProgress] = [:]
        for _ in 0..<(try reader.readVarint()) {
            let id = try reader.readString()
            let creation = try reader.readVarint()
            let periodFirst = LocalDate(daysSinceEpoch: Int(try reader.readZigZag()))
            var entry = EnvelopeProgress(envelopeId: id, creation: creation, through: snapshot.day, periodFirst: periodFirst)
            entry.carriedIn = try reader.readZigZag()
            entry.takenFromToAssign = try reader.readZigZag()
            entry.funded = try reader.readZigZag()
            entry.spent = try reader.readZigZag()
            entry.unconverted = Int(try reader.readZigZag())
            progress[id] = entry
        }
        try reader.expectEnd()
        self.init(day: snapshot.day, effectiveThrough: snapshot.effectiveThrough, progress: progress)
    }
}

/// Taking and reading the envelopes' snapshots (``SnapshotTable`` `envelope_snapshots`).
enum EnvelopeSnapshots {
    static var table: SnapshotTable { EnvelopesProjector.snapshots }
    /// Every row an envelope's fold reads by effective time.
    static let sources = SnapshotSources(tables: ["envelopes", "envelope_changes", "envelope_activity", "envelope_rates", "envelope_base_currencies"])
    /// The money and changes of envelopes: snapshots are not taken past the latest of them.
    static let moneyAndChanges = SnapshotSources(tables: ["envelope_activity", "envelope_changes"])

    /// Takes the snapshots missing from the latest current one through the day before the
    /// day `last` was recorded (a snapshot of today would be retired by every event today),
    /// and not beyond the latest money or change an envelope has: a history imported in
    /// date order then takes each snapshot once, instead of again after every batch.
    static func take(_ db: Database, settings: SnapshotSettings, last: Event) throws {
        let calendar = settings.calendar
        // Asked after every fold (a write group's end, a rebuild's batch): through the C API, as its twin in net worth.
        guard let firstStart = try RawStatement(db.cachedStatement(sql: "SELECT MIN(start_date) FROM envelopes")).integer(db)
                .map({ LocalDate(daysSinceEpoch: Int($0)) }),
              let latestRow = try moneyAndChanges.latestEffective(db) else { return }
        try table.pruneUnreadable(db)
        let latest = try table.latestCurrent(db)
        let through = min(calendar.date(of: last.recordedAt).adding(days: -1), calendar.date(of: latestRow))
        let days = settings.interval.boundaries(after: latest?.day, from: firstStart, through: through)
        guard let lastDay = days.last else { return }
        var previous = try latest.map(EnvelopeSnapshot.init)
        var knownSince = latest?.knownSince ?? .earliest
        // Every envelope, whenever created: one created later may count money dated earlier.
        let book = try EnvelopeBook.load(db, effectiveThrough: calendar.endOfDay(lastDay), after: previous?.effectiveThrough, envelopesThrough: .latest)
        // Each snapshot folds on from the previous one over its own window of money only.
        let rates = RateBook(quotes: book.quotes)
        let activity = book.activity.enumerated()
            .sorted { ($0.element.effectiveAt, $0.offset) < ($1.element.effectiveAt, $1.offset) }.map(\.element)
        var cursor = 0
        for day in days {
            let bound = calendar.endOfDay(day)
            let start = cursor
            while cursor < activity.count && activity[cursor].effectiveAt <= bound { cursor += 1 }
            var window = book
            window.activity = Array(activity[start..<cursor])
            var progress: [String: EnvelopeProgress] = [:]
            for (id, envelope) in book.envelopes where envelope.startDate <= day && !(envelope.deletedAt.map { $0 <= bound } ?? false) {
                let resume = try previous?.progress(of: envelope)
                progress[id] = try window.fold(of: envelope, through: day, resuming: resume, calendar: calendar, rates: rates)?.progress
            }
            let snapshot = EnvelopeSnapshot(day: day, effectiveThrough: bound, progress: progress)
            knownSince = max(knownSince, try sources.latestRecorded(db, after: previous?.effectiveThrough, through: bound) ?? .earliest)
            try table.write(Snapshot(day: day, effectiveThrough: bound, sequence: last.sequence, knownSince: knownSince, state: snapshot.encoded), db)
            previous = snapshot
        }
    }

    /// The latest snapshot through the end of `date` that holds the state as known at
    /// `knownAt`, decoded.
    static func latest(through date: LocalDate, knownAt: Instant?, calendar: LedgerCalendar, _ db: Database) throws -> EnvelopeSnapshot? {
        try table.latest(through: calendar.endOfDay(date), knownAt: knownAt, db).map(EnvelopeSnapshot.init)
    }
}
