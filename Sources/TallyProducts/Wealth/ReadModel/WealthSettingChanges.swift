import GRDB
import TallyEngine

/// The setting changes of the wealth accounts a write group's plans ask about, read once per
/// account and group (``GroupMemo``): every deposit and purchase a command plans asks which
/// settings were in force at its effective time (``WealthQueries/settings(_:asOf:knownAt:before:_:)``),
/// a statement of four index searches each, where a group of 10,000 deposits into one account
/// needs its changes read once. The wealth fold forgets them when it records a change
/// (``forget(in:)``).
final class WealthSettingChanges {
    /// One row of `wealth_setting_changes`.
    struct Change {
        let setting: WealthProjector.Setting
        let effectiveAt: Int64
        let recordedAt: Int64
        let sequence: Int64
        let enabled: Int64?
        let spendWeight: Int64?
        let investWeight: Int64?
    }

    /// An account with more changes than this is asked of SQLite each time (its index finds a
    /// setting's latest change in a few steps; a scan of thousands would not).
    static let changesMax = 64

    /// Each account's changes read so far; nil for one with more than ``changesMax``.
    private var accounts: [String: [Change]?] = [:]

    /// The changes of `account` in the group being run on `db`, read on the first question;
    /// nil when no group is being run there or the account has too many to keep.
    static func changes(of account: String, _ db: Database) throws -> [Change]? {
        guard let memo = GroupMemo.of(db) else { return nil }
        return try memo.entry(Self.self) { Self() }.changes(of: account, db)
    }

    /// Drops what the group being run on `db` read: a change was recorded.
    static func forget(in db: Database) {
        GroupMemo.of(db)?.forget(Self.self)
    }

    private func changes(of account: String, _ db: Database) throws -> [Change]? {
        if let known = accounts[account] { return known }
        let statement = RawStatement(try db.cachedStatement(sql: """
            SELECT setting, effective_at, recorded_at, sequence, enabled, spend_weight, invest_weight
            FROM wealth_setting_changes WHERE account = ? LIMIT \(Self.changesMax + 1)
            """))
        statement.bind(1, account)
        var changes: [Change] = []
        try statement.forEachRow(db) { row in
            guard let setting = WealthProjector.Setting(rawValue: String(decoding: row.text(0), as: UTF8.self)) else { return }
            changes.append(Change(
                setting: setting, effectiveAt: try row.requiredInteger(1), recordedAt: try row.requiredInteger(2),
                sequence: try row.requiredInteger(3), enabled: row.integer(4), spendWeight: row.integer(5), investWeight: row.integer(6)))
        }
        let kept: [Change]? = changes.count > Self.changesMax ? nil : changes
        accounts[account] = .some(kept)
        return kept
    }
}
