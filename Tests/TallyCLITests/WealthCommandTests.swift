import Foundation
import Testing

/// `tally wealth …` run as a user would: deposits split, purchases with round-ups,
/// refusals that exit non-zero and leave the store byte for byte as it was.
@Suite struct WealthCommandTests {
    private func newStore(_ directory: TemporaryDirectory) throws -> String {
        let store = directory.path + "/store"
        let created = try TallyProcess.run(["init", "--store", store, "--time-zone", "America/New_York"])
        try #require(created.status == 0, "\(created.standardError)")
        return store
    }

    @discardableResult
    private func wealth(_ store: String, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> TallyRun {
        let result = try TallyProcess.run(["wealth"] + arguments + ["--store", store])
        #expect(result.status == 0, "tally wealth \(arguments.joined(separator: " ")): \(result.standardError)", sourceLocation: sourceLocation)
        return result
    }

    /// The store's files, but SQLite's shared-memory index (`-shm`), which every reader
    /// touches and which holds no data (it is rebuilt from the database and its WAL).
    private func storeFiles(_ directory: TemporaryDirectory) throws -> [String: Data] {
        try directory.snapshot("store").filter { !$0.key.hasSuffix("-shm") }
    }

    private func summaryJSON(_ store: String) throws -> String {
        try wealth(store, ["summary", "--json"]).standardOutput
    }

    @Test func aDepositIsSplitAndAPurchaseRoundsUp() throws {
        let directory = try TemporaryDirectory()
        let store = try newStore(directory)
        let deposit = try wealth(store, ["deposit", "100.00", "--currency", "USD", "--source", "bank_transfer", "--external-id", "tx-1"])
        #expect(deposit.standardOutput.contains("seq 3  split 70/30 of deposit seq 2: Spend +70.00 USD, Invest +30.00 USD"))
        #expect(try summaryJSON(store).contains(#"{"currency":"USD","wallet":{"amount":"0.00","currency":"USD"},"spend":{"amount":"70.00","currency":"USD"},"invest":{"amount":"30.00","currency":"USD"},"total":{"amount":"100.00","currency":"USD"},"round_up_increment":{"amount":"1.00","currency":"USD"},"round_ups_skipped":false}"#))
        try wealth(store, ["round-ups", "on"])
        let purchase = try wealth(store, ["purchase", "3.40", "--currency", "USD", "--merchant", "Blue Bottle"])
        #expect(purchase.standardOutput.contains("round-up of 0.60 USD moved from Spend to Invest"))
        #expect(purchase.standardOutput.contains("Spend 66.00 USD, Invest 30.60 USD"))
        let summary = try wealth(store, ["summary"]).standardOutput
        #expect(summary.contains("Wealth account main: active"))
        #expect(summary.contains("round-ups on"))
        #expect(summary.contains("USD       66.00   30.60    0.00  96.60"), "\(summary)")
        let total = try wealth(store, ["round-ups-total", "--json"]).standardOutput
        #expect(total.contains(#""totals":[{"amount":"0.60","currency":"USD"}]"#), "\(total)")
    }

    @Test func theSameExternalIdIsRecordedOnce() throws {
        let directory = try TemporaryDirectory()
        let store = try newStore(directory)
        try wealth(store, ["deposit", "25.00", "--currency", "GBP", "--external-id", "bank-77"])
        let again = try wealth(store, ["deposit", "25.00", "--currency", "GBP", "--external-id", "bank-77", "--json"])
        #expect(again.standardOutput.hasPrefix(#"{"already_applied":true,"events":[{"seq":2,"#), "\(again.standardOutput)")
        #expect(try summaryJSON(store).contains(#""total":{"amount":"25.00","currency":"GBP"}"#))
        let stats = try TallyProcess.run(["stats", "--store", store, "--json"])
        #expect(stats.standardOutput.contains("\"events\":3"))
    }

    @Test(arguments: [
        (["purchase", "70.01", "--currency", "USD", "--merchant", "TV"], "Spend balance in USD"),
        (["withdraw", "70.01", "--currency", "USD"], "less than the withdrawal"),
        (["purchase", "1.00", "--currency", "GBP", "--merchant", "Tube"], "Spend balance in GBP"),
        (["purchase", "0", "--merchant", "Free"], "more than zero"),
        (["deposit", "--", "-5.00"], "more than zero"),
        (["deposit", "1.234", "--currency", "USD"], "decimal places"),
        (["deposit", "1.00", "--currency", "usd"], "--currency 'usd'"),
        (["deposit", "1.00", "--source", "cash"], "--source 'cash'"),
        (["deposit", "1.00", "--date", "2999-01-01"], "in the future"),
        (["deposit", "1.00", "--date", "31/12/2025"], "--date '31/12/2025'"),
        (["deposit", "1.00", "--account", "my account"], "wealth account name"),
        (["split-rule", "0", "0"], "both be zero"),
        (["summary", "--account", "savings"], "no wealth account 'savings'"),
        (["history", "--page", "0"], "page must be 1 or more"),
        (["history", "--filter", "fun"], "fun"),
        (["round-ups-total", "--month", "2026-13"], "--month '2026-13'"),
    ])
    func aRefusalExitsNonZeroSaysWhyAndChangesNothing(arguments: [String], message: String) throws {
        let directory = try TemporaryDirectory()
        let store = try newStore(directory)
        try wealth(store, ["deposit", "100.00", "--currency", "USD"])
        let before = try storeFiles(directory)
        let result = try TallyProcess.run(["wealth", arguments[0], "--store", store] + arguments.dropFirst())
        #expect(result.status != 0)
        #expect(result.standardError.contains(message), "\(result.standardError)")
        #expect(try storeFiles(directory) == before, "the store changed")
    }

    @Test func aFrozenCardRefusesPurchasesUntilUnfrozen() throws {
        let directory = try TemporaryDirectory()
        let store = try newStore(directory)
        try wealth(store, ["deposit", "10.00"])
        try wealth(store, ["freeze"])
        let before = try storeFiles(directory)
        let refused = try TallyProcess.run(["wealth", "purchase", "1.00", "--merchant", "Kiosk", "--store", store])
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("frozen"))
        #expect(try storeFiles(directory) == before)
        #expect(try wealth(store, ["freeze"]).standardOutput.contains("Nothing to record: the card is already frozen"))
        try wealth(store, ["unfreeze"])
        try wealth(store, ["purchase", "1.00", "--merchant", "Kiosk"])
    }

    @Test func pausedDepositsWaitAndResumeSplitsThem() throws {
        let directory = try TemporaryDirectory()
        let store = try newStore(directory)
        try wealth(store, ["pause"])
        let deposit = try wealth(store, ["deposit", "40.00", "--currency", "USDC", "--source", "chain"])
        #expect(deposit.standardOutput.contains("waits in the wallet"))
        try wealth(store, ["split-rule", "50", "50"])
        let paused = try summaryJSON(store)
        #expect(paused.contains(#""status":"paused""#))
        #expect(paused.contains(#""wallet":{"amount":"40.000000","currency":"USDC"}"#))
        let resumed = try wealth(store, ["resume"]).standardOutput
        #expect(resumed.contains("automation resumed"))
        #expect(resumed.contains("split 70/30 of deposit seq 3"), "the rule in force when the deposit arrived: \(resumed)")
        let active = try summaryJSON(store)
        #expect(active.contains(#""status":"active""#))
        #expect(active.contains(#""spend":{"amount":"28.000000","currency":"USDC"}"#))
        #expect(active.contains(#""split_rule":{"spend_weight":50,"invest_weight":50}"#))
    }

    @Test func historyFiltersPagesAndBackdates() throws {
        let directory = try TemporaryDirectory()
        let store = try newStore(directory)
        try wealth(store, ["deposit", "100.00", "--date", "2024-01-15"])
        try wealth(store, ["withdraw", "10.00", "--destination", "checking"])
        try wealth(store, ["purchase", "5.00", "--merchant", "Bakery"])
        let all = try wealth(store, ["history"]).standardOutput
        #expect(all.contains("page 1 of 1 (4 items), filter all"), "\(all)")
        #expect(all.contains("2024-01-15  deposit"), "\(all)")
        let deposits = try wealth(store, ["history", "--filter", "deposits", "--json"]).standardOutput
        #expect(deposits.contains(#""total_count":1"#))
        #expect(deposits.contains(#""effective_at":"2024-01-15T05:00:00.000000Z""#), "midnight in New York: \(deposits)")
        let page = try wealth(store, ["history", "--filter", "spend", "--page", "2", "--page-size", "2", "--json"]).standardOutput
        #expect(page.contains(#""total_count":3"#))
        #expect(page.contains(#""kind":"split""#))
        #expect(!page.contains(#""kind":"purchase""#))
        let asOf = try wealth(store, ["summary", "--as-of", "2024-01-15", "--json"]).standardOutput
        #expect(asOf.contains(#""spend":{"amount":"70.00","currency":"USD"}"#), "\(asOf)")
    }

    @Test func everyReadAsKnownAtAnEarlierInstantIgnoresALaterBackdatedPurchase() throws {
        let directory = try TemporaryDirectory()
        let store = try newStore(directory)
        try wealth(store, ["deposit", "100.00", "--currency", "USD", "--date", "2026-03-10"])
        try wealth(store, ["round-ups", "on", "--date", "2026-03-10"])
        try wealth(store, ["purchase", "3.40", "--currency", "USD", "--merchant", "Blue Bottle", "--date", "2026-03-12"])
        let reads = [
            ["wealth", "summary", "--as-of", "2026-03-31", "--json"],
            ["wealth", "summary"],
            ["wealth", "history", "--as-of", "2026-03-31", "--json"],
            ["wealth", "history", "--filter", "invest"],
            ["wealth", "round-ups-total", "--month", "2026-03", "--json"],
            ["wealth", "round-ups-total", "--as-of", "2026-03-25"],
        ]
        try TimeTravelCLI.expectKnownAtKeepsEachFirstAnswer(reads, store: store) {
            try wealth(store, ["purchase", "1.75", "--currency", "USD", "--merchant", "Kiosk", "--date", "2026-03-20"])
        }
        // As of a day before the backdated purchase, nothing changed however it is asked.
        let march15 = try wealth(store, ["round-ups-total", "--as-of", "2026-03-15", "--json"]).standardOutput
        #expect(march15.contains(#""month":"2026-03","totals":[{"amount":"0.60","currency":"USD"}]"#), "\(march15)")
        let history = try wealth(store, ["history", "--as-of", "2026-03-15", "--json"]).standardOutput
        #expect(history.contains(#""total_count":4"#), "\(history)")
        let now = try wealth(store, ["round-ups-total", "--month", "2026-03", "--json"]).standardOutput
        #expect(now.contains(#""totals":[{"amount":"0.85","currency":"USD"}]"#), "\(now)")
    }

    @Test(arguments: [["summary"], ["history"], ["round-ups-total"]])
    func aBadAsOfOrKnownAtIsRefusedByName(command: [String]) throws {
        let directory = try TemporaryDirectory()
        let store = try newStore(directory)
        try wealth(store, ["deposit", "100.00", "--currency", "USD"])
        try TimeTravelCLI.expectBadTimesRefused(["wealth"] + command, store: store, directory: directory, storeFolder: "store")
    }
}
