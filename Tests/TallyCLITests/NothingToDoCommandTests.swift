import Foundation
import Testing

/// Commands that would change nothing say `nothing to do: …`, exit 0 and append nothing
/// (issue 15, item 11).
@Suite struct NothingToDoCommandTests {
    /// A GBP household in New York with a bank transaction, a budget, an envelope, an asset
    /// with a reminder, and a recurring bill generated for May.
    private func household(_ directory: TemporaryDirectory) throws -> [String] {
        let store = ["--store", directory.path + "/store"]
        for arguments in [
            ["init", "--base-currency", "GBP", "--time-zone", "America/New_York"],
            ["tx", "add", "--payee", "Corner shop", "--category", "groceries", "--amount", "-12.40", "--date", "2026-05-03", "--id", "shop-1"],
            ["budget", "set", "--category", "groceries", "--month", "2026-05", "--maximum", "400.00"],
            ["envelope", "create", "dining", "--budget", "100.00", "--start", "2026-05-01"],
            ["asset", "add", "home", "--name", "Home", "--category", "property", "--type", "real_estate", "--currency", "GBP", "--country", "GB"],
            ["asset", "value", "home", "300000.00"],
            ["reminder", "set", "revalue", "--asset", "home", "--due", "2026-06-01"],
            ["recurring", "define", "rent", "--payee", "Landlord", "--category", "bills", "--amount", "-1200.00", "--day", "1", "--start", "2026-01"],
            ["recurring", "generate", "--month", "2026-05"],
        ] {
            let run = try TallyProcess.run(arguments + store)
            try #require(run.status == 0, "\(arguments): \(run.standardError)")
        }
        return store
    }

    static let cases: [(arguments: [String], says: String)] = [
        (["base-currency", "GBP"], "nothing to do: the base currency is GBP already"),
        (["asset", "clear-override", "home"], "nothing to do: asset 'home' has no override in force"),
        (["asset", "tag", "home", "--country", "GB"], "nothing to do: asset 'home' has these tags already"),
        (["reminder", "set", "revalue", "--asset", "home", "--due", "2026-06-01"], "nothing to do: reminder 'revalue' is open with that asset, due date and note already"),
        (["tx", "amend", "shop-1"], "nothing to do: shop-1 is already as given; the amendment would change nothing"),
        (["tx", "amend", "shop-1", "--amount", "-12.40", "--payee", "Corner shop"], "nothing to do: shop-1 is already as given; the amendment would change nothing"),
        (["tx", "recategorise", "shop-1", "--category", "groceries"], "nothing to do: shop-1 is in Groceries already"),
        (["budget", "set", "--category", "groceries", "--month", "2026-05", "--maximum", "400.00"], "nothing to do: the Groceries budget for 2026-05 is 400.00 already"),
        (["envelope", "budget", "dining", "--budget", "100.00", "--from", "2026-05-10"], "nothing to do: envelope dining budgets 100.00 GBP from that day already"),
        (["envelope", "rollover", "dining", "--policy", "carry_forward", "--from", "2026-05-10"], "nothing to do: envelope dining rolls over carry_forward from that day already"),
        (["recurring", "generate", "--month", "2026-05"], "nothing to do: every recurring item due in 2026-05 is generated already"),
    ]

    @Test(arguments: cases.indices)
    func aCommandThatWouldChangeNothingSaysSoExitsZeroAndAppendsNothing(index: Int) throws {
        let (arguments, says) = Self.cases[index]
        let directory = try TemporaryDirectory()
        let store = try household(directory)
        let log = try directory.snapshot("store/log")
        let run = try TallyProcess.run(arguments + store)
        #expect(run.status == 0, "\(arguments): \(run.standardError)")
        #expect(run.standardOutput == says + "\n", "\(arguments)")
        #expect(try directory.snapshot("store/log") == log, "\(arguments) appended")
    }

    @Test func aReminderDoneTwiceIsNothingToDoTheSecondTime() throws {
        let directory = try TemporaryDirectory()
        let store = try household(directory)
        #expect(try TallyProcess.run(["reminder", "done", "revalue"] + store).status == 0)
        let log = try directory.snapshot("store/log")
        let again = try TallyProcess.run(["reminder", "done", "revalue"] + store)
        #expect(again.status == 0, "\(again.standardError)")
        #expect(again.standardOutput == "nothing to do: reminder 'revalue' is done already\n")
        #expect(try directory.snapshot("store/log") == log)
    }

    @Test func withJSONANothingToDoSaysWhyAndListsNoEvents() throws {
        let directory = try TemporaryDirectory()
        let store = try household(directory)
        let run = try TallyProcess.run(["tx", "recategorise", "shop-1", "--category", "groceries", "--json"] + store)
        #expect(run.status == 0)
        #expect(run.standardOutput == #"{"already_applied":false,"nothing_to_do":"shop-1 is in Groceries already","events":[]}"# + "\n")
    }
}
