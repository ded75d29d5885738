import Testing
@testable import Tally
import TallyTestSupport
import TallyLog
@testable import TallyEngine
@testable import TallyProducts

@Suite struct TransactionListTests {
    private static let payees = ["Alpha Market", "beta books", "Cafe Gamma", "delta DINER", "Epsilon Energy", "zeta Zoo"]

    /// Records `count` transactions in May with seeded payees, categories, days and amounts.
    private func recordRandom(_ count: Int, seed: UInt64, in ledger: Ledger) throws {
        var random = SplitMix64(seed: seed)
        for _ in 0..<count {
            let payee = Self.payees[Int(random.next() % UInt64(Self.payees.count))]
            let category = BudgetCategory.allCases[Int(random.next() % UInt64(BudgetCategory.allCases.count))]
            let cents = Int64(random.next() % 20_000) - 15_000
            let date = month("2026-05").firstDay.adding(days: Int(random.next() % 31))
            try ledger.recordTransaction(
                payee: payee, category: category, amount: Money(minorUnits: cents == 0 ? 1 : cents, commodity: .usd), date: date)
        }
    }

    /// Every listed transaction of May, page by page.
    private func allPages(_ ledger: Ledger, _ query: TransactionQuery) throws -> [BudgetTransaction] {
        var query = query
        var result: [BudgetTransaction] = []
        query.page = 1
        while true {
            let page = try ledger.transactions(query)
            result += page.transactions
            if query.page >= page.pageCount { return result }
            query.page += 1
        }
    }

    @Test func pagesSplitTheListWithoutLosingOrRepeating() throws {
        try withBudgetLedger { ledger, _ in
            try recordRandom(23, seed: 7, in: ledger)
            var query = TransactionQuery(month: month("2026-05"))
            query.pageSize = 10
            let pages = try (1...3).map { number in
                query.page = number
                return try ledger.transactions(query)
            }
            #expect(pages.map(\.transactions.count) == [10, 10, 3])
            #expect(pages.allSatisfy { $0.totalCount == 23 && $0.pageCount == 3 })
            #expect(Set(pages.flatMap(\.transactions).map(\.id)).count == 23)
            query.page = 4
            #expect(try ledger.transactions(query).transactions.isEmpty)
            query.page = 0
            #expect { try ledger.transactions(query) } throws: { ($0 as? LedgerError)?.code == .invalidArgument }
            query.page = 1
            query.pageSize = 501
            #expect { try ledger.transactions(query) } throws: { ($0 as? LedgerError)?.code == .invalidArgument }
            try ledger.expectConsistent()
        }
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func everySortOrdersTheListBothWays(seed: UInt64) throws {
        try withBudgetLedger { ledger, _ in
            try recordRandom(40, seed: seed, in: ledger)
            let recorded = try allPages(ledger, { var q = TransactionQuery(month: month("2026-05")); q.sort = .date; q.descending = false; q.pageSize = 7; return q }())
            // Recording order is the tie-breaker: the ids carry the sequence numbers.
            let sequence = Dictionary(uniqueKeysWithValues: recorded.map { ($0.id, Int($0.id.split(separator: ":")[1])!) })
            for sort in TransactionQuery.Sort.allCases {
                for descending in [false, true] {
                    var query = TransactionQuery(month: month("2026-05"))
                    query.sort = sort
                    query.descending = descending
                    query.pageSize = 7
                    let listed = try allPages(ledger, query)
                    func key(_ t: BudgetTransaction) -> [Int64] {
                        let name = Self.payees.map { $0.lowercased() }.sorted().firstIndex(of: t.payee.lowercased())!
                        let tail = [Int64(t.date.daysSinceEpoch), Int64(sequence[t.id]!)]
                        switch sort {
                        case .date: return tail
                        case .name: return [Int64(name)] + tail
                        case .amount: return [t.amount.minorUnits] + tail
                        }
                    }
                    var expected = recorded.sorted { key($0).lexicographicallyPrecedes(key($1)) }
                    if descending { expected.reverse() }
                    #expect(listed.map(\.id) == expected.map(\.id), "seed \(seed), sort \(sort), descending \(descending)")
                }
            }
            try ledger.expectConsistent()
        }
    }

    @Test func searchIgnoresCaseAndFiltersCombine() throws {
        try withBudgetLedger { ledger, _ in
            try ledger.recordTransaction(payee: "Netflix", category: .entertainment, amount: usd("-15.49"), date: day("2026-05-03"))
            try ledger.recordTransaction(payee: "NETFLIX gift", category: .shopping, amount: usd("-25.00"), date: day("2026-05-04"))
            try ledger.recordTransaction(payee: "Spotify", category: .entertainment, amount: usd("-9.99"), date: day("2026-05-05"))
            try ledger.recordTransaction(payee: "Netflix", category: .entertainment, amount: usd("-15.49"), date: day("2026-04-03"))
            var query = TransactionQuery(month: month("2026-05"))
            query.search = "netFLIX"
            #expect(try ledger.transactions(query).transactions.map(\.payee) == ["NETFLIX gift", "Netflix"])
            query.category = .entertainment
            #expect(try ledger.transactions(query).transactions.map(\.date) == [day("2026-05-03")])
            query.search = "%"
            #expect(try ledger.transactions(query).totalCount == 0)
            #expect(try ledger.transactions(TransactionQuery(from: day("2026-04-01"), through: day("2026-05-03"))).totalCount == 2)
            try ledger.expectConsistent()
        }
    }

    @Test func anAmendedTransactionIsListedInItsCurrentVersion() throws {
        try withBudgetLedger { ledger, _ in
            let id = try #require(try ledger.recordTransaction(
                payee: "Taxi", category: .transportation, amount: usd("-18.00"), date: day("2026-05-07")).transactionId)
            try ledger.amendTransaction(id: id, payee: "Airport taxi", amount: usd("-28.00"))
            let listed = try ledger.transactions(TransactionQuery(month: month("2026-05"))).transactions
            #expect(listed.map(\.payee) == ["Airport taxi"])
            #expect(listed.map(\.amount) == [usd("-28.00")])
            var search = TransactionQuery(month: month("2026-05"))
            search.search = "airport"
            #expect(try ledger.transactions(search).totalCount == 1)
            try ledger.expectConsistent()
        }
    }
}
