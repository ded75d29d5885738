import Foundation
import Testing
import Tally
import TallyLog

@Suite struct BalancesCommandTests {
    static let header = "date,account,counter_account,amount,currency,payee,category,external_id"

    private func storeWithJournal(_ directory: TemporaryDirectory, timeZone: String, rows: [String]) throws -> String {
        let store = directory.path + "/store"
        try #require(try TallyProcess.run(["init", "--store", store, "--time-zone", timeZone]).status == 0)
        let file = try directory.file("journal.csv", ([Self.header] + rows).joined(separator: "\n") + "\n")
        let imported = try TallyProcess.run(["import", file, "--store", store])
        try #require(imported.status == 0, "\(imported.standardError)")
        return store
    }

    @Test func csvIsTheExactHeaderThenSortedRowsWithQuotingWhereNeeded() throws {
        let directory = try TemporaryDirectory()
        let store = try storeWithJournal(directory, timeZone: "UTC", rows: [
            "2026-05-01,\"Assets:Bank, \"\"Main\"\"\",Income:Salary,1000,USD,,,",
            "2026-05-01,Assets:Bank:Yen,Income:Salary,1000,JPY,,,",
            "2026-05-01,Assets:Bank:Yen,Equity:Opening,0.5,BHD,,,",
            "2026-05-02,Assets:Cash,Assets:Bank:Yen,0.5,BHD,,,",
        ])
        let result = try TallyProcess.run(["balances", "--store", store, "--format", "csv"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == #"""
            account,currency,balance
            "Assets:Bank, ""Main""",USD,1000.00
            Assets:Bank:Yen,JPY,1000
            Assets:Cash,BHD,0.500
            Equity:Opening,BHD,-0.500
            Income:Salary,JPY,-1000
            Income:Salary,USD,-1000.00

            """#)
    }

    @Test func csvBalancesEqualTheSumOfTheImportedRowsPerAccount() throws {
        let seed: UInt64 = 1234
        var random = SplitMix64(seed: seed)
        let accounts = ["Assets:A", "Assets:B", "Expenses:C", "Income:D", "Liabilities:E"]
        let currencies: [Commodity] = [.usd, .jpy, .bhd, try Commodity.named("VEA")]
        var rows: [String] = []
        var expected: [String: Int64] = [:]
        for index in 0..<400 {
            let target = accounts[Int(random.next() % 5)]
            let source = accounts[(accounts.firstIndex(of: target)! + 1 + Int(random.next() % 4)) % 5]
            let commodity = currencies[Int(random.next() % 4)]
            let amount = Money(minorUnits: Int64(random.next() % 1_000_000) - 500_000, commodity: commodity)
            rows.append("2026-05-\(10 + index % 20),\(target),\(source),\(amount.decimalString),\(commodity.code),,,")
            expected["\(target),\(commodity.code)", default: 0] += amount.minorUnits
            expected["\(source),\(commodity.code)", default: 0] -= amount.minorUnits
        }
        let directory = try TemporaryDirectory()
        let store = try storeWithJournal(directory, timeZone: "UTC", rows: rows)
        let lines = expected.filter { $0.value != 0 }.sorted { $0.key < $1.key }.map { key, minorUnits in
            let commodity = try! Commodity.named(String(key.split(separator: ",")[1]))
            return "\(key),\(Money(minorUnits: minorUnits, commodity: commodity).decimalString)"
        }
        let result = try TallyProcess.run(["balances", "--store", store, "--format", "csv"])
        #expect(result.standardOutput == (["account,currency,balance"] + lines).joined(separator: "\n") + "\n", "seed \(seed)")
    }

    @Test func asOfADateIncludesThatWholeDayInTheLedgersTimeZone() throws {
        let directory = try TemporaryDirectory()
        // New York is UTC-4 in May: 2026-05-01 runs from 04:00Z on the 1st to 03:59:59Z on the 2nd.
        let store = try storeWithJournal(directory, timeZone: "America/New_York", rows: [
            "2026-05-01,Assets:Cash,Income:Gift,10.00,USD,,,",
            "2026-05-02,Assets:Cash,Income:Gift,5.00,USD,,,",
        ])
        let first = try TallyProcess.run(["balances", "--store", store, "--format", "csv", "--as-of", "2026-05-01"])
        #expect(first.standardOutput == "account,currency,balance\nAssets:Cash,USD,10.00\nIncome:Gift,USD,-10.00\n")
        let before = try TallyProcess.run(["balances", "--store", store, "--format", "csv", "--as-of", "2026-04-30"])
        #expect(before.standardOutput == "account,currency,balance\n")
        let second = try TallyProcess.run(["balances", "--store", store, "--format", "json", "--as-of", "2026-05-02"])
        #expect(second.standardOutput == #"{"items":[{"account":"Assets:Cash","currency":"USD","balance":{"amount":"15.00","currency":"USD"}},"#
            + #"{"account":"Income:Gift","currency":"USD","balance":{"amount":"-15.00","currency":"USD"}}],"#
            + #""paging":{"page":1,"page_size":2,"page_count":1,"total_count":2}}"# + "\n")
    }

    @Test func knownAtBeforeTheImportShowsNothing() throws {
        let directory = try TemporaryDirectory()
        let store = try storeWithJournal(directory, timeZone: "UTC", rows: ["2026-05-01,Assets:Cash,Income:Gift,10.00,USD,,,"])
        let result = try TallyProcess.run(["balances", "--store", store, "--known-at", "2000-01-01T00:00:00Z"])
        #expect(result.status == 0)
        #expect(result.standardOutput == "no non-zero balances\n")
        let table = try TallyProcess.run(["balances", "--store", store])
        #expect(table.standardOutput == "ACCOUNT      CURRENCY  BALANCE\nAssets:Cash  USD         10.00\nIncome:Gift  USD        -10.00\n")
    }

    @Test(arguments: [["--as-of", "2026-5-1"], ["--known-at", "yesterday"], ["--format", "xml"]])
    func badArgumentsAreRefused(arguments: [String]) throws {
        let directory = try TemporaryDirectory()
        let store = try storeWithJournal(directory, timeZone: "UTC", rows: [])
        let result = try TallyProcess.run(["balances", "--store", store] + arguments)
        #expect(result.status != 0)
        #expect(result.standardError.contains(arguments[0]), "\(result.standardError)")
    }

    @Test func balancesAsKnownAtAnEarlierInstantIgnoreALaterBackdatedEntry() throws {
        let directory = try TemporaryDirectory()
        let store = try storeWithJournal(directory, timeZone: "Europe/London", rows: ["2026-03-01,Assets:Cash,Income:Gift,40.00,USD,,,"])
        let reads = [
            ["balances", "--as-of", "2026-03-31", "--format", "json"],
            ["balances", "--format", "csv"],
            ["balances"],
        ]
        try TimeTravelCLI.expectKnownAtKeepsEachFirstAnswer(reads, store: store) {
            let file = try directory.file("late.csv", Self.header + "\n2026-03-15,Assets:Cash,Income:Gift,2.50,USD,,,\n")
            let imported = try TallyProcess.run(["import", file, "--store", store])
            #expect(imported.status == 0, "\(imported.standardError)")
        }
    }

    @Test func aBadAsOfOrKnownAtIsRefusedByNameAndChangesNothing() throws {
        let directory = try TemporaryDirectory()
        let store = try storeWithJournal(directory, timeZone: "UTC", rows: ["2026-05-01,Assets:Cash,Income:Gift,10.00,USD,,,"])
        try TimeTravelCLI.expectBadTimesRefused(["balances"], store: store, directory: directory, storeFolder: "store")
    }

    // MARK: --value

    /// A brokerage of 12.5 VEA priced in USD, 50000 JPY, 2 XAU without a price, and 10.00
    /// EUR; a EUR/USD rate: valued in EUR, VEA goes through USD.
    private func valuedStore(_ directory: TemporaryDirectory) throws -> String {
        let store = try storeWithJournal(directory, timeZone: "UTC", rows: [
            "2026-05-01,Assets:Brokerage,Equity:Opening,12.5,VEA,,,",
            "2026-05-01,Assets:Brokerage,Equity:Opening,10.00,EUR,,,",
            "2026-05-01,Assets:Travel,Equity:Opening,50000,JPY,,,",
            "2026-05-01,Assets:Vault,Equity:Opening,2,XAU,,,",
        ])
        let prices = try directory.file("prices.csv", "date,symbol,price,currency\n2026-05-01,VEA,50.15,USD\n")
        #expect(try TallyProcess.run(["import", prices, "--store", store]).status == 0)
        let rates = try directory.file("rates.ndjson", [
            #"{"type":"fx_rate_set","version":1,"effective_at":"2026-05-01T00:00:00Z","data":{"base":"EUR","quote":"USD","rate":"1.08"}}"#,
            #"{"type":"fx_rate_set","version":1,"effective_at":"2026-05-01T00:00:00Z","data":{"base":"EUR","quote":"JPY","rate":"160"}}"#,
        ].joined(separator: "\n") + "\n")
        let imported = try TallyProcess.run(["import", rates, "--store", store])
        try #require(imported.status == 0, "\(imported.standardError)")
        return store
    }

    @Test func valueConvertsEachBalanceAndListsWhatHasNoPriceOnStandardError() throws {
        let directory = try TemporaryDirectory()
        let store = try valuedStore(directory)
        let csv = try TallyProcess.run(["balances", "--store", store, "--value", "EUR", "--as-of", "2026-05-01", "--format", "csv"])
        #expect(csv.status == 0, "\(csv.standardError)")
        // Brokerage: 12.5 × 50.15 / 1.08 = 580.4398… → 580.44, plus 10.00 EUR = 590.44.
        // Travel: 50000 / 160 = 312.50. Opening: −580.44 − 10.00 − 312.50 = −902.94.
        #expect(csv.standardOutput == """
            account,currency,balance
            Assets:Brokerage,EUR,590.44
            Assets:Travel,EUR,312.50
            Assets:Vault,XAU,2.00000000
            Equity:Opening,EUR,-902.94
            Equity:Opening,XAU,-2.00000000

            """)
        #expect(csv.standardError == "not converted (no price or rate into EUR): XAU\n")

        let table = try TallyProcess.run(["balances", "--store", store, "--value", "EUR", "--as-of", "2026-05-01"])
        #expect(table.standardOutput == """
            ACCOUNT           CURRENCY      BALANCE
            Assets:Brokerage  EUR            590.44
            Assets:Travel     EUR            312.50
            Assets:Vault      XAU        2.00000000
            Equity:Opening    EUR           -902.94
            Equity:Opening    XAU       -2.00000000

            """, "\(table.standardOutput)")
        #expect(table.standardError.contains("XAU"))

        // Before any price or rate, nothing converts: every balance in its own units.
        let before = try TallyProcess.run(["balances", "--store", store, "--value", "EUR", "--as-of", "2026-04-30", "--format", "csv"])
        #expect(before.standardOutput == "account,currency,balance\n")
    }

    @Test func valueInJSONSaysHowEachHoldingWasConverted() throws {
        let directory = try TemporaryDirectory()
        let store = try valuedStore(directory)
        let json = try TallyProcess.run(["balances", "--store", store, "--value", "EUR", "--as-of", "2026-05-01", "--format", "json"])
        #expect(json.status == 0, "\(json.standardError)")
        #expect(json.standardError.isEmpty)
        let output = json.standardOutput
        #expect(output.hasPrefix(#"{"currency":"EUR","not_converted":["XAU"],"items":[{"account":"Assets:Brokerage","currency":"EUR","balance":{"amount":"590.44","currency":"EUR"},"converted":true,"holdings":[{"commodity":"EUR","units":{"amount":"10.00","currency":"EUR"},"value":{"amount":"10.00","currency":"EUR"},"method":"same"},{"commodity":"VEA","units":{"amount":"12.50000000","currency":"VEA"},"value":{"amount":"580.44","currency":"EUR"},"method":"via","via":"USD","steps":[{"from":"VEA","to":"USD","kind":"price","quote":"1 VEA = 50.15 USD","inverted":false,"#), "\(output)")
        #expect(output.contains(#"{"from":"USD","to":"EUR","kind":"rate","quote":"1 EUR = 1.08 USD","inverted":true,"#), "\(output)")
        #expect(output.contains(#"{"commodity":"JPY","units":{"amount":"50000","currency":"JPY"},"value":{"amount":"312.50","currency":"EUR"},"method":"inverse_rate","via":null,"#), "\(output)")
        #expect(output.contains(#"{"account":"Assets:Vault","currency":"XAU","balance":{"amount":"2.00000000","currency":"XAU"},"converted":false}"#), "\(output)")
        #expect(output.contains(#""paging":{"page":1,"#) && output.hasSuffix("}}\n"), "\(output)")
    }

    @Test(arguments: [["--value", "eur"], ["--value", ""], ["--value", "EUR", "--as-of", "2026-5-1"]])
    func aBadValueCurrencyIsRefusedByName(arguments: [String]) throws {
        let directory = try TemporaryDirectory()
        let store = try storeWithJournal(directory, timeZone: "UTC", rows: [])
        let before = try directory.snapshot("store")
        let result = try TallyProcess.run(["balances", "--store", store] + arguments)
        #expect(result.status != 0)
        #expect(result.standardError.contains(arguments.count > 2 ? "--as-of" : "--value"), "\(result.standardError)")
        #expect(try directory.snapshot("store") == before)
    }

    @Test func valueAsKnownAtAnEarlierInstantIgnoresALaterBackdatedPrice() throws {
        let directory = try TemporaryDirectory()
        let store = try valuedStore(directory)
        let reads = [["balances", "--value", "EUR", "--as-of", "2026-05-31", "--format", "json"]]
        try TimeTravelCLI.expectKnownAtKeepsEachFirstAnswer(reads, store: store) {
            let file = try directory.file("late.csv", "date,symbol,price,currency\n2026-05-20,VEA,49.00,USD\n")
            let imported = try TallyProcess.run(["import", file, "--store", store])
            #expect(imported.status == 0, "\(imported.standardError)")
        }
    }
}
