import GRDB

/// What a write group's plans ask of the read models again and again, kept in memory for
/// the span of the group's transaction on its connection (docs/architecture.md, "The write
/// pipeline"): a product keeps there what it read once (the wealth settings an account has
/// had, for every deposit and purchase a group plans) and forgets it where its fold changes
/// those rows.
///
/// The pipeline makes one per group, with the group's held postings (``HeldPostings``), and
/// drops it with them: nothing in it outlives the transaction, so no other writer's commit
/// can make it stale. A command's savepoint that rolls back empties it (what it read may
/// have been written inside that savepoint). Readers find it only on the group's own
/// connection (``of(_:)``); everywhere else (a reader's connection, a rebuild, a catch-up
/// fold) there is none and they ask SQLite.
package final class GroupMemo: @unchecked Sendable {
    // @unchecked: made, used and dropped on the group's write connection's queue.

    private var entries: [ObjectIdentifier: AnyObject] = [:]

    init() {}

    /// The memo of the group being run on `db`, nil when no group is.
    package static func of(_ db: Database) -> GroupMemo? {
        HeldPostings.memo(of: db)
    }

    /// The group's entry of type `Entry`, made by `make` the first time the group asks.
    package func entry<Entry: AnyObject>(_ type: Entry.Type, make: () -> Entry) -> Entry {
        let key = ObjectIdentifier(type)
        if let entry = entries[key] as? Entry { return entry }
        let entry = make()
        entries[key] = entry
        return entry
    }

    /// Drops the group's entry of type `Entry`: called where the rows it was read from change.
    package func forget<Entry: AnyObject>(_ type: Entry.Type) {
        entries[ObjectIdentifier(type)] = nil
    }

    /// Drops every entry (a command's savepoint rolled back).
    func forgetAll() {
        entries.removeAll()
    }
}
