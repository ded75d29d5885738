import Foundation
import GRDB
import Testing
import TallyLog
@testable import Tally
import TallyTestSupport
@testable import TallyEngine

/// An import's batches pack their idempotency keys less often than other writes do, and the
/// import packs what is left loose when it ends (``PackedKeys``): the store ends as compact
/// as if every write had packed at an eighth, and every key is still found.
@Suite struct ImportKeyPackingTests {
    /// `count` rows without an external id (keyed by their content, digests that scatter).
    private func rows(_ count: Int, seed: UInt64) -> [String] {
        var random = SplitMix64(seed: seed)
        let accounts = ["Assets:Checking", "Expenses:Food", "Expenses:Rent", "Income:Salary"]
        return (1...count).map { number in
            let target = accounts[Int(random.next() % 4)]
            let source = target == "Assets:Checking" ? "Income:Salary" : "Assets:Checking"
            let amount = Money(minorUnits: Int64(random.next() % 100_000) + 1, commodity: .usd).decimalString
            return "2026-0\(1 + number % 9)-1\(number % 9),\(target),\(source),\(amount),USD,Shop \(number % 13),,"
        }
    }

    private func counts(_ ledger: Ledger) throws -> (loose: Int64, packed: Int64) {
        try ledger.readModels.database.read { db in
            let counts = try PackedKeys.counts(db)
            return (counts.loose, counts.packed)
        }
    }

    /// A household imports 3,000 bank rows without ids, 150 a commit, into a store that packs
    /// from 64 loose keys: when the import ends no key is loose, every row's key is packed, and
    /// importing the file again finds each one (all skipped). A deposit recorded afterwards is
    /// keyed as any command is.
    @Test func anImportOfRowsWithoutIdsEndsWithEveryKeyPackedAndFound() throws {
        let seed: UInt64 = 1_201
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-10-01T12:00:00Z"))
            try ledger.readModels.database.write { db in try PackedKeys.setLooseMinimum(64, db) }
            let lines = rows(3_000, seed: seed)
            let path = root + "-bank.csv"
            try Data(([JournalCSV.header] + lines).map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: path))

            let first = try ledger.importJournal(csvAt: path, batchSize: 150)
            #expect(first.imported == 3_000, "seed \(seed)")
            let afterImport = try counts(ledger)
            #expect(afterImport.loose == 0, "the import's end packs what its batches left loose (seed \(seed))")
            #expect(afterImport.packed == 3_000, "seed \(seed)")

            let again = try ledger.importJournal(csvAt: path, batchSize: 150)
            #expect(again.imported == 0 && again.duplicatesSkipped == 3_000, "seed \(seed)")
            #expect(try counts(ledger) == (loose: 0, packed: 3_000), "seed \(seed)")
        }
    }

    /// The bulk share applies to an import's groups only: other writes still pack once the
    /// loose keys reach an eighth of the packed ones.
    @Test func onlyAnImportsBatchesPackAtHalf() throws {
        #expect(PackedKeys.packingThreshold(packed: 80_000, minimum: 64) == 10_000)
        #expect(PackedKeys.packingThreshold(packed: 80_000, minimum: 64, divisor: PackedKeys.bulkDivisor) == 40_000)
        #expect(PackedKeys.packingThreshold(packed: 100, minimum: 64, divisor: PackedKeys.bulkDivisor) == 64)
    }
}
