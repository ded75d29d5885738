public import TallyEngine
import GRDB

extension Ledger {
    /// Every change to an asset's or liability's value with the event that made it: a
    /// valuation, an override or its clearing, a position, a price of its symbol, a
    /// removal. `amount` is the change of the active value (in the item's own currency)
    /// and `balance` the value after it, by the active-value rule at that moment.
    ///
    /// - Throws: ``LedgerError`` (`notFound`) for an item that was never added.
    public func auditValue(of kind: ItemKind, _ id: String, from: LocalDate? = nil, through: LocalDate? = nil, knownAt: Instant? = nil) throws -> [AuditEntry] {
        let calendar = self.calendar
        return try read { db in
            guard let item = try Row.fetchOne(db, sql: "SELECT currency, added_at, removed_at, removed_recorded_at, removed_sequence FROM nw_items WHERE kind = ? AND item_id = ?",
                                              arguments: [kind.rawValue, id]) else {
                throw LedgerError(.notFound, "no \(kind.rawValue) '\(id)'")
            }
            let currency = try Commodity.named(item["currency"])
            let known = knownAt?.microsecondsSinceEpoch ?? Int64.max
            // Every moment the value may have changed, with the event that changed it.
            var moments = try Row.fetchAll(db, sql: """
                SELECT effective_at, recorded_at, sequence, 'valuation_recorded' AS type FROM nw_valuations WHERE kind = ? AND item_id = ? AND recorded_at <= ?
                UNION ALL SELECT effective_at, recorded_at, sequence, 'valuation_override_cleared' FROM nw_override_clears WHERE asset_id = ? AND recorded_at <= ?
                UNION ALL SELECT effective_at, recorded_at, sequence, 'position_set' FROM nw_positions WHERE asset_id = ? AND recorded_at <= ?
                UNION ALL SELECT p.effective_at, p.recorded_at, p.sequence, 'price_quoted' FROM nw_prices p
                    WHERE p.symbol IN (SELECT DISTINCT symbol FROM nw_positions WHERE asset_id = ?) AND p.recorded_at <= ?
                """, arguments: [kind.rawValue, id, known, id, known, id, known, id, known]
            ).map { (effective: $0["effective_at"] as Int64, recorded: $0["recorded_at"] as Int64, sequence: $0["sequence"] as Int64, type: $0["type"] as String) }
            if let removed = item["removed_at"] as Int64?, let recorded = item["removed_recorded_at"] as Int64?, recorded <= known {
                moments.append((removed, recorded, item["removed_sequence"] ?? 0, "\(kind.rawValue)_removed"))
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
                let alive = try valuations.items().contains { $0["kind"] == kind.rawValue && $0["item_id"] == id }
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
