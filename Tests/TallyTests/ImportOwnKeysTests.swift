import Foundation
import Testing
import TallyLog
@testable import Tally
import TallyTestSupport
@testable import TallyEngine

/// An import into a store that holds no journal key but its own looks none of its keys up
/// (``ImportOwnKeys``): these stories check that a key used before is still found, whether an
/// earlier row of the same file used it or another command recorded it between two batches.
@Suite struct ImportOwnKeysTests {
    static let accounts = ["Assets:Checking", "Assets:Savings", "Liabilities:Card", "Expenses:Food", "Income:Salary"]

    /// `count` rows with external ids `bank-1` … `bank-<count>`, seeded amounts and accounts.
    private func rows(_ count: Int, seed: UInt64) -> [String] {
        var random = SplitMix64(seed: seed)
        return (1...count).map { number in
            let target = Self.accounts[Int(random.next() % UInt64(Self.accounts.count))]
            var source = target
            while source == target { source = Self.accounts[Int(random.next() % UInt64(Self.accounts.count))] }
            let cents = Int64(random.next() % 200_001) - 100_000
            let amount = Money(minorUnits: cents, commodity: .usd).decimalString
            return "2026-03-\(10 + number % 19),\(target),\(source),\(amount),USD,Shop \(number % 7),Cat \(number % 3),bank-\(number)"
        }
    }

    /// Each account's balance once every line is counted once.
    private func expectedBalances(_ lines: [String]) throws -> [String: Int64] {
        var expected: [String: Int64] = [:]
        for line in lines {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            let cents = try Money(parsing: String(fields[3]), commodity: .usd).minorUnits
            expected[String(fields[1]), default: 0] += cents
            expected[String(fields[2]), default: 0] -= cents
        }
        return expected.filter { $0.value != 0 }
    }

    private func write(_ lines: [String], to path: String) throws -> String {
        try Data(([JournalCSV.header] + lines).map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func balances(_ ledger: Ledger) throws -> [String: Int64] {
        Dictionary(uniqueKeysWithValues: try ledger.balances().map { ($0.account, $0.amount.minorUnits) }).filter { $0.value != 0 }
    }

    /// A bank export that lists `bank-3` twice in a row and `bank-5` again thirty rows later,
    /// imported ten rows a commit into a new store: each id is imported once, the two
    /// repeats are counted as skipped, and importing the file again adds nothing.
    @Test func aBankIdRepeatedInItsBatchOrALaterOneIsImportedOnce() throws {
        let seed: UInt64 = 3_105
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-10-01T12:00:00Z"))
            let distinct = rows(40, seed: seed)
            var file = distinct
            file.insert(distinct[2], at: 3)  // bank-3 again, in the first batch
            file.insert(distinct[4], at: 36)  // bank-5 again, in the fourth batch
            let path = try write(file, to: root + "-bank.csv")
            let summary = try ledger.importJournal(csvAt: path, batchSize: 10)
            #expect(summary.imported == 40, "seed \(seed)")
            #expect(summary.duplicatesSkipped == 2, "seed \(seed)")
            #expect(try balances(ledger) == expectedBalances(distinct), "seed \(seed)")
            let again = try ledger.importJournal(csvAt: path, batchSize: 10)
            #expect(again.imported == 0 && again.duplicatesSkipped == 42, "seed \(seed)")
            #expect(try balances(ledger) == expectedBalances(distinct), "seed \(seed)")
        }
    }

    /// The validating pass lists the rows whose key may repeat; a batch whose bytes it cannot
    /// vouch for (here: no digests kept, and the file changed to list `bank-5` again on row
    /// 37) has its keys looked up all the same, so the repeat is skipped, not appended twice,
    /// and the changed file is then named.
    @Test func aBatchTheValidatingPassCannotVouchForHasItsKeysLookedUp() throws {
        let seed: UInt64 = 3_106
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-10-01T12:00:00Z"))
            let distinct = rows(40, seed: seed)
            let path = try write(distinct, to: root + "-bank.csv")
            var journal = try JournalImport.validate(csvAt: path, calendar: ledger.calendar)
            #expect(journal.rowsWhoseKeyMayRepeat.isEmpty, "forty distinct ids")
            journal.readDigests = [:]
            var changed = distinct
            changed[36] = distinct[4]
            _ = try write(changed, to: path)

            let thrown = #expect(throws: LedgerError.self) { try ledger.importJournal(journal, batchSize: 10) }
            #expect(thrown.flatMap { underlying($0, as: ImportError.self) }?.code == .changedDuringImport, "seed \(seed): \(String(describing: thrown))")
            #expect(ledger.head.sequence == 40, "seed \(seed): 39 rows and bank-5 once")
            var expected = distinct
            expected.remove(at: 36)
            #expect(try balances(ledger) == expectedBalances(expected), "seed \(seed)")
        }
    }

    /// The rows whose key may repeat, as the validating pass finds them: a second row under an
    /// id (not the first), and any row whose id is spelled like a content key.
    @Test func theValidatingPassListsTheRowsWhoseKeyMayRepeat() throws {
        try withTemporaryStore { root in
            var file = rows(6, seed: 3_107)
            file.insert(file[1], at: 4)
            file.append(file[0].replacingOccurrences(of: ",bank-1", with: ",row:bank-1"))
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            let path = try write(file, to: root + "/bank.csv")
            let journal = try JournalImport.validate(csvAt: path, calendar: .utc)
            #expect(journal.rowsWhoseKeyMayRepeat == [4, 7], "\(file)")
        }
    }

    /// While a bank export is being imported ten rows a commit, another import records its
    /// row `bank-25` after the first commit: the first import finds that key when it reaches
    /// it, skips the row, and every row is counted once.
    @Test func aRowAnotherImportRecordsBetweenTwoBatchesIsNotImportedTwice() throws {
        let seed: UInt64 = 3_125
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-10-01T12:00:00Z"))
            let lines = rows(30, seed: seed)
            let path = try write(lines, to: root + "-bank.csv")
            let single = try write([lines[24]], to: root + "-bank-25.csv")
            var interposed = false
            let summary = try ledger.importJournal(csvAt: path, batchSize: 10) { progress in
                guard progress.phase == .appending, !interposed else { return }
                interposed = true
                let other = try ledger.importJournal(csvAt: single)
                #expect(other.imported == 1, "seed \(seed)")
            }
            #expect(interposed)
            #expect(summary.imported == 29, "seed \(seed)")
            #expect(summary.duplicatesSkipped == 1, "seed \(seed)")
            #expect(try balances(ledger) == expectedBalances(lines), "seed \(seed)")
        }
    }
}
