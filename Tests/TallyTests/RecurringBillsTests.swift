import Testing
@testable import Tally
import TallyLog
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// Issue 32, rule 6 (recurring bills as the budget product says): one entry per vendor,
/// from defined items and from transactions flagged recurring, each paid, due soon,
/// upcoming or overdue by the one rule the notifications use too (``BillDue``); searched
/// by name, in six orders.
@Suite struct RecurringBillsTests {
    /// A household that flags its bills as it pays them, and defines its rent.
    private func household(_ ledger: Ledger) throws {
        try ledger.defineRecurring(id: "rent", payee: "Landlord", category: .bills, amount: usd("-1200.00"),
                                   dayOfMonth: 1, startMonth: month("2026-01"))
        // Rent paid in January and February; March's is not.
        try ledger.recordTransaction(payee: "Landlord", category: .bills, amount: usd("-1200.00"), date: day("2026-01-01"))
        try ledger.recordTransaction(payee: "Landlord", category: .bills, amount: usd("-1200.00"), date: day("2026-02-01"))
        // Flagged as they were paid.
        for date in ["2026-03-15", "2026-04-15"] {
            try ledger.recordTransaction(payee: "Netflix", category: .entertainment, amount: usd("-15.99"), date: day(date), recurring: true)
        }
        try ledger.recordTransaction(payee: "Gym", category: .personalCare, amount: usd("-30.00"), date: day("2026-03-29"), recurring: true)
        try ledger.recordTransaction(payee: "Electricity", category: .bills, amount: usd("-84.10"), date: day("2026-02-10"), recurring: true)
        try ledger.recordTransaction(payee: "netflix", category: .entertainment, amount: usd("-17.99"), date: day("2026-02-15"), recurring: true)
        // Not flagged: never a recurring bill.
        try ledger.recordTransaction(payee: "Corner shop", category: .groceries, amount: usd("-4.20"), date: day("2026-04-20"))
    }

    @Test func aHouseholdSeesOneEntryPerVendorEachPaidDueSoonUpcomingOrOverdue() throws {
        try withBudgetLedger(at: "2026-04-27T12:00:00Z") { ledger, _ in
            try household(ledger)
            let bills = try ledger.recurringBills(today: day("2026-04-27"))
            let byVendor = Dictionary(uniqueKeysWithValues: bills.map { ($0.vendor.lowercased(), $0) })
            #expect(bills.count == 4, "one entry per vendor, Netflix once: \(bills.map(\.vendor))")
            // Rent: March's is unpaid, 57 days late: overdue, never "due soon".
            #expect(byVendor["landlord"]?.state == .overdue && byVendor["landlord"]?.nextDue == day("2026-03-01"))
            #expect(byVendor["landlord"]?.source == .defined && byVendor["landlord"]?.lastPaid == day("2026-02-01"))
            // Netflix paid this month: paid, next due 15 May, at its latest amount.
            #expect(byVendor["netflix"]?.state == .paid && byVendor["netflix"]?.nextDue == day("2026-05-15"))
            #expect(byVendor["netflix"]?.amount == usd("-15.99") && byVendor["netflix"]?.source == .flagged)
            // Gym last paid 29 March: due 29 April, in two days.
            #expect(byVendor["gym"]?.state == .dueSoon && byVendor["gym"]?.nextDue == day("2026-04-29"))
            // Electricity last paid 10 February: due 10 March, unpaid since.
            #expect(byVendor["electricity"]?.state == .overdue && byVendor["electricity"]?.nextDue == day("2026-03-10"))
            #expect(byVendor["corner shop"] == nil)

            // Earlier in April the gym was upcoming.
            #expect(try ledger.recurringBills(today: day("2026-04-10")).first { $0.vendor == "Gym" }?.state == .upcoming)
            try ledger.expectConsistent()
        }
    }

    @Test func theBillsAreSearchedByNameAndSortedSixWays() throws {
        try withBudgetLedger(at: "2026-04-27T12:00:00Z") { ledger, _ in
            try household(ledger)
            func vendors(_ sort: RecurringBillQuery.Sort, search: String? = nil) throws -> [String] {
                try ledger.recurringBills(RecurringBillQuery(search: search, sort: sort), today: day("2026-04-27")).map(\.vendor)
            }
            #expect(try vendors(.nameAscending) == ["Electricity", "Gym", "Landlord", "Netflix"])
            #expect(try vendors(.nameDescending) == ["Netflix", "Landlord", "Gym", "Electricity"])
            #expect(try vendors(.amountHighest) == ["Landlord", "Electricity", "Gym", "Netflix"])
            #expect(try vendors(.amountLowest) == ["Netflix", "Gym", "Electricity", "Landlord"])
            #expect(try vendors(.dueSoonest) == ["Landlord", "Electricity", "Gym", "Netflix"])
            #expect(try vendors(.dueLatest) == ["Netflix", "Gym", "Electricity", "Landlord"])
            #expect(try vendors(.nameAscending, search: "I") == ["Electricity", "Netflix"], "ignoring case")
            #expect(try vendors(.nameAscending, search: "water").isEmpty)
        }
    }

    @Test func aBill57DaysLateIsOverdueInTheMonthStatusAndTheNotificationsAlike() throws {
        try withBudgetLedger(at: "2026-04-27T12:00:00Z") { ledger, _ in
            try ledger.defineRecurring(id: "rent", payee: "Landlord", category: .bills, amount: usd("-1200.00"),
                                       dayOfMonth: 1, startMonth: month("2026-03"))
            let march = try ledger.recurringStatus(month: month("2026-03"), today: day("2026-04-27"))
            #expect(march.items.first?.state == .overdue)
            #expect(march.overdue.bills == usd("1200.00") && march.dueSoon.bills == usd("0.00"))
            let notes = try ledger.notifications(asOf: ledger.calendar.endOfDay(day("2026-04-27")), kinds: [.billOverdue])
            #expect(notes.map(\.id).contains("bill_overdue:rent:2026-03"))
        }
    }

    /// Random defined bills (some paid on their day, some not) and a random today: for every
    /// month an item falls due in, the month status says overdue exactly when the ledger has
    /// notified `bill_overdue` for it by the end of today, and due soon exactly when it has
    /// notified `bill_due_soon` and not overdue; the bills list's state is the month status of
    /// its next due date.
    @Test func theStatusTheBillsListAndTheNotificationsAskOneRule() throws {
        let master = TestSeed.value(default: 0x32_06)
        for index in 0..<4 {
            let seed = TestSeed.ledger(index, of: master)
            var random = SplitMix64(seed: seed)
            // The items are defined (and the payments recorded) in February, before any is due.
            try withBudgetLedger(at: "2026-02-15T12:00:00Z") { ledger, _ in
                try ledger.setDueSoonDays(Int64.random(in: 0...9, using: &random), effectiveAt: ledger.calendar.startOfDay(day("2026-01-01")))
                for number in 0..<6 {
                    let id = "bill\(number)"
                    let amount = Money(minorUnits: -Int64.random(in: 100...90_000, using: &random), commodity: .usd)
                    let dayOfMonth = Int.random(in: 1...31, using: &random)
                    try ledger.defineRecurring(id: id, payee: "Vendor \(number)", category: .bills, amount: amount,
                                               dayOfMonth: dayOfMonth, startMonth: month("2026-03"))
                    var paying = month("2026-03")
                    while paying <= month("2026-08") {
                        let item = try #require(try ledger.recurringItems().first { $0.id == id })
                        if Int.random(in: 0..<3, using: &random) > 0 {
                            try ledger.recordTransaction(payee: "Vendor \(number)", category: .bills, amount: amount, date: item.dueDate(in: paying))
                        }
                        paying = paying.adding(months: 1)
                    }
                }
                let today = day("2026-03-01").adding(days: Int.random(in: 0...183, using: &random))
                let notes = Set(try ledger.notifications(asOf: ledger.calendar.endOfDay(today), kinds: [.billDueSoon, .billOverdue]).map(\.id))
                var statuses: [String: RecurringState] = [:]
                var month = month("2026-03")
                while month <= today.month {
                    for status in try ledger.recurringStatus(month: month, today: today).items where status.dueDate <= today || month == today.month {
                        let context = "seed \(seed): \(status.item.id) due \(status.dueDate), today \(today)"
                        statuses["\(status.item.id):\(status.dueDate)"] = status.state
                        #expect((status.state == .overdue) == notes.contains("bill_overdue:\(status.item.id):\(month)"), "\(context): \(status.state)")
                        if status.state == .dueSoon {
                            #expect(notes.contains("bill_due_soon:\(status.item.id):\(month)"), "\(context)")
                        }
                    }
                    month = month.adding(months: 1)
                }
                for bill in try ledger.recurringBills(today: today) where bill.state != .paid {
                    let expected = statuses["\(bill.recurringId ?? ""):\(bill.nextDue)"] ?? .upcoming
                    #expect(bill.state == expected, "seed \(seed): \(bill.vendor) due \(bill.nextDue), today \(today)")
                }
            }
        }
    }
}
