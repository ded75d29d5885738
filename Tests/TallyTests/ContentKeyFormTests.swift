import Foundation
import Testing
import TallyLog
@testable import Tally
import TallyTestSupport
@testable import TallyEngine

/// Which form a store's content keys take (``JournalCSV``, "Which rows count as already
/// imported"): a new store keys rows without an external id by their date and digest, and a
/// store that keyed such rows in the undated form before keeps doing so, so that the files
/// it imported are still recognised.
@Suite struct ContentKeyFormTests {
    /// Writes `rows` under the journal header to a file beside the store; returns its path.
    private func journal(_ rows: [String], in root: String, named name: String = "rows") throws -> String {
        let path = root + "-\(name).csv"
        try (JournalCSV.header + "\n" + rows.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The content keys of the ledger's events, in log order.
    private func contentKeys(_ ledger: Ledger) throws -> [String] {
        try ledger.allEvents().compactMap(\.idempotencyKey).filter { $0.hasPrefix(JournalCSV.contentKeyPrefix) }
    }

    @Test func aNewStoreKeysEachRowByItsDateAndDigestAndKnowsTheFileAgain() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-06-01T12:00:00Z"), timeZone: "UTC")
            defer { try? ledger.close() }
            // Two identical coffees on one day, and a row dated before the others.
            let path = try journal([
                "2026-05-02,Expenses:Food,Assets:Cash,3.00,USD,Corner Cafe,Food,",
                "2026-05-02,Expenses:Food,Assets:Cash,3.00,USD,Corner Cafe,Food,",
                "2026-04-30,Expenses:Rent,Assets:Checking,900.00,USD,Landlord,Rent,",
            ], in: root)
            defer { try? FileManager.default.removeItem(atPath: path) }
            #expect(try ledger.importJournal(csvAt: path).imported == 3)
            let keys = try contentKeys(ledger)
            #expect(keys.count == 3)
            for (key, date) in zip(keys, ["20260502", "20260502", "20260430"]) {
                #expect(key.hasPrefix(JournalCSV.datedContentKeyPrefix + date), "\(key)")
                // The date, 16 base64url characters, `:` and the count.
                let digest = key.dropFirst(JournalCSV.datedContentKeyPrefix.count + 8).prefix { $0 != ":" }
                #expect(digest.count == 16 && digest.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }, "\(key)")
            }
            #expect(keys[0].hasSuffix(":1") && keys[1] == String(keys[0].dropLast()) + "2", "the second identical row is another row: \(keys)")
            #expect(try !ledger.read { try IdempotencyProjector.hasUndatedContentKeys($0) })

            let again = try ledger.importJournal(csvAt: path)
            #expect(again.imported == 0 && again.duplicatesSkipped == 3)
            // A longer export that starts with the same rows adds only the new one.
            let longer = try journal([
                "2026-04-30,Expenses:Rent,Assets:Checking,900.00,USD,Landlord,Rent,",
                "2026-05-02,Expenses:Food,Assets:Cash,3.00,USD,Corner Cafe,Food,",
                "2026-05-02,Expenses:Food,Assets:Cash,3.00,USD,Corner Cafe,Food,",
                "2026-05-03,Expenses:Food,Assets:Cash,4.50,USD,Bakery,Food,",
            ], in: root, named: "longer")
            defer { try? FileManager.default.removeItem(atPath: longer) }
            let more = try ledger.importJournal(csvAt: longer)
            #expect(more.imported == 1 && more.duplicatesSkipped == 3)
        }
    }

    @Test func aStoreThatHoldsUndatedKeysKeepsMakingThemAndKnowsItsFiles() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-06-01T12:00:00Z"), timeZone: "UTC")
            defer { try? ledger.close() }
            let rows = ["2026-05-01,Expenses:Food,Assets:Cash,12.50,USD,Corner Shop,Food,", "2026-05-02,Expenses:Food,Assets:Cash,3.00,USD,Bakery,,"]
            let path = try journal(rows, in: root)
            defer { try? FileManager.default.removeItem(atPath: path) }
            // The rows as an import made before the dated form keyed them.
            var events = try JournalEvents(path: path, calendar: ledger.calendar, keys: ledger.catalog.subjectKeys.map { .sealed($0) } ?? .plain, form: .undated)
            try events.readHeader()
            var older: [NewEvent] = []
            while let (_, event) = try events.next() { older.append(event) }
            try ledger.appendEvents(older)
            #expect(try ledger.read { try IdempotencyProjector.hasUndatedContentKeys($0) })

            let again = try ledger.importJournal(csvAt: path)
            #expect(again.imported == 0 && again.duplicatesSkipped == 2)
            // A new row of such a store gets an undated key too.
            let next = try journal(rows + ["2026-05-03,Expenses:Food,Assets:Cash,4.50,USD,Bakery,Food,"], in: root, named: "next")
            defer { try? FileManager.default.removeItem(atPath: next) }
            #expect(try ledger.importJournal(csvAt: next).imported == 1)
            let keys = try contentKeys(ledger)
            #expect(keys.count == 3)
            #expect(keys.allSatisfy { $0.hasPrefix(JournalCSV.sealedContentKeyPrefix) && !$0.hasPrefix(JournalCSV.datedContentKeyPrefix) }, "\(keys)")
        }
    }

    /// The undated form's digest may begin with any base64url character, those below `:` (`-`
    /// and the digits) as well as those above it: each is found as undated, no dated key is.
    @Test func undatedKeysAreFoundWhateverTheirDigestBeginsWith() throws {
        for first in ["-", "0", "9", "A", "Z", "_", "a", "z"] {
            try withTemporaryStore { root in
                let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-06-01T12:00:00Z"), timeZone: "UTC")
                defer { try? ledger.close() }
                _ = try ledger.run(try ledger.depositCommand(account: "main", amount: usd("1.00"), idempotencyKey: "journal:row:~:20260501AAAAAAAAAAAAAAAA:1"))
                #expect(try !ledger.read { try IdempotencyProjector.hasUndatedContentKeys($0) }, "a dated key")
                _ = try ledger.run(try ledger.depositCommand(account: "main", amount: usd("1.00"), idempotencyKey: "journal:row:~\(first)AAAAAAAAAAAAAAAAAAAAA:1"))
                #expect(try ledger.read { try IdempotencyProjector.hasUndatedContentKeys($0) }, "digest beginning with \(first)")
            }
        }
    }
}
