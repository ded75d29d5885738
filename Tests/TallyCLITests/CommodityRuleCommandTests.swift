import Foundation
import Testing

/// Issue 15, wrong today 12: one rule for currency codes, the same in every command.
@Suite struct CommodityRuleCommandTests {
    private func run(_ store: String, _ arguments: [String]) throws -> TallyRun {
        try TallyProcess.run(arguments + ["--store", store])
    }

    /// Every command that takes a currency, given `code` for it.
    private func commands(_ code: String) -> [[String]] {
        [
            ["asset", "add", "a-\(code)", "--name", "A", "--category", "cash", "--type", "cash", "--currency", code],
            ["liability", "add", "l-\(code)", "--name", "L", "--category", "loan", "--currency", code],
            ["asset", "position", "fund", "3", "--symbol", "VEA", "--cost", "10", "--cost-currency", code],
            ["price", "VEA", "12.50", "--currency", code],
            ["fx", code, "USD", "1.25"],
            ["fx", "USD", code, "0.80"],
            ["balances", "--value", code],
            ["assert", "Assets:Cash", "0", "--currency", code, "--date", "2026-01-01"],
            ["envelope", "account-open", "Assets:\(code)", "--currency", code],
            ["challenge", "start", "c-\(code)", "--unit", "1", "--currency", code],
            ["wealth", "deposit", "10", "--currency", code],
        ]
    }

    @Test func everyCommandTakingACurrencyRefusesXYZWithOneMessageAndAcceptsItOnceDeclared() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/s"
        for setup in [["init"], ["asset", "add", "fund", "--name", "Fund", "--category", "investments", "--type", "fund", "--currency", "USD"]] {
            let result = try run(store, setup)
            try #require(result.status == 0, "\(setup): \(result.standardError)")
        }
        let message = "'XYZ' is not a currency this ledger knows"
        let before = try directory.snapshot("s/log")
        var messages: Set<String> = []
        for command in commands("XYZ") + [["base-currency", "XYZ"], ["settings", "set", "base-currency", "XYZ"]] {
            let result = try run(store, command)
            #expect(result.status != 0, "\(command)")
            #expect(result.standardError.contains(message) && result.standardError.contains("tally commodity declare XYZ"), "\(command): \(result.standardError)")
            messages.insert(result.standardError.components(separatedBy: "'XYZ'").dropFirst().joined())
        }
        #expect(messages.count == 1, "one message, word for word: \(messages)")
        #expect(try directory.snapshot("s/log") == before, "refusals record nothing")

        let declared = try run(store, ["commodity", "declare", "XYZ", "--scale", "2"])
        try #require(declared.status == 0, "\(declared.standardError)")
        for command in commands("XYZ") {
            let result = try run(store, command)
            #expect(!result.standardError.contains(message), "\(command): \(result.standardError)")
        }
        let settings = try run(store, ["settings", "--json"])
        #expect(settings.standardOutput.contains(#""declared_commodities":[{"code":"XYZ","scale":2}]"#), "\(settings.standardOutput)")
        // An amount finer than the declared scale is refused by name; a price may be finer.
        let fine = try run(store, ["wealth", "deposit", "10.123", "--currency", "XYZ"])
        #expect(fine.status != 0 && fine.standardError.contains("2 decimal places"), "\(fine.standardError)")
        #expect(try run(store, ["price", "VEA", "1.234", "--currency", "XYZ"]).status == 0)
        // A ticker is not a currency: positions take any symbol without a declaration.
        #expect(try run(store, ["asset", "position", "fund", "2", "--symbol", "ABCD"]).status == 0)
        // The base currency stays ISO 4217 only.
        let base = try run(store, ["base-currency", "XYZ"])
        #expect(base.status != 0 && base.standardError.contains("ISO 4217"), "\(base.standardError)")
    }

    @Test func argumentsTypedOutOfOrderAreRefusedNamingTheArgumentAndWhatWasExpected() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/s"
        try #require(try run(store, ["init", "--base-currency", "KWD"]).status == 0)
        let before = try directory.snapshot("s/log")
        for (command, expected) in [
            (["fx", "KWD", "3.2512", "USD"], ["<quote> '3.2512' is a number, but a currency code is expected there", "did you mean `tally fx KWD USD 3.2512`?"]),
            (["fx", "3.2512", "KWD", "USD"], ["<base> '3.2512' is a number, but a currency code is expected there", "tally fx <base> <quote> <rate>"]),
            (["fx", "KWD", "USD", "JPY"], ["<rate> 'JPY' is a code, but a rate (units of QUOTE for one BASE) is expected there"]),
            (["fx", "KWD", "USD", "three"], ["<rate> 'three' is not a number, but a rate"]),
            (["price", "80.12", "VEA", "--currency", "GBP"], ["<symbol> '80.12' is a number, but a ticker is expected there", "tally price <symbol> <amount>"]),
            (["price", "VEA", "GBP"], ["<amount> 'GBP' is a code, but a price (what one unit is worth) is expected there"]),
            (["base-currency", "3.25"], ["<currency> '3.25' is a number, but a currency code is expected there"]),
            (["settings", "set", "base-currency", "3.25"], ["<value> '3.25' is a number, but a currency code is expected there"]),
        ] {
            let result = try run(store, command)
            #expect(result.status != 0, "\(command) was taken")
            for text in expected {
                #expect(result.standardError.contains(text), "\(command): \(result.standardError)")
            }
            #expect(!result.standardError.contains("--currency '"), "\(command) names an option it was not given: \(result.standardError)")
        }
        #expect(try directory.snapshot("s/log") == before, "refusals record nothing")
        #expect(try run(store, ["fx", "KWD", "USD", "3.2512"]).status == 0)
    }

    @Test func builtInTokensNeedNoDeclarationAndADeclaredScaleNeverChanges() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/s"
        #expect(try run(store, ["init"]).status == 0)
        #expect(try run(store, ["price", "VEA", "12.50", "--currency", "USDC"]).status == 0)
        let iso = try run(store, ["commodity", "declare", "EUR", "--scale", "2"])
        #expect(iso.status != 0 && iso.standardError.contains("needs no declaration"), "\(iso.standardError)")
        #expect(try run(store, ["commodity", "declare", "GBX", "--scale", "2"]).status == 0)
        #expect(try run(store, ["commodity", "declare", "GBX", "--scale", "2"]).standardOutput.lowercased().contains("nothing to do"))
        let changed = try run(store, ["commodity", "declare", "GBX", "--scale", "0"])
        #expect(changed.status != 0 && changed.standardError.contains("never changes"), "\(changed.standardError)")
    }
}
