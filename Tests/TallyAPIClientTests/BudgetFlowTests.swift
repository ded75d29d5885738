import Foundation
import OpenAPIRuntime
import Tally
import TallyTestSupport
import Testing
import TallyLog

/// The budgeting app's flow through the generated client: transactions and a budget, a pot
/// that holds money out of the current balance, the bank's reference balance, a bank's CSV
/// uploaded whole, and the transaction list read a page at a time.
@Suite struct BudgetFlowTests {
    @Test func theBudgetIsTheReferenceBalanceLessThePotsAndABankFileArrivesWhole() async throws {
        let harness = try await APIHarness.start()
        let app = try await harness.ledger("taylors", baseCurrency: "EUR", timeZone: "Europe/Berlin")
        let ledger = Operations.SetBudget.Input.Path(ledger: "taylors")

        // Groceries: 400.00 for January; one transaction of 120.00 against it.
        _ = try await app.setBudget(path: ledger, headers: .init(idempotencyKey: idempotencyKey()),
                                    body: .json(.init(category: .groceries, month: "2026-01", maximum: "400.00"))).created
        let spent = try await app.recordTransaction(
            path: .init(ledger: "taylors"), headers: .init(idempotencyKey: idempotencyKey()),
            body: .json(.init(payee: "Market", category: .groceries, amount: "-120.00", date: "2026-01-20", id: "market-1")))
        #expect(try spent.created.body.json.transactionResource?.id == "market-1")

        // The bank's file: three rows, all or nothing; a second upload adds nothing.
        _ = try await app.connectBank(path: .init(ledger: "taylors"), headers: .init(idempotencyKey: idempotencyKey()),
                                      body: .json(.init(id: "monzo", name: "Monzo"))).created
        let file = "date,amount,payee,external_id,category\n2026-01-03,-12.50,Corner Shop,tx-1,groceries\n2026-01-04,-30.00,Fuel,tx-2,transportation\n2026-01-05,2500.00,Employer,tx-3,general\n"
        let uploaded = try await app.importBankCSV(path: .init(ledger: "taylors", bank: "monzo"), body: .csv(HTTPBody(file)))
        let summary = try uploaded.created.body.json
        #expect(summary.rows == 3)
        #expect(summary.imported == 3)
        let again = try await app.importBankCSV(path: .init(ledger: "taylors", bank: "monzo"), body: .csv(HTTPBody(file)))
        #expect(try again.ok.body.json.alreadyPresent == 3, "rows present already are counted, not appended")
        let bad = file + "2026-01-06,twelve,Cafe,tx-4,dining_out\n"
        let refused = try await app.importBankCSV(path: .init(ledger: "taylors", bank: "monzo"), body: .csv(HTTPBody(bad)))
        let problem = try refused.unprocessableContent
        #expect(problem.headers.tallyImportLine == 5, "the bad row's line")
        #expect(try problem.body.applicationProblemJson.field == "amount")
        let january = try await app.getBudgetOverview(path: .init(ledger: "taylors"), query: .init(month: "2026-01")).ok.body.json
        #expect(january.income == "2500.00")
        #expect(january.expenses == "162.50", "120.00 + 12.50 + 30.00; the refused file added nothing")

        // A holiday pot of 1,500.00 with 300.00 in it; then the bank says 2,000.00.
        let pot = try await app.createPot(path: .init(ledger: "taylors"), headers: .init(idempotencyKey: idempotencyKey()),
                                          body: .json(.init(id: "holiday", name: "Holiday", target: "1500.00")))
        #expect(try pot.created.headers.location == "/ledgers/taylors/pots/holiday")
        let added = try await app.addToPot(path: .init(ledger: "taylors", pot: "holiday"), headers: .init(idempotencyKey: idempotencyKey()),
                                           body: .json(.init(amount: "300.00")))
        #expect(try added.created.body.json.potResource?.total == "300.00")
        _ = try await app.setReferenceBalance(path: .init(ledger: "taylors"), headers: .init(idempotencyKey: idempotencyKey()),
                                              body: .json(.init(amount: "2000.00"))).created
        let overview = try await app.getBudgetOverview(path: .init(ledger: "taylors")).ok.body.json
        #expect(overview.currentBalance == "1700.00", "the reference balance less what the pots hold")
        #expect(overview.heldInPots == "300.00")

        // 100.00 back out of the pot is 100.00 more to spend.
        let withdrawn = try await app.withdrawFromPot(path: .init(ledger: "taylors", pot: "holiday"), headers: .init(idempotencyKey: idempotencyKey()),
                                                      body: .json(.init(amount: "100.00")))
        #expect(try withdrawn.created.body.json.potResource?.total == "200.00")
        let after = try await app.getBudgetOverview(path: .init(ledger: "taylors")).ok.body.json
        #expect(after.currentBalance == "1800.00")
        #expect(after.heldInPots == "200.00")

        try await harness.stop()
    }

    @Test func transactionsArePagedSortedAndSearched() async throws {
        let seed = TestSeed.value(default: 0x36_0002)
        var random = SplitMix64(seed: seed)
        let harness = try await APIHarness.start()
        let app = try await harness.ledger("pages", baseCurrency: "USD")
        let count = 23
        var amounts: [String: Int] = [:]
        for index in 0..<count {
            let cents = -Int.random(in: 1...50_000, using: &random)
            let id = "tx-\(index)"
            amounts[id] = cents
            _ = try await app.recordTransaction(
                path: .init(ledger: "pages"), headers: .init(idempotencyKey: idempotencyKey()),
                body: .json(.init(payee: index % 3 == 0 ? "Netflix" : "Shop \(index)", category: .general, amount: WealthFlowTests.decimal(cents),
                                  date: "2026-02-\(10 + index % 15)", id: id))).created
        }
        // Pages of 5 by amount, largest first: every transaction once, in order.
        var seen: [String] = []
        var page = 1
        while true {
            let answer = try await app.listTransactions(
                path: .init(ledger: "pages"), query: .init(month: "2026-02", sort: .amount, order: .desc, page: page, pageSize: 5)).ok.body.json
            #expect(answer.totalCount == count)
            #expect(answer.pageCount == (count + 4) / 5)
            seen += answer.transactions.map(\.id)
            if page == answer.pageCount { break }
            page += 1
        }
        #expect(seen.count == count, "seed \(seed)")
        #expect(Set(seen) == Set(amounts.keys))
        let values = seen.map { amounts[$0]! }
        #expect(values == values.sorted(by: >), "seed \(seed): largest (least negative) first")
        let netflix = try await app.listTransactions(path: .init(ledger: "pages"), query: .init(month: "2026-02", search: "netflix")).ok.body.json
        #expect(netflix.totalCount == (0..<count).filter { $0 % 3 == 0 }.count)
        #expect(netflix.transactions.allSatisfy { $0.payee == "Netflix" })
        try await harness.stop()
    }
}
