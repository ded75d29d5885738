import Foundation
import Testing
import TallyEngine
import TallyTestSupport

/// The Swift snippets of the engine's DocC articles, compiled here: each lies between a
/// `// snippet <article>` line and an `// end snippet` line, and a test checks that the
/// article still holds it word for word, so an article and the code it shows cannot drift.
/// Snippets that name a fixed path (`/var/lib/shop/books`) are compiled, not run; the others
/// run on a temporary store.
@Suite struct DocCSnippetTests {
    /// The variables the articles' snippets take as given.
    struct Tag: Sendable {
        var key: String
        var event: NewEvent
    }

    /// An embedder's feature, as <doc:GettingStarted> names one.
    struct MerchantTags: LedgerFeature {
        var name: String { "merchant-tags" }
        var eventTypes: [any EventPayload.Type] { [] }
    }

    // MARK: Snippets that name a fixed path: compiled only

    static func gettingStartedCreate() throws {
        // snippet GettingStarted.md
        let ledger = try Ledger.create(
            at: "/var/lib/shop/books", name: "Shop", baseCurrency: .usd, timeZone: "America/New_York"
        )
        defer { try? ledger.close() }
        print(ledger.head.sequence)   // 1: ledger_created
        // end snippet
    }

    static func gettingStartedOpen() throws -> LedgerSettings {
        // snippet GettingStarted.md
        let ledger = try Ledger.open(at: "/var/lib/shop/books")
        defer { try? ledger.close() }
        let settings = try ledger.settings()   // name, base currency, time zone
        // end snippet
        return settings
    }

    static func gettingStartedOptions() throws {
        // snippet GettingStarted.md
        var options = Ledger.Options(features: [MerchantTags()])
        options.snapshotInterval = .days(7)   // snapshots of state that is not a sum
        let ledger = try Ledger.open(at: "/var/lib/shop/books", options: options)
        // end snippet
        try ledger.close()
    }

    static func gettingStartedErrors() throws {
        // snippet GettingStarted.md
        do {
            let ledger = try Ledger.open(at: "/var/lib/shop/books")
            defer { try? ledger.close() }
            print(try ledger.settings().name)
        } catch let error as LedgerError where error.code == .locked {
            // another process writes this store: open it for reading instead
        } catch let error as LedgerError where (error.underlying as? StoreError)?.code == .notFound {
            // no store there yet: create it
        }
        // end snippet
    }

    static func concurrencyReader() throws -> [AccountBalance] {
        // snippet ConcurrencyModel.md
        let reader = try Ledger.openForReading(at: "/var/lib/shop/books")
        defer { try? reader.close() }
        let balances = try reader.balances()   // beside the writer, in another process
        // end snippet
        return balances
    }

    // MARK: Snippets that run

    static func gettingStartedRecord(_ ledger: Ledger) throws {
        // snippet GettingStarted.md
        let sale = NewEvent(
            effectiveAt: ledger.now,
            body: EventBody(JournalEntryPosted(
                account: "Assets:Till", counterAccount: "Income:Sales",
                amount: try Money(parsing: "12.00", commodity: .usd)))
        )
        try ledger.perform(idempotencyKey: "till:receipt-1", request: sale) { _ in [sale] }

        for balance in try ledger.balances() {
            print(balance.account, balance.amount)   // Assets:Till 12.00 USD, Income:Sales -12.00 USD
        }
        // end snippet
    }

    static func errorCodes(_ ledger: Ledger, key: String, request: NewEvent) throws {
        // snippet ErrorCodes.md
        do {
            try ledger.perform(idempotencyKey: key, request: request) { _ in [request] }
        } catch let error as LedgerError where error.code == .idempotencyConflict {
            // the key was used for another command: a new command needs a new key
        } catch let error as LedgerError where (error.underlying as? StoreError)?.code == .readOnly {
            // a ledger opened for reading: run commands on the writer
        } catch let error as LedgerError {
            print(error.code.name, error.message)   // refused: nothing was appended
        }
        // end snippet
    }

    static func concurrency(_ ledger: Ledger, tags: [Tag], placedAt: Date) async throws -> (results: [Ledger.CommandResult], balances: [AccountBalance], now: [AccountBalance], then: [AccountBalance]) {
        // snippet ConcurrencyModel.md
        // Many tasks record at once: their commands share commits.
        let results = try await withThrowingTaskGroup(of: Ledger.CommandResult.self) { group in
            for tag in tags {
                group.addTask { try await ledger.run(LedgerCommand(idempotencyKey: tag.key) { _ in [tag.event] }) }
            }
            var results: [Ledger.CommandResult] = []
            for try await result in group { results.append(result) }
            return results
        }
        // Blocking work from async code, on the shared blocking pool.
        let balances = try await ledger.run { ledger in try ledger.balances() }
        // The same read in its async form, and one as of a moment given as a Date.
        let now = try await ledger.async.balances()
        let then = try await ledger.async.balances(asOf: Instant(placedAt))
        // end snippet
        return (results, balances, now, then)
    }

    static func pipelined(_ ledger: Ledger, tags: [Tag]) async throws -> [Ledger.CommandResult] {
        // snippet ConcurrencyModel.md
        var results: [Ledger.CommandResult] = []
        var inFlight: [Ledger.SubmittedCommand] = []
        for tag in tags {
            if inFlight.count == 8 { results.append(try await inFlight.removeFirst().result) }
            inFlight.append(ledger.submit(LedgerCommand(idempotencyKey: tag.key) { _ in [tag.event] }))
        }
        for submitted in inFlight { results.append(try await submitted.result) }
        // end snippet
        return results
    }

    // MARK: Tests

    static let articles = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/TallyEngine/TallyEngine.docc")

    @Test func everySnippetCompiledHereIsWordForWordInItsArticle() throws {
        let snippets = try DocCSnippets.drifted(fromSource: #filePath, articles: Self.articles.path)
        #expect(snippets.count == 9)
        #expect(snippets.problems.isEmpty, "\(snippets.problems.joined(separator: "\n\n"))")
    }

    /// The lower layers' errors reach an embedder only inside a `LedgerError`: no article may
    /// show a `catch` of one of them.
    @Test func noArticleCatchesAnErrorTypeThatNeverArrivesUnwrapped() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.articles.path).filter { $0.hasSuffix(".md") }
        #expect(names.count >= 9)
        for name in names {
            let text = try String(contentsOf: Self.articles.appendingPathComponent(name), encoding: .utf8)
            for lower in ["StoreError", "LogError", "MoneyError", "EventCodingError", "ImportError", "DatabaseError"] {
                #expect(!text.contains("as \(lower)"), "\(name) catches \(lower), which arrives only as a LedgerError's underlying error")
            }
        }
    }

    @Test func theRecordSnippetRuns() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.create(at: root, name: "Shop", baseCurrency: .usd, timeZone: "America/New_York")
            defer { try? ledger.close() }
            try Self.gettingStartedRecord(ledger)
            #expect(try ledger.balances().map(\.amount) == [usd("12.00"), usd("-12.00")])
        }
    }

    /// The ErrorCodes snippet's branches are the errors that arrive: a reader refuses a command
    /// with `store` and `readOnly` underneath, a reused key with other input with
    /// `idempotencyConflict`.
    @Test func theErrorCodesSnippetMeetsTheErrorsItNames() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.create(at: root, name: "Shop", baseCurrency: .usd, timeZone: "UTC")
            let entry = { (amount: String) in
                NewEvent(effectiveAt: ledger.now, body: EventBody(JournalEntryPosted(account: "Assets:Till", counterAccount: "Income:Sales", amount: usd(amount))))
            }
            try ledger.perform(idempotencyKey: "k", request: entry("1.00")) { _ in [entry("1.00")] }
            try Self.errorCodes(ledger, key: "k", request: entry("2.00"))
            let conflict = #expect(throws: LedgerError.self) { try ledger.perform(idempotencyKey: "k", request: entry("2.00")) { _ in [entry("2.00")] } }
            #expect(conflict?.code == .idempotencyConflict)
            try ledger.close()

            let reader = try Ledger.openForReading(at: root)
            defer { try? reader.close() }
            try Self.errorCodes(reader, key: "k2", request: entry("3.00"))
            let readOnly = #expect(throws: LedgerError.self) { try reader.perform(idempotencyKey: "k2", request: entry("3.00")) { _ in [entry("3.00")] } }
            #expect(readOnly?.code == .store)
            #expect((readOnly?.underlying as? StoreError)?.code == .readOnly)
        }
    }

    @Test func theConcurrencySnippetRuns() async throws {
        try await withTemporaryStore(on: .files) { store in
            let ledger = try Ledger.create(at: store.root, name: "Shop", baseCurrency: .usd, timeZone: "UTC")
            defer { try? ledger.close() }
            let tags = (1...8).map { index in
                Tag(key: "tag-\(index)", event: NewEvent(effectiveAt: ledger.now, body: EventBody(
                    JournalEntryPosted(account: "Assets:Till", counterAccount: "Income:Sales", amount: usd("1.00")))))
            }
            let placedAt = Date()   // after every tag's effective time
            let outcome = try await Self.concurrency(ledger, tags: tags, placedAt: placedAt)
            #expect(outcome.results.count == 8)
            #expect(outcome.balances.map(\.amount) == [usd("8.00"), usd("-8.00")])
            #expect(outcome.now == outcome.balances)
            #expect(outcome.then == outcome.balances)
        }
    }

    @Test func thePipelinedSnippetRunsInOrder() async throws {
        try await withTemporaryStore(on: .files) { store in
            let ledger = try Ledger.create(at: store.root, name: "Shop", baseCurrency: .usd, timeZone: "UTC")
            defer { try? ledger.close() }
            let tags = (1...20).map { index in
                Tag(key: "tag-\(index)", event: NewEvent(effectiveAt: ledger.now, body: EventBody(
                    JournalEntryPosted(account: "Assets:Till", counterAccount: "Income:Sales", amount: usd("1.00"), externalId: "r\(index)"))))
            }
            let results = try await Self.pipelined(ledger, tags: tags)
            #expect(results.map { $0.events.first?.idempotencyKey } == tags.map(\.key), "one result per command, in the caller's order")
            #expect(results.compactMap { $0.events.first?.sequence } == Array(2...21), "the caller's commands appended in its order")
            #expect(try ledger.balances().map(\.amount) == [usd("20.00"), usd("-20.00")])
        }
    }
}
