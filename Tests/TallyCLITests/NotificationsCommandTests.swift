import Foundation
import Testing
import PostgresTestSupport

/// `tally notifications` (docs/notifications.md): a budget story told as of its days, in the
/// three forms, filtered by kind and cursor, and refused by name.
@Suite struct NotificationsCommandTests {
    /// A budget with a rent bill and a groceries budget, all in May 2026.
    private func household(on backend: LogBackend) throws -> BudgetStore {
        let store = try BudgetStore(on: backend)
        try store.run(["recurring", "define", "rent", "--payee", "Landlord", "--category", "bills", "--amount", "-1200.00",
                       "--day", "28", "--start", "2026-05", "--end", "2026-05"])
        try store.run(["budget", "set", "--category", "Groceries", "--month", "2026-05", "--maximum", "100.00"])
        try store.run(["tx", "add", "--payee", "Market", "--category", "Groceries", "--amount", "-60.00", "--date", "2026-05-10"])
        try store.run(["tx", "add", "--payee", "Grocer", "--category", "Groceries", "--amount", "-45.50", "--date", "2026-05-24"])
        return store
    }

    @Test(arguments: LogBackend.allCases) func theMonthIsToldDayByDayInEachForm(on backend: LogBackend) throws {
        let store = try household(on: backend)
        #expect(try store.run(["notifications", "--as-of", "2026-05-22"]) == "no notifications\n")
        #expect(try store.run(["notifications", "--as-of", "2026-05-31"]).contains("budget_overspent:groceries:2026-05"))
        // The rent was defined today: its May bill is told from today on, never as of May.
        #expect(!(try store.run(["notifications", "--as-of", "2026-05-31"]).contains("bill_")))
        let table = try store.run(["notifications"])
        let lines = table.split(separator: "\n").map(String.init)
        try #require(lines.count == 5, "\(table)")
        #expect(lines[0].hasPrefix("DATE"))
        #expect(lines[1].hasPrefix("2026-05-23  bill_due_soon     Bill Landlord of 1200.00 USD is due on 2026-05-28"))
        #expect(lines[2].hasPrefix("2026-05-24  budget_overspent  Groceries budget for 2026-05 overspent on 2026-05-24: 105.50 USD spent of 100.00 USD (5.50 USD over)"))
        #expect(lines[3].hasPrefix("2026-05-29  bill_overdue"))
        #expect(lines[3].hasSuffix("bill_overdue:rent:2026-05"))
        #expect(lines[4] == "page 1 of 1 (3 items)", "a list's footer: \(table)")

        let json = try store.run(["notifications", "--as-of", "2026-05-31", "--kind", "budget_overspent", "--json"])
        #expect(json.hasPrefix("{\"items\":[{\"id\":\"budget_overspent:groceries:2026-05\",\"kind\":\"budget_overspent\",\"at\":\"2026-05-24T04:00:00.000000Z\",\"date\":\"2026-05-24\",\"subject\":\"budget:groceries:2026-05\",\"causes\":[3,5],"))
        #expect(json.contains("\"figures\":{\"category\":\"groceries\",\"currency\":\"USD\",\"maximum\":\"100.00\",\"month\":\"2026-05\",\"over\":\"5.50\",\"spent\":\"105.50\"}}],"
                              + "\"paging\":{\"page\":1,\"page_size\":10,\"page_count\":1,\"total_count\":1}}\n"))

        let csv = try store.run(["notifications", "--format", "csv", "--since", "bill_due_soon:rent:2026-05"])
        #expect(csv.split(separator: "\n").map(String.init).first == "date,kind,message,id,at,subject,causes")
        #expect(csv.split(separator: "\n").count == 3)
        #expect(csv.contains(",bill_overdue:rent:2026-05,2026-05-29T04:00:00.000000Z,recurring:rent,2\n"))
        // A past day is answered the same way whenever it is asked: the May notice, as of any later day.
        #expect(try store.run(["notifications", "--as-of", "2026-06-30", "--json"]) == (try store.run(["notifications", "--as-of", "2026-05-31", "--json"])))
    }

    /// A day `days` from today in New York (the store's time zone), as YYYY-MM-DD.
    private func day(_ days: Int) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "America/New_York")!
        let date = calendar.date(byAdding: .day, value: days, to: Date())!
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }

    @Test func aBankConsentIsGivenWithTheConnectionToldAWeekBeforeItEndsAndRenewed() throws {
        let store = try BudgetStore(on: .files)
        #expect(try store.run(["bank", "connect", "chase", "--name", "Chase Checking", "--consent-expires", day(10)]).contains("consent until \(day(10))"))
        #expect(try store.run(["bank", "list", "--json"]).contains(#""consent_expires":"\#(day(10))""#))
        #expect(try store.run(["notifications", "--kind", "bank_consent_expiring"]) == "no notifications\n", "the window opens in 3 days")
        let ahead = try store.run(["notifications", "--as-of", day(3), "--kind", "bank_consent_expiring", "--json"])
        #expect(ahead.contains(#""id":"bank_consent_expiring:chase:\#(day(10))""#), "\(ahead)")
        #expect(ahead.contains(#""days_left":"7""#))
        // Renewed before the window: the notice is withdrawn, and the new consent's comes a week before its own end.
        #expect(try store.run(["bank", "consent", "chase", "--expires", day(40)]).contains("until \(day(40))"))
        #expect(try store.run(["notifications", "--as-of", day(20), "--kind", "bank_consent_expiring"]) == "no notifications\n")
        #expect(try store.run(["notifications", "--as-of", day(33), "--kind", "bank_consent_expiring"]).contains("bank_consent_expiring:chase:\(day(40))"))
        try store.expectRefused(["bank", "consent", "chase", "--expires", day(-1)], "before today")
        try store.expectRefused(["bank", "consent", "chase", "--expires", "2026-02-30"], "--expires '2026-02-30' is not a date")
        try store.expectRefused(["bank", "consent", "wells", "--expires", day(30)], "bank 'wells' is not connected")
        try store.expectRefused(["bank", "connect", "wells", "--consent-expires", day(-2)], "before today")
    }

    @Test func anUnknownKindOrCursorIsRefusedByName() throws {
        let store = try household(on: .files)
        try store.expectRefused(["notifications", "--kind", "bill_due"], "no notification kind 'bill_due'")
        try store.expectRefused(["notifications", "--since", "bill_overdue:rent:2026-06"], "no notification 'bill_overdue:rent:2026-06'")
        try store.expectRefused(["notifications", "--json", "--format", "csv"], "not both")
    }
}
