public import TallyEngine
import GRDB

extension Ledger {
    /// Every change to an asset's or liability's value with the event that made it: a
    /// valuation, an override or its clearing, a position, a price of its symbol, a
    /// removal. `amount` is the change of the active value (in the item's own currency)
    /// and `balance` the value after it, by the active-value rule at that moment.
    ///
    /// ```swift
    /// for entry in try ledger.auditValue(of: .asset, "home") { print(entry.effectiveDate, entry.eventType, entry.amount, entry.balance) }
    /// ```
    ///
    /// - Parameters:
    ///   - from: list changes from this day on, in the ledger's time zone (default: from the first).
    ///   - through: list changes through this day (default: through the last).
    ///   - knownAt: as the ledger knew it at this instant (default: everything recorded).
    /// - Throws: ``LedgerError`` (`notFound`) for an item that was never added.
    public func auditValue(of kind: ItemKind, _ id: String, from: LocalDate? = nil, through: LocalDate? = nil, knownAt: Instant? = nil) throws -> [AuditEntry] {
        try valueAudit(of: kind, id, from: from, through: through, knownAt: knownAt, after: nil, limit: nil).entries
    }

    /// One page of ``auditValue(of:_:from:through:knownAt:)``: the first `limit` changes after
    /// `position`, and where the next page starts. A page costs what it returns: the value
    /// before it is read once, at the last moment before the page, and the value only at the
    /// moments the page spans, never the item's whole history.
    ///
    /// ```swift
    /// var page = try ledger.auditValuePage(of: .asset, "home", limit: 50)
    /// while let next = page.next { page = try ledger.auditValuePage(of: .asset, "home", after: next, limit: 50) }
    /// ```
    ///
    /// - Throws: as ``auditValue(of:_:from:through:knownAt:)``; (`invalidArgument`) for a limit below 1.
    public func auditValuePage(
        of kind: ItemKind, _ id: String, from: LocalDate? = nil, through: LocalDate? = nil, knownAt: Instant? = nil,
        after position: AuditPosition? = nil, limit: Int
    ) throws -> AuditPage {
        guard limit >= 1 else { throw LedgerError(.invalidArgument, "an audit page holds at least 1 change, not \(limit)") }
        // One change per effective instant (at its last event): after a position is after its instant.
        let (entries, more) = try valueAudit(of: kind, id, from: from, through: through, knownAt: knownAt, after: position?.effectiveAt, limit: limit)
        let next = more ? entries.last.map { AuditPosition(effectiveAt: $0.effectiveAt.microsecondsSinceEpoch, sequence: $0.sequence, ordinal: 0) } : nil
        return AuditPage(entries: entries, next: next)
    }

    /// The value audit's changes effective after `after` (microseconds; from the first when
    /// nil), at most `limit` (all when nil), and whether more follow.
    private func valueAudit(
        of kind: ItemKind, _ id: String, from: LocalDate?, through: LocalDate?, knownAt: Instant?, after: Int64?, limit: Int?
    ) throws -> (entries: [AuditEntry], more: Bool) {
        let calendar = self.calendar
        return try read { db in
            try ValueAudit.page(db, kind: kind, id: id, from: from, through: through, knownAt: knownAt, after: after, limit: limit, calendar: calendar)
        }
    }
}

/// An item's value history (``Ledger/auditValue(of:_:from:through:knownAt:)``) in one read
/// of the net worth read model: the audit, its pages and the liabilities' payment
/// milestones (``LiabilityMilestoneRules``) read it.
enum ValueAudit {
    /// Every change of the item's active value from `from` through `through`, as known at `knownAt`.
    ///
    /// - Throws: ``LedgerError`` (`notFound`) for an item that was never added.
    static func entries(
        _ db: Database, kind: ItemKind, id: String, from: LocalDate?, through: LocalDate?, knownAt: Instant?, calendar: LedgerCalendar
    ) throws -> [AuditEntry] {
        try page(db, kind: kind, id: id, from: from, through: through, knownAt: knownAt, after: nil, limit: nil, calendar: calendar).entries
    }

    /// The changes effective after `after` (microseconds; from the first when nil), at most
    /// `limit` (all when nil), and whether more follow.
    static func page(
        _ db: Database, kind: ItemKind, id: String, from: LocalDate?, through: LocalDate?, knownAt: Instant?, after: Int64?, limit: Int?,
        calendar: LedgerCalendar
    ) throws -> (entries: [AuditEntry], more: Bool) {
        guard let item = try NetWorthHistory.item(kind: kind, id: id, db) else {
            throw LedgerError(.notFound, "no \(kind.rawValue) '\(id)'")
        }
        let currency = item.currency
        let known = knownAt?.microsecondsSinceEpoch ?? Int64.max
        // Every moment the value may have changed, with the event that changed it.
        var moments = try NetWorthHistory.valueChanges(kind: kind, id: id, recordedBound: known, db)
        if let removed = item.removed, removed.recordedAt <= known {
            moments.append(.init(effective: removed.effectiveAt, recorded: removed.recordedAt, sequence: removed.sequence, type: "\(kind.rawValue)_removed"))
        }
        moments.sort { ($0.effective, $0.sequence) < ($1.effective, $1.sequence) }
        let start = from.map { calendar.startOfDay($0).microsecondsSinceEpoch } ?? Int64.min
        let end = through.map { calendar.endOfDay($0).microsecondsSinceEpoch } ?? Int64.max
        /// The active value at an instant, by the active-value rule (0 once removed or in another currency).
        func value(at effective: Int64) throws -> Int64 {
            let valuations = Valuations(db: db, point: PointInTime(asOf: Instant(microsecondsSinceEpoch: effective), knownAt: knownAt))
            let alive = try valuations.items().contains { $0.kind == kind && $0.itemId == id }
            return alive ? try valuations.activeValue(kind: kind, id: id).flatMap { $0.value.commodity == currency ? $0.value.minorUnits : nil } ?? 0 : 0
        }
        // The page starts at the first moment past both the position and `from`; the value
        // before it is the one at the last moment before it.
        let lowest = max(start, after.map { $0 + 1 } ?? Int64.min)
        var index = moments.firstIndex { $0.effective >= lowest } ?? moments.count
        var previous = index > 0 ? try value(at: moments[index - 1].effective) : 0
        var entries: [AuditEntry] = []
        while index < moments.count, moments[index].effective <= end {
            let moment = moments[index]
            index += 1
            // The state after every event at this instant: report once, at the last one.
            if index < moments.count, moments[index].effective == moment.effective { continue }
            let current = try value(at: moment.effective)
            defer { previous = current }
            guard current != previous else { continue }
            if let limit, entries.count == limit { return (entries, true) }
            let effectiveAt = Instant(microsecondsSinceEpoch: moment.effective)
            entries.append(AuditEntry(
                sequence: UInt64(moment.sequence),
                recordedAt: Instant(microsecondsSinceEpoch: moment.recorded), effectiveAt: effectiveAt,
                effectiveDate: calendar.date(of: effectiveAt), eventType: moment.type, cause: nil,
                amount: Money(minorUnits: current - previous, commodity: currency),
                balance: Money(minorUnits: current, commodity: currency)))
        }
        return (entries, false)
    }
}
