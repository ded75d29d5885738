import Foundation
import Testing

/// Issue 15, wrong today 2, for envelopes: a command decides by the base currency in force
/// at its own date. After switching to EUR, a receipt from March (when the ledger was in
/// USD) is entered in USD with no rate, and today's needs its rate to EUR.
@Suite struct EnvelopeBaseCurrencyAtDateCommandTests {
    @Test func aBackdatedReceiptUsesTheBaseCurrencyOfItsDay() throws {
        let store = try BudgetStore()
        try store.run(["envelope", "account-open", "Assets:US", "--currency", "USD", "--opening", "100.00", "--date", "2026-01-01"])
        try store.run(["envelope", "create", "food", "--budget", "50.00", "--start", "2026-01-01"])
        try store.run(["base-currency", "EUR"])

        // Dated in March, when USD was the base: no rate needed, and it counts as it was.
        try store.run(["envelope", "record", "t1", "--account", "Assets:US", "--amount", "-10.00", "--envelope", "food", "--date", "2026-03-01"])
        let march = try store.run(["envelope", "status", "food", "--as-of", "2026-03-31", "--json"])
        #expect(march.contains(#""spent":{"amount":"10.00","currency":"USD"}"#), "\(march)")
        #expect(try store.run(["envelope", "total", "--as-of", "2026-03-31"]).contains("90.00 USD"))

        // From the switch on the base is EUR (a day's command takes effect at its start, so the
        // first whole day after the switch): a USD receipt needs its rate to EUR.
        try store.expectRefused(["envelope", "record", "t2", "--account", "Assets:US", "--amount", "-10.00", "--date", "2099-01-04"], "needs its rate to EUR")
        try store.run(["envelope", "record", "t2", "--account", "Assets:US", "--amount", "-10.00", "--rate", "0.90", "--date", "2099-01-04"])
    }

    /// Issue 32, rule 2: a household keeps a yen account; the ledger knows the yen's rate to
    /// the dollar and the dollar's to the euro. After switching the base to EUR, an expense
    /// in yen is entered with no rate: it is kept in yen and converted as every other answer
    /// converts (one hop through USD, one rounding), not refused. A currency the ledger knows
    /// no rate for on that day is still refused, naming the day.
    @Test func afterASwitchOfBaseAnExpenseInACurrencyTheLedgerCanConvertNeedsNoRate() throws {
        let store = try BudgetStore()
        try store.run(["fx", "USD", "JPY", "150", "--date", "2025-01-01"])
        try store.run(["fx", "EUR", "USD", "1.08", "--date", "2025-01-01"])
        try store.run(["envelope", "account-open", "Assets:Yen", "--currency", "JPY", "--opening", "100000", "--date", "2025-01-01"])
        try store.run(["envelope", "account-open", "Assets:Franc", "--currency", "CHF", "--opening", "50.00", "--date", "2025-01-01"])
        try store.run(["base-currency", "EUR", "--date", "2025-03-01"])
        try store.run(["envelope", "create", "travel", "--budget", "500.00", "--start", "2025-04-01"])

        try store.run(["envelope", "record", "t1", "--account", "Assets:Yen", "--amount", "-15000", "--envelope", "travel", "--date", "2025-04-10"])

        // 15,000 JPY = 100 USD = 92.5925… EUR, rounded once: what the envelope spent.
        let status = try store.run(["envelope", "status", "travel", "--as-of", "2025-04-30", "--json"])
        #expect(status.contains(#""spent":{"amount":"92.59","currency":"EUR"}"#), "\(status)")
        // The account's 85,000 JPY converts alike in the envelope total and in balances --value.
        #expect(try store.run(["envelope", "total", "--as-of", "2025-04-30"]).contains("524.69 EUR"))
        #expect(try store.run(["balances", "--value", "EUR", "--as-of", "2025-04-30"]).contains("524.69"))

        try store.expectRefused(["envelope", "record", "t2", "--account", "Assets:Franc", "--amount", "-5.00", "--date", "2025-04-10"],
                                "knows no rate between them on 2025-04-10")
    }
}
