import Foundation
import Testing
import PostgresTestSupport

/// A negative amount is typed as it is written, `-50.00`, with no `--` before it, as an
/// argument or as an option's value; flags stay flags.
@Suite struct NegativeAmountCommandTests {
    @Test(arguments: LogBackend.allCases) func anOverdrawnHouseholdSetsItsReferenceBalanceToMinus50WithoutDashDash(on backend: LogBackend) throws {
        let home = try BudgetStore(on: backend)
        let set = try home.run(["reference", "set", "-50.00", "--json"])
        #expect(set.contains(#""amount":{"amount":"-50.00","currency":"USD"}"#), "\(set)")
        let balances = try home.run(["balances", "--format", "csv"])
        #expect(balances.contains("Budget:Current,USD,-50.00"), "\(balances)")
        // `--` still works as before (and what follows it is the amount, so --store goes first).
        let dashDash = try TallyProcess.run(["reference", "set"] + home.storeArguments + ["--", "-60.00"])
        #expect(dashDash.status == 0 && dashDash.standardOutput.contains("-60.00"), "\(dashDash.standardError)")
    }

    @Test(arguments: LogBackend.allCases) func anEnvelopeExpenseAndAFundTakenBackAreTypedAsNegativeAmounts(on backend: LogBackend) throws {
        let home = try BudgetStore(on: backend)
        try home.run(["envelope", "account-open", "Assets:Cash", "--opening", "100.00"])
        try home.run(["envelope", "create", "food", "--budget", "200.00"])
        try home.run(["envelope", "record", "lunch", "--account", "Assets:Cash", "--amount", "-12.50", "--envelope", "food"])
        try home.run(["envelope", "fund", "food", "--amount", "-5"])
        let status = try home.run(["envelope", "status", "food", "--json"])
        #expect(status.contains(#""spent":{"amount":"12.50","currency":"USD"}"#), "\(status)")
        #expect(status.contains(#""funded":{"amount":"-5.00","currency":"USD"}"#), "\(status)")
        let total = try home.run(["envelope", "total", "--json"])
        #expect(total.contains(#""total":{"amount":"87.50","currency":"USD"}"#), "\(total)")
    }

    @Test(arguments: LogBackend.allCases) func aBudgetTransactionAndItsAmendmentTakeNegativeAmounts(on backend: LogBackend) throws {
        let home = try BudgetStore(on: backend)
        try home.run(["tx", "add", "--payee", "Cafe", "--category", "Groceries", "--amount", "-5.00", "--date", "2026-05-02", "--id", "cafe"])
        try home.run(["tx", "amend", "cafe", "--amount", "-7.25"])
        let shown = try home.run(["tx", "show", "cafe", "--json"])
        #expect(shown.contains(#""amount":"-7.25""#), "\(shown)")
    }

    @Test(arguments: LogBackend.allCases) func flagsStayFlagsAndAMalformedAmountIsRefusedByName(on backend: LogBackend) throws {
        let home = try BudgetStore(on: backend)
        try home.expectRefused(["reference", "set", "-50.00", "-q"], "-q")
        try home.expectRefused(["reference", "set", "-1.2.3"], "-1.2.3")
        try home.expectRefused(["envelope", "fund", "food", "--amount", "-1.2.3"], "--amount '-1.2.3'")
    }
}
