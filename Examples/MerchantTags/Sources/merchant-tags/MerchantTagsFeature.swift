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

    var description: String {
        tagCounts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }
}

/// The read model's queries: its only SQL outside the projector. The rest of the example
/// reads through these values (`ledger.read(MerchantTagQueries.view)`), never a database.
enum MerchantTagQueries {
    /// A row of `merchant_tags`.
    private struct Tag: FetchableRecord, TableRecord {
        static let databaseTableName = "merchant_tags"
        enum Columns { static let account = Column("account"), merchant = Column("merchant") }
        var account: String
        var merchant: String
        init(row: Row) throws {
            account = row[Columns.account]
            merchant = row[Columns.merchant]
        }
    }

    /// A row of `merchant_tag_counts`.
    private struct TagCount: FetchableRecord, TableRecord {
        static let databaseTableName = "merchant_tag_counts"
        enum Columns { static let merchant = Column("merchant"), tags = Column("tags") }
        var merchant: String
        var tags: Int
        init(row: Row) throws {
            merchant = row[Columns.merchant]
            tags = row[Columns.tags]
        }
    }

    /// Both tables, read in one consistent snapshot.
    static let view = ReadModelQuery { db in
        MerchantTagsView(
            merchants: Dictionary(uniqueKeysWithValues: try Tag.fetchAll(db).map { ($0.account, $0.merchant) }),
            tagCounts: Dictionary(uniqueKeysWithValues: try TagCount.fetchAll(db).map { ($0.merchant, $0.tags) }))
    }

    /// The merchant an account was last tagged with.
    static func merchant(of account: String) -> ReadModelQuery<String?> {
        ReadModelQuery { db in try Tag.filter(Tag.Columns.account == account).fetchOne(db)?.merchant }
    }
}
