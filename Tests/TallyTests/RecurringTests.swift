import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

@Suite struct RecurringTests {
    private func defineBills(_ ledger: Ledger) throws {
        try ledger.defineRecurring(id: "rent", payee: "Landlord", category: .bills, amount: usd("-1200.00"),
                                   dayOfMonth: 1, startMonth: month("2026-01"))
        try ledger.defineRecurring(id: "phone", payee: "Phone Co", category: .bills, amount: usd("-35.00"),
                                   dayOfMonth: 23, startMonth: month("2026-03"))
        try ledger.defineRecurring(id: "salary", payee: "Employer", category: .general, amount: usd("3000.00"),
                                   dayOfMonth: 28, startMonth: month("2026-01"), endMonth: month("2026-12"))
    }

    @Test func generatingMayTwiceGeneratesOneSet() throws {
        try withBudgetLedger { ledger, _ in
            try defineBills(ledger)
            let first = try ledger.generateRecurring(month: month("2026-05"))
            let second = try ledger.generateRecurring(month: month("2026-05"))
            #expect(first.events.count == 3)
            #expect(first.events.map(\.idempotencyKey) == ["recurring:phone:2026-05", "recurring:rent:2026-05", "recurring:salary:2026-05"])
            #expect(second.events.isEmpty)
            let may = try ledger.transactions(TransactionQuery(month: month("2026-05")))
            #expect(may.totalCount == 3)
            #expect(may.transactions.map(\.date) == [day("2026-05-28"), day("2026-05-23"), day("2026-05-01")])
            #expect(may.transactions.allSatisfy { $0.recurring && $0.recurringId != nil })
            try ledger.expectConsistent()
        }
    }

    @Test func aDeletedOccurrenceIsNotGeneratedAgain() throws {
        try withBudgetLedger { ledger, _ in
            try defineBills(ledger)
            try ledger.generateRecurring(month: month("2026-05"))
            try ledger.deleteTransaction(id: "recurring:phone:2026-05")
            #expect(try ledger.generateRecurring(month: month("2026-05")).events.isEmpty)
            #expect(try ledger.transactions(TransactionQuery(month: month("2026-05"))).totalCount == 2)
            try ledger.expectConsistent()
        }
    }

    @Test func onlyItemsDueInTheMonthAreGenerated() throws {
        try withBudgetLedger { ledger, _ in
            try defineBills(ledger)
            try ledger.defineRecurring(id: "insurance", payee: "Insurer", category: .bills, amount: usd("-90.00"),
                                       dayOfMonth: 31, startMonth: month("2026-02"), frequency: .quarterly)
            try ledger.removeRecurring(id: "rent")
            let february = try ledger.generateRecurring(month: month("2026-02"))
            // Phone starts in March; rent was removed; insurance falls on the last day of a short month.
            #expect(february.events.compactMap(\.idempotencyKey) == ["recurring:insurance:2026-02", "recurring:salary:2026-02"])
            #expect(try ledger.transaction(id: "recurring:insurance:2026-02")?.date == day("2026-02-28"))
            #expect(try ledger.generateRecurring(month: month("2026-03")).events.compactMap(\.idempotencyKey) == ["recurring:phone:2026-03", "recurring:salary:2026-03"])
            #expect(try ledger.generateRecurring(month: month("2026-05")).events.compactMap(\.idempotencyKey).contains("recurring:insurance:2026-05"))
            // Salary ended in December; phone has no end; insurance is not due in January.
            #expect(try ledger.generateRecurring(month: month("2027-01")).events.compactMap(\.idempotencyKey) == ["recurring:phone:2027-01"])
            try ledger.expectConsistent()
        }
    }

    @Test func aBillDueInThreeDaysIsDueSoon() throws {
        try withBudgetLedger { ledger, _ in
            try defineBills(ledger)
            try ledger.generateRecurring(month: month("2026-05"))
            let report = try ledger.recurringStatus(month: month("2026-05"), today: day("2026-05-20"))
            let states = Dictionary(uniqueKeysWithValues: report.items.map { ($0.item.id, $0.state) })
            #expect(states["phone"] == .dueSoon)   // the 23rd: in 3 days
            #expect(states["salary"] == .upcoming)  // the 28th: in 8 days
            #expect(states["rent"] == .paid)        // the 1st, generated
            #expect(report.paid.bills == usd("1200.00") && report.paid.income == usd("0.00"))
            #expect(report.dueSoon.bills == usd("35.00") && report.dueSoon.income == usd("0.00"))
            #expect(report.upcoming.income == usd("3000.00") && report.upcoming.bills == usd("0.00"))
            try ledger.expectConsistent()
        }
    }

    @Test func theDueSoonWindowIsFiveDaysInclusive() throws {
        try withBudgetLedger { ledger, _ in
            try ledger.defineRecurring(id: "phone", payee: "Phone Co", category: .bills, amount: usd("-35.00"),
                                       dayOfMonth: 23, startMonth: month("2026-03"))
            for (today, expected) in [("2026-05-17", RecurringState.upcoming), ("2026-05-18", .dueSoon), ("2026-05-23", .dueSoon)] {
                let state = try ledger.recurringStatus(month: month("2026-05"), today: day(today)).items.first?.state
                #expect(state == expected, "today \(today)")
            }
            #expect(try ledger.recurringStatus(month: month("2026-05"), today: day("2026-05-10"), dueSoonDays: 14).items.first?.state == .dueSoon)
            try ledger.expectConsistent()
        }
    }

    @Test func aBillIsPaidAfterItsDayWhenAMatchingBankTransactionExists() throws {
        try withBudgetLedger { ledger, _ in
            try ledger.defineRecurring(id: "phone", payee: "Phone Co", category: .bills, amount: usd("-35.00"),
                                       dayOfMonth: 23, startMonth: month("2026-03"))
            try ledger.connectBank(id: "chase")
            // Not generated: before any payment, past its day, it is still owed: overdue.
            #expect(try ledger.recurringStatus(month: month("2026-05"), today: day("2026-05-25")).items.first?.state == .overdue)
            // A different amount does not match.
            try ledger.importBankTransaction(bankId: "chase", externalId: "A", payee: "PHONE CO", category: .bills,
                                             amount: usd("-36.00"), date: day("2026-05-23"))
            #expect(try ledger.recurringStatus(month: month("2026-05"), today: day("2026-05-25")).items.first?.state == .overdue)
            try ledger.importBankTransaction(bankId: "chase", externalId: "B", payee: "phone co", category: .bills,
                                             amount: usd("-35.00"), date: day("2026-05-23"))
            let status = try #require(try ledger.recurringStatus(month: month("2026-05"), today: day("2026-05-25")).items.first)
            #expect(status.state == .paid)
            #expect(status.matchingTransactionId == "bank:chase:B")
            // The same payment does not pay June.
            #expect(try ledger.recurringStatus(month: month("2026-06"), today: day("2026-06-25")).items.first?.state == .overdue)
            try ledger.expectConsistent()
        }
    }

    @Test func badDefinitionsAreRefused() throws {
        try withBudgetLedger { ledger, _ in
            try defineBills(ledger)
            try expectRefusal(.alreadyExists, by: ledger) {
                try ledger.defineRecurring(id: "rent", payee: "Landlord", category: .bills, amount: usd("-1.00"), dayOfMonth: 1, startMonth: month("2026-01"))
            }
            try expectRefusal(.invalidArgument, by: ledger) {
                try ledger.defineRecurring(id: "x", payee: "X", category: .bills, amount: usd("-1.00"), dayOfMonth: 32, startMonth: month("2026-01"))
            }
            try expectRefusal(.invalidArgument, by: ledger) {
                try ledger.defineRecurring(id: "x", payee: "X", category: .bills, amount: usd("-1.00"), dayOfMonth: 1,
                                           startMonth: month("2026-05"), endMonth: month("2026-04"))
            }
            try expectRefusal(.notFound, by: ledger) { try ledger.removeRecurring(id: "gym") }
            try ledger.expectConsistent()
        }
    }
}
