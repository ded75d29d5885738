/// The values every read-model row written for an event stores of it, written one way (the
/// writing side of ``Row``'s typed readers in `RowDecoding.swift`): a projector binds
/// `event.rowSequence`, `event.rowEffectiveAt` and `event.rowRecordedAt` instead of
/// converting each at its own site.
extension Event {
    /// The event's sequence number as a `sequence` column holds it: SQLite's integers are
    /// signed 64-bit, and a log's sequence numbers stay far below 2^63.
    package var rowSequence: Int64 { Int64(sequence) }

    /// When the event took effect, in microseconds since the epoch (an `effective_at` column).
    package var rowEffectiveAt: Int64 { effectiveAt.microsecondsSinceEpoch }

    /// When the ledger recorded the event, in microseconds since the epoch (a `recorded_at`
    /// column).
    package var rowRecordedAt: Int64 { recordedAt.microsecondsSinceEpoch }
}
