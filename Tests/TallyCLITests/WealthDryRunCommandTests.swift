import Foundation
import Testing

/// Issue 32, "Deposit split preview": `wealth deposit … --dry-run` shows the split the rule
/// in force would make and `wealth purchase … --dry-run` the round-up, and neither records
/// anything: the log and the read models stay byte for byte as they were, and the real
/// command then records exactly what the preview said.
@Suite struct WealthDryRunCommandTests {
    /// The store's files but SQLite's shared-memory index (`-shm`), which any process that
    /// opens the read models rewrites and which holds no data.
    private func files(_ store: BudgetStore) throws -> [String: Data] {
        try store.directory.snapshot("home").filter { !$0.key.hasSuffix("-shm") }
    }

    @Test func aDryRunShowsTheSplitAndTheRoundUpAndRecordsNothing() throws {
        let store = try BudgetStore()
        try store.run(["wealth", "deposit", "100.00", "--currency", "USD"])
        try store.run(["wealth", "split-rule", "60", "40"])
        try store.run(["wealth", "round-ups", "on"])
        let before = try files(store)

        let deposit = try store.run(["wealth", "deposit", "10.01", "--currency", "USD", "--dry-run"])
        #expect(deposit.contains("would record seq 6  deposit of 10.01 USD received (bank_transfer)"), "\(deposit)")
        #expect(deposit.contains("would record seq 7  split 60/40 of deposit seq 6: Spend +6.01 USD, Invest +4.00 USD"), "\(deposit)")
        #expect(deposit.contains("Dry run: nothing recorded."), "\(deposit)")
        let purchase = try store.run(["wealth", "purchase", "3.40", "--currency", "USD", "--merchant", "Blue Bottle", "--dry-run", "--json"])
        #expect(purchase.hasPrefix(#"{"dry_run":true,"already_applied":false,"events":[{"seq":6,"#), "\(purchase)")
        #expect(purchase.contains(#""type":"round_up_applied""#), "\(purchase)")
        #expect(try files(store) == before, "a dry run changes no file of the store")

        // The real deposit records what the preview showed, at the same sequence numbers.
        let real = try store.run(["wealth", "deposit", "10.01", "--currency", "USD"])
        #expect(real.contains("seq 7  split 60/40 of deposit seq 6: Spend +6.01 USD, Invest +4.00 USD"), "\(real)")
    }

    @Test func aRefusedDryRunSaysWhyExitsNonZeroAndRecordsNothing() throws {
        let store = try BudgetStore()
        try store.run(["wealth", "deposit", "10.00", "--currency", "USD"])
        let before = try files(store)
        let refused = try TallyProcess.run(["wealth", "purchase", "7.01", "--currency", "USD", "--merchant", "Shop", "--dry-run"] + store.storeArguments)
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("Spend"), "\(refused.standardError)")
        #expect(try files(store) == before)
    }
}
