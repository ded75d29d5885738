import Foundation
import Testing
import TallyLog
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// An import is all or nothing, and a row is recognised by what it says: a file the
/// validating pass accepts is appended whole (no limit or text rule refuses it halfway); a
/// refused file leaves the store byte for byte as it was; a corrected, re-run or longer file
/// adds exactly the rows not yet imported, with or without external ids.
@Suite struct ImportAtomicityTests {
    static let accounts = ["Assets:Checking", "Assets:Savings", "Liabilities:Card", "Expenses:Food", "Income:Salary"]

    /// `count` journal rows without external ids from a seeded generator, every 50th row an
    /// exact repeat of the row before it (two identical coffees on one day), and the balance
    /// each account should end with.
    private func rows(_ count: Int, seed: UInt64) -> (lines: [String], expected: [String: Int64]) {
        var random = SplitMix64(seed: seed)
        var lines: [String] = []
        var expected: [String: Int64] = [:]
        for index in 0..<count {
            if index % 50 == 49, let previous = lines.last {
                lines.append(previous)
            } else {
                let target = Self.accounts[Int(random.next() % UInt64(Self.accounts.count))]
                var source = target
                while source == target { source = Self.accounts[Int(random.next() % UInt64(Self.accounts.count))] }
                let cents = Int64(random.next() % 200_001) - 100_000
                let amount = Money(minorUnits: cents, commodity: .usd).decimalString
                lines.append("2026-0\(1 + index % 9)-1\(index % 9),\(target),\(source),\(amount),USD,\"Shop \(index % 13), Inc.\",Cat \(index % 5),")
            }
            let fields = lines.last!.split(separator: ",")
            let cents = (try? Money(parsing: String(fields[3]), commodity: .usd).minorUnits) ?? 0
            expected[String(fields[1]), default: 0] += cents
            expected[String(fields[2]), default: 0] -= cents
        }
        return (lines, expected.filter { $0.value != 0 })
    }

    private func write(_ lines: [String], to path: String) throws -> String {
        try Data(([JournalCSV.header] + lines).map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Every file under the store with its bytes.
    private func snapshot(_ root: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = try #require(FileManager.default.enumerator(atPath: root))
        while let relative = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            let path = root + "/" + relative
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files[relative] = try Data(contentsOf: URL(fileURLWithPath: path))
            }
        }
        return files
    }

    private func balances(_ ledger: Ledger) throws -> [String: Int64] {
        Dictionary(uniqueKeysWithValues: try ledger.balances().map { ($0.account, $0.amount.minorUnits) })
    }

    /// Finding 3: a payee one byte past the limit on row 2,500 of 3,000 used to pass the first
    /// pass and stop the second after 2,000 rows were committed. Now the first pass refuses
    /// the file, naming file, line 2,501 (the header is line 1) and field, and the store's
    /// bytes do not change; the corrected file then imports exactly 3,000 rows, and again 0.
    @Test func aPayeePastTheLimitOnRow2500RefusesTheFileWholeAndTheFixedFileImportsOnce() throws {
        let seed: UInt64 = 2_500
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-10-01T12:00:00Z"))
            let (good, expected) = rows(3_000, seed: seed)
            var bad = good
            let fields = bad[2_499].split(separator: ",", omittingEmptySubsequences: false)
            bad[2_499] = "\(fields[0]),\(fields[1]),\(fields[2]),\(fields[3]),USD,\(String(repeating: "p", count: 1_025)),Cat,"
            let path = try write(bad, to: root + "-bank.csv")
            _ = try ledger.importJournal(csvAt: try write(Array(good.prefix(1)), to: root + "-first.csv"))
            let before = try snapshot(root)

            let error = #expect(throws: LedgerError.self) { try ledger.importJournal(csvAt: path, batchSize: 1_000) }.flatMap { underlying($0, as: ImportError.self) }
            #expect(error?.code == .invalidRow)
            #expect(error?.file == path)
            #expect(error?.line == 2_501)
            #expect(error?.field == "payee")
            #expect(error?.description == "\(path):2501: field 'payee': holds 1025 bytes; the limit is 1024")
            #expect(ledger.head.sequence == 2)
            #expect(try snapshot(root) == before, "the store's bytes changed")

            _ = try write(good, to: path)
            let fixed = try ledger.importJournal(csvAt: path, batchSize: 1_000)
            #expect(fixed.rows == 3_000 && fixed.imported == 2_999 && fixed.duplicatesSkipped == 1, "seed \(seed)")
            #expect(ledger.head.sequence == 3_001)
            #expect(try balances(ledger) == expected, "seed \(seed)")
            let again = try ledger.importJournal(csvAt: path, batchSize: 1_000)
            #expect(again.imported == 0 && again.duplicatesSkipped == 3_000 && again.sequences == nil)
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    /// The fixed file imports everything into an empty ledger, as the brief's case reads:
    /// 3,000 events for 3,000 rows, not 5,000.
    @Test func theCorrectedFileAfterARefusedImportAddsExactly3000Events() throws {
        let seed: UInt64 = 3_000
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-10-01T12:00:00Z"))
            let (good, expected) = rows(3_000, seed: seed)
            var bad = good
            bad[2_499] = bad[2_499].replacingOccurrences(of: "\"Shop", with: "\"" + String(repeating: "é", count: 513))
            let path = try write(bad, to: root + "-bank.csv")
            #expect(throws: LedgerError.self) { try ledger.importJournal(csvAt: path) }
            _ = try write(good, to: path)
            let summary = try ledger.importJournal(csvAt: path)
            #expect(summary.eventsAppended == 3_000 && summary.duplicatesSkipped == 0, "seed \(seed)")
            #expect(try ledger.importJournal(csvAt: path).eventsAppended == 0)
            #expect(ledger.head.sequence == 3_001)
            #expect(try balances(ledger) == expected, "seed \(seed)")
            try ledger.close()
        }
    }

    /// A file of which only the first 2,000 rows were imported (as a shorter export, or an
    /// import interrupted and the file then extended): the full file adds only the other
    /// 1,000, identical rows included, though none of them has an external id.
    @Test func aFileImportedInPartAddsOnlyTheRowsNotYetThere() throws {
        let seed: UInt64 = 2_000
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-10-01T12:00:00Z"))
            let (all, expected) = rows(3_000, seed: seed)
            let first = try ledger.importJournal(csvAt: try write(Array(all.prefix(2_000)), to: root + "-january.csv"))
            #expect(first.imported == 2_000)
            let full = try ledger.importJournal(csvAt: try write(all, to: root + "-full.csv"), batchSize: 700)
            #expect(full.rows == 3_000 && full.imported == 1_000 && full.duplicatesSkipped == 2_000, "seed \(seed)")
            #expect(ledger.head.sequence == 3_001)
            #expect(try balances(ledger) == expected, "seed \(seed)")
            // The same rows in another order are the same rows.
            let shuffled = try ledger.importJournal(csvAt: try write(all.reversed(), to: root + "-reversed.csv"))
            #expect(shuffled.imported == 0 && shuffled.duplicatesSkipped == 3_000)
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    /// A third identical coffee in a later export is a new row; the two already there are not.
    @Test func identicalRowsAreCountedWithinAFile() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-06-01T12:00:00Z"))
            let coffee = "2026-05-01,Expenses:Food,Assets:Checking,3.50,USD,Cafe,Coffee,"
            #expect(try ledger.importJournal(csvAt: try write([coffee, coffee], to: root + "-a.csv")).imported == 2)
            let later = try ledger.importJournal(csvAt: try write([coffee, coffee, coffee], to: root + "-b.csv"))
            #expect(later.imported == 1 && later.duplicatesSkipped == 2)
            // Written differently, the same amount is the same content.
            let reformatted = "2026-05-01,Expenses:Food,Assets:Checking,3.5,USD,Cafe,Coffee,"
            #expect(try ledger.importJournal(csvAt: try write([reformatted], to: root + "-c.csv")).imported == 0)
            #expect(try balances(ledger)["Expenses:Food"] == 1_050)
            try ledger.close()
        }
    }

    /// Finding 7 through the CSV: a control character in any text column (inside quotes,
    /// where the CSV reader takes it) refuses the file, naming line and column; nothing is
    /// appended.
    @Test(arguments: [
        ("Assets:Ca\u{0}sh", "Income:Gift", "Shop", "Cat", "x", "account"),
        ("Assets:Cash", "Income:Gi\u{1B}[2Jft", "Shop", "Cat", "x", "counter_account"),
        ("Assets:Cash", "Income:Gift", "Sh\nop", "Cat", "x", "payee"),
        ("Assets:Cash", "Income:Gift", "Shop", "C\tat", "x", "category"),
        ("Assets:Cash", "Income:Gift", "Shop", "Cat", "tx\u{7F}1", "external_id"),
        ("Assets:Ca\nsh", "Income:Gift", "Shop", "Cat", "", "account"),
        ("Assets:Cash", "Income:Gift", "Sh\u{9B}op", "Cat", "", "payee"),
    ])
    func aControlCharacterInATextColumnRefusesTheFileNamingLineAndColumn(
        account: String, counter: String, payee: String, category: String, externalId: String, column: String
    ) throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-06-01T12:00:00Z"))
            let quoted = [account, counter, payee, category, externalId].map { "\"\($0)\"" }
            let row = "2026-05-01,\(quoted[0]),\(quoted[1]),1.00,USD,\(quoted[2]),\(quoted[3]),\(quoted[4])"
            let path = try write(["2026-05-01,Assets:Cash,Income:Gift,1.00,USD,,,ok", row], to: root + "-bad.csv")
            let before = try snapshot(root)
            let error = #expect(throws: LedgerError.self) { try ledger.importJournal(csvAt: path) }.flatMap { underlying($0, as: ImportError.self) }
            #expect(error?.line == 3)
            #expect(error?.field == column, "\(String(describing: error))")
            #expect(error?.message.contains("holds a control character") == true, "\(String(describing: error))")
            #expect(ledger.head.sequence == 1)
            #expect(try snapshot(root) == before)
            try ledger.close()
        }
    }

    /// Finding 7 through an NDJSON import: the event with a NUL, ESC or newline in a name is
    /// named by line and field in the validating pass; nothing of the file is appended.
    @Test(arguments: ["\\u0000", "\\u001b[31m", "\\n"])
    func anNDJSONImportWithAControlCharacterNamesLineAndField(_ escaped: String) throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-06-01T12:00:00Z"))
            let good = #"{"type":"account_opened","version":1,"effective_at":"2026-05-01T09:00:00Z","data":{"account":"Assets:Fine","kind":"asset","commodity":"USD"}}"#
            let bad = good.replacingOccurrences(of: "Assets:Fine", with: "Assets:Ca\(escaped)sh")
            let path = root + "-events.ndjson"
            try Data((good + "\n\n" + bad + "\n").utf8).write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: LedgerError.self) { try ledger.importEvents(ndjsonAt: path) }.flatMap { underlying($0, as: ImportError.self) }
            #expect(error?.line == 3)
            #expect(error?.field == "data.account")
            #expect(error?.description.hasPrefix("\(path):3: field 'data.account': invalid value: holds a control character") == true, "\(String(describing: error))")
            #expect(ledger.head.sequence == 1)
            try ledger.close()
        }
    }

    /// An external id too long for its idempotency key (`journal:` + the id) is refused in the
    /// validating pass by the log's own key limit, named as the `external_id` column.
    @Test func anExternalIdTooLongForItsKeyIsRefusedNamingTheColumn() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-06-01T12:00:00Z"))
            let limit = LogFormat.idempotencyKeyBytesMax - "journal:".utf8.count
            let fits = "2026-05-01,Assets:Cash,Income:Gift,1.00,USD,,,\(String(repeating: "i", count: limit))"
            let tooLong = "2026-05-02,Assets:Cash,Income:Gift,1.00,USD,,,\(String(repeating: "i", count: limit + 1))"
            let error = #expect(throws: LedgerError.self) { try ledger.importJournal(csvAt: try write([fits, tooLong], to: root + "-ids.csv")) }.flatMap { underlying($0, as: ImportError.self) }
            #expect(error?.line == 3 && error?.field == "external_id", "\(String(describing: error))")
            #expect(error?.message.contains("holds 256 bytes; the limit is 255") == true, "\(String(describing: error))")
            #expect(try ledger.importJournal(csvAt: try write([fits], to: root + "-ids.csv")).imported == 1)
            try ledger.close()
        }
    }

    /// A bank export re-imported with one row changed (same external id, another amount) is
    /// a conflict, not "already imported": the whole file is refused before its first batch,
    /// naming the file, the line and the key, and the store's bytes do not change.
    @Test func aRowReImportedWithItsExternalIdAndAnotherAmountIsAConflict() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-05-20T16:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            defer { try? ledger.close() }
            let lines = (1...6).map { "2026-05-0\($0),Assets:Checking,Income:Salary,\($0)0.00,USD,Payer \($0),Salary,bank-\($0)" }
            let first = try write(lines, to: root + "-first.csv")
            #expect(try ledger.importJournal(csvAt: first, batchSize: 2).imported == 6)
            #expect(try ledger.importJournal(csvAt: first, batchSize: 2).duplicatesSkipped == 6, "the same file again adds nothing")

            var changed = lines + ["2026-05-07,Assets:Checking,Income:Salary,70.00,USD,Payer 7,Salary,bank-7"]
            changed[4] = "2026-05-05,Assets:Checking,Income:Salary,55.00,USD,Payer 5,Salary,bank-5"
            let second = try write(changed, to: root + "-second.csv")
            let before = try snapshot(root)
            #expect { try ledger.importJournal(csvAt: second, batchSize: 2) } throws: { error in
                guard let error = error as? LedgerError, error.code == .idempotencyConflict else { return false }
                return error.message.contains("\(second):6") && error.message.contains("'journal:bank-5'")
            }
            #expect(try snapshot(root).filter { !$0.key.hasSuffix("-shm") } == before.filter { !$0.key.hasSuffix("-shm") }, "the store is byte for byte as it was")
        }
    }

    /// A file imported again is compared with what its external ids recorded once, before its
    /// first batch; an id another writer records while the import runs is compared in the
    /// batch that brings it: under another transaction it stops the import there, the
    /// batches before it kept, and the other writer's row stands.
    @Test func anIdRecordedByAnotherWriterWhileTheImportRunsIsComparedInItsBatch() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-05-20T16:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            defer { try? ledger.close() }
            let lines = (1...6).map { "2026-05-0\($0),Assets:Checking,Income:Salary,\($0)0.00,USD,Payer \($0),Salary,bank-\($0)" }
            let file = try write(lines, to: root + "-bank.csv")
            #expect(try ledger.importJournal(csvAt: try write(Array(lines.prefix(2)), to: root + "-first.csv")).imported == 2)

            let other = try write(["2026-05-09,Assets:Checking,Income:Salary,99.00,USD,Someone else,Salary,bank-5"], to: root + "-other.csv")
            var otherImported: Int?
            let progress: (ImportProgress) throws -> Void = { progress in
                guard progress.phase == .appending, otherImported == nil else { return }
                otherImported = try ledger.importJournal(csvAt: other).imported
            }
            let thrown = #expect(throws: LedgerError.self) { try ledger.importJournal(csvAt: file, batchSize: 2, progress: progress) }
            let stopped = thrown.flatMap { underlying($0, as: ImportError.self) }
            #expect(stopped?.code == .stoppedPartway, "\(String(describing: thrown))")
            #expect(stopped?.cause?.code == .idempotencyConflict && stopped?.cause?.message.contains("'journal:bank-5'") == true)
            #expect(otherImported == 1, "the other writer's row was recorded while the import ran")
            let balance = try #require(try balances(ledger)["Assets:Checking"])
            #expect(balance == 3_000 + 7_000 + 9_900, "bank-1 and bank-2 (imported first), bank-3 and bank-4 (the batch before the conflict), the other writer's bank-5")
            try ledger.expectConsistent()
        }
    }

    /// A bank export that gives one external id to two different transactions, far apart in
    /// the file, into a store that never saw an external id: the whole file is refused by the
    /// validating pass, naming both lines, before the batches in between are appended; the same
    /// row given twice under its id is a repeat, imported once. An id spelled like a content
    /// key (`row:…`) is an external id all the same.
    @Test(arguments: ["pay-1", "row:pay-1"])
    func oneExternalIdForTwoTransactionsOfOneFileRefusesItBeforeItsFirstBatch(id: String) throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-05-20T16:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            defer { try? ledger.close() }
            let salary = "2026-05-01,Assets:Checking,Income:Salary,1000.00,USD,Acme,Salary,\(id)"
            let shopping = (1...30).map { "2026-05-02,Expenses:Food,Assets:Checking,\($0).00,USD,Shop \($0),Food,card-\($0)" }
            let corrected = "2026-05-01,Assets:Checking,Income:Salary,1100.00,USD,Acme,Salary,\(id)"
            let conflicting = try write([salary] + shopping + [corrected], to: root + "-conflict.csv")
            let before = try snapshot(root)
            #expect { try ledger.importJournal(csvAt: conflicting, batchSize: 10) } throws: { error in
                guard let error = error as? LedgerError else { return false }
                return error.message.contains("\(conflicting):33") && error.message.contains("external id of line 2 ('\(id)')")
            }
            #expect(try snapshot(root).filter { !$0.key.hasSuffix("-shm") } == before.filter { !$0.key.hasSuffix("-shm") }, "the store is byte for byte as it was")

            let repeated = try write([salary] + shopping + [salary], to: root + "-repeat.csv")
            let summary = try ledger.importJournal(csvAt: repeated, batchSize: 10)
            #expect(summary.imported == 31 && summary.duplicatesSkipped == 1, "\(summary)")
        }
    }
}
