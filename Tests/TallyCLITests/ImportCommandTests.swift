import Foundation
import Testing

@Suite struct ImportCommandTests {
    static let header = "date,account,counter_account,amount,currency,payee,category,external_id"
    static let goodRows = [
        "2026-05-01,Assets:Checking,Income:Salary,2500.00,USD,\"ACME, Inc.\",Salary,bank-001",
        "2026-05-02,Expenses:Dining,Assets:Checking,42.10,USD,\"Joe's \"\"Diner\"\", New York\",Dining,",
        "2026-05-03,Assets:Brokerage,Assets:Checking,1.5,VEA,,,bank-002",
    ]

    private func newStore(_ directory: TemporaryDirectory, timeZone: String = "UTC") throws -> String {
        let store = directory.path + "/store"
        let created = try TallyProcess.run(["init", "--store", store, "--time-zone", timeZone])
        try #require(created.status == 0, "\(created.standardError)")
        return store
    }

    @Test func importsAJournalAndPrintsWhatItDid() throws {
        let directory = try TemporaryDirectory()
        let store = try newStore(directory)
        let file = try directory.file("bank.csv", ([Self.header] + Self.goodRows + [Self.goodRows[0]]).joined(separator: "\r\n") + "\r\n")
        let result = try TallyProcess.run(["import", file, "--store", store])
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.count == 6)
        #expect(lines.prefix(5) == [
            "Imported \(file)",
            "rows imported: 3",
            "skipped as duplicates: 1",
            "events appended: 3 in 1 commit",
            "seq range: 2-4",
        ])
        #expect(lines.last?.hasPrefix("elapsed: ") == true)
        #expect(result.standardError.isEmpty, "no progress bar when standard error is not a terminal")

        let csv = try TallyProcess.run(["balances", "--store", store, "--format", "csv"])
        #expect(csv.standardOutput == """
            account,currency,balance
            Assets:Brokerage,VEA,1.50000000
            Assets:Checking,USD,2457.90
            Assets:Checking,VEA,-1.50000000
            Expenses:Dining,USD,42.10
            Income:Salary,USD,-2500.00

            """)

        let log = try TallyProcess.run(["log", "--store", store, "--json", "--from", "3", "--to", "3"])
        #expect(log.standardOutput.contains(#""payee":"Joe's \"Diner\", New York""#), "\(log.standardOutput)")
    }

    @Test func importingTheSameFileAgainSkipsEveryRow() throws {
        let directory = try TemporaryDirectory()
        let store = try newStore(directory)
        let file = try directory.file("bank.csv", ([Self.header] + Self.goodRows).joined(separator: "\n") + "\n")
        #expect(try TallyProcess.run(["import", file, "--store", store]).status == 0)
        let again = try TallyProcess.run(["import", file, "--store", store])
        #expect(again.status == 0)
        #expect(again.standardOutput.contains("rows imported: 0\nskipped as duplicates: 3\nevents appended: 0 in 0 commits\nseq range: none\n"))
    }

    @Test func progressJSONPrintsOneLinePerDurableCommit() throws {
        let directory = try TemporaryDirectory()
        let store = try newStore(directory)
        var rows = [Self.header]
        for index in 0..<25 { rows.append("2026-05-01,Assets:Cash,Income:Gift,\(index).00,USD,,,g-\(index)") }
        let file = try directory.file("gifts.csv", rows.joined(separator: "\n") + "\n")
        let result = try TallyProcess.run(["import", file, "--store", store, "--progress", "json", "--batch-size", "10"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == "{\"committed_seq\": 11}\n{\"committed_seq\": 21}\n{\"committed_seq\": 26}\n")
        #expect(result.standardError.contains("rows imported: 25"))
        let none = try TallyProcess.run(["import", file, "--store", store, "--progress", "none"])
        #expect(none.standardOutput.contains("skipped as duplicates: 25"))
    }

    /// Every kind of malformed file: the command fails naming the line, and the store's
    /// bytes are exactly as they were.
    @Test(arguments: [
        ("2026-13-01,Assets:Cash,Income:Gift,1.00,USD,,,", "bad.csv:3: field 'date'"),
        ("2026-05-01,Assets:Cash,Income:Gift,12a,USD,,,", "bad.csv:3: field 'amount'"),
        ("2026-05-01,Assets:Cash,Income:Gift,1.005,USD,,,", "bad.csv:3: field 'amount': has more decimal places"),
        ("2026-05-01,Assets:Cash,Income:Gift,1.00,Usd,,,", "bad.csv:3: field 'currency'"),
        ("2026-05-01,Assets:Cash,Income:Gift,1.00,USD,,", "bad.csv:3: the row has 7 fields"),
        ("2026-05-01,Assets:Cash,Income:Gift,1.00,USD,Shop, Inc.,,", "bad.csv:3: the row has 9 fields"),
        ("2026-05-01,Cash:Wallet,Income:Gift,1.00,USD,,,", "bad.csv:3: field 'account'"),
        ("2026-05-01,Assets:Cash,Income:Gift,1.00,USD,\"Shop,,", "bad.csv:3:45: a quoted field opened here is never closed"),
    ])
    func aMalformedRowNamesItsLineAndChangesNothing(row: String, message: String) throws {
        let directory = try TemporaryDirectory()
        let store = try newStore(directory)
        // A first import creates the read models, so the snapshot covers them too.
        let seed = try directory.file("seed.csv", Self.header + "\n2026-04-01,Assets:Cash,Equity:Opening,10.00,USD,,,seed\n")
        #expect(try TallyProcess.run(["import", seed, "--store", store]).status == 0)
        let file = try directory.file("bad.csv", Self.header + "\n2026-05-01,Assets:Cash,Income:Gift,1.00,USD,,,ok\n" + row + "\n")
        let before = try directory.snapshot("store")
        let result = try TallyProcess.run(["import", file, "--store", store])
        #expect(result.status != 0)
        #expect(result.standardError.contains(message), "\(result.standardError)")
        #expect(try directory.snapshot("store") == before)
    }

    @Test(arguments: ["", "date,account,amount\n", "2026-05-01,Assets:Cash,Income:Gift,1.00,USD,,,\n"])
    func aMissingOrWrongHeaderChangesNothing(text: String) throws {
        let directory = try TemporaryDirectory()
        let store = try newStore(directory)
        let file = try directory.file("bad.csv", text)
        let before = try directory.snapshot("store")
        let result = try TallyProcess.run(["import", file, "--store", store])
        #expect(result.status != 0)
        #expect(result.standardError.contains("bad.csv:1: "), "\(result.standardError)")
        #expect(result.standardError.contains(Self.header))
        #expect(try directory.snapshot("store") == before)
    }

    @Test func importsEventsInTheirJSONForm() throws {
        let directory = try TemporaryDirectory()
        let store = try newStore(directory)
        let deposit = #"{"type":"deposit_received","version":2,"effective_at":"2026-05-01T09:00:00Z","idempotency_key":"bank:tx-1","data":{"account":"main","amount":{"amount":"100.00","currency":"USD"},"source":"bank_transfer","external_id":"tx-1"}}"#
        let file = try directory.file("events.ndjson", deposit + "\n" + deposit + "\n")
        let result = try TallyProcess.run(["import", file, "--store", store])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("rows imported: 1\nskipped as duplicates: 1\nevents appended: 1 in 1 commit\nseq range: 2-2\n"))
        let bad = try directory.file("bad.ndjson", deposit.replacingOccurrences(of: "bank:tx-1", with: "bank:tx-2") + "\n{\"type\":1}\n")
        let before = try directory.snapshot("store")
        let refused = try TallyProcess.run(["import", bad, "--store", store])
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("bad.ndjson:2: "), "\(refused.standardError)")
        #expect(try directory.snapshot("store") == before)
    }

    @Test func anUnknownExtensionOrMissingFileIsAClearError() throws {
        let directory = try TemporaryDirectory()
        let store = try newStore(directory)
        let text = try TallyProcess.run(["import", try directory.file("notes.txt", "x"), "--store", store])
        #expect(text.status != 0 && text.standardError.contains(".csv"))
        let missing = try TallyProcess.run(["import", directory.path + "/absent.csv", "--store", store])
        #expect(missing.status != 0 && missing.standardError.contains("absent.csv: no such file"), "\(missing.standardError)")
    }
}

/// `tally import` of a prices CSV (`date,symbol,price,currency`).
@Suite struct PricesImportCommandTests {
    static let header = "date,symbol,price,currency"

    private func newStore(_ directory: TemporaryDirectory) throws -> String {
        let store = directory.path + "/store"
        let created = try TallyProcess.run(["init", "--store", store, "--time-zone", "America/New_York"])
        try #require(created.status == 0, "\(created.standardError)")
        return store
    }

    @Test func importsPricesSkipsRepeatsAndValuesBalancesWithThem() throws {
        let directory = try TemporaryDirectory()
        let store = try newStore(directory)
        let journal = try directory.file("journal.csv", ImportCommandTests.header + "\n2026-05-01,Assets:Brokerage,Equity:Opening,12.5,VEA,,,\n")
        #expect(try TallyProcess.run(["import", journal, "--store", store]).status == 0)
        let file = try directory.file("prices.csv", [Self.header, "2026-05-01,VEA,50.10,USD", "2026-05-02,VEA,51.00,USD", "2026-05-01,VEA,50.10,USD"].joined(separator: "\n") + "\n")
        let result = try TallyProcess.run(["import", file, "--store", store])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("rows imported: 2\nskipped as duplicates: 1\nevents appended: 2 in 1 commit\n"), "\(result.standardOutput)")
        let again = try TallyProcess.run(["import", file, "--store", store])
        #expect(again.standardOutput.contains("rows imported: 0\nskipped as duplicates: 3\n"), "\(again.standardOutput)")

        // Effective at the start of the day in New York: 12.5 × 50.10 = 626.25 on the 1st.
        let first = try TallyProcess.run(["balances", "--store", store, "--value", "USD", "--as-of", "2026-05-01", "--format", "csv"])
        #expect(first.standardOutput == "account,currency,balance\nAssets:Brokerage,USD,626.25\nEquity:Opening,USD,-626.25\n")
        let log = try TallyProcess.run(["log", "--store", store, "--json", "--type", "price_quoted", "--limit", "1"])
        #expect(log.standardOutput.contains(#""effective_at":"2026-05-01T04:00:00"#), "\(log.standardOutput)")
    }

    @Test func aDifferentPriceForTheSameSymbolAndDayIsAConflictNamingTheLine() throws {
        let directory = try TemporaryDirectory()
        let store = try newStore(directory)
        let first = try directory.file("first.csv", Self.header + "\n2026-05-01,VEA,50.10,USD\n")
        #expect(try TallyProcess.run(["import", first, "--store", store]).status == 0)

        let inFile = try directory.file("twice.csv", [Self.header, "2026-05-02,VEA,50.10,USD", "2026-05-03,VEA,1.00,USD", "2026-05-02,VEA,50.20,USD"].joined(separator: "\n") + "\n")
        let before = try directory.snapshot("store")
        let twice = try TallyProcess.run(["import", inFile, "--store", store])
        #expect(twice.status != 0)
        #expect(twice.standardError.contains("twice.csv:4: field 'price': VEA on 2026-05-02 has a different price on line 2"), "\(twice.standardError)")
        #expect(try directory.snapshot("store") == before)

        let stored = try directory.file("stored.csv", [Self.header, "2026-05-04,VEA,1.00,USD", "2026-05-01,VEA,50.11,USD"].joined(separator: "\n") + "\n")
        let refused = try TallyProcess.run(["import", stored, "--store", store])
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("stored.csv:3: field 'price': VEA on 2026-05-01 already has a different price in the store"), "\(refused.standardError)")
        #expect(try directory.snapshot("store") == before)
    }

    @Test(arguments: [
        ("2026-13-01,VEA,50.10,USD", "bad.csv:3: field 'date'"),
        ("2026-05-01,vea,50.10,USD", "bad.csv:3: field 'symbol'"),
        ("2026-05-01,VEA,0,USD", "bad.csv:3: field 'price': must be more than zero"),
        ("2026-05-01,VEA,-1.00,USD", "bad.csv:3: field 'price': must be more than zero"),
        ("2026-05-01,VEA,50.1.0,USD", "bad.csv:3: field 'price'"),
        ("2026-05-01,VEA,50.10,VEA", "bad.csv:3: field 'currency': is the symbol itself"),
        ("2026-05-01,VEA,50.10", "bad.csv:3: the row has 3 fields"),
    ])
    func aMalformedRowNamesItsLineAndChangesNothing(row: String, message: String) throws {
        let directory = try TemporaryDirectory()
        let store = try newStore(directory)
        let seed = try directory.file("seed.csv", Self.header + "\n2026-04-01,VEA,49.00,USD\n")
        #expect(try TallyProcess.run(["import", seed, "--store", store]).status == 0)
        let file = try directory.file("bad.csv", Self.header + "\n2026-05-01,BND,70.00,USD\n" + row + "\n")
        let before = try directory.snapshot("store")
        let result = try TallyProcess.run(["import", file, "--store", store])
        #expect(result.status != 0)
        #expect(result.standardError.contains(message), "\(result.standardError)")
        #expect(try directory.snapshot("store") == before)
    }

    @Test func priceEventsInTheirJSONFormMustBeAdmissible() throws {
        let directory = try TemporaryDirectory()
        let store = try newStore(directory)
        let good = #"{"type":"price_quoted","version":1,"effective_at":"2026-05-01T04:00:00Z","data":{"symbol":"VEA","price":{"amount":"50.10","currency":"USD"},"source":"manual"}}"#
        let file = try directory.file("prices.ndjson", good + "\n")
        let imported = try TallyProcess.run(["import", file, "--store", store])
        #expect(imported.status == 0, "\(imported.standardError)")
        let bad = try directory.file("bad.ndjson", good.replacingOccurrences(of: "50.10", with: "-50.10") + "\n")
        let before = try directory.snapshot("store")
        let refused = try TallyProcess.run(["import", bad, "--store", store])
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("price_quoted"), "\(refused.standardError)")
        #expect(try directory.snapshot("store") == before)
    }
}
