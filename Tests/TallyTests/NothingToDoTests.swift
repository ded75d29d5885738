import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// Commands that would change nothing record nothing (issue 15, item 11): the library
/// returns a result with no events, nothing is appended, and a key is not used up. The
/// wealth account's switches were done before (WealthAccountTests).
@Suite struct NothingToDoTests {
    /// Runs `body` and expects it to record nothing: no events, the head unchanged.
    private func expectNothing(_ ledger: Ledger, _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
                               _ body: () throws -> Ledger.CommandResult) throws {
        let head = ledger.head
        let result = try body()
        #expect(result.events.isEmpty && !result.wasAlreadyApplied, "\(what): \(result.events.map(\.type.name))", sourceLocation: sourceLocation)
        #expect(ledger.head == head, "\(what) appended", sourceLocation: sourceLocation)
    }

    /// Runs `body` and expects it to record something.
    private func expectRecorded(_ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Ledger.CommandResult) throws {
        #expect(!(try body()).events.isEmpty, "\(what) recorded nothing", sourceLocation: sourceLocation)
    }

    private func withLedger(baseCurrency: Commodity = .usd, _ body: (Ledger, ManualClock) throws -> Void) throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-05-20T16:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock, baseCurrency: baseCurrency)
            try body(ledger, clock)
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    @Test func aLedgerAlreadyInGBPIsNotSetToGBPAgain() throws {
        try withLedger(baseCurrency: .gbp) { ledger, _ in
            try expectNothing(ledger, "base-currency GBP") { try ledger.setBaseCurrency(.gbp) }
            try expectNothing(ledger, "base-currency GBP with a key") { try ledger.setBaseCurrency(.gbp, idempotencyKey: "k") }
            try expectRecorded("base-currency USD") { try ledger.setBaseCurrency(.usd, idempotencyKey: "k") }   // the key was not used up
            try expectNothing(ledger, "base-currency USD again") { try ledger.setBaseCurrency(.usd) }
            // Back to GBP from a day when GBP was in force, but it is USD now: recorded.
            try expectRecorded("base-currency GBP") { try ledger.setBaseCurrency(.gbp) }
        }
    }

    @Test func clearingAnOverrideThatIsNotThereRecordsNothing() throws {
        try withLedger { ledger, clock in
            try ledger.addAsset(assetId: "home", name: "Home", category: .property, type: .realEstate, currency: .usd)
            try ledger.recordValuation(itemKind: .asset, itemId: "home", value: usd("400000.00"), source: .manual)
            try expectNothing(ledger, "clear-override without an override") { try ledger.clearValuationOverride("home") }
            clock.advance(seconds: 60)
            try ledger.recordValuation(itemKind: .asset, itemId: "home", value: usd("420000.00"), source: .override)
            clock.advance(seconds: 60)
            try expectRecorded("clear-override of an override") { try ledger.clearValuationOverride("home") }
            clock.advance(seconds: 60)
            try expectNothing(ledger, "clear-override again") { try ledger.clearValuationOverride("home") }
        }
    }

    @Test func tagsPositionsRemindersAndTheStalenessThresholdAsTheyAreRecordNothing() throws {
        try withLedger { ledger, clock in
            try ledger.addAsset(assetId: "vea", name: "VEA", category: .investments, type: .stockOrETF, currency: .usd, country: "XD", symbol: "VEA")
            try expectNothing(ledger, "the same tags") { try ledger.tagAsset(assetId: "vea", country: "XD", symbol: "VEA") }
            try expectRecorded("other tags") { try ledger.tagAsset(assetId: "vea", country: "XD", sector: "Diversified", symbol: "VEA") }
            let vea = try Commodity.named("VEA")
            let shares = try Money(parsing: "12.5", commodity: vea)
            try expectRecorded("a position") { try ledger.setPosition(assetId: "vea", quantity: shares, costBasis: usd("600.00")) }
            clock.advance(seconds: 60)
            try expectNothing(ledger, "the same position") { try ledger.setPosition(assetId: "vea", quantity: shares, costBasis: usd("600.00")) }
            try expectRecorded("another cost basis") { try ledger.setPosition(assetId: "vea", quantity: shares, costBasis: usd("610.00")) }
            try expectRecorded("a reminder") { try ledger.setReminder(reminderId: "check", assetId: "vea", dueDate: day("2026-06-01"), note: "rebalance") }
            clock.advance(seconds: 60)
            try expectNothing(ledger, "the same reminder") { try ledger.setReminder(reminderId: "check", assetId: "vea", dueDate: day("2026-06-01"), note: "rebalance") }
            try expectRecorded("a reminder moved") { try ledger.setReminder(reminderId: "check", assetId: "vea", dueDate: day("2026-06-02"), note: "rebalance") }
            try expectRecorded("reminder done") { try ledger.completeReminder("check") }
            try expectNothing(ledger, "reminder done again") { try ledger.completeReminder("check") }
            try expectRecorded("the done reminder set again") { try ledger.setReminder(reminderId: "check", assetId: "vea", dueDate: day("2026-06-02"), note: "rebalance") }
            try expectNothing(ledger, "the default staleness threshold") { try ledger.setPriceStaleness(seconds: SettingsProjector.defaultPriceStalenessSeconds) }
            try expectRecorded("a new threshold") { try ledger.setPriceStaleness(seconds: 3600) }
            try expectNothing(ledger, "the same threshold") { try ledger.setPriceStaleness(seconds: 3600) }
        }
    }

    @Test func anAmendmentThatChangesNothingAndARecategorisationToTheSameCategoryRecordNothing() throws {
        try withLedger { ledger, _ in
            let added = try ledger.recordTransaction(payee: "Corner shop", category: .groceries, amount: usd("-12.40"), date: day("2026-05-03"))
            let id = try #require(added.transactionId)
            try expectNothing(ledger, "tx amend with nothing") { try ledger.amendTransaction(id: id) }
            try expectNothing(ledger, "tx amend to the same values") {
                try ledger.amendTransaction(id: id, payee: "Corner shop", category: .groceries, amount: usd("-12.40"), date: day("2026-05-03"), recurring: false)
            }
            try expectRecorded("tx amend of the amount") { try ledger.amendTransaction(id: id, amount: usd("-13.40")) }
            try expectRecorded("tx amend of the day alone") { try ledger.amendTransaction(id: id, date: day("2026-05-04")) }
            try expectNothing(ledger, "recategorise to the same category") { try ledger.recategorise(id: id, category: .groceries) }
            #expect(try ledger.transactionHistory(id: id).count == 3)
        }
    }

    @Test func aBudgetSetToTheMaximumItHasRecordsNothing() throws {
        try withLedger { ledger, _ in
            try expectRecorded("a budget") { try ledger.setBudget(category: .groceries, month: month("2026-05"), maximum: usd("400.00")) }
            try expectNothing(ledger, "the same maximum") { try ledger.setBudget(category: .groceries, month: month("2026-05"), maximum: usd("400.00")) }
            try expectRecorded("another month") { try ledger.setBudget(category: .groceries, month: month("2026-06"), maximum: usd("400.00")) }
            try ledger.deleteBudget(category: .groceries, month: month("2026-05"))
            try expectRecorded("set again after deletion") { try ledger.setBudget(category: .groceries, month: month("2026-05"), maximum: usd("400.00")) }
        }
    }

    @Test func anEnvelopeBudgetOrRolloverAsItIsOnThatDayRecordsNothing() throws {
        try withLedger { ledger, _ in
            let may1 = ledger.calendar.startOfDay(day("2026-05-01"))
            let may10 = ledger.calendar.startOfDay(day("2026-05-10"))
            try ledger.createEnvelope("dining", name: "Dining", interval: .monthly, budgeted: usd("100.00"), startDate: day("2026-05-01"))
            try expectNothing(ledger, "the same budget") { try ledger.changeEnvelopeBudget("dining", budgeted: usd("100.00"), effectiveAt: may10) }
            try expectNothing(ledger, "the same budget and interval") { try ledger.changeEnvelopeBudget("dining", budgeted: usd("100.00"), interval: .monthly, effectiveAt: may10) }
            try expectRecorded("another interval") { try ledger.changeEnvelopeBudget("dining", budgeted: usd("100.00"), interval: .weekly, effectiveAt: may10) }
            try expectRecorded("the monthly budget before the change") { try ledger.changeEnvelopeBudget("dining", budgeted: usd("120.00"), effectiveAt: may1) }
            try expectNothing(ledger, "the default rollover") { try ledger.setEnvelopeRollover("dining", policy: .carryForward, effectiveAt: may1) }
            try expectRecorded("reset") { try ledger.setEnvelopeRollover("dining", policy: .reset, effectiveAt: may10) }
            try expectNothing(ledger, "reset again later") { try ledger.setEnvelopeRollover("dining", policy: .reset, effectiveAt: ledger.calendar.startOfDay(day("2026-05-15"))) }
            try expectRecorded("reset from an earlier day") { try ledger.setEnvelopeRollover("dining", policy: .reset, effectiveAt: may1) }
        }
    }
}
