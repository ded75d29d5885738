import Foundation
import Testing

/// `tally tx import-bank FILE.csv --bank ID`: a month of bank transactions from the command line.
@Suite struct BankImportCommandTests {
    private func export(conflictAmount: String = "-25.00", lastDate: String = "2026-13-05") -> String {
        """
        date,amount,payee,external_id,category
        2026-05-01,2500.00,"ACME, Inc.",T-1,
        2026-05-02,-15.49,Netflix,T-2,Entertainment
        2026-05-02,-15.49,Netflix,T-2,Entertainment
        2026-05-03,\(conflictAmount),Corner shop,T-3,Groceries
        2026-05-04,-42.10,Joe's Diner,T-4,Dining Out
        \(lastDate),-3.00,Bus,T-5,Transportation

        """
    }

    private func connected() throws -> BudgetStore {
        let store = try BudgetStore()
        try store.run(["bank", "connect", "chase"])
        try store.run(["tx", "import-bank", "--bank", "chase", "--external-id", "T-3", "--payee", "Corner shop",
                       "--category", "Groceries", "--amount", "-20.00", "--date", "2026-05-03"])
        return store
    }

    @Test func aBadDateOnLine7OrAConflictRefusesTheFileAndChangesNothing() throws {
        let store = try connected()
        let bad = try store.directory.file("chase.csv", export())
        try store.expectRefused(["tx", "import-bank", bad, "--bank", "chase"], "chase.csv:7: field 'date':")
        let conflicting = try store.directory.file("conflict.csv", export(lastDate: "2026-05-05"))
        try store.expectRefused(["tx", "import-bank", conflicting, "--bank", "chase"], "conflict.csv:5: field 'external_id':")
        let result = try TallyProcess.run(["tx", "import-bank", conflicting, "--bank", "chase", "--json"] + store.storeArguments)
        #expect(result.status != 0)
        #expect(result.standardOutput.contains(#""refused":true"#), "\(result.standardOutput)")
        #expect(result.standardOutput.contains(#""already_present":1,"conflicts":1"#), "\(result.standardOutput)")
        #expect(result.standardOutput.contains(#""line":5,"field":"external_id""#), "\(result.standardOutput)")
    }

    @Test func aGoodFileImportsOnceAndAgainImportsNothing() throws {
        let store = try connected()
        let file = try store.directory.file("chase.csv", export(conflictAmount: "-20.00", lastDate: "2026-05-05"))
        let text = try store.run(["tx", "import-bank", file, "--bank", "chase", "--batch-size", "2"])
        #expect(text.contains("rows imported: 4"), "\(text)")
        #expect(text.contains("already present: 2"), "\(text)")
        #expect(text.contains("conflicts: 0"), "\(text)")
        let before = try store.contents()
        let again = try store.run(["tx", "import-bank", file, "--bank", "chase", "--json"])
        #expect(again.contains(#""refused":false,"rows":6,"imported":0,"already_present":6,"conflicts":0"#), "\(again)")
        #expect(try store.contents().filter { $0.key.contains("log") } == before.filter { $0.key.contains("log") }, "a re-import appended events")
        let salary = try store.run(["tx", "show", "bank:chase:T-1", "--json"])
        #expect(salary.contains(#""category":"general""#), "\(salary)")
    }

    @Test func aRecategorisedBankTransactionKeepsWhatTheBankSentApartFromTheUsersCategory() throws {
        let store = try connected()
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions.insert(.withFractionalSeconds)
        let beforeTheMove = formatter.string(from: Date())
        try store.run(["tx", "recategorise", "bank:chase:T-3", "--category", "Dining Out"])

        let now = try store.run(["tx", "show", "bank:chase:T-3", "--json"])
        #expect(now.contains(#""category":"dining_out""#) && now.contains(#""bank_category":"groceries""#), "\(now)")
        let then = try store.run(["tx", "show", "bank:chase:T-3", "--json", "--known-at", beforeTheMove])
        #expect(then.contains(#""category":"groceries""#) && then.contains(#""bank_category":"groceries""#), "\(then)")
        let csv = try store.run(["tx", "list", "--format", "csv"])
        #expect(csv.contains("2026-05-03,Corner shop,Dining Out,-20.00,USD,false,bank,chase,T-3,,bank:chase:T-3,Groceries\n"), "\(csv)")

        // The export carries both, and a new ledger reads them back: imported as the bank sent
        // it, then moved as the user moved it.
        try store.run(["export", "--dir", store.directory.path + "/backup"])
        let copy = try BudgetStore()
        try copy.run(["bank", "connect", "chase"])
        try copy.run(["import", store.directory.path + "/backup/budget-transactions.csv"])
        let restored = try copy.run(["tx", "show", "bank:chase:T-3", "--json"])
        #expect(restored.contains(#""category":"dining_out""#) && restored.contains(#""bank_category":"groceries""#), "\(restored)")
        let history = try copy.run(["tx", "history", "bank:chase:T-3", "--json"])
        #expect(history.contains(#""change":"recorded","date":"2026-05-03","payee":"Corner shop","category":"groceries""#)
                && history.contains(#""change":"recategorised""#), "\(history)")
        #expect(try copy.run(["import", store.directory.path + "/backup/budget-transactions.csv"]).contains("0"), "a second import changes nothing")

        // An export written before the column still reads back, its category the bank's.
        let older = try copy.directory.file("older.csv", """
            date,payee,category,amount,currency,recurring,source,bank,external_id,recurring_item,id
            2026-05-04,Joe's Diner,Dining Out,-42.10,USD,false,bank,chase,T-4,,bank:chase:T-4

            """)
        try copy.run(["import", older])
        let diner = try copy.run(["tx", "show", "bank:chase:T-4", "--json"])
        #expect(diner.contains(#""category":"dining_out""#) && diner.contains(#""bank_category":"dining_out""#), "\(diner)")
    }

    @Test func oneTransactionStillTakesItsOptionsAndAFileRefusesThem() throws {
        let store = try connected()
        let file = try store.directory.file("chase.csv", export(conflictAmount: "-20.00", lastDate: "2026-05-05"))
        try store.expectRefused(["tx", "import-bank", file, "--bank", "chase", "--payee", "X"], "--payee is for one transaction")
        try store.expectRefused(["tx", "import-bank", "--bank", "chase", "--external-id", "T-9"], "missing --payee")
    }

    @Test func theXRayPrintsItsCardsAndGains() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/s"
        for command in [
            ["init"],
            ["asset", "add", "world", "--name", "World ETF", "--category", "investments", "--type", "stock_etf", "--currency", "USD",
             "--symbol", "VT", "--country", "US", "--sector", "Diversified"],
            ["asset", "position", "world", "80", "--symbol", "VT", "--cost", "6000.00"],
            ["price", "VT", "100.00", "--currency", "USD"],
            ["asset", "add", "cash", "--name", "Savings", "--category", "cash", "--type", "cash", "--currency", "USD", "--country", "US", "--sector", "Cash"],
            ["asset", "value", "cash", "2000.00"],
        ] {
            let result = try TallyProcess.run(command + ["--store", store])
            try #require(result.status == 0, "\(command): \(result.standardError)")
        }
        let text = try TallyProcess.run(["xray", "--store", store])
        #expect(text.standardOutput.contains("[high] concentration 68.00: Score 68.00 of 100"), "\(text.standardOutput)")
        #expect(text.standardOutput.contains("World ETF 80.00% · Savings 20.00%"), "\(text.standardOutput)")
        #expect(text.standardOutput.contains("Unrealised gains"), "\(text.standardOutput)")
        let json = try TallyProcess.run(["xray", "--json", "--store", store])
        #expect(json.standardOutput.contains(#""cards":[{"kind":"concentration","value":6800,"unit":"hundredths","severity":"high""#), "\(json.standardOutput)")
        #expect(json.standardOutput.contains(#""gain":{"amount":"2000.00","currency":"USD"}"#), "\(json.standardOutput)")
        #expect(json.standardOutput.contains(#""unrealised_gain_total":{"amount":"2000.00","currency":"USD"}"#), "\(json.standardOutput)")
    }
}
