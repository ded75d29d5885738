import GRDB
import TallyEngine

/// The example's feature: its event type and its read model, registered with
/// `Ledger.Options(features: [MerchantTags()])` each time the store is created, opened,
/// rebuilt or verified.
struct MerchantTags: LedgerFeature {
    var name: String { "merchant-tags" }
    var eventTypes: [any EventPayload.Type] { [MerchantTagged.self] }
    var projectors: [any Projector] { [MerchantTagsProjector()] }
}

/// The read model: each account's merchant as last tagged, and how many tags name each
/// merchant. Folded in the same SQLite transaction as the command that records the tag,
/// checkpointed, and made again from the log by `rebuild`.
struct MerchantTagsProjector: Projector {
    let name = "merchant_tags"
    /// Bump it when the tables or the fold change: the engine then rebuilds them on open.
    let version = 1
    let tables = ["merchant_tags", "merchant_tag_counts"]

    func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE merchant_tags (account TEXT PRIMARY KEY NOT NULL, merchant TEXT NOT NULL) STRICT;
            CREATE TABLE merchant_tag_counts (merchant TEXT PRIMARY KEY NOT NULL, tags INTEGER NOT NULL) STRICT;
            """)
    }

    func apply(_ event: Event, _ db: Database) throws {
        guard let tagged = event.body.as(MerchantTagged.self) else { return }
        try db.execute(
            sql: "INSERT OR REPLACE INTO merchant_tags (account, merchant) VALUES (?, ?)",
            arguments: [tagged.account, tagged.merchant])
        try db.execute(
            sql: "INSERT INTO merchant_tag_counts (merchant, tags) VALUES (?, 1) ON CONFLICT (merchant) DO UPDATE SET tags = tags + 1",
            arguments: [tagged.merchant])
    }
}

/// The read model's rows as plain values, for the example to compare.
struct MerchantTagsView: Equatable, CustomStringConvertible {
    /// Account → merchant.
    var merchants: [String: String]
    /// Merchant → number of tags naming it.
    var tagCounts: [String: Int]

    /// Reads both tables in one consistent snapshot of the read models.
    static func read(_ ledger: Ledger) throws -> MerchantTagsView {
        try ledger.read { db in
            MerchantTagsView(
                merchants: Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT account, merchant FROM merchant_tags")
                    .map { ($0["account"], $0["merchant"]) }),
                tagCounts: Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT merchant, tags FROM merchant_tag_counts")
                    .map { ($0["merchant"], $0["tags"]) }))
        }
    }

    var description: String {
        tagCounts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }
}
