import Foundation
import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

@Suite struct AuditTests {
    @Test func anEnvelopesAuditShowsBudgetsFundingsBothVersionsAndRolloversAndEndsAtWhatIsLeft() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-03-25T12:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            try ledger.openEnvelopeAccount("Assets:Bank", commodity: .usd, openingBalance: usd("2000.00"), effectiveAt: ledger.calendar.startOfDay(day("2026-03-01")))
            try ledger.createEnvelope("groceries", name: "Groceries", interval: .monthly, budgeted: usd("400.00"), startDate: day("2026-03-01"))
            try ledger.recordEnvelopeTransaction("shop-1", account: "Assets:Bank", amount: usd("-120.00"), envelope: "groceries", effectiveAt: ledger.calendar.startOfDay(day("2026-03-10")))
            try ledger.recordEnvelopeTransaction("shop-2", account: "Assets:Bank", amount: usd("-80.00"), envelope: "groceries", effectiveAt: ledger.calendar.startOfDay(day("2026-03-12")))
            try ledger.fundEnvelope("groceries", amount: usd("50.00"), effectiveAt: ledger.calendar.startOfDay(day("2026-03-20")))
            try ledger.setEnvelopeRollover("groceries", policy: .reset, effectiveAt: ledger.calendar.startOfDay(day("2026-04-01")))
            let beforeCorrections = clock.now
            clock.set("2026-04-12T09:00:00Z")
            // The first receipt was 150.00, the second a duplicate.
            try ledger.appendEvents([
                NewEvent(effectiveAt: ledger.calendar.startOfDay(day("2026-03-10")), body: EventBody(TransactionAmended(
                    transactionId: "shop-1", payee: "", category: .general, amount: usd("-150.00"), recurring: false))),
                NewEvent(effectiveAt: clock.now, body: EventBody(TransactionDeleted(transactionId: "shop-2"))),
            ])
            clock.set("2026-05-31T18:00:00Z")

            let april = try ledger.envelopeAudit("groceries", through: day("2026-04-30"))
            #expect(april.map(\.amount) == ["400.00", "-120.00", "120.00", "-150.00", "-80.00", "80.00", "50.00", "400.00"].map(usd))
            #expect(april.map(\.eventType) == [
                "envelope_created", "transaction_recorded", "transaction_amended", "transaction_amended",
                "transaction_recorded", "transaction_deleted", "envelope_funded", "envelope_created",
            ])
            #expect(april.map(\.balance).last == usd("700.00"), "300.00 left in March carried forward, and April's 400.00")
            #expect(april.last?.balance == (try ledger.envelopeStatus("groceries", asOf: ledger.calendar.endOfDay(day("2026-04-30")))).remaining)

            // April's 700.00 goes back to be assigned (reset from 1 April) before May's budget.
            let may = try ledger.envelopeAudit("groceries", from: day("2026-04-30"), through: day("2026-05-31"))
            #expect(may.map(\.eventType) == ["envelope_rollover_set", "envelope_created"])
            #expect(may.map(\.amount) == [usd("-700.00"), usd("400.00")] && may.map(\.balance) == [usd("0.00"), usd("400.00")])
            #expect(may.last?.balance == (try ledger.envelopeStatus("groceries", asOf: ledger.calendar.endOfDay(day("2026-05-31")))).remaining)

            let asKnownBefore = try ledger.envelopeAudit("groceries", through: day("2026-03-31"), knownAt: beforeCorrections)
            #expect(asKnownBefore.map(\.amount) == ["400.00", "-120.00", "-80.00", "50.00"].map(usd))
            #expect(asKnownBefore.last?.balance == (try ledger.envelopeStatus("groceries", asOf: ledger.calendar.endOfDay(day("2026-03-31")), knownAt: beforeCorrections)).remaining)
            #expect(throws: LedgerError.self) { try ledger.envelopeAudit("holidays") }
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    @Test func anAmendedTransactionShowsBothVersionsAndTheBalanceItEndsAt() throws {
        try withBudgetLedger(at: "2026-05-20T16:00:00Z") { ledger, clock in
            try ledger.setReferenceBalance(amount: usd("1000.00"))
            let groceries = try ledger.recordTransaction(payee: "Green Grocer", category: .groceries, amount: usd("-40.00"), date: day("2026-05-03"))
            let id = try #require(groceries.transactionId)
            try ledger.recordTransaction(payee: "Acme", category: .general, amount: usd("200.00"), date: day("2026-05-10"))
            clock.advance(seconds: 3_600)
            // The user corrects the groceries: it was 45.00.
            try ledger.amendTransaction(id: id, amount: usd("-45.00"))
            let entries = try ledger.audit(account: LedgerAccounts.current)
            #expect(entries.map(\.eventType) == [
                "transaction_recorded", "transaction_amended", "transaction_amended", "transaction_recorded", "reference_balance_set",
                "reference_balance_reconciled", "reference_balance_reconciled", "reference_balance_reconciled",
            ], "changes in effective-time order: the reference balance was set on the 20th, and already held what is dated before it")
            #expect(entries.suffix(3).map(\.amount) == [usd("40.00"), usd("-200.00"), usd("5.00")], "each change taken back out of the reference's transfer")
            let groceryRows = entries.filter { $0.effectiveDate == day("2026-05-03") }
            #expect(groceryRows.map(\.amount) == [usd("-40.00"), usd("40.00"), usd("-45.00")], "original, its reversal, the new version")
            #expect(groceryRows.map(\.eventType) == ["transaction_recorded", "transaction_amended", "transaction_amended"])
            // The running balance ends where the balances say.
            let balance = try #require(try ledger.balances().first { $0.account == LedgerAccounts.current })
            #expect(entries.last?.balance == balance.amount)
            // As known before the correction, only the first version.
            let before = try ledger.audit(account: LedgerAccounts.current, knownAt: Instant(microsecondsSinceEpoch: clock.now.microsecondsSinceEpoch - 1_800_000_000))
            #expect(before.filter { $0.effectiveDate == day("2026-05-03") }.map(\.amount) == [usd("-40.00")])
            try ledger.expectConsistent()
        }
    }

    @Test func aSplitNamesItsDepositAndARangeStartsFromTheOpeningBalance() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-05-01T14:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            let deposit = try ledger.deposit(account: "main", amount: usd("100.00"))
            clock.set("2026-05-12T14:00:00Z")
            try ledger.purchase(account: "main", amount: usd("20.00"), merchant: "Bakery")
            clock.set("2026-05-20T14:00:00Z")
            try ledger.deposit(account: "main", amount: usd("10.00"))
            let spend = LedgerAccounts.spend("main")
            let all = try ledger.audit(account: spend)
            #expect(all.map(\.balance) == [usd("70.00"), usd("50.00"), usd("57.00")])
            #expect(all.first?.eventType == "deposit_split")
            #expect(all.first?.cause == deposit.events.first?.sequence)
            let later = try ledger.audit(account: spend, from: day("2026-05-10"), through: day("2026-05-15"))
            #expect(later.map(\.amount) == [usd("-20.00")])
            #expect(later.map(\.balance) == [usd("50.00")], "the range starts from the opening balance")
            #expect { try ledger.audit(account: "Assets:Nowhere") } throws: { ($0 as? LedgerError)?.code == .notFound }
            #expect(AuditCSV.render(later) == "seq,recorded_at,effective_date,event,amount,currency,balance\n4,2026-05-12T14:00:00.000000Z,2026-05-12,purchase_made,-20.00,USD,50.00\n")
            try ledger.expectConsistent()
        }
    }
}

@Suite struct AssetAuditTests {
    @Test func everyChangeOfAnAssetsValueIsListedAndEndsAtItsNetWorthLine() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-05-01T12:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            let vea = try Commodity.named("VEA")
            try ledger.addAsset(assetId: "vea", name: "VEA", category: .investments, type: .stockOrETF, currency: .usd, symbol: "VEA")
            try ledger.setPosition(assetId: "vea", quantity: try Money(parsing: "10", commodity: vea))
            clock.advance(seconds: 60)
            try ledger.quotePrice(symbol: vea, price: usd("50.00"), source: .live)
            clock.advance(seconds: 86_400)
            try ledger.quotePrice(symbol: vea, price: usd("50.00"), source: .live)  // no change: not listed
            clock.advance(seconds: 86_400)
            try ledger.quotePrice(symbol: vea, price: usd("52.50"), source: .live)
            clock.advance(seconds: 86_400)
            try ledger.recordValuation(itemKind: .asset, itemId: "vea", value: usd("400.00"), source: .override)
            clock.advance(seconds: 86_400)
            try ledger.clearValuationOverride("vea")
            let entries = try ledger.auditValue(of: .asset, "vea")
            #expect(entries.map(\.eventType) == ["price_quoted", "price_quoted", "valuation_recorded", "valuation_override_cleared"])
            #expect(entries.map(\.amount) == [usd("500.00"), usd("25.00"), usd("-125.00"), usd("125.00")])
            #expect(entries.last?.balance == usd("525.00"))
            #expect(try ledger.netWorth().lines.first?.converted == entries.last?.balance)
            clock.advance(seconds: 86_400)
            try ledger.removeAsset("vea")
            let removed = try ledger.auditValue(of: .asset, "vea")
            #expect(removed.last?.eventType == "asset_removed")
            #expect(removed.last?.balance == usd("0.00"))
            #expect(removed.last?.sequence ?? 0 > 0)
            try ledger.expectConsistent()
        }
    }
}
