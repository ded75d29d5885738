import Foundation
import Testing

/// `tally envelope`, run as a user would.
@Suite struct EnvelopeCommandTests {
    /// A store with a bank account, a JPY cash account and two envelopes.
    private func household(_ directory: TemporaryDirectory) throws -> [String] {
        let store = ["--store", directory.path + "/store"]
        for arguments in [
            ["init", "--time-zone", "America/New_York"],
            ["envelope", "account-open", "Assets:Bank", "--opening", "2000.00", "--date", "2026-05-01"],
            ["envelope", "account-open", "Assets:Travel cash", "--currency", "JPY", "--opening", "50000", "--date", "2026-05-01"],
            ["envelope", "create", "groceries", "--name", "Groceries", "--budget", "400.00", "--start", "2026-05-01"],
            ["envelope", "create", "dining", "--name", "Dining out", "--budget", "100.00", "--start", "2026-05-01"],
            ["envelope", "record", "t1", "--account", "Assets:Bank", "--amount=-450.00", "--envelope", "groceries", "--date", "2026-05-03"],
            ["envelope", "record", "t2", "--account", "Assets:Travel cash", "--amount=-3000", "--rate", "0.0067", "--envelope", "dining", "--date", "2026-05-12"],
        ] {
            let run = try TallyProcess.run(arguments + store)
            try #require(run.status == 0, "\(arguments): \(run.standardError)")
        }
        return store
    }

    @Test func statusPrintsEachEnvelopesIntervalAndFlagsOverspending() throws {
        let directory = try TemporaryDirectory()
        let store = try household(directory)
        let run = try TallyProcess.run(["envelope", "status", "--as-of", "2026-05-31"] + store)
        #expect(run.status == 0, "\(run.standardError)")
        // Each envelope, their totals in the base currency, then the latest activity (the yen
        // spent on dining counts 20.10 USD at its own rate).
        #expect(run.standardOutput == """
            ENVELOPE    INTERVAL                  BUDGETED  CARRIED IN       SPENT   REMAINING  STATUS
            Dining out  2026-05-01..2026-05-31  100.00 USD    0.00 USD   20.10 USD   79.90 USD
            Groceries   2026-05-01..2026-05-31  400.00 USD    0.00 USD  450.00 USD  -50.00 USD  OVER
            TOTAL                               500.00 USD              470.10 USD   29.90 USD

            Recent activity
            DATE        SEQ  ENVELOPE   EVENT                      AMOUNT
            2026-05-12    7  dining     transaction_recorded   -3,000 JPY
            2026-05-03    6  groceries  transaction_recorded  -450.00 USD

            """)
        let june = try TallyProcess.run(["envelope", "status", "groceries", "--as-of", "2026-06-01", "--json"] + store)
        #expect(june.standardOutput.contains(#""carried_in":{"amount":"-50.00","currency":"USD"}"#))
        #expect(june.standardOutput.contains(#""available":{"amount":"350.00","currency":"USD"}"#))
        #expect(june.standardOutput.contains(#""over_budget":false"#))
    }

    @Test func totalConvertsEachAccountToTheBaseCurrencyAndSpendingGroupsByEnvelope() throws {
        let directory = try TemporaryDirectory()
        let store = try household(directory)
        let total = try TallyProcess.run(["envelope", "total", "--as-of", "2026-05-31", "--json"] + store)
        #expect(total.standardOutput.hasPrefix(#"{"total":{"amount":"1864.90","currency":"USD"}"#), "\(total.standardOutput)")
        #expect(total.standardOutput.contains(#""paging":{"page":1,"#), "\(total.standardOutput)")
        #expect(total.standardOutput.contains(#"{"account":"Assets:Travel cash","kind":"asset","balance":{"amount":"47000","currency":"JPY"},"owed":null,"in_base":{"amount":"314.90","currency":"USD"}}"#))
        let before = try TallyProcess.run(["envelope", "total", "--as-of", "2026-04-30"] + store)
        #expect(before.standardOutput.contains("TOTAL") && before.standardOutput.contains("0.00 USD"))
        let spending = try TallyProcess.run(["envelope", "spending", "--from", "2026-05-01", "--to", "2026-05-31", "--json"] + store)
        #expect(spending.standardOutput == #"{"from":"2026-05-01","through":"2026-05-31","items":["#
            + #"{"envelope":"dining","name":"Dining out","spent":{"amount":"20.10","currency":"USD"},"transactions":1,"unconverted":0},"#
            + #"{"envelope":"groceries","name":"Groceries","spent":{"amount":"450.00","currency":"USD"},"transactions":1,"unconverted":0}],"#
            + #""paging":{"page":1,"page_size":2,"page_count":1,"total_count":2}}"# + "\n")
    }

    @Test func rolloverBudgetFundTransferAndDeleteChangeWhatStatusSays() throws {
        let directory = try TemporaryDirectory()
        let store = try household(directory)
        for arguments in [
            ["envelope", "rollover", "groceries", "--policy", "take_from_to_assign", "--from", "2026-05-01"],
            ["envelope", "budget", "groceries", "--budget", "500.00", "--from", "2026-06-01"],
            ["envelope", "fund", "groceries", "--amount", "25.00", "--date", "2026-06-02"],
            ["envelope", "account-open", "Assets:Savings", "--date", "2026-05-01"],
            ["envelope", "transfer", "s1", "--from", "Assets:Bank", "--to", "Assets:Savings", "--amount", "100.00", "--envelope", "dining", "--date", "2026-06-03"],
            ["envelope", "delete", "dining", "--date", "2026-07-01"],
        ] {
            let run = try TallyProcess.run(arguments + store)
            #expect(run.status == 0, "\(arguments): \(run.standardError)")
        }
        // One object: the envelopes as `items`, each its own object as `status ID --json` prints it.
        let june = try TallyProcess.run(["envelope", "status", "--as-of", "2026-06-30", "--json"] + store)
        let items = june.standardOutput.components(separatedBy: #"{"envelope":"#).dropFirst()
        #expect(june.standardOutput.hasPrefix(#"{"date":"2026-06-30","currency":"USD","#), "\(june.standardOutput)")
        #expect(june.standardOutput.contains(#""items":[{"envelope":"dining""#), "\(june.standardOutput)")
        #expect(june.standardOutput.hasSuffix(#""paging":{"page":1,"page_size":2,"page_count":1,"total_count":2}}"# + "\n"), "\(june.standardOutput)")
        #expect(items.count == 2)
        #expect(items.first?.contains(#""spent":{"amount":"100.00","currency":"USD"}"#) == true)
        #expect(items.last?.contains(#""taken_from_to_assign":{"amount":"50.00","currency":"USD"}"#) == true)
        #expect(items.last?.contains(#""available":{"amount":"525.00","currency":"USD"}"#) == true)
        let july = try TallyProcess.run(["envelope", "status", "--as-of", "2026-07-01", "--json"] + store)
        #expect(july.standardOutput.components(separatedBy: #"{"envelope":"#).count == 2, "\(july.standardOutput)")
    }

    @Test(arguments: [
        (["envelope", "record", "x", "--account", "Assets:Travel cash", "--amount=-100", "--envelope", "dining", "--date", "2026-05-02"], "rate"),
        (["envelope", "record", "x", "--account", "Assets:Bank", "--amount=-1.00", "--envelope", "nope"], "no envelope 'nope'"),
        (["envelope", "record", "x", "--account", "Assets:Bank", "--amount=-1.005"], "--amount"),
        (["envelope", "record", "t1", "--account", "Assets:Bank", "--amount=-1.00"], "exists"),
        (["envelope", "create", "groceries", "--budget", "1.00"], "exists"),
        (["envelope", "create", "x", "--budget", "1.00", "--interval", "daily"], "--interval"),
        (["envelope", "status", "--as-of", "2026-13-01"], "--as-of"),
        (["envelope", "transfer", "x", "--from", "Assets:Bank", "--to", "Assets:Travel cash", "--amount", "10.00"], "received"),
        (["envelope", "rollover", "groceries", "--policy", "keep"], "--policy"),
    ])
    func aRefusedCommandSaysWhyExitsNonZeroAndChangesNothing(arguments: [String], message: String) throws {
        let directory = try TemporaryDirectory()
        let store = try household(directory)
        let before = try directory.snapshot("store/log")
        let run = try TallyProcess.run(arguments + store)
        #expect(run.status != 0)
        #expect(run.standardError.contains(message), "\(run.standardError)")
        #expect(try directory.snapshot("store/log") == before)
    }

    @Test func everyReadAsKnownAtAnEarlierInstantIgnoresALaterBackdatedExpense() throws {
        let directory = try TemporaryDirectory()
        let store = try household(directory)
        let path = directory.path + "/store"
        let reads = [
            ["envelope", "status", "--as-of", "2026-05-31"],
            ["envelope", "status", "groceries", "--as-of", "2026-06-01", "--json"],
            ["envelope", "spending", "--from", "2026-05-01", "--to", "2026-05-31", "--json"],
            ["envelope", "spending", "--from", "2026-05-01", "--as-of", "2026-05-31"],
            ["envelope", "total", "--as-of", "2026-05-31", "--json"],
            ["envelope", "total"],
        ]
        try TimeTravelCLI.expectKnownAtKeepsEachFirstAnswer(reads, store: path) {
            let run = try TallyProcess.run(["envelope", "record", "t3", "--account", "Assets:Bank", "--amount=-30.00", "--envelope", "groceries",
                                            "--payee", "Market", "--date", "2026-05-20"] + store)
            #expect(run.status == 0, "\(run.standardError)")
        }
        // --as-of is --to: the same answer either way.
        #expect(try TimeTravelCLI.answer(reads[3], store: path)
                == TimeTravelCLI.answer(["envelope", "spending", "--from", "2026-05-01", "--to", "2026-05-31"], store: path))
    }

    @Test(arguments: [
        (["envelope", "status"], nil), (["envelope", "status", "groceries"], nil),
        (["envelope", "spending", "--from", "2026-05-01"], "--to"), (["envelope", "total"], nil),
    ] as [([String], String?)])
    func aBadAsOfOrKnownAtIsRefusedByName(read: [String], legacy: String?) throws {
        let directory = try TemporaryDirectory()
        _ = try household(directory)
        try TimeTravelCLI.expectBadTimesRefused(read, store: directory.path + "/store", directory: directory, storeFolder: "store", legacy: legacy)
    }
}
