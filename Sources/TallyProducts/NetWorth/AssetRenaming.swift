public import TallyEngine
import GRDB

extension Ledger {
    /// Renames an asset, or changes its category, from a date on (issue 15, missing today
    /// 3): net worth, its breakdown by category, the X-ray and the lists use the new name
    /// and category from then on and the old ones before; the event stays in the log.
    ///
    /// ```swift
    /// try ledger.renameAsset(assetId: "flat", name: "Rented flat", category: .investments)
    /// ```
    ///
    /// - Parameters:
    ///   - name: the new name (1 to 200 characters); nil keeps the one in force then.
    ///   - category: the new category; nil keeps the one in force then.
    ///   - effectiveAt: from when (default: now); the asset must be held then.
    ///   - idempotencyKey: an optional key; a repeat with the same input returns the first result.
    /// - Returns: no event when that name and category are in force then already (nothing to do).
    /// - Throws: ``LedgerError`` `notFound` (no such asset held then), `invalidArgument`
    ///   (an empty or over-long name, or neither given), `idempotencyConflict`.
    @discardableResult
    public func renameAsset(
        assetId: String, name: String? = nil, category: AssetCategory? = nil, effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> CommandResult {
        try run(renameAssetCommand(assetId: assetId, name: name, category: category, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``renameAsset(assetId:name:category:effectiveAt:idempotencyKey:)`` runs,
    /// as a value: for `run(batch:)` or the async `run(_:)`.
    public func renameAssetCommand(
        assetId: String, name: String? = nil, category: AssetCategory? = nil, effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> LedgerCommand {
        guard name != nil || category != nil else { throw LedgerError(.invalidArgument, "give a new name, a new category, or both") }
        let name = try name.map { try NameRule.name($0, "the asset name") }
        let at = effectiveAt ?? now
        let calendar = self.calendar
        // The event depends on what is in force then (a name or category not given is kept):
        // a repeat is compared on the event the first run recorded.
        let request = try repeatRequest(key: idempotencyKey) { first in
            guard let earlier = first.body.as(AssetRenamed.self) else { return nil }
            return NewEvent(effectiveAt: effectiveAt ?? first.effectiveAt, body: EventBody(AssetRenamed(
                assetId: assetId, name: name ?? earlier.name, category: category ?? earlier.category)))
        }
        return LedgerCommand(idempotencyKey: idempotencyKey, request: request, requestHasEffectiveTime: effectiveAt != nil) { db in
            let held = try Valuations(db: db, point: PointInTime(asOf: at)).items().first { $0.kind == .asset && $0.itemId == assetId }
            guard let held else {
                throw LedgerError(.notFound, "no asset '\(assetId)' is held on \(calendar.date(of: at)); `tally asset list` lists them")
            }
            guard let heldCategory = AssetCategory(rawValue: held.category) else {
                throw LedgerError(.inconsistentLog, "asset '\(assetId)' has the category '\(held.category)', which is no asset category")
            }
            let renamed = AssetRenamed(assetId: assetId, name: name ?? held.name, category: category ?? heldCategory)
            guard renamed.name != held.name || renamed.category != heldCategory else { return [] }
            return [NewEvent(effectiveAt: at, body: EventBody(renamed))]
        }
    }
}
