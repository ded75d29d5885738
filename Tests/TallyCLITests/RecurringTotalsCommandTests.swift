import Foundation
import Testing
import PostgresTestSupport

/// `recurring status` gives income and bills apart in each state (issue 15, item 7).
@Suite struct RecurringTotalsCommandTests {
    @Test(arguments: LogBackend.allCases) func aSalaryAndABillUpcomingArePrintedApartNeverAs2950(on backend: LogBackend) throws {
        let store = try BudgetStore(on: backend)
        try store.run(["recurring", "define", "salary", "--payee", "Employer", "--category", "general", "--amount", "3000.00", "--day", "28", "--start", "2026-01"])
        try store.run(["recurring", "define", "phone", "--payee", "Phone Co", "--category", "bills", "--amount", "-50.00", "--day", "27", "--start", "2026-01"])
        let text = try store.run(["recurring", "status", "--month", "2026-05", "--today", "2026-05-10"])
        #expect(text.hasSuffix("""
            STATE       INCOME  BILLS
            paid          0.00   0.00
            due soon      0.00   0.00
            upcoming  3,000.00  50.00
            overdue       0.00   0.00

            """), "\(text)")
        #expect(!text.contains("2950"))
        let json = try store.run(["recurring", "status", "--month", "2026-05", "--today", "2026-05-10", "--json"])
        #expect(json.contains(#""upcoming":{"income":{"amount":"3000.00","currency":"USD"},"bills":{"amount":"50.00","currency":"USD"}}"#), "\(json)")
    }
}
