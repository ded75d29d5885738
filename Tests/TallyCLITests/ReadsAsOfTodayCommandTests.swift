import Foundation
import Testing

/// One "now" for every read (issue 15, finding 5): without `--as-of`, an answer is as of
/// today in the ledger's time zone; what is dated later appears only when asked for, by a
/// later `--as-of` or by `--include-future`.
@Suite struct ReadsAsOfTodayCommandTests {
    /// A UTC household and the days around today (the machine's clock: these tests run on
    /// any day).
    private struct Household {
        let directory: TemporaryDirectory
        var path: String { directory.path + "/home" }
        let today: String
        let tomorrow: String
        let nextWeek: String
        let yesterday: String
        let nextMonth: String

        init() throws {
            directory = try TemporaryDirectory()
            let created = try TallyProcess.run(["init", "--store", directory.path + "/home", "--time-zone", "UTC"])
            try #require(created.status == 0, "\(created.standardError)")
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            func day(_ offset: Int) -> String {
                let date = calendar.date(byAdding: .day, value: offset, to: Date())!
                let parts = calendar.dateComponents([.year, .month, .day], from: date)
                return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
            }
            today = day(0)
            tomorrow = day(1)
            nextWeek = day(7)
            yesterday = day(-1)
            nextMonth = String(day(32).prefix(7))
        }

        @discardableResult
        func run(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> TallyRun {
            let result = try TallyProcess.run(arguments + ["--store", path])
            #expect(result.status == 0, "tally \(arguments.joined(separator: " ")): \(result.standardError)", sourceLocation: sourceLocation)
            return result
        }
    }

    @Test func rentDatedNextWeekIsNotInTodaysBalancesUntilAskedFor() throws {
        let home = try Household()
        try home.run(["tx", "add", "--payee", "Shop", "--category", "Groceries", "--amount", "-12.40", "--date", home.yesterday])
        try home.run(["tx", "add", "--payee", "Landlord", "--category", "Bills", "--amount", "-900.00", "--date", home.nextWeek])
        let today = try home.run(["balances", "--format", "csv"]).standardOutput
        #expect(today.contains("Budget:Current,USD,-12.40"), "today: \(today)")
        #expect(today == (try home.run(["balances", "--format", "csv", "--as-of", home.today])).standardOutput,
                "balances without a date answer as of today")
        let later = try home.run(["balances", "--format", "csv", "--as-of", home.nextWeek]).standardOutput
        #expect(later.contains("Budget:Current,USD,-912.40"), "next week: \(later)")
        let everything = try home.run(["balances", "--format", "csv", "--include-future"]).standardOutput
        #expect(everything == later, "the rent appears when asked for")
        let list = try home.run(["tx", "list", "--json"]).standardOutput
        #expect(!list.contains("Landlord"), "today's list leaves next week's rent out: \(list)")
        #expect(try home.run(["tx", "list", "--json", "--include-future"]).standardOutput.contains("Landlord"))
    }

    @Test func theOverviewOfThisMonthIsTheOverviewAsOfToday() throws {
        let home = try Household()
        try home.run(["tx", "add", "--payee", "Shop", "--category", "Groceries", "--amount", "-12.40", "--date", home.today])
        try home.run(["tx", "add", "--payee", "Landlord", "--category", "Bills", "--amount", "-900.00", "--date", home.nextWeek])
        let month = String(home.today.prefix(7))
        let byMonth = try home.run(["overview", "--month", month, "--json"]).standardOutput
        let byDay = try home.run(["overview", "--as-of", home.today, "--json"]).standardOutput
        #expect(byMonth == byDay, "overview --month \(month) and --as-of \(home.today) give one answer")
        #expect(!byMonth.contains("900.00"), "next week's rent is not in today's overview: \(byMonth)")
        let refused = try TallyProcess.run(["overview", "--as-of", home.today, "--include-future", "--store", home.path])
        #expect(refused.status != 0 && refused.standardError.contains("--include-future"))
    }

    /// Issue 32, rule 4: `overview`, `budget show` and `recurring status` say "Default:
    /// today" and now mean it; this month's budget does not count tomorrow's rent as spent;
    /// a month after this one is refused by the overview unless asked for with --include-future.
    @Test func readsWithoutADateAnswerForTodayAndTomorrowsRentIsNotSpentYet() throws {
        let home = try Household()
        let month = String(home.today.prefix(7))
        try home.run(["tx", "add", "--payee", "Power", "--category", "Bills", "--amount", "-40.00", "--date", home.today])
        try home.run(["tx", "add", "--payee", "Landlord", "--category", "Bills", "--amount", "-900.00", "--date", home.tomorrow])
        let rentMonth = String(home.tomorrow.prefix(7))
        for budgeted in Set([month, rentMonth]) {
            try home.run(["budget", "set", "--category", "Bills", "--month", budgeted, "--maximum", "1000.00"])
        }

        #expect(try home.run(["overview", "--json"]).standardOutput == home.run(["overview", "--as-of", home.today, "--json"]).standardOutput)
        let budgets = try home.run(["budget", "show", "--json"]).standardOutput
        #expect(budgets == (try home.run(["budget", "show", "--month", month, "--json"])).standardOutput)
        #expect(budgets.contains(#""spent":{"amount":"40.00","currency":"USD"}"#), "tomorrow's rent is not spent today: \(budgets)")
        #expect(budgets == (try home.run(["budget", "show", "--as-of", home.today, "--json"])).standardOutput)
        // Asked for, the rent month's scheduled rent counts.
        let scheduled = try home.run(["budget", "show", "--month", rentMonth, "--include-future", "--json"]).standardOutput
        #expect(scheduled.contains(#""spent":{"amount":"\#(rentMonth == month ? "940.00" : "900.00")","currency":"USD"}"#), "\(scheduled)")

        let status = try home.run(["recurring", "status", "--json"]).standardOutput
        #expect(status.contains(#""today":"\#(home.today)""#) && status.contains(#""month":"\#(month)""#), "\(status)")

        let refused = try TallyProcess.run(["overview", "--month", home.nextMonth, "--store", home.path])
        #expect(refused.status != 0 && refused.standardError.contains("is after today's month") && refused.standardError.contains("--include-future"),
                "\(refused.standardError)")
        try home.run(["overview", "--month", home.nextMonth, "--include-future", "--json"])
    }
}
