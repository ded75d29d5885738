import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts
import TallyLog

/// Recurring totals keep income and bills apart in every state (issue 15, item 7): a salary
/// of 3000.00 and a bill of 50.00 upcoming are income 3000.00 and bills 50.00, not 2950.00.
@Suite struct RecurringTotalsTests {
    @Test func aSalaryAndABillBothUpcomingAreGivenApartNotNetted() throws {
        try withBudgetLedger { ledger, _ in
            try ledger.defineRecurring(id: "salary", payee: "Employer", category: .general, amount: usd("3000.00"), dayOfMonth: 28, startMonth: month("2026-01"))
            try ledger.defineRecurring(id: "phone", payee: "Phone Co", category: .bills, amount: usd("-50.00"), dayOfMonth: 27, startMonth: month("2026-01"))
            let report = try ledger.recurringStatus(month: month("2026-05"), today: day("2026-05-10"))
            #expect(report.upcoming.income == usd("3000.00"))
            #expect(report.upcoming.bills == usd("50.00"))
            #expect(report.upcoming.incomeCount == 1 && report.upcoming.billCount == 1)
            #expect(report.paid == RecurringTotals(income: usd("0.00"), bills: usd("0.00"), incomeCount: 0, billCount: 0))
            #expect(report.dueSoon == report.paid)
        }
    }

    @Test func eachStateHasItsOwnIncomeAndBills() throws {
        try withBudgetLedger { ledger, _ in
            try ledger.defineRecurring(id: "rent", payee: "Landlord", category: .bills, amount: usd("-1200.00"), dayOfMonth: 1, startMonth: month("2026-01"))
            try ledger.defineRecurring(id: "rent-in", payee: "Lodger", category: .general, amount: usd("400.00"), dayOfMonth: 2, startMonth: month("2026-01"))
            try ledger.defineRecurring(id: "phone", payee: "Phone Co", category: .bills, amount: usd("-35.00"), dayOfMonth: 23, startMonth: month("2026-01"))
            try ledger.defineRecurring(id: "refund", payee: "Insurer", category: .general, amount: usd("20.00"), dayOfMonth: 22, startMonth: month("2026-01"))
            try ledger.defineRecurring(id: "salary", payee: "Employer", category: .general, amount: usd("3000.00"), dayOfMonth: 28, startMonth: month("2026-01"))
            try ledger.defineRecurring(id: "gym", payee: "Gym", category: .bills, amount: usd("-30.00"), dayOfMonth: 30, startMonth: month("2026-01"))
            try ledger.generateRecurring(month: month("2026-05"))
            let report = try ledger.recurringStatus(month: month("2026-05"), today: day("2026-05-20"))
            #expect(report.totals(.paid).income == usd("400.00") && report.totals(.paid).bills == usd("1200.00"))
            #expect(report.totals(.dueSoon).income == usd("20.00") && report.totals(.dueSoon).bills == usd("35.00"))
            #expect(report.totals(.upcoming).income == usd("3000.00") && report.totals(.upcoming).bills == usd("30.00"))
        }
    }

    @Test func randomItemsAddUpPerStateWithIncomeAndBillsNeverMixed() throws {
        let seed = TestSeed.value(default: 0x15_07)
        var random = SplitMix64(seed: seed)
        try withBudgetLedger { ledger, _ in
            var expected: [RecurringState: (income: Int64, bills: Int64)] = [:]
            var amounts: [String: Int64] = [:]
            for number in 0..<24 {
                let minorUnits = Int64.random(in: 1...500_000, using: &random) * (Bool.random(using: &random) ? 1 : -1)
                amounts["item\(number)"] = minorUnits
                try ledger.defineRecurring(id: "item\(number)", payee: "Payee \(number)", category: .general,
                                           amount: Money(minorUnits: minorUnits, commodity: .usd),
                                           dayOfMonth: Int.random(in: 1...31, using: &random), startMonth: month("2026-01"))
            }
            let report = try ledger.recurringStatus(month: month("2026-05"), today: day("2026-05-15"))
            for status in report.items {
                let minorUnits = amounts[status.item.id]!
                var sums = expected[status.state, default: (0, 0)]
                if minorUnits > 0 { sums.income += minorUnits } else { sums.bills -= minorUnits }
                expected[status.state] = sums
            }
            for state in RecurringState.allCases {
                let sums = expected[state, default: (0, 0)]
                #expect(report.totals(state).income.minorUnits == sums.income, "seed \(seed): \(state) income")
                #expect(report.totals(state).bills.minorUnits == sums.bills, "seed \(seed): \(state) bills")
            }
        }
    }
}
