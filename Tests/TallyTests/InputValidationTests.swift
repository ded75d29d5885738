import Testing
@testable import Tally
import TallyLog
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// Issue 32, rule 8 (validation the apps apply), one rule each: names required, trimmed and
/// cut at 50 characters with a note (``NameRule``); tickers trimmed and upper-cased
/// (``TickerRule``); a liability valued at zero once paid off.
@Suite struct InputValidationTests {
    private func story(_ body: (Ledger) throws -> Void) throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-05-04T09:00:00Z"))
            try body(ledger)
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    private func expectRefused(_ ledger: Ledger, _ message: String, sourceLocation: SourceLocation = #_sourceLocation, _ command: () throws -> Void) {
        let head = ledger.head
        #expect(sourceLocation: sourceLocation) { try command() } throws: { error in
            let error = error as? LedgerError
            return error?.code == .invalidArgument && error?.message.contains(message) == true
        }
        #expect(ledger.head == head, "a refused command records nothing", sourceLocation: sourceLocation)
    }

    @Test func aBlankNameIsRefusedEverywhereAndAPaddedOneTrimmed() throws {
        try story { ledger in
            expectRefused(ledger, "the asset name is required") {
                try ledger.addAsset(assetId: "car", name: "   ", category: .other, type: .custom, currency: .usd)
            }
            expectRefused(ledger, "the asset name is required") {
                try ledger.addAsset(assetId: "car", name: "", category: .other, type: .custom, currency: .usd)
            }
            expectRefused(ledger, "the liability name is required") {
                try ledger.addLiability(liabilityId: "loan", name: "\n\t ", category: .loan, currency: .usd)
            }
            expectRefused(ledger, "the envelope name is required") {
                try ledger.createEnvelope("food", name: "  ", interval: .monthly, budgeted: usd("100.00"))
            }
            expectRefused(ledger, "the pot name is required") { try ledger.createPot(id: "trip", name: " ", target: usd("500.00")) }
            try ledger.addAsset(assetId: "car", name: "  Family car \n", category: .other, type: .custom, currency: .usd)
            #expect(try ledger.netWorthItems(kind: .asset).items.first?.name == "Family car")
        }
    }

    @Test func aNameLongerThanFiftyCharactersIsCutWithANote() throws {
        let long = String(repeating: "Holiday savings for the family ", count: 3)   // 92 characters once trimmed
        let checked = try NameRule.checked(long, "the pot name")
        #expect(checked.name.count <= NameRule.characterLimit)
        #expect(long.hasPrefix(checked.name))
        #expect(checked.note?.contains("92 characters") == true)
        #expect(try NameRule.checked("Rent", "the pot name").note == nil)
        #expect(try NameRule.checked(String(repeating: "é", count: 50), "x").note == nil, "50 characters, counted as the apps count them, stay whole")
        try story { ledger in
            try ledger.createPot(id: "trip", name: long, target: usd("500.00"))
            #expect(try ledger.pots().first?.name == checked.name)
        }
    }

    @Test func aTickerIsTrimmedAndUpperCased() throws {
        #expect(try TickerRule.symbol(" vea ") == (try Commodity.named("VEA")))
        #expect(throws: LedgerError.self) { try TickerRule.symbol("  ") }
        try story { ledger in
            let added = try ledger.addAsset(assetId: "funds", name: "Funds", category: .investments, type: .fund, currency: .usd, symbol: " vwrl ")
            #expect(added.events.first?.body.as(AssetAdded.self)?.symbol == "VWRL")
            let tagged = try ledger.tagAsset(assetId: "funds", symbol: "vea\t")
            #expect(tagged.events.first?.body.as(AssetTagged.self)?.symbol == "VEA")
        }
    }

    @Test func aLiabilityPaidOffIsValuedAtZeroAndNetWorthCountsIt() throws {
        try story { ledger in
            try ledger.addAsset(assetId: "cash", name: "Cash", category: .cash, type: .cash, currency: .usd)
            try ledger.recordValuation(itemKind: .asset, itemId: "cash", value: usd("1000.00"), source: .manual)
            try ledger.addLiability(liabilityId: "card", name: "Card", category: .creditCard, currency: .usd)
            try ledger.recordValuation(itemKind: .liability, itemId: "card", value: usd("250.00"), source: .manual)
            #expect(try ledger.netWorth().netWorth == usd("750.00"))
            try ledger.recordValuation(itemKind: .liability, itemId: "card", value: usd("0.00"), source: .manual)
            let report = try ledger.netWorth()
            #expect(report.netWorth == usd("1000.00") && report.liabilities == usd("0.00"))
            #expect(report.isComplete, "a paid-off liability is counted, at zero, not left out")
            expectRefused(ledger, "cannot be negative") {
                try ledger.recordValuation(itemKind: .liability, itemId: "card", value: usd("-1.00"), source: .manual)
            }
            expectRefused(ledger, "an asset's value must be positive") {
                try ledger.recordValuation(itemKind: .asset, itemId: "cash", value: usd("0.00"), source: .manual)
            }
        }
    }

    @Test func aPriceCarriesMoreDecimalsThanItsCurrencyAndAValueFromItIsRoundedOnce() throws {
        try story { ledger in
            let fund = try Commodity.named("VWRL")
            try ledger.addAsset(assetId: "isa", name: "ISA", category: .investments, type: .fund, currency: .usd)
            try ledger.quotePrice(symbol: fund, price: try ExactDecimal(parsing: "80.125"), currency: .usd, source: .manual)
            #expect(try ledger.marketQuoteList(kind: .price).first?.quote.value == (try ExactDecimal(parsing: "80.125")))
            // 3 × 80.125 = 240.375: rounded once, half-even, to 240.38; 1.5 × 80.125 = 120.1875 to 120.19.
            try ledger.setPosition(assetId: "isa", quantity: try Money(parsing: "3", commodity: fund))
            #expect(try ledger.netWorthItems(kind: .asset).items.first?.value?.value == usd("240.38"))
            try ledger.setPosition(assetId: "isa", quantity: try Money(parsing: "1.5", commodity: fund))
            #expect(try ledger.netWorth().netWorth == usd("120.19"))
            expectRefused(ledger, "must be positive") {
                try ledger.quotePrice(symbol: fund, price: try ExactDecimal(parsing: "0.000"), currency: .usd, source: .manual)
            }
        }
    }
}
