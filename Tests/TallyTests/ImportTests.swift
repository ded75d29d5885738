import Foundation
import Testing
import TallyLog
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// Importing journal CSVs and NDJSON event files into a ledger: what is appended, what is
/// skipped, in which commits, and the balances that result.
@Suite struct ImportTests {
    static let header = JournalCSV.header
    static let accounts = ["Assets:Checking", "Assets:Savings", "Liabilities:Card", "Expenses:Food", "Expenses:Rent", "Income:Salary", "Equity:Opening"]

    private func write(_ text: String, in root: String, name: String = "journal.csv") throws -> String {
        let directory = (root as NSString).deletingLastPathComponent
        let path = directory + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Rows from a seeded generator, and what each account should hold afterwards.
    private func generatedJournal(rows: Int, seed: UInt64) throws -> (text: String, expected: [String: Int64]) {
        var random = SplitMix64(seed: seed)
        var text = Self.header + "\n"
        var expected: [String: Int64] = [:]
        for index in 0..<rows {
            let target = Self.accounts[Int(random.next() % UInt64(Self.accounts.count))]
            var source = target
            while source == target { source = Self.accounts[Int(random.next() % UInt64(Self.accounts.count))] }
            let cents = Int64(random.next() % 2_000_001) - 1_000_000
            let amount = Money(minorUnits: cents, commodity: .usd)
            let externalId = index % 3 == 0 ? "" : "tx-\(seed)-\(index)"
            text += "2026-0\(1 + index % 9)-1\(index % 9),\(target),\(source),\(amount.decimalString),USD,\"Shop \(index % 7), \"\"The\"\" Best\",Cat,\(externalId)\n"
            expected[target, default: 0] += cents
            expected[source, default: 0] -= cents
        }
        return (text, expected.filter { $0.value != 0 })
    }

    @Test func importedRowsBecomeBalancesEqualToTheSumOfTheirRows() throws {
        let seed: UInt64 = 20_260_501
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-10-01T12:00:00Z"))
            let (text, expected) = try generatedJournal(rows: 500, seed: seed)
            let summary = try ledger.importJournal(csvAt: try write(text, in: root))
            #expect(summary.rows == 500 && summary.imported == 500 && summary.duplicatesSkipped == 0, "seed \(seed)")
            #expect(summary.sequences == 2...501)
            let balances = Dictionary(uniqueKeysWithValues: try ledger.balances().map { ($0.account, $0.amount.minorUnits) })
            #expect(balances == expected, "seed \(seed)")
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    @Test func aRowIsPostedAtTheStartOfItsDayInTheLedgersTimeZone() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-06-01T12:00:00Z"), timeZone: "Asia/Tokyo")
            let text = Self.header + "\n2026-05-01,Assets:Cash,Income:Gift,5.00,USD,Aunt,Gift,g-1\n"
            let summary = try ledger.importJournal(csvAt: try write(text, in: root))
            let event = try #require(summary.sequences?.lowerBound)
            var posted: Event?
            try EventStoreReader.open(at: root, catalog: .standard).forEach(from: event, through: event) { posted = $0 }
            #expect(posted?.effectiveAt == (try Instant(parsing: "2026-04-30T15:00:00Z")))
            #expect(posted?.idempotencyKey == "journal:g-1")
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    @Test func duplicatesWithinAFileAndAcrossImportsAreSkippedAndCounted() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-06-01T12:00:00Z"))
            let first = Self.header + """

                2026-05-01,Assets:Cash,Income:Gift,5.00,USD,,,a
                2026-05-02,Assets:Cash,Income:Gift,6.00,USD,,,b
                2026-05-02,Assets:Cash,Income:Gift,6.00,USD,,,b
                2026-05-03,Expenses:Food,Assets:Cash,1.00,USD,,,

                """
            let once = try ledger.importJournal(csvAt: try write(first, in: root, name: "first.csv"), batchSize: 2)
            #expect(once.rows == 4 && once.imported == 3 && once.duplicatesSkipped == 1)
            // The duplicate of b sits in the same batch of two rows as b itself; a repeat in a
            // later batch is found through the read model. (The same external id with other
            // content is a conflict: ImportAtomicityTests.)
            let second = Self.header + """

                2026-05-04,Assets:Cash,Income:Gift,7.00,USD,,,c
                2026-05-01,Assets:Cash,Income:Gift,5.00,USD,,,a
                2026-05-04,Assets:Cash,Income:Gift,7.00,USD,,,c

                """
            let twice = try ledger.importJournal(csvAt: try write(second, in: root, name: "second.csv"), batchSize: 1)
            #expect(twice.rows == 3 && twice.imported == 1 && twice.duplicatesSkipped == 2)
            let cash = try ledger.balances().first { $0.account == "Assets:Cash" }?.amount
            #expect(cash == usd("17.00"))
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    @Test func reRunningTheSameFileAppendsNothingEvenWithoutExternalIds() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-06-01T12:00:00Z"))
            let text = Self.header + "\n2026-05-01,Assets:Cash,Income:Gift,5.00,USD,,,\n2026-05-01,Assets:Cash,Income:Gift,5.00,USD,,,\n"
            let path = try write(text, in: root)
            let first = try ledger.importJournal(csvAt: path)
            #expect(first.imported == 2, "identical rows on different lines are different entries")
            let again = try ledger.importJournal(csvAt: path)
            #expect(again.imported == 0 && again.duplicatesSkipped == 2 && again.sequences == nil)
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    @Test func anImportStoppedMidwayResumesExactlyWhenRunAgain() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-06-01T12:00:00Z"))
            let (text, expected) = try generatedJournal(rows: 30, seed: 7)
            let path = try write(text, in: root)
            let journal = try JournalImport.validate(csvAt: path, calendar: ledger.calendar)
            // The first run stops (the process dies) after its first commit of 10 rows.
            struct Crash: Error {}
            #expect(throws: Crash.self) {
                _ = try ledger.importJournal(journal, batchSize: 10) { step in
                    if step.committedSequence != nil { throw Crash() }
                }
            }
            let resumed = try ledger.importJournal(journal, batchSize: 10)
            #expect(resumed.duplicatesSkipped == 10 && resumed.imported == 20)
            let balances = Dictionary(uniqueKeysWithValues: try ledger.balances().map { ($0.account, $0.amount.minorUnits) })
            #expect(balances == expected, "seed 7")
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    @Test func aGenerated20000RowFileIsAppendedInBoundedBatches() throws {
        let seed: UInt64 = 42
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-10-01T12:00:00Z"))
            let (text, expected) = try generatedJournal(rows: 20_000, seed: seed)
            var commits: [UInt64] = []
            let summary = try ledger.importJournal(csvAt: try write(text, in: root), batchSize: 8_000) { step in
                if let sequence = step.committedSequence { commits.append(sequence) }
            }
            // The first commit is cut short (the committing side waits for it), the rest hold 8,000 rows.
            let first = UInt64(min(8_000, ImportBatch.firstJournalBatchMax))
            #expect(first < 8_000, "the story needs a first batch cut short")
            #expect(commits == [1 + first, 1 + first + 8_000, 20_001], "seed \(seed)")
            #expect(summary.commits == 3 && summary.eventsAppended == 20_000)
            let statistics = try EventStoreReader.open(at: root, catalog: .standard).statistics()
            #expect(statistics.frames == 4, "ledger_created, then one frame per batch")
            let balances = Dictionary(uniqueKeysWithValues: try ledger.balances().map { ($0.account, $0.amount.minorUnits) })
            #expect(balances == expected, "seed \(seed)")
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    @Test func aMalformedRowAppendsNothingOfTheFile() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-06-01T12:00:00Z"))
            let (good, _) = try generatedJournal(rows: 25, seed: 3)
            let path = try write(good + "2026-05-01,Assets:Cash,Income:Gift,abc,USD,,,\n", in: root)
            #expect { try ledger.importJournal(csvAt: path, batchSize: 10) } throws: { error in
                underlying(error, as: ImportError.self)?.line == 27 && underlying(error, as: ImportError.self)?.field == "amount"
            }
            #expect(ledger.head.sequence == 1)
            #expect(try ledger.balances().isEmpty)
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    @Test func aFileChangedBetweenThePassesIsRefused() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-06-01T12:00:00Z"))
            let path = try write(Self.header + "\n2026-05-01,Assets:Cash,Income:Gift,5.00,USD,,,x\n", in: root)
            let journal = try JournalImport.validate(csvAt: path, calendar: ledger.calendar)
            _ = try write(Self.header + "\n2026-05-01,Assets:Cash,Income:Gift,9.00,USD,,,x\n", in: root)
            #expect { try ledger.importJournal(journal) } throws: { underlying($0, as: ImportError.self)?.code == .changedDuringImport }
            #expect(ledger.head.sequence == 1)
            try ledger.close()
        }
    }

    @Test func aFileChangedAfterValidationAppendsNoneOfTheChangedBytes() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-06-01T12:00:00Z"))
            let (good, _) = try generatedJournal(rows: 25, seed: 5)
            let path = try write(good, in: root)
            let journal = try JournalImport.validate(csvAt: path, calendar: ledger.calendar)
            // The last row changes; the first two batches of 10 rows are the bytes validated,
            // but they were read in the same chunk as the changed row.
            _ = try write(good.replacingOccurrences(of: "Shop 3", with: "Shop 9"), in: root)
            #expect { try ledger.importJournal(journal, batchSize: 10) } throws: { error in
                guard let error = underlying(error, as: ImportError.self) else { return false }
                return error.code == .changedDuringImport && error.message.contains("nothing was appended")
            }
            #expect(ledger.head.sequence == 1, "no batch read from changed bytes was appended")
            try ledger.close()
        }
    }

    @Test func withoutTheValidatingPassDigestsEveryRecordIsReadBackBeforeItsBatchIsAppended() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-06-01T12:00:00Z"))
            let (good, expected) = try generatedJournal(rows: 25, seed: 6)
            let path = try write(good, in: root)
            var journal = try JournalImport.validate(csvAt: path, calendar: ledger.calendar)
            #expect(!journal.readDigests.isEmpty, "the validating pass keeps a digest per read")
            journal.readDigests = [:]
            // A payee with a control character (which only the record check refuses) in a
            // file changed after validation: with no digest to vouch for the bytes, the
            // appending pass checks the records itself and appends nothing.
            let bell = good.replacingOccurrences(of: "\"Shop 4, \"\"The\"\" Best\"", with: "\"Shop\u{7}\"")
            #expect(bell != good)
            _ = try write(bell, in: root)
            #expect { try ledger.importJournal(journal, batchSize: 10) } throws: { error in
                guard let error = underlying(error, as: ImportError.self) else { return false }
                return error.code == .changedDuringImport && error.message.contains("payee")
            }
            #expect(ledger.head.sequence == 1, "the batch with the bad record was not appended")
            // The unchanged file imports the same way with or without the digests.
            _ = try write(good, in: root)
            _ = try ledger.importJournal(journal, batchSize: 10)
            let balances = Dictionary(uniqueKeysWithValues: try ledger.balances().map { ($0.account, $0.amount.minorUnits) })
            #expect(balances == expected)
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    @Test func eventsInTheirJSONFormAreImportedAndRepeatedKeysSkipped() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-06-01T12:00:00Z"))
            let deposit = #"{"type":"deposit_received","version":2,"effective_at":"2026-05-01T09:00:00Z","idempotency_key":"bank:tx-1","data":{"account":"main","amount":{"amount":"100.00","currency":"USD"},"source":"bank_transfer","external_id":"tx-1"}}"#
            let split = #"{"type":"deposit_split","version":1,"effective_at":"2026-05-01T09:00:00Z","cause":2,"data":{"account":"main","spend":{"amount":"70.00","currency":"USD"},"invest":{"amount":"30.00","currency":"USD"},"spend_weight":70,"invest_weight":30}}"#
            let path = try write([deposit, split, "", deposit].joined(separator: "\n") + "\n", in: root, name: "events.ndjson")
            let summary = try ledger.importEvents(ndjsonAt: path)
            #expect(summary.rows == 3 && summary.imported == 2 && summary.duplicatesSkipped == 1 && summary.sequences == 2...3)
            let again = try ledger.importEvents(ndjsonAt: try write(deposit + "\n", in: root, name: "again.ndjson"))
            #expect(again.imported == 0 && again.duplicatesSkipped == 1)
            let spend = try ledger.balances().first { $0.account == "Wealth:main:Spend" }?.amount
            #expect(spend == usd("70.00"))
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    @Test func aBadEventLineNamesItsLineAndAppendsNothing() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-06-01T12:00:00Z"))
            let pot = #"{"type":"pot_created","version":1,"effective_at":"2026-05-01T09:00:00Z","data":{"pot_id":"a","name":"A","target":{"amount":"1.00","currency":"USD"}}}"#
            let orphan = #"{"type":"deposit_split","version":1,"effective_at":"2026-05-01T09:00:00Z","cause":9,"data":{"account":"main","spend":{"amount":"0.70","currency":"USD"},"invest":{"amount":"0.30","currency":"USD"},"spend_weight":70,"invest_weight":30}}"#
            for (text, line) in [(pot + "\n\n{\"type\":\n", 3), (pot + "\n" + orphan + "\n", 2)] {
                let path = try write(text, in: root, name: "bad.ndjson")
                #expect { try ledger.importEvents(ndjsonAt: path) } throws: { underlying($0, as: ImportError.self)?.line == line }
            }
            #expect(ledger.head.sequence == 1)
            try ledger.close()
        }
    }
}
