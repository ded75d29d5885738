import Foundation
import Testing

/// A card in the envelope product owes what was entered for it, and lowers the total
/// (issue 15, item 8).
@Suite struct EnvelopeLiabilityCommandTests {
    @Test func aCardOpenedWith300OwesItAndTheTotalFallsBy300() throws {
        let directory = try TemporaryDirectory()
        let store = ["--store", directory.path + "/store"]
        for arguments in [
            ["init", "--time-zone", "America/New_York"],
            ["envelope", "account-open", "Assets:Bank", "--opening", "2000.00", "--date", "2026-05-01"],
            ["envelope", "account-open", "Liabilities:Card", "--opening", "300", "--date", "2026-05-01"],
            ["envelope", "record", "dinner", "--account", "Liabilities:Card", "--amount=-45.00", "--date", "2026-05-10"],
        ] {
            let run = try TallyProcess.run(arguments + store)
            try #require(run.status == 0, "\(arguments): \(run.standardError)")
        }
        let text = try TallyProcess.run(["envelope", "total", "--as-of", "2026-05-31"] + store)
        #expect(text.standardOutput == """
            ACCOUNT                   BALANCE        IN USD
            Assets:Bank          2,000.00 USD  2,000.00 USD
            Liabilities:Card  345.00 USD owed   -345.00 USD
            TOTAL                              1,655.00 USD

            """, "\(text.standardOutput)")
        let json = try TallyProcess.run(["envelope", "total", "--as-of", "2026-05-31", "--json"] + store)
        #expect(json.standardOutput.contains(#"{"account":"Liabilities:Card","kind":"liability","balance":{"amount":"-345.00","currency":"USD"},"owed":{"amount":"345.00","currency":"USD"},"in_base":{"amount":"-345.00","currency":"USD"}}"#),
                "\(json.standardOutput)")
    }

    @Test func theHelpOfTheOpeningBalanceSaysALiabilityOwesIt() throws {
        /// The help with its wrapping undone.
        func help(_ arguments: [String]) throws -> String {
            try TallyProcess.run(arguments + ["--help"]).standardOutput.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }
        #expect(try help(["envelope", "account-open"]).contains("for a Liabilities: account, what is owed (300 on a card: 300 owed, lowering every total by 300)"))
        #expect(try help(["envelope", "record"]).contains("on a Liabilities: account it adds 12.50 to what is owed"))
        #expect(try help(["envelope", "transfer"]).contains("to a Liabilities: account it pays off that much of what is owed"))
    }
}
