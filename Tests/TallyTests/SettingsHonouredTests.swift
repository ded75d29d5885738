import Testing
@testable import Tally
import TallyLog
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// Issue 32, rule 7 (settings honoured): the `page_size` setting in force is the default page
/// size of every paged list; money shown to a person is grouped by one formatter.
@Suite struct SettingsHonouredTests {
    @Test func everyListPagesByThePageSizeSettingInForceUnlessAskedOtherwise() throws {
        try withBudgetLedger(at: "2026-05-20T16:00:00Z") { ledger, _ in
            for number in 1...12 {
                try ledger.recordTransaction(payee: "Shop \(number)", category: .groceries, amount: usd("-1.00"), date: day("2026-05-01"))
                try ledger.deposit(account: "main", amount: usd("10.00"))
            }
            #expect(try ledger.transactions().pageSize == 10, "the default setting: 10 rows")
            #expect(try ledger.transactions().transactions.count == 10)
            try ledger.setPageSize(4, effectiveAt: ledger.calendar.startOfDay(day("2026-05-10")))
            #expect(try ledger.transactions().transactions.count == 4)
            #expect(try ledger.wealthHistory(account: "main").entries.count == 4)
            #expect(try ledger.pageSize() == 4)
            // As of a day before the change, the setting then: 10.
            let before = ledger.calendar.endOfDay(day("2026-05-09"))
            #expect(try ledger.transactions(asOf: before).pageSize == 10)
            #expect(try ledger.wealthHistory(account: "main", asOf: before).pageSize == 10)
            // Asked for: what was asked.
            var query = TransactionQuery()
            query.pageSize = 7
            #expect(try ledger.transactions(query).transactions.count == 7)
            #expect(try ledger.wealthHistory(account: "main", pageSize: 5).entries.count == 5)
            try ledger.expectConsistent()
        }
    }

    @Test(arguments: [
        ("3200.00", "GBP", "3,200.00", "+3,200.00 GBP ↑ over 30 days"),
        ("-1234567.89", "USD", "-1,234,567.89", "-1,234,567.89 USD ↓ over 30 days"),
        ("0.00", "EUR", "0.00", "0.00 EUR → over 30 days"),
        ("999.99", "USD", "999.99", "+999.99 USD ↑ over 30 days"),
        ("1000", "JPY", "1,000", "+1,000 JPY ↑ over 30 days"),
        ("12345.678", "BHD", "12,345.678", "+12,345.678 BHD ↑ over 30 days"),
        ("-0.01", "USD", "-0.01", "-0.01 USD ↓ over 30 days"),
    ])
    func moneyIsShownGroupedAndAChangeSignedWithItsArrow(text: String, code: String, grouped: String, change: String) throws {
        let money = try Money(parsing: text, commodity: try Commodity.named(code))
        #expect(MoneyDisplay.amount(money) == grouped)
        #expect(MoneyDisplay.money(money) == grouped + " " + code)
        #expect(MoneyDisplay.change(money, over: "30 days") == change)
    }

    /// Random amounts of every size and scale: the grouped text without its commas is the
    /// plain decimal, and every group after the first has three digits.
    @Test func groupingNeverChangesTheAmount() throws {
        let seed = TestSeed.value(default: 0x32_07)
        var random = SplitMix64(seed: seed)
        for _ in 0..<2_000 {
            let commodity = [Commodity.usd, .jpy, try Commodity.named("BHD"), try Commodity.named("BTC")].randomElement(using: &random)!
            let money = Money(minorUnits: Int64.random(in: Int64.min...Int64.max, using: &random) >> Int64.random(in: 0...62, using: &random), commodity: commodity)
            let grouped = MoneyDisplay.amount(money)
            #expect(grouped.replacingOccurrences(of: ",", with: "") == money.decimalString, "seed \(seed): \(money)")
            let whole = grouped.split(separator: ".").first.map { $0.hasPrefix("-") ? $0.dropFirst() : $0[...] } ?? ""
            let groups = whole.split(separator: ",")
            #expect(groups.dropFirst().allSatisfy { $0.count == 3 } && (1...3).contains(groups.first?.count ?? 0), "seed \(seed): \(grouped)")
        }
    }
}
