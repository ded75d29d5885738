import Foundation
import Testing

/// One rule for days typed on the command line: a write command's `--date D` takes effect at
/// the start of D in the ledger's time zone; a read's `--as-of D` and `--known-at D` answer
/// for the end of D there; an RFC 3339 instant is that instant.
@Suite struct DayOptionCommandTests {
    /// A store in `timeZone`, base currency USD.
    private struct Household {
        let directory: TemporaryDirectory
        var path: String { directory.path + "/home" }

        init(timeZone: String) throws {
            directory = try TemporaryDirectory()
            let created = try TallyProcess.run(["init", "--store", directory.path + "/home", "--time-zone", timeZone])
            try #require(created.status == 0, "\(created.standardError)")
        }

        @discardableResult
        func run(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> TallyRun {
            let result = try TallyProcess.run(arguments + ["--store", path])
            #expect(result.status == 0, "tally \(arguments.joined(separator: " ")): \(result.standardError)", sourceLocation: sourceLocation)
            return result
        }

        /// The effective time of each event of the log from `sequence` on, as printed by `log --json`.
        func effectiveTimes(from sequence: Int) throws -> [String] {
            try run(["log", "--json", "--from", String(sequence)]).standardOutput.split(separator: "\n").map { line in
                line.range(of: #""effective_at":""#).map { String(line[$0.upperBound...].prefix(27)) } ?? ""
            }
        }

        /// How many events the log holds.
        func eventCount() throws -> Int { try run(["log", "--json"]).standardOutput.split(separator: "\n").count }
    }

    @Test func aNewYorkHouseholdRecordsARateOn25MayAndOn24MayInNewYorkTheOldRateApplies() throws {
        let home = try Household(timeZone: "America/New_York")
        try home.run(["asset", "add", "savings", "--name", "Savings", "--category", "cash", "--type", "cash", "--currency", "EUR", "--date", "2026-05-01"])
        try home.run(["asset", "value", "savings", "100.00", "--date", "2026-05-01"])
        try home.run(["fx", "EUR", "USD", "1.10", "--date", "2026-05-01"])
        let before = try home.eventCount()
        try home.run(["fx", "EUR", "USD", "1.20", "--date", "2026-05-25"])
        // 00:00 on 25 May in New York (EDT, UTC-4).
        #expect(try home.effectiveTimes(from: before + 1) == ["2026-05-25T04:00:00.000000Z"])
        let onThe24th = try home.run(["networth", "--as-of", "2026-05-24", "--json"]).standardOutput
        #expect(onThe24th.contains(#""net_worth":{"amount":"110.00","currency":"USD"}"#), "\(onThe24th)")
        let onThe25th = try home.run(["networth", "--as-of", "2026-05-25", "--json"]).standardOutput
        #expect(onThe25th.contains(#""net_worth":{"amount":"120.00","currency":"USD"}"#), "\(onThe25th)")
    }

    /// Every write command's `--date D` (envelopes' `--from D` too) in a Tokyo ledger
    /// (UTC+9): each event it records takes effect at 00:00 on D there, 15:00 UTC the day before.
    @Test func everyWriteCommandsDayIsTheStartOfThatDayInTheLedgersTimeZone() throws {
        let home = try Household(timeZone: "Asia/Tokyo")
        let day = "2025-05-25"
        let start = "2025-05-24T15:00:00.000000Z"
        let commands: [[String]] = [
            ["asset", "add", "home", "--name", "Home", "--category", "property", "--type", "real_estate", "--currency", "USD", "--date", day],
            ["asset", "value", "home", "400000.00", "--date", day],
            ["asset", "add", "fund", "--name", "Fund", "--category", "investments", "--type", "stock_etf", "--currency", "USD", "--date", day],
            ["asset", "position", "fund", "3", "--symbol", "VEA", "--date", day],
            ["price", "VEA", "50.15", "--date", day],
            ["fx", "GBP", "USD", "1.25", "--date", day],
            ["liability", "add", "loan", "--name", "Loan", "--category", "loan", "--currency", "USD", "--date", day],
            ["liability", "value", "loan", "1000.00", "--date", day],
            ["liability", "remove", "loan", "--date", day],
            ["asset", "remove", "fund", "--date", day],
            ["envelope", "account-open", "Assets:Cash", "--opening", "500.00", "--date", day],
            ["envelope", "account-open", "Assets:Bank", "--date", day],
            ["envelope", "create", "food", "--budget", "200.00", "--start", day],
            ["envelope", "budget", "food", "--budget", "250.00", "--from", day],
            ["envelope", "rollover", "food", "--policy", "reset", "--from", day],
            ["envelope", "fund", "food", "--amount", "10.00", "--date", day],
            ["envelope", "record", "t1", "--account", "Assets:Cash", "--amount", "-12.50", "--envelope", "food", "--date", day],
            ["envelope", "transfer", "t2", "--from", "Assets:Cash", "--to", "Assets:Bank", "--amount", "20.00", "--date", day],
            ["envelope", "delete", "food", "--date", day],
            ["challenge", "start", "c1", "--unit", "1.00", "--date", day],
            ["challenge", "step", "c1", "--date", day],
            ["wealth", "deposit", "100.00", "--date", day],
            ["wealth", "purchase", "3.40", "--merchant", "Kiosk", "--date", day],
            ["wealth", "withdraw", "5.00", "--date", day],
            ["wealth", "split-rule", "60", "40", "--date", day],
            ["wealth", "round-ups", "on", "--date", day],
            ["wealth", "pause", "--date", day],
            ["wealth", "resume", "--date", day],
            ["wealth", "freeze", "--date", day],
            ["wealth", "unfreeze", "--date", day],
        ]
        for command in commands {
            let before = try home.eventCount()
            try home.run(command)
            if command[1] == "create" { continue }  // --start is the envelope's first day, not a time
            let times = try home.effectiveTimes(from: before + 1)
            #expect(!times.isEmpty && times.allSatisfy { $0 == start }, "tally \(command.joined(separator: " ")): \(times)")
        }
    }

    @Test func aTimestampInsteadOfADayIsThatExactInstant() throws {
        let home = try Household(timeZone: "America/New_York")
        for command in [
            ["fx", "EUR", "USD", "1.10", "--date", "2025-05-25T09:30:00Z"],
            ["price", "VEA", "50.15", "--date", "2025-05-25T09:30:00Z"],
            ["wealth", "deposit", "100.00", "--date", "2025-05-25T09:30:00Z"],
        ] {
            let before = try home.eventCount()
            try home.run(command)
            let times = try home.effectiveTimes(from: before + 1)
            #expect(!times.isEmpty && times.allSatisfy { $0 == "2025-05-25T09:30:00.000000Z" }, "\(command): \(times)")
        }
    }

    /// `--at`, the old name of `fx` and `price`'s `--date`, still works and means the same;
    /// help no longer shows it; given with a different `--date` it is refused, naming both.
    @Test func theOldAtStillWorksHiddenAndMeansWhatDateMeans() throws {
        let home = try Household(timeZone: "America/New_York")
        for (command, again) in [(["fx", "EUR", "USD", "1.10"], ["fx", "EUR", "USD", "1.11"]), (["price", "VEA", "50.15"], ["price", "VEA", "50.16"])] {
            let before = try home.eventCount()
            let old = try home.run(command + ["--at", "2026-05-25"])
            #expect(old.standardError.contains("--at is the old name of --date"), "\(old.standardError)")
            try home.run(again + ["--date", "2026-05-25", "--at", "2026-05-25"])
            #expect(try home.effectiveTimes(from: before + 1) == ["2026-05-25T04:00:00.000000Z", "2026-05-25T04:00:00.000000Z"])
            let help = try TallyProcess.run([command[0], "--help"])
            #expect(help.standardOutput.contains("--date <D>") && !help.standardOutput.contains("--at"), "\(help.standardOutput)")
            let both = try TallyProcess.run(command + ["--date", "2026-05-25", "--at", "2026-05-24", "--store", home.path])
            #expect(both.status != 0 && both.standardError.contains("--date '2026-05-25'") && both.standardError.contains("--at '2026-05-24'"), "\(both.standardError)")
        }
    }

    /// `--known-at D` means what the ledger had recorded by the end of D in its time zone. Far
    /// east (UTC+14) and far west (UTC-11) of UTC, everything recorded now is known at the end
    /// of today there and unknown at the end of yesterday there; under UTC days one of the two
    /// ledgers would disagree at any hour.
    @Test(arguments: ["Pacific/Kiritimati", "Pacific/Pago_Pago"])
    func knownAtADayMeansTheEndOfThatDayInTheLedgersTimeZone(timeZone: String) throws {
        let home = try Household(timeZone: timeZone)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: timeZone))
        func day(_ offset: Int) -> String {
            let date = calendar.date(byAdding: .day, value: offset, to: Date())!
            let parts = calendar.dateComponents([.year, .month, .day], from: date)
            return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
        }
        let today = day(0)
        try home.run(["pot", "create", "holiday", "--target", "100.00"])
        try #require(day(0) == today, "midnight passed in \(timeZone) during the test; run it again")
        let known = try home.run(["pot", "list", "--json", "--known-at", today]).standardOutput
        #expect(known.contains(#""id":"holiday""#), "--known-at \(today) in \(timeZone): \(known)")
        let unknown = try home.run(["pot", "list", "--json", "--known-at", day(-1)]).standardOutput
        #expect(unknown.contains(#""items":[]"#), "--known-at \(day(-1)) in \(timeZone): \(unknown)")
        // The log's --since and --until read days the same way.
        #expect(try home.run(["log", "--json", "--since", today, "--until", today]).standardOutput.split(separator: "\n").count == 2)
        #expect(try home.run(["log", "--json", "--until", day(-1)]).standardOutput.isEmpty)
        #expect(try home.run(["log", "--json", "--since", day(1)]).standardOutput.isEmpty)
    }
}
