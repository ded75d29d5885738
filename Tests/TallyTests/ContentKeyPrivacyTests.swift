import Foundation
import Testing
import TallyLog
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// Erased means unrecoverable (issue 34, item 9): the idempotency key of a journal row without
/// an external id is no function of its payee or category in clear. Hashing a list of candidate
/// names as the key's digest would hash them (the older scheme, or the new one's digest in
/// clear) finds none; the same file imported again is still recognised.
@Suite struct ContentKeyPrivacyTests {
    /// `count` distinct payee-like names from `seed`.
    static func candidates(_ count: Int, seed: UInt64) -> [String] {
        var random = SplitMix64(seed: seed)
        let first = ["Corner", "Quillon", "Zephyr", "Marta", "Acme", "Ottoline", "Bistro", "North", "Green", "Blue"]
        let second = ["Shop", "Bistro", "Analytics", "Quintas", "Corp", "Books", "Market", "Bakery", "Garage", "Cafe"]
        var names: Set<String> = []
        while names.count < count {
            names.insert("\(first[Int(random.next() % 10)]) \(second[Int(random.next() % 10)]) \(random.next() % 1_000)")
        }
        return names.sorted()
    }

    /// The key each of `payees` would get, on one row otherwise like `row`, under `scheme`.
    static func keys(of payees: [String], row: (String) -> String, scheme: JournalCSV.RowKeys.Scheme, in root: String) throws -> [String] {
        let path = root + "-candidates.csv"
        try (JournalCSV.header + "\n" + payees.map(row).joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var events = try JournalEvents(path: path, calendar: try LedgerCalendar(timeZoneIdentifier: "UTC"), keys: scheme)
        try events.readHeader()
        var keys: [String] = []
        while let (_, event) = try events.next() { keys.append(event.idempotencyKey ?? "") }
        return keys
    }

    @Test func aRowKeyMatchesNoCandidateNameHashedInClear() throws {
        let seed: UInt64 = 3_409
        let names = Self.candidates(300, seed: seed)
        var random = SplitMix64(seed: seed)
        let payee = names[Int(random.next() % UInt64(names.count))]
        func row(_ payee: String) -> String { "2026-05-01,Expenses:Food,Assets:Cash,12.50,USD,\(payee),Food," }
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-06-01T12:00:00Z"), timeZone: "UTC")
            defer { try? ledger.close() }
            let path = root + "-rows.csv"
            try (JournalCSV.header + "\n" + row(payee) + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: path) }
            #expect(try ledger.importJournal(csvAt: path).imported == 1)
            let key = try #require(try ledger.allEvents().compactMap(\.idempotencyKey).first { $0.hasPrefix("journal:row:") })
            #expect(key.hasPrefix(JournalCSV.sealedContentKeyPrefix), "\(key)")
            for scheme in [JournalCSV.RowKeys.Scheme.legacy, .plain] {
                let hashed = try Self.keys(of: names, row: row, scheme: scheme, in: root)
                #expect(hashed.count == names.count)
                #expect(!hashed.contains(key), "a candidate hashed in clear gives the row's key (seed \(seed), payee '\(payee)')")
            }
            // Recognised all the same: the same file again adds nothing.
            let again = try ledger.importJournal(csvAt: path)
            #expect(again.imported == 0 && again.duplicatesSkipped == 1, "seed \(seed)")
        }
    }

    @Test func aStoreThatHoldsKeysOfTheOlderFormStillRecognisesItsFiles() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-06-01T12:00:00Z"), timeZone: "UTC")
            defer { try? ledger.close() }
            let path = root + "-rows.csv"
            let rows = ["2026-05-01,Expenses:Food,Assets:Cash,12.50,USD,Corner Shop,Food,", "2026-05-02,Expenses:Food,Assets:Cash,3.00,USD,Bakery,,"]
            try (JournalCSV.header + "\n" + rows.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: path) }
            // The rows as an import made before this version keyed them.
            var events = try JournalEvents(path: path, calendar: ledger.calendar, keys: .legacy)
            try events.readHeader()
            var older: [NewEvent] = []
            while let (_, event) = try events.next() { older.append(event) }
            try ledger.appendEvents(older)
            let again = try ledger.importJournal(csvAt: path)
            #expect(again.imported == 0 && again.duplicatesSkipped == 2)
            #expect(try ledger.read { try IdempotencyProjector.hasLegacyContentKeys($0) })
        }
    }
}
