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
}
