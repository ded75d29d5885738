public import GRDB

/// Which event types the log holds, by code, with the name the process that folded the first
/// of each gave it: an open checks them against the types it registers, without reading the
/// log (a feature missing at open is refused, naming the types; issue 34, item 5).
///
/// New in a store made before it, it is folded from the log on the next open, like any new
/// read model: a process without the feature is then refused by the fold itself (the log holds
/// an event type this build's catalog lacks, named by its code).
public struct EventTypesProjector: Projector {
    /// Creates the projector; ``Ledger/projectors`` registers it in every ledger.
    public init() {}

    public let name = "event_types"
    public let version = 1
    public let tables = ["log_event_types"]

    /// `log_event_types` holds one row per type code the log holds: its name and the first
    /// event of that type.
    public func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE log_event_types (
                code INTEGER PRIMARY KEY NOT NULL,
                name TEXT NOT NULL,
                first_sequence INTEGER NOT NULL
            ) STRICT
            """)
    }

    public func apply(_ event: Event, _ db: Database) throws {
        try apply([event][...], db)
    }

    /// One insert per type new to the run (most runs hold a few types).
    public func apply(_ events: ArraySlice<Event>, _ db: Database) throws {
        try apply(events, db, holding: nil)
    }

    /// ``apply(_:_:)-(ArraySlice<Event>,_)`` inside a write group (``HeldPostings``, nil:
    /// none): a type an earlier command of the group wrote or found is not written again,
    /// so a group of deposits writes its two types once, not twice per command.
    func apply(_ events: ArraySlice<Event>, _ db: Database, holding held: HeldPostings?) throws {
        var first: [UInt32: (name: String, sequence: UInt64)] = [:]
        events.withUnsafeBufferPointer { buffer in
            guard var event = buffer.baseAddress else { return }
            for _ in 0..<buffer.count {
                let type = event.pointee.body.type
                if first[type.code] == nil, held?.eventTypesWritten.contains(type.code) != true {
                    first[type.code] = (type.name, event.pointee.sequence)
                }
                event += 1
            }
        }
        guard !first.isEmpty else { return }
        // Bound through the C API: every command's fold runs it, for a type or two.
        let insert = RawStatement(try db.cachedStatement(sql: "INSERT OR IGNORE INTO log_event_types (code, name, first_sequence) VALUES (?, ?, ?)"))
        for (code, type) in first {
            insert.bind(1, Int64(code))
            insert.bind(2, type.name)
            insert.bind(3, Int64(type.sequence))
            try insert.step(db)
        }
        held?.eventTypesWritten.formUnion(first.keys)
    }

    /// The types the log holds that `catalog` does not register, as `name (code N, first at
    /// event S)`, by code.
    static func unregistered(in catalog: EventCatalog, _ db: Database) throws -> [String] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT code, name, first_sequence FROM log_event_types ORDER BY code")).compactMap { row in
            let code: Int64 = row[0]
            guard let code = UInt32(exactly: code), catalog.type(code: code) == nil else { return nil }
            let name: String = row[1]
            let sequence: Int64 = row[2]
            return "\(name) (code \(code), first at event \(sequence))"
        }
    }
}
