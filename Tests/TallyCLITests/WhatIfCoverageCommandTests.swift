import Foundation
import Testing

/// `what-if` and `envelope total` list what they could not convert, in text and JSON
/// (issue 15, item 3), as `networth` lists what it excluded.
@Suite struct WhatIfCoverageCommandTests {
    /// A USD household with a USD bank account and a EUR account, and no EUR rate.
    private func household(_ directory: TemporaryDirectory) throws -> [String] {
        let store = ["--store", directory.path + "/store"]
        for arguments in [
            ["init", "--time-zone", "America/New_York"],
            ["envelope", "account-open", "Assets:Bank", "--opening", "1000.00", "--date", "2026-01-01"],
            ["envelope", "account-open", "Assets:Euro", "--currency", "EUR", "--opening", "300.00", "--date", "2026-01-01"],
        ] {
            let run = try TallyProcess.run(arguments + store)
            try #require(run.status == 0, "\(arguments): \(run.standardError)")
        }
        return store
    }

    @Test func whatIfSaysTheEURAccountWasNotConvertedInTextAndJSON() throws {
        let directory = try TemporaryDirectory()
        let store = try household(directory)
        let text = try TallyProcess.run(["what-if", "--goal", "2000.00", "--monthly", "100.00", "--as-of", "2026-07-15"] + store)
        #expect(text.status == 0, "\(text.standardError)")
        #expect(text.standardOutput.hasPrefix("From 1,000.00 USD on 2026-07-15, saving 100.00 USD + 0.00 USD a month, one-time 0.00 USD (incomplete: 1 balance(s) not converted):"),
                "\(text.standardOutput)")
        #expect(text.standardOutput.hasSuffix("not converted (no rate into USD): Assets:Euro 300.00 EUR on 2026-07-15\n"), "\(text.standardOutput)")
        let json = try TallyProcess.run(["what-if", "--goal", "2000.00", "--monthly", "100.00", "--as-of", "2026-07-15", "--json"] + store)
        #expect(json.standardOutput.contains(#""complete":false,"not_converted":[{"account":"Assets:Euro","balance":{"amount":"300.00","currency":"EUR"},"date":"2026-07-15"}]"#),
                "\(json.standardOutput)")
    }

    @Test func theEnvelopeTotalListsTheEURAccountAndSaysItIsIncomplete() throws {
        let directory = try TemporaryDirectory()
        let store = try household(directory)
        let text = try TallyProcess.run(["envelope", "total", "--as-of", "2026-07-15"] + store)
        #expect(text.status == 0, "\(text.standardError)")
        #expect(text.standardOutput.contains("TOTAL (incomplete)"), "\(text.standardOutput)")
        #expect(text.standardOutput.hasSuffix("not converted (no rate into USD): Assets:Euro 300.00 EUR\n"), "\(text.standardOutput)")
        let json = try TallyProcess.run(["envelope", "total", "--as-of", "2026-07-15", "--json"] + store)
        #expect(json.standardOutput.contains(#""complete":false,"not_converted":[{"account":"Assets:Euro","balance":{"amount":"300.00","currency":"EUR"}}]"#),
                "\(json.standardOutput)")
        // With a rate, everything converts and nothing is listed.
        #expect(try TallyProcess.run(["fx", "EUR", "USD", "1.10", "--at", "2026-01-01T00:00:00Z"] + store).status == 0)
        let converted = try TallyProcess.run(["envelope", "total", "--as-of", "2026-07-15", "--json"] + store)
        #expect(converted.standardOutput.contains(#""total":{"amount":"1330.00","currency":"USD"}"#), "\(converted.standardOutput)")
        #expect(converted.standardOutput.contains(#""complete":true,"not_converted":[]"#))
    }
}
