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
        let calendar = self.calendar
        return try read { db in
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
            var previous = Int64(0)
            var entries: [AuditEntry] = []
            for (index, moment) in moments.enumerated() {
                // The state after every event at this instant: report once, at the last one.
                if index + 1 < moments.count, moments[index + 1].effective == moment.effective { continue }
                let valuations = Valuations(db: db, point: PointInTime(asOf: Instant(microsecondsSinceEpoch: moment.effective), knownAt: knownAt))
                let alive = try valuations.items().contains { $0.kind == kind && $0.itemId == id }
                let value = alive ? try valuations.activeValue(kind: kind, id: id).flatMap { $0.value.commodity == currency ? $0.value.minorUnits : nil } ?? 0 : 0
                defer { previous = value }
                guard value != previous, moment.effective >= start, moment.effective <= end else { continue }
                let effectiveAt = Instant(microsecondsSinceEpoch: moment.effective)
                entries.append(AuditEntry(
                    sequence: UInt64(moment.sequence),
                    recordedAt: Instant(microsecondsSinceEpoch: moment.recorded), effectiveAt: effectiveAt,
                    effectiveDate: calendar.date(of: effectiveAt), eventType: moment.type, cause: nil,
                    amount: Money(minorUnits: value - previous, commodity: currency),
                    balance: Money(minorUnits: value, commodity: currency)))
            }
            return entries
        }
    }
}
