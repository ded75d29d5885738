/// An account as a list shows it (``Ledger/accountList(asOf:knownAt:)``): its kind, the
/// currency it was opened in, when it opened and closed, and its balances at the point asked.
public struct AccountListing: Hashable, Sendable {
    /// The account's name, e.g. `Assets:Checking`.
    public let name: String
    /// Its kind (`asset`, `liability`, `spend`, `pot`, …).
    public let kind: AccountKind
    /// The commodity an `account_opened` opened it in; nil for an account a posting opened
    /// (the wealth account's Spend, a pot, `Assets:Cash` in a journal import).
    public let currency: Commodity?
    /// When it opened: the effective time of its opening, or of the earliest posting that
    /// moved it if that is earlier (both as known at the point).
    public let openedAt: Instant
    /// When it closed (the closing's effective time), if it was closed by the point.
    public let closedAt: Instant?
    /// Its balance in each commodity it holds at the point, by commodity code; empty when
    /// every balance is zero. Signed as every balance is: debits positive, so a liability
    /// owing 300.00 reads -300.00 (``owed``).
    public let balances: [Money]

    /// For a liability, what is owed in each commodity (positive when owed): the balances
    /// negated. Empty for every other kind.
    ///
    /// - Throws: ``MoneyError`` `overflow` for a balance that cannot be negated (the least
    ///   amount a balance holds): never a list missing that balance.
    public var owed: [Money] {
        get throws {
            kind == .liability ? try balances.map { try $0.negated() } : []
        }
    }

    /// Whether the account was closed by the point.
    public var isClosed: Bool { closedAt != nil }
}

extension Ledger {
    /// Every account opened by the end of `asOf` (now when absent) as known at `knownAt`,
    /// closed ones included, by name, each with its balances at that point.
    ///
    /// ```swift
    /// for account in try ledger.accountList() {
    ///     print(account.name, account.kind, account.balances)
    /// }
    /// ```
    ///
    /// An account is listed from the effective time of the event that opened it (or of an
    /// earlier posting to it); one opened later, or recorded after `knownAt`, is not.
    ///
    /// - Throws: ``LedgerError``: `inconsistentLog` for an account kind no event writes,
    ///   `store` when the log cannot be read.
    public func accountList(asOf: Instant? = nil, knownAt: Instant? = nil) throws -> [AccountListing] {
        let point = PointInTime(asOf: asOf ?? now, knownAt: knownAt)
        let (records, firstPostings) = try read { db in
            let records = try AccountListRecords.all(db)
            let firsts = try records.map { try AccountListRecords.firstPosting(of: $0.name, recordedBound: point.recordedBound, db) }
            return (records, firsts)
        }
        var balances: [String: [Money]] = [:]
        for balance in try self.balances(asOf: point.asOf, knownAt: knownAt) where !balance.amount.isZero {
            balances[balance.account, default: []].append(balance.amount)
        }
        let recorded = try loggedEvents(at: records.flatMap { [$0.openedSequence] + ($0.closedSequence.map { [$0] } ?? []) })
        var listed: [AccountListing] = []
        for (record, firstPosting) in zip(records, firstPostings) {
            let kind = record.kind
            guard let opening = recorded[record.openedSequence] else {
                throw LedgerError(.inconsistentLog, "account '\(record.name)' was opened by event \(record.openedSequence), past the log's head")
            }
            guard opening.recordedAt.microsecondsSinceEpoch <= point.recordedBound else { continue }
            let openedAt = min(opening.effectiveAt, firstPosting ?? opening.effectiveAt)
            guard openedAt <= point.asOf else { continue }
            var closedAt: Instant?
            if let closedSequence = record.closedSequence, let closing = recorded[closedSequence],
               closing.recordedAt.microsecondsSinceEpoch <= point.recordedBound, closing.effectiveAt <= point.asOf {
                closedAt = closing.effectiveAt
            }
            listed.append(AccountListing(
                name: record.name, kind: kind, currency: opening.body.as(AccountOpened.self)?.commodity,
                openedAt: openedAt, closedAt: closedAt,
                balances: (balances[record.name] ?? []).sorted { $0.commodity.code < $1.commodity.code }))
        }
        return listed
    }
}
