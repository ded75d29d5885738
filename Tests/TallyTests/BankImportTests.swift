import Foundation
import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts
import TallyLog

/// A user imports a month of bank transactions from their bank's CSV export
/// (`Ledger.importBankCSV`): all rows or none, each row as the single bank import records it.
@Suite struct BankImportTests {
    /// Writes `text` to a CSV file in a directory of its own, removed afterwards.
    private func withBankFile<T>(_ text: String, _ body: (String) throws -> T) throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tally-bank-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/chase.csv"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return try body(path)
    }

    /// The bank's export: a duplicate row (line 4), a row whose id was imported before with
    /// another amount (line 5), and a bad date on line 7, each made good by the arguments.
    private func export(conflictAmount: String = "-25.00", lastDate: String = "2026-13-05") -> String {
        """
        date,amount,payee,external_id,category
        2026-05-01,2500.00,"ACME, Inc.",T-1,
        2026-05-02,-15.49,Netflix,T-2,Entertainment
        2026-05-02,-15.49,Netflix,T-2,Entertainment
        2026-05-03,\(conflictAmount),Corner shop,T-3,Groceries
        2026-05-04,-42.10,Joe's Diner,T-4,dining out
        \(lastDate),-3.00,Bus,T-5,Transportation

        """
    }

    private func connectedLedger(_ body: (Ledger) throws -> Void) throws {
        try withBudgetLedger { ledger, _ in
            try ledger.connectBank(id: "chase", name: "Chase")
            // Imported one by one last week: the file's T-3 must say the same.
            try ledger.importBankTransaction(bankId: "chase", externalId: "T-3", payee: "Corner shop", category: .groceries,
                                             amount: usd("-20.00"), date: day("2026-05-03"))
            try body(ledger)
        }
    }

    @Test func aBadDateOnLine7RefusesTheWholeFileNamingLine7() throws {
        try connectedLedger { ledger in
            let before = ledger.head
            try withBankFile(export()) { path in
                let error = try #require(throws: LedgerError.self) { try ledger.importBankCSV(at: path, bankId: "chase") }
                let row = try #require(error.underlying as? ImportError)
                #expect(row.code == .invalidRow)
                #expect(row.file == path)
                #expect(row.line == 7)
                #expect(row.field == "date")
                #expect(error.description.hasPrefix("\(path):7: field 'date':"), "\(error)")
            }
            #expect(ledger.head == before, "a refused file appended events")
        }
    }

    @Test func aConflictingRowRefusesTheWholeFileListingItsLine() throws {
        try connectedLedger { ledger in
            let before = ledger.head
            try withBankFile(export(lastDate: "2026-05-05")) { path in
                let error = try #require(throws: LedgerError.self) { try ledger.importBankCSV(at: path, bankId: "chase") }
                #expect(error.code == .idempotencyConflict)
                let refusal = try #require(error.underlying as? BankImportConflicts)
                #expect(refusal.conflicts.map(\.line) == [5])
                #expect(refusal.conflicts.map(\.field) == ["external_id"])
                #expect(refusal.summary.rows == 6)
                #expect(refusal.summary.conflicts == 1)
                #expect(refusal.summary.alreadyPresent == 1, "line 4 repeats line 3")
                #expect(refusal.summary.imported == 0)
                #expect(error.description.contains("\(path):5: field 'external_id':"), "\(error)")
            }
            #expect(ledger.head == before, "a refused file appended events")
        }
    }

    @Test func aGoodFileImportsOnceAndAReImportImportsNothing() throws {
        try connectedLedger { ledger in
            try withBankFile(export(conflictAmount: "-20.00", lastDate: "2026-05-05")) { path in
                let summary = try ledger.importBankCSV(at: path, bankId: "chase")
                #expect(summary.rows == 6)
                #expect(summary.imported == 4, "T-1, T-2, T-4, T-5")
                #expect(summary.alreadyPresent == 2, "line 4 repeats line 3; T-3 was imported before with the same data")
                #expect(summary.conflicts == 0)
                let salary = try #require(try ledger.transaction(id: "bank:chase:T-1"))
                #expect(salary.category == .general, "a row without a category is General")
                #expect(salary.amount == usd("2500.00"))
                #expect(salary.source == .bank)
                #expect(try ledger.transaction(id: "bank:chase:T-4")?.category == .diningOut)

                // The user moves Netflix to Bills; the same file again changes nothing.
                try ledger.recategorise(id: "bank:chase:T-2", category: .bills)
                let before = ledger.head
                let again = try ledger.importBankCSV(at: path, bankId: "chase")
                #expect(again.imported == 0)
                #expect(again.alreadyPresent == 6)
                #expect(again.sequences == nil)
                #expect(ledger.head == before, "a re-import appended events")
                #expect(try ledger.transaction(id: "bank:chase:T-2")?.category == .bills, "the re-categorisation survives")
            }
            try ledger.expectConsistent()
        }
    }

    /// The bulk import runs the single import's command row by row, so everything that
    /// command records (the transaction, and a reconciliation for a row dated before a
    /// reference balance) is recorded alike.
    @Test func aFileRecordsExactlyWhatImportingItsRowsOneByOneRecords() throws {
        let rows: [(date: String, amount: String, payee: String, id: String, category: BudgetCategory)] = [
            ("2026-05-01", "2500.00", "ACME", "A-1", .general), ("2026-05-02", "-15.49", "Netflix", "A-2", .entertainment),
            ("2026-05-02", "-15.49", "Netflix", "A-2", .entertainment), ("2026-05-25", "-60.00", "Grocer", "A-3", .groceries),
        ]
        func recorded(bulk: Bool) throws -> [String] {
            try withBudgetLedger { ledger, _ in
                try ledger.connectBank(id: "chase")
                try ledger.setReferenceBalance(amount: usd("1000.00"))
                let start = ledger.head.sequence
                if bulk {
                    let text = "date,amount,payee,external_id,category\n"
                        + rows.map { "\($0.date),\($0.amount),\($0.payee),\($0.id),\($0.category.rawValue)" }.joined(separator: "\n")
                    _ = try withBankFile(text) { try ledger.importBankCSV(at: $0, bankId: "chase", batchSize: 2) }
                } else {
                    for row in rows {
                        try ledger.importBankTransaction(bankId: "chase", externalId: row.id, payee: row.payee, category: row.category,
                                                         amount: usd(row.amount), date: day(row.date))
                    }
                }
                return try ledger.allEvents().filter { $0.sequence > start }.map { event in
                    "\(event.type.name) \(event.effectiveAt) \(event.cause.map(String.init) ?? "-") \(try EventJSON.encode(event).split(separator: "\"data\"").last ?? "")"
                }
            }
        }
        let single = try recorded(bulk: false)
        #expect(single.contains { $0.hasPrefix("reference_balance_reconciled") }, "rows dated before the reference are reconciled")
        #expect(try recorded(bulk: true) == single)
    }

    @Test(arguments: [
        ("2026-05-01,0.00,Shop,T-9,", "amount"),
        ("2026-05-01,-1.234,Shop,T-9,", "amount"),
        ("2026-05-01,1.00 USD,Shop,T-9,", "amount"),
        ("2026-05-01,-1.00,,T-9,", "payee"),
        ("2026-05-01,-1.00,\"Shop\u{1B}[2J\",T-9,", "payee"),
        ("2026-05-01,-1.00,Shop,,", "external_id"),
        ("2026-05-01,-1.00,Shop,\(String(repeating: "x", count: 101)),", "external_id"),
        ("2026-05-01,-1.00,Shop,T-9,Snacks", "category"),
        ("1 May 2026,-1.00,Shop,T-9,", "date"),
        ("2026-05-01,-1.00,Shop,T-9", nil),
    ] as [(String, String?)])
    func aBadRowIsNamedByFileLineAndField(row: String, field: String?) throws {
        try connectedLedger { ledger in
            let before = ledger.head
            try withBankFile("date,amount,payee,external_id,category\n2026-05-01,-5.00,Bakery,T-8,Groceries\n\(row)\n") { path in
                let error = try #require(throws: LedgerError.self) { try ledger.importBankCSV(at: path, bankId: "chase") }
                let bad = try #require(error.underlying as? ImportError, "\(error)")
                #expect(bad.file == path)
                #expect(bad.line == 3, "\(bad)")
                #expect(bad.field == field, "\(bad)")
            }
            #expect(ledger.head == before)
        }
    }

    @Test func aFileWithoutTheCategoryColumnIsGeneralAndAnotherHeaderIsRefused() throws {
        try connectedLedger { ledger in
            try withBankFile("date,amount,payee,external_id\n2026-05-06,-9.99,Spotify,T-6\n") { path in
                let summary = try ledger.importBankCSV(at: path, bankId: "chase")
                #expect(summary.imported == 1)
            }
            #expect(try ledger.transaction(id: "bank:chase:T-6")?.category == .general)
            let before = ledger.head
            try withBankFile("date,amount,description,id\n2026-05-06,-9.99,Spotify,T-7\n") { path in
                let error = try #require(throws: LedgerError.self) { try ledger.importBankCSV(at: path, bankId: "chase") }
                let bad = try #require(error.underlying as? ImportError)
                #expect(bad.code == .header)
                #expect(bad.line == 1)
            }
            #expect(ledger.head == before)
        }
    }

    @Test func aBankNeverConnectedOrDisconnectedIsRefusedBeforeTheFileIsRead() throws {
        try connectedLedger { ledger in
            try withBankFile(export(conflictAmount: "-20.00", lastDate: "2026-05-05")) { path in
                try expectRefusal(.notFound, by: ledger) { _ = try ledger.importBankCSV(at: path, bankId: "amex") }
                try ledger.disconnectBank(id: "chase")
                try expectRefusal(.notAllowed, by: ledger) { _ = try ledger.importBankCSV(at: path, bankId: "chase") }
                try expectRefusal(.invalidArgument, by: ledger) { _ = try ledger.importBankCSV(at: path, bankId: "chase", batchSize: 0) }
            }
        }
    }

    /// While a 30-row export is imported ten rows a commit, the bank's single import records
    /// `X-14` with another amount after the first commit: the second batch's row for `X-14`
    /// (line 16) is refused, its nine other rows are committed, and the error names line 16
    /// and every sequence number appended, those after the refused row included.
    @Test func aRowRefusedInABatchNamesEveryRowOfTheBatchThatWasCommitted() throws {
        var text = "date,amount,payee,external_id,category\n"
        for index in 0..<30 { text += "2026-04-\(String(format: "%02d", index % 28 + 1)),-\(index + 1).00,Payee \(index),X-\(index),Groceries\n" }
        try withBudgetLedger { ledger, _ in
            try ledger.connectBank(id: "chase")
            let before = ledger.head.sequence
            let thrown = try withBankFile(text) { path in
                #expect(throws: LedgerError.self) {
                    try ledger.importBankCSV(at: path, bankId: "chase", batchSize: 10) { step in
                        guard step.phase == .appending, step.completed == 10 else { return }
                        try ledger.importBankTransaction(bankId: "chase", externalId: "X-14", payee: "Payee 14", category: .groceries,
                                                         amount: usd("-99.00"), date: day("2026-04-15"))
                    }
                }
            }
            let error = thrown.flatMap { underlying($0, as: ImportError.self) }
            #expect(error?.line == 16, "\(String(describing: error))")
            var april = TransactionQuery(month: try Month(parsing: "2026-04"))
            april.pageSize = 100
            #expect(try ledger.transactions(april).totalCount == 20, "ten rows, nine rows and the single import's X-14")
            let last = ledger.head.sequence
            #expect(last > before)
            #expect(error?.message.hasSuffix("-\(last), re-run the import to finish") == true, "the batch's rows after line 16 are named too: \(String(describing: error))")
            try ledger.expectConsistent()
        }
    }

    /// A big export goes in batches, one commit each, with progress reported as it goes.
    @Test func aLargeFileIsCommittedInBatchesWithProgress() throws {
        let seed = TestSeed.value(default: 0xBA4C)
        var random = SplitMix64(seed: seed)
        var text = "date,amount,payee,external_id,category\n"
        var expectedTotal: Int64 = 0
        for index in 0..<2_500 {
            var cents = Int64.random(in: -50_000...50_000, using: &random)
            if cents == 0 { cents = 1 }
            expectedTotal += cents
            let category = BudgetCategory.allCases.randomElement(using: &random)!
            let amount = Money(minorUnits: cents, commodity: .usd).decimalString
            text += "2026-04-\(String(format: "%02d", index % 28 + 1)),\(amount),Payee \(index % 37),X-\(index),\(category.displayName)\n"
        }
        try withBudgetLedger { ledger, _ in
            try ledger.connectBank(id: "chase")
            var phases: [ImportProgress] = []
            let summary = try withBankFile(text) { path in
                try ledger.importBankCSV(at: path, bankId: "chase", batchSize: 1_000) { phases.append($0) }
            }
            #expect(summary.imported == 2_500, "seed \(seed)")
            #expect(summary.commits == 3, "seed \(seed)")
            #expect(summary.eventsAppended == 2_500, "seed \(seed)")
            #expect(phases.contains { $0.phase == .validating }, "seed \(seed)")
            #expect(phases.filter { $0.phase == .appending }.map(\.completed) == [1_000, 2_000, 2_500], "seed \(seed)")
            var april = TransactionQuery(month: try Month(parsing: "2026-04"))
            april.pageSize = 1
            #expect(try ledger.transactions(april).totalCount == 2_500, "seed \(seed)")
            let overview = try ledger.budgetOverview(month: try Month(parsing: "2026-04"))
            #expect(try overview.income.subtracting(overview.expenses) == Money(minorUnits: expectedTotal, commodity: .usd), "seed \(seed)")
            try ledger.expectConsistent()
        }
    }
}
