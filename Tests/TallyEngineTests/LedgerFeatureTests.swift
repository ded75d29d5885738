import Foundation
import GRDB
import Testing
import TallyEngine
import TallyTestSupport

/// An embedder's feature on the engine alone, with no product module: its own event type,
/// admission check and read model, registered through `LedgerFeature` exactly as Tally's
/// products register theirs; its commands go through `Ledger.perform`, its events are
/// folded in the command's transaction, survive a rebuild and are read back by `verify`.
@Suite struct LedgerFeatureTests {
    static let start = "2026-05-01T09:00:00Z"

    /// A merchant named for a journal entry's account: an event that moves no money.
    struct MerchantTagged: EventPayload, MovesNoMoney, AdmissionChecked {
        static let eventType = EventType("merchant_tagged", code: 10_001)
        var account: String
        var merchant: String

        init(account: String, merchant: String) {
            self.account = account
            self.merchant = merchant
        }

        var entity: String { "merchant:\(account)" }
        func encode(to writer: inout BinaryWriter) { writer.write(account); writer.write(merchant) }
        init(from reader: inout BinaryReader) throws { account = try reader.read(); merchant = try reader.read() }

        func checkAdmission(_ admission: inout Admission) throws {
            guard !merchant.isEmpty else { throw admission.refuse(.invalidArgument, "'merchant' is empty") }
        }
    }

    /// The merchant of each account, as last tagged.
    struct MerchantsProjector: Projector {
        let name = "merchants"
        let version = 1
        let tables = ["merchants"]

        func createTables(_ db: Database) throws {
            try db.execute(sql: "CREATE TABLE merchants (account TEXT PRIMARY KEY NOT NULL, merchant TEXT NOT NULL) STRICT")
        }

        func apply(_ event: Event, _ db: Database) throws {
            guard let tagged = event.body.as(MerchantTagged.self) else { return }
            try db.execute(sql: "INSERT OR REPLACE INTO merchants (account, merchant) VALUES (?, ?)", arguments: [tagged.account, tagged.merchant])
        }
    }

    struct MerchantTags: LedgerFeature {
        var name: String { "merchant-tags" }
        var eventTypes: [any EventPayload.Type] { [MerchantTagged.self] }
        var projectors: [any Projector] { [MerchantsProjector()] }
    }

    /// A type that says nothing about money: no catalog takes it.
    struct Undeclared: EventPayload {
        static let eventType = EventType("undeclared", code: 10_002)
        var note: String
        var entity: String { "note" }
        func encode(to writer: inout BinaryWriter) { writer.write(note) }
        init(from reader: inout BinaryReader) throws { note = try reader.read() }
    }

    /// A type whose code the engine's `ledger_created` already has.
    struct Clashing: EventPayload, MovesNoMoney {
        static let eventType = EventType("clashing", code: LedgerCreated.eventType.code)
        var note: String
        var entity: String { "note" }
        func encode(to writer: inout BinaryWriter) { writer.write(note) }
        init(from reader: inout BinaryReader) throws { note = try reader.read() }
    }

    struct Feature: LedgerFeature {
        var name: String
        var eventTypes: [any EventPayload.Type]
    }

    private func options(_ clock: ManualClock, _ features: [any LedgerFeature] = [MerchantTags()]) -> Ledger.Options {
        Ledger.Options(clock: clock.function, syncMode: .none, features: features)
    }

    /// Tags an account through a command of the embedder's own: refused unless the account
    /// has had a journal entry.
    private func tag(_ ledger: Ledger, _ account: String, _ merchant: String, key: String? = nil, at clock: ManualClock) throws -> Ledger.CommandResult {
        let request = NewEvent(effectiveAt: clock.now, body: EventBody(MerchantTagged(account: account, merchant: merchant)))
        return try ledger.perform(idempotencyKey: key, request: request) { db in
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM accounts WHERE name = ?)", arguments: [account]) == true else {
                throw LedgerError(.notFound, "no account '\(account)' to tag")
            }
            return [request]
        }
    }

    private func merchants(_ ledger: Ledger) throws -> [String: String] {
        try ledger.read { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT account, merchant FROM merchants").map { ($0["account"], $0["merchant"]) })
        }
    }

    private func entry(_ amount: String, _ account: String, at clock: ManualClock) -> NewEvent {
        NewEvent(effectiveAt: clock.now, body: EventBody(JournalEntryPosted(account: account, counterAccount: "Income:Sales", amount: usd(amount))))
    }

    @Test func anEmbeddersFeatureRecordsFoldsRebuildsAndVerifiesOnTheEngineAlone() throws {
        try withTemporaryStore { root in
            let clock = ManualClock(Self.start)
            let ledger = try Ledger.create(at: root, name: "Shop", baseCurrency: .usd, timeZone: "UTC", options: options(clock))
            defer { try? ledger.close() }
            try ledger.appendEvents([entry("12.00", "Assets:Till", at: clock)])

            let first = try tag(ledger, "Assets:Till", "Corner Grocer", key: "tag-1", at: clock)
            #expect(first.events.map(\.type.name) == ["merchant_tagged"])
            #expect(try merchants(ledger) == ["Assets:Till": "Corner Grocer"])

            let repeated = try tag(ledger, "Assets:Till", "Corner Grocer", key: "tag-1", at: clock)
            #expect(repeated.wasAlreadyApplied && repeated.events == first.events)
            #expect(throws: LedgerError.self) { try tag(ledger, "Assets:Till", "Another", key: "tag-1", at: clock) }
            let refused = #expect(throws: LedgerError.self) { try tag(ledger, "Assets:Unknown", "Nobody", at: clock) }
            #expect(refused?.code == .notFound)

            try ledger.rebuild()
            #expect(try merchants(ledger) == ["Assets:Till": "Corner Grocer"])
            #expect(try ledger.balances().map(\.account).sorted() == ["Assets:Till", "Income:Sales"])
            let verification = try StoreVerifier.verify(at: root, options: options(clock))
            #expect(verification.isIntact, "\(verification)")
        }
    }

    @Test func anAdmittedEventOfTheFeatureIsCheckedAtItsPosition() throws {
        try withTemporaryStore { root in
            let clock = ManualClock(Self.start)
            let ledger = try Ledger.create(at: root, name: "Shop", baseCurrency: .usd, timeZone: "UTC", options: options(clock))
            defer { try? ledger.close() }
            let head = try ledger.balances()
            let bad = NewEvent(effectiveAt: clock.now, body: EventBody(MerchantTagged(account: "Assets:Till", merchant: "")))
            let error = #expect(throws: LedgerError.self) { try ledger.appendEvents([entry("1.00", "Assets:Till", at: clock), bad]) }
            #expect(error?.message.contains("'merchant' is empty") == true)
            #expect(try ledger.balances() == head, "nothing appended")
        }
    }

    @Test func aStoreOpenedWithoutTheFeatureCannotReadItsEventsAndSaysWhich() throws {
        try withTemporaryStore { root in
            let clock = ManualClock(Self.start)
            let ledger = try Ledger.create(at: root, name: "Shop", baseCurrency: .usd, timeZone: "UTC", options: options(clock))
            try ledger.appendEvents([entry("5.00", "Assets:Till", at: clock)])
            _ = try tag(ledger, "Assets:Till", "Corner Grocer", at: clock)
            try ledger.close()

            let reader = try EventStoreReader.open(at: root)
            let error = #expect(throws: EventCodingError.self) { try reader.forEach { _ in } }
            #expect(error?.message.contains("10001") == true || error?.message.contains("merchant") == true, "\(String(describing: error))")
            let reopened = try Ledger.open(at: root, options: options(clock))
            defer { try? reopened.close() }
            #expect(try merchants(reopened) == ["Assets:Till": "Corner Grocer"])
        }
    }

    @Test func aCatalogRefusesATypeWithoutPostingsAndClashingCodesOrNames() throws {
        let clock = ManualClock(Self.start)
        let cases: [(String, [any EventPayload.Type], String)] = [
            ("no postings", [Undeclared.self], "declares no postings"),
            ("a code the engine has", [Clashing.self], "share the log code"),
            ("a type registered by two features", [MerchantTagged.self, MerchantTagged.self], ""),
        ]
        for (label, types, words) in cases {
            let features = types.enumerated().map { Feature(name: "f\($0.offset)", eventTypes: [$0.element]) as any LedgerFeature }
            if words.isEmpty {
                #expect(throws: Never.self, "\(label): the same type twice is one registration") { try options(clock, features).catalog() }
            } else {
                let error = #expect(throws: LedgerError.self, "\(label)") { try options(clock, features).catalog() }
                #expect(error?.message.contains(words) == true, "\(label): \(String(describing: error))")
            }
        }
    }

    @Test func aFeaturesProjectorClashingWithAnEngineTableIsRefusedBeforeAnythingOpens() throws {
        struct Thief: Projector {
            let name = "thief"
            let version = 1
            let tables = ["balances"]
            func createTables(_ db: Database) throws {}
            func apply(_ event: Event, _ db: Database) throws {}
        }
        struct Greedy: LedgerFeature {
            var name: String { "greedy" }
            var eventTypes: [any EventPayload.Type] { [] }
            var projectors: [any Projector] { [Thief()] }
        }
        try withTemporaryStore { root in
            let clock = ManualClock(Self.start)
            let error = #expect(throws: LedgerError.self) {
                try Ledger.create(at: root, name: "Shop", baseCurrency: .usd, timeZone: "UTC", options: options(clock, [Greedy()]))
            }
            #expect(error?.message.contains("balances") == true)
            #expect(!FileManager.default.fileExists(atPath: root), "nothing created")
        }
    }
}
