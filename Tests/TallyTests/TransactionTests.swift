import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

@Suite struct TransactionTests {
    @Test func importingTheSameBankIdTwiceRecordsItOnce() throws {
        try withBudgetLedger { ledger, _ in
            try ledger.connectBank(id: "chase", name: "Chase")
            let first = try ledger.importBankTransaction(
                bankId: "chase", externalId: "T-1", payee: "Netflix", category: .entertainment, amount: usd("-15.49"), date: day("2026-05-03"))
            let again = try ledger.importBankTransaction(
                bankId: "chase", externalId: "T-1", payee: "Netflix", category: .entertainment, amount: usd("-15.49"), date: day("2026-05-03"))
            #expect(!first.wasAlreadyApplied)
            #expect(again.wasAlreadyApplied)
            #expect(again.events.map(\.sequence) == first.events.map(\.sequence))
            #expect(try ledger.transactions(TransactionQuery(month: month("2026-05"))).totalCount == 1)
            #expect(try ledger.budgetOverview(month: month("2026-05")).expenses == usd("15.49"))
            try ledger.expectConsistent()
        }
    }

    @Test func aRecategorisationSurvivesAReimport() throws {
        try withBudgetLedger { ledger, _ in
            try ledger.connectBank(id: "chase")
            let imported = try ledger.importBankTransaction(
                bankId: "chase", externalId: "T-7", payee: "City Power", category: .general, amount: usd("-80.00"), date: day("2026-05-04"))
            let id = try #require(imported.transactionId)
            try ledger.recategorise(id: id, category: .bills)
            try ledger.importBankTransaction(
                bankId: "chase", externalId: "T-7", payee: "City Power", category: .general, amount: usd("-80.00"), date: day("2026-05-04"))
            #expect(try ledger.transaction(id: id)?.category == .bills)
            #expect(try ledger.balances().first { $0.account == "Expenses:Bills" }?.amount == usd("80.00"))
            #expect(try ledger.balances().contains { $0.account == "Expenses:General" } == false)
            try ledger.expectConsistent()
        }
    }

    @Test func amendingOrDeletingABankTransactionIsNotAllowedAndAppendsNothing() throws {
        try withBudgetLedger { ledger, _ in
            try ledger.connectBank(id: "chase")
            let id = try #require(try ledger.importBankTransaction(
                bankId: "chase", externalId: "T-2", payee: "Grocer", category: .groceries, amount: usd("-42.00"), date: day("2026-05-05")
            ).transactionId)
            try expectRefusal(.notAllowed, by: ledger) { try ledger.amendTransaction(id: id, amount: usd("-40.00")) }
            try expectRefusal(.notAllowed, by: ledger) { try ledger.deleteTransaction(id: id) }
            #expect(try ledger.transaction(id: id)?.amount == usd("-42.00"))
            try ledger.expectConsistent()
        }
    }

    @Test func amendingAManualTransactionChangesTheBudgetAndKeepsTheOldVersionInTheLog() throws {
        try withBudgetLedger { ledger, _ in
            try ledger.setBudget(category: .diningOut, month: month("2026-05"), maximum: usd("200.00"))
            let id = try #require(try ledger.recordTransaction(
                payee: "Pizza Place", category: .diningOut, amount: usd("-30.00"), date: day("2026-05-08")).transactionId)
            try ledger.amendTransaction(id: id, amount: usd("-45.50"))

            let budget = try #require(try ledger.budgets(month: month("2026-05")).first)
            #expect(budget.spent == usd("45.50"))
            #expect(budget.remaining == usd("154.50"))
            let history = try ledger.transactionHistory(id: id)
            #expect(history.map(\.kind) == [.recorded, .amended])
            #expect(history.map(\.amount) == [usd("-30.00"), usd("-45.50")])
            let logged = try ledger.allEvents().filter { $0.entity == "transaction:\(id)" }.map(\.type.name)
            #expect(logged == ["transaction_recorded", "transaction_amended"])
            #expect(try ledger.transaction(id: id)?.isChanged == true)
            try ledger.expectConsistent()
        }
    }

    @Test func anAmendmentCanMoveATransactionToAnotherDay() throws {
        try withBudgetLedger { ledger, _ in
            let id = try #require(try ledger.recordTransaction(
                payee: "Bookshop", category: .education, amount: usd("-20.00"), date: day("2026-04-30")).transactionId)
            try ledger.amendTransaction(id: id, date: day("2026-05-01"))
            #expect(try ledger.budgetOverview(month: month("2026-04")).expenses == usd("0.00"))
            #expect(try ledger.budgetOverview(month: month("2026-05")).expenses == usd("20.00"))
            #expect(try ledger.transaction(id: id)?.date == day("2026-05-01"))
            try ledger.expectConsistent()
        }
    }

    @Test func aDeletedTransactionLeavesListsBudgetsAndBalances() throws {
        try withBudgetLedger { ledger, _ in
            try ledger.setBudget(category: .shopping, month: month("2026-05"), maximum: usd("100.00"))
            try ledger.recordTransaction(payee: "Shoe shop", category: .shopping, amount: usd("-60.00"), date: day("2026-05-02"))
            let id = try #require(try ledger.recordTransaction(
                payee: "Gadget store", category: .shopping, amount: usd("-25.00"), date: day("2026-05-03")).transactionId)
            try ledger.deleteTransaction(id: id)

            let listed = try ledger.transactions(TransactionQuery(month: month("2026-05")))
            #expect(listed.transactions.map(\.payee) == ["Shoe shop"])
            let budget = try #require(try ledger.budgets(month: month("2026-05")).first)
            #expect(budget.spent == usd("60.00"))
            #expect(budget.latestTransactions.map(\.payee) == ["Shoe shop"])
            #expect(try ledger.transaction(id: id) == nil)
            #expect(try ledger.transactionHistory(id: id).map(\.kind) == [.recorded, .deleted])
            try expectRefusal(.notFound, by: ledger) { try ledger.deleteTransaction(id: id) }
            try expectRefusal(.notFound, by: ledger) { try ledger.recategorise(id: id, category: .general) }
            try ledger.expectConsistent()
        }
    }

    @Test func disconnectingABankKeepsWhatItImportedAndStopsImports() throws {
        try withBudgetLedger { ledger, _ in
            try ledger.connectBank(id: "chase")
            try ledger.importBankTransaction(
                bankId: "chase", externalId: "T-9", payee: "Salary", category: .general, amount: usd("3000.00"), date: day("2026-05-01"))
            try ledger.disconnectBank(id: "chase")
            #expect(try ledger.transactions().totalCount == 1)
            #expect(try ledger.banks().map(\.isConnected) == [false])
            try expectRefusal(.notAllowed, by: ledger) {
                try ledger.importBankTransaction(
                    bankId: "chase", externalId: "T-10", payee: "Cafe", category: .diningOut, amount: usd("-4.00"), date: day("2026-05-02"))
            }
            try expectRefusal(.notFound, by: ledger) {
                try ledger.importBankTransaction(
                    bankId: "citi", externalId: "T-1", payee: "Cafe", category: .diningOut, amount: usd("-4.00"), date: day("2026-05-02"))
            }
            try expectRefusal(.notFound, by: ledger) { try ledger.disconnectBank(id: "chase") }
            try ledger.expectConsistent()
        }
    }

    @Test func badTransactionsAreRefusedWithNothingRecorded() throws {
        try withBudgetLedger { ledger, _ in
            try ledger.recordTransaction(payee: "Gym", category: .personalCare, amount: usd("-30.00"), date: day("2026-05-01"), id: "gym-may")
            try expectRefusal(.alreadyExists, by: ledger) {
                try ledger.recordTransaction(payee: "Gym", category: .personalCare, amount: usd("-30.00"), date: day("2026-05-01"), id: "gym-may")
            }
            try expectRefusal(.invalidArgument, by: ledger) {
                try ledger.recordTransaction(payee: "Gym", category: .personalCare, amount: usd("0.00"), date: day("2026-05-01"))
            }
            try expectRefusal(.invalidArgument, by: ledger) {
                try ledger.recordTransaction(payee: "  ", category: .personalCare, amount: usd("-1.00"), date: day("2026-05-01"))
            }
            try expectRefusal(.invalidArgument, by: ledger) {
                try ledger.recordTransaction(payee: "Gym", category: .personalCare, amount: usd("-1.00"), date: day("2026-05-01"), id: "a:b")
            }
            try expectRefusal(.currencyMismatch, by: ledger) {
                try ledger.recordTransaction(payee: "Gym", category: .personalCare, amount: gbp("-1.00"), date: day("2026-05-01"))
            }
            try expectRefusal(.notFound, by: ledger) { try ledger.amendTransaction(id: "nope", amount: usd("-1.00")) }
            try ledger.expectConsistent()
        }
    }

    @Test func categoriesReadFromEitherSpelling() throws {
        #expect(try BudgetCategory(parsing: "Dining Out") == .diningOut)
        #expect(try BudgetCategory(parsing: "dining_out") == .diningOut)
        #expect(try BudgetCategory(parsing: "PERSONAL-CARE") == .personalCare)
        #expect { try BudgetCategory(parsing: "Rent") } throws: { ($0 as? LedgerError)?.code == .invalidArgument }
    }
}
