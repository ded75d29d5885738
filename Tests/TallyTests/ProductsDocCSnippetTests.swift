import Foundation
import Testing
import TallyTestSupport
import Tally

/// The Swift snippets of the products' DocC articles (`Sources/TallyProducts/TallyProducts.docc`),
/// compiled and run here on a new ledger each, with the figures their comments state checked;
/// a test checks that each article still holds its snippet word for word.
@Suite struct ProductsDocCSnippetTests {
    static let articles = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/TallyProducts/TallyProducts.docc")

    /// A ledger of the products in a temporary store, on a clock standing at 2026-03-10.
    private func withLedger(_ body: (Ledger) throws -> Void) throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-03-10T15:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock, timeZone: "UTC")
            defer { try? ledger.close() }
            try body(ledger)
        }
    }

    @Test func theWealthAccountArticleRuns() throws {
        try withLedger { ledger in
            // snippet WealthAccount.md
            let salary = try Money(parsing: "1000.00", commodity: .usd)
            try ledger.deposit(account: "alice", amount: salary, idempotencyKey: "bank:tx-1")   // Spend 700.00, Invest 300.00
            try ledger.setRoundUps(account: "alice", enabled: true)
            try ledger.purchase(account: "alice", amount: try Money(parsing: "3.40", commodity: .usd), merchant: "Blue Bottle")

            let summary = try ledger.wealthSummary(account: "alice")
            let usd = summary.balance(in: .usd)   // Spend 696.00 (3.40 paid, 0.60 rounded up), Invest 300.60
            do {
                try ledger.withdraw(account: "alice", amount: try Money(parsing: "5000.00", commodity: .usd))
            } catch let error as LedgerError where error.code == .insufficientFunds {
                // Spend cannot cover it: nothing was appended
            }
            // end snippet
            #expect(usd.spend == (try Money(parsing: "696.00", commodity: .usd)))
            #expect(usd.invest == (try Money(parsing: "300.60", commodity: .usd)))
        }
    }

    @Test func theBudgetAndPotsArticleRuns() throws {
        try withLedger { ledger in
            // snippet BudgetAndPots.md
            let march = try Month(year: 2026, month: 3)
            try ledger.setBudget(category: .groceries, month: march, maximum: try Money(parsing: "400.00", commodity: .usd))
            try ledger.recordTransaction(payee: "Employer", category: .general, amount: try Money(parsing: "2500.00", commodity: .usd),
                                         date: try LocalDate(parsing: "2026-03-01"))
            try ledger.recordTransaction(payee: "Grocer", category: .groceries, amount: try Money(parsing: "-82.15", commodity: .usd),
                                         date: try LocalDate(parsing: "2026-03-04"))

            try ledger.createPot(id: "holiday", name: "Holiday", target: try Money(parsing: "1200.00", commodity: .usd))
            try ledger.addToPot(id: "holiday", amount: try Money(parsing: "150.00", commodity: .usd))
            let pots = try ledger.pots()                              // holiday: 150.00 of 1200.00
            let overview = try ledger.budgetOverview(month: march)     // income, spending per category, held in pots
            // end snippet
            #expect(pots.map(\.total) == [try Money(parsing: "150.00", commodity: .usd)])
            #expect(overview.income == (try Money(parsing: "2500.00", commodity: .usd)))
            #expect(overview.heldInPots == (try Money(parsing: "150.00", commodity: .usd)))
        }
    }

    @Test func theEnvelopesArticleRuns() throws {
        try withLedger { ledger in
            // snippet Envelopes.md
            try ledger.openEnvelopeAccount("Assets:Checking", commodity: .usd, openingBalance: try Money(parsing: "900.00", commodity: .usd))
            try ledger.createEnvelope("food", name: "Food", interval: .monthly, budgeted: try Money(parsing: "300.00", commodity: .usd),
                                      startDate: try LocalDate(parsing: "2026-03-01"))
            try ledger.fundEnvelope("food", amount: try Money(parsing: "50.00", commodity: .usd))   // a top-up
            try ledger.recordEnvelopeTransaction("t-1", account: "Assets:Checking", amount: try Money(parsing: "-45.20", commodity: .usd),
                                                 envelope: "food", payee: "Grocer", category: .groceries)

            let food = try ledger.envelopeStatus("food")   // available 350.00, spent 45.20, remaining 304.80
            // end snippet
            #expect(food.budgeted == (try Money(parsing: "300.00", commodity: .usd)))
            #expect(food.spent == (try Money(parsing: "45.20", commodity: .usd)))
            #expect(food.available == (try Money(parsing: "350.00", commodity: .usd)), "\(food)")
            #expect(food.remaining == (try Money(parsing: "304.80", commodity: .usd)), "\(food)")
        }
    }

    @Test func theNetWorthArticleRuns() throws {
        try withLedger { ledger in
            // snippet NetWorth.md
            try ledger.addAsset(assetId: "flat", name: "Flat", category: .property, type: .realEstate, currency: .usd)
            try ledger.recordValuation(itemKind: .asset, itemId: "flat", value: try Money(parsing: "250000.00", commodity: .usd), source: .manual)
            try ledger.addLiability(liabilityId: "mortgage", name: "Mortgage", category: .mortgage, currency: .usd, linkedAssetId: "flat")
            try ledger.recordValuation(itemKind: .liability, itemId: "mortgage", value: try Money(parsing: "180000.00", commodity: .usd), source: .manual)

            let report = try ledger.netWorth()   // assets 250,000.00, liabilities 180,000.00, net worth 70,000.00 USD
            // end snippet
            #expect(report.assets == (try Money(parsing: "250000.00", commodity: .usd)))
            #expect(report.liabilities == (try Money(parsing: "180000.00", commodity: .usd)))
            #expect(report.netWorth == (try Money(parsing: "70000.00", commodity: .usd)))
            #expect(report.isComplete)
        }
    }

    @Test func everySnippetRunHereIsWordForWordInItsArticle() throws {
        let snippets = try DocCSnippets.drifted(fromSource: #filePath, articles: Self.articles.path)
        #expect(snippets.count == 4)
        #expect(snippets.problems.isEmpty, "\(snippets.problems.joined(separator: "\n\n"))")
        // Every article but the landing page holds a snippet run here.
        let articles = try FileManager.default.contentsOfDirectory(atPath: Self.articles.path).filter { $0.hasSuffix(".md") && $0 != "TallyProducts.md" }
        #expect(Set(articles) == Set(try DocCSnippets.extract(fromSource: #filePath).map(\.article)))
    }
}
