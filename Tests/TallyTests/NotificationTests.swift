import Foundation
import GRDB
import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// Notifications as a household meets them (docs/notifications.md): each kind from a story,
/// asked about now and at a past date, as known at an earlier instant, and the same after a
/// rebuild.
@Suite struct NotificationTests {
    private func at(_ text: String) -> Instant { try! Instant(parsing: text) }

    private func ids(_ notes: [LedgerNotification]) -> [String] { notes.map(\.id) }

    @Test(arguments: LogBackend.allCases) func aDepositIsToldWithItsSplitAndTheMonthsRoundUps(on backend: LogBackend) throws {
        try withTemporaryStore(on: backend) { store in
            let clock = ManualClock("2026-05-01T14:00:00Z")
            let ledger = try Ledger.forTesting(at: store, clock: clock)
            defer { try? ledger.close() }
            let first = try ledger.deposit(account: "main", amount: usd("1000.00"))
            try ledger.setRoundUps(account: "main", enabled: true)
            clock.set("2026-05-03T15:00:00Z")
            try ledger.purchase(account: "main", amount: usd("3.40"), merchant: "Coffee")
            clock.set("2026-05-10T14:00:00Z")
            let second = try ledger.deposit(account: "main", amount: usd("500.00"), source: .chain)
            clock.set("2026-05-12T14:00:00Z")
            try ledger.pauseAutomation(account: "main")
            let third = try ledger.deposit(account: "main", amount: usd("200.01"))
            let beforeResume = clock.now

            let early = try ledger.notifications(asOf: ledger.calendar.endOfDay(day("2026-05-05")))
            #expect(ids(early) == ["deposit_received:\(first.events[0].sequence)"])
            #expect(early[0].kind == .depositReceived)
            #expect(early[0].at == first.events[0].effectiveAt)
            #expect(early[0].causes == first.events.map(\.sequence))
            #expect(early[0].subject == "wealth:main")
            #expect(early[0].message == "Deposit of 1000.00 USD received in wealth account main (bank transfer): 700.00 USD to Spend and "
                    + "300.00 USD to Invest (split 70/30). Round-ups this month so far: 0.00 USD.")

            let now = try ledger.notifications()
            #expect(ids(now) == [first, second, third].map { "deposit_received:\($0.events[0].sequence)" })
            #expect(now[1].figures == ["account": "main", "amount": "500.00", "currency": "USD", "source": "chain", "spend": "350.00",
                                       "invest": "150.00", "split_rule": "70/30", "round_ups_month": "0.60"])
            #expect(now[1].message.contains("(chain transfer)"))
            #expect(now[2].message == "Deposit of 200.01 USD received in wealth account main (bank transfer), waiting to be split. "
                    + "Round-ups this month so far: 0.60 USD.")
            #expect(now[2].causes == [third.events[0].sequence])

            // Resumed, the waiting deposit is split; as known before, it still waits.
            clock.set("2026-05-13T14:00:00Z")
            let resumed = try ledger.resumeAutomation(account: "main")
            let split = try #require(resumed.events.first { $0.cause == third.events[0].sequence })
            #expect(try ledger.notifications()[2].causes == [third.events[0].sequence, split.sequence])
            #expect(try ledger.notifications()[2].figures["spend"] == "140.01")
            #expect(try ledger.notifications(knownAt: beforeResume)[2].message.contains("waiting to be split"))

            // A reversed deposit is withdrawn from now on, and still told as known before.
            let beforeReversal = clock.now
            clock.set("2026-05-14T14:00:00Z")
            try ledger.reverseWealthEntry(account: "main", entry: second.events[0].sequence)
            #expect(ids(try ledger.notifications()) == [first, third].map { "deposit_received:\($0.events[0].sequence)" })
            #expect(ids(try ledger.notifications(knownAt: beforeReversal)).count == 3)
        }
    }

    @Test func aBillIsDueSoonFromItsWindowAndOverdueTheDayAfterUnlessPaid() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-05-01T12:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            let rent = try ledger.defineRecurring(id: "rent", payee: "Landlord", category: .bills, amount: usd("-1200.00"), dayOfMonth: 28,
                                                  startMonth: month("2026-05"))
            try ledger.defineRecurring(id: "salary", payee: "Employer", category: .general, amount: usd("3000.00"), dayOfMonth: 25,
                                       startMonth: month("2026-05"))
            let end = { (text: String) in ledger.calendar.endOfDay(day(text)) }

            #expect(try ledger.notifications(asOf: end("2026-05-22")).isEmpty, "the window of 5 days opens on the 23rd")
            let soon = try ledger.notifications(asOf: end("2026-05-23"))
            #expect(ids(soon) == ["bill_due_soon:rent:2026-05"])
            #expect(soon[0].at == ledger.calendar.startOfDay(day("2026-05-23")))
            #expect(soon[0].causes == [rent.events[0].sequence])
            #expect(soon[0].message == "Bill Landlord of 1200.00 USD is due on 2026-05-28 (the due-soon window is 5 days).")
            #expect(ids(try ledger.notifications(asOf: end("2026-05-28"))) == ["bill_due_soon:rent:2026-05"], "due today is not overdue")
            let overdue = try ledger.notifications(asOf: end("2026-05-29"))
            #expect(ids(overdue) == ["bill_due_soon:rent:2026-05", "bill_overdue:rent:2026-05"])
            #expect(overdue[1].at == ledger.calendar.startOfDay(day("2026-05-29")))
            #expect(overdue[1].message == "Bill Landlord of 1200.00 USD was due on 2026-05-28 and no payment was recorded by then.")

            // Paid late in May, early in June: May stays overdue, June is never due soon.
            clock.set("2026-06-10T12:00:00Z")
            try ledger.recordTransaction(payee: "Landlord", category: .bills, amount: usd("-1200.00"), date: day("2026-05-30"))
            try ledger.recordTransaction(payee: "landlord", category: .bills, amount: usd("-1200.00"), date: day("2026-06-10"))
            #expect(ids(try ledger.notifications(asOf: end("2026-06-30"))) == ["bill_due_soon:rent:2026-05", "bill_overdue:rent:2026-05"])
            // July's bill is due soon from 23 July, whatever day the question is asked.
            #expect(ids(try ledger.notifications(asOf: end("2026-07-23"), kinds: [.billDueSoon]))
                    == ["bill_due_soon:rent:2026-05", "bill_due_soon:rent:2026-07"])
            #expect(try ledger.notifications(asOf: end("2026-04-30")).isEmpty)
            try ledger.close()
        }
    }

    @Test func aBankConsentIsToldAWeekBeforeItEndsUnlessRenewedBefore() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-05-01T12:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            let end = { (text: String) in ledger.calendar.endOfDay(day(text)) }
            let connected = try ledger.connectBank(id: "chase", name: "Chase Checking", consentExpires: day("2026-06-30"))
            #expect(connected.events.map(\.type.name) == ["bank_connected", "bank_consent_granted"])
            #expect(try ledger.banks().first?.consentExpires == day("2026-06-30"))
            #expect(try ledger.notifications(asOf: end("2026-06-22")).isEmpty, "the window of 7 days opens on the 23rd")
            let told = try ledger.notifications(asOf: end("2026-06-23"))
            #expect(ids(told) == ["bank_consent_expiring:chase:2026-06-30"])
            #expect(told.first?.at == ledger.calendar.startOfDay(day("2026-06-23")))
            #expect(told.first?.causes == [connected.events[1].sequence])
            #expect(told.first?.message == "The consent to read bank Chase Checking (chase) ends on 2026-06-30, in 7 days: renew it at the bank "
                    + "and record it (tally bank consent chase --expires DAY) to keep importing its transactions.")
            #expect(told.first?.figures == ["bank": "chase", "name": "Chase Checking", "expires_on": "2026-06-30", "days_left": "7"])

            // Renewed on 20 June, before the window opened: never told, whatever day is asked about.
            clock.set("2026-06-20T08:00:00Z")
            let beforeRenewal = clock.now
            clock.set("2026-06-20T09:00:00Z")
            try ledger.renewBankConsent(id: "chase", expiresOn: day("2026-09-30"))
            #expect(try ledger.notifications(asOf: end("2026-06-30")).isEmpty)
            #expect(ids(try ledger.notifications(asOf: end("2026-06-30"), knownAt: beforeRenewal)) == ["bank_consent_expiring:chase:2026-06-30"],
                    "as the ledger knew it before the renewal")
            #expect(try ledger.banks().first?.consentExpires == day("2026-09-30"))
            #expect(try ledger.notifications(asOf: end("2026-09-22")).isEmpty)
            #expect(ids(try ledger.notifications(asOf: end("2026-09-23"))) == ["bank_consent_expiring:chase:2026-09-30"])

            // Renewed inside the window: what was told stays. Disconnected before the next window: withdrawn.
            clock.set("2026-09-25T09:00:00Z")
            try ledger.renewBankConsent(id: "chase", expiresOn: day("2026-12-31"))
            #expect(ids(try ledger.notifications(asOf: end("2026-12-31"))) == ["bank_consent_expiring:chase:2026-09-30", "bank_consent_expiring:chase:2026-12-31"])
            clock.set("2026-12-01T09:00:00Z")
            try ledger.disconnectBank(id: "chase")
            #expect(ids(try ledger.notifications(asOf: end("2026-12-31"))) == ["bank_consent_expiring:chase:2026-09-30"])
            #expect(try ledger.banks().first?.consentExpires == nil, "a disconnection ends the consent")

            // Refused, and nothing recorded: renewing a disconnected bank, a consent ending before today.
            let head = ledger.head.sequence
            #expect { try ledger.renewBankConsent(id: "chase", expiresOn: day("2027-01-31")) } throws: { ($0 as? LedgerError)?.code == .notFound }
            #expect { try ledger.connectBank(id: "chase", consentExpires: day("2026-11-30")) } throws: { ($0 as? LedgerError)?.code == .invalidArgument }
            #expect(ledger.head.sequence == head)

            // A consent given inside its own window is told from the moment it was given.
            try ledger.connectBank(id: "chase", consentExpires: day("2026-12-04"))
            let late = try ledger.notifications(asOf: end("2026-12-01"), kinds: [.bankConsentExpiring])
            #expect(late.last?.id == "bank_consent_expiring:chase:2026-12-04")
            #expect(late.last?.at == clock.now)
            #expect(late.last?.figures["days_left"] == "3")
            #expect(late.last?.message.contains("bank chase (chase) ends on 2026-12-04, in 3 days") == true)
            try ledger.close()
        }
    }

    @Test func aBudgetIsOverspentAtTheExpenseThatCrossedItsMaximumAndACorrectionWithdrawsIt() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-05-01T12:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            let budget = try ledger.setBudget(category: .groceries, month: month("2026-05"), maximum: usd("400.00"))
            clock.set("2026-06-01T12:00:00Z")
            try ledger.recordTransaction(payee: "Market", category: .groceries, amount: usd("-150.00"), date: day("2026-05-03"))
            try ledger.recordTransaction(payee: "Market", category: .groceries, amount: usd("-200.00"), date: day("2026-05-10"), id: "big")
            try ledger.recordTransaction(payee: "Dining", category: .diningOut, amount: usd("-500.00"), date: day("2026-05-12"))
            let crossing = try ledger.recordTransaction(payee: "Grocer", category: .groceries, amount: usd("-80.00"), date: day("2026-05-20"))
            try ledger.recordTransaction(payee: "Market", category: .groceries, amount: usd("-30.00"), date: day("2026-05-25"))
            let beforeCorrection = clock.now

            #expect(try ledger.notifications(asOf: ledger.calendar.endOfDay(day("2026-05-19"))).isEmpty)
            let notes = try ledger.notifications()
            #expect(ids(notes) == ["budget_overspent:groceries:2026-05"])
            #expect(notes[0].at == crossing.events[0].effectiveAt)
            #expect(notes[0].causes == [budget.events[0].sequence, crossing.events[0].sequence].sorted())
            #expect(notes[0].message == "Groceries budget for 2026-05 overspent on 2026-05-20: 430.00 USD spent of 400.00 USD "
                    + "(30.00 USD over), after Grocer (-80.00 USD).")
            #expect(notes[0].figures["over"] == "30.00")

            clock.set("2026-06-02T12:00:00Z")
            try ledger.amendTransaction(id: "big", amount: usd("-100.00"))
            #expect(try ledger.notifications().isEmpty, "360.00 of 400.00: not overspent")
            #expect(ids(try ledger.notifications(knownAt: beforeCorrection)) == ["budget_overspent:groceries:2026-05"])
            try ledger.close()
        }
    }

    @Test func anEnvelopeIsOverspentOnceAnInterval() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-07-01T12:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            let start = { (text: String) in ledger.calendar.startOfDay(day(text)) }
            try ledger.openEnvelopeAccount("Assets:Bank", commodity: .usd, openingBalance: usd("1000.00"), effectiveAt: start("2026-05-01"))
            try ledger.createEnvelope("food", name: "Food", interval: .monthly, budgeted: usd("100.00"), startDate: day("2026-05-01"))
            try ledger.recordEnvelopeTransaction("t1", account: "Assets:Bank", amount: usd("-60.00"), envelope: "food", effectiveAt: start("2026-05-05"))
            let over = try ledger.recordEnvelopeTransaction("t2", account: "Assets:Bank", amount: usd("-50.00"), envelope: "food", effectiveAt: start("2026-05-12"))
            try ledger.recordEnvelopeTransaction("t3", account: "Assets:Bank", amount: usd("-20.00"), envelope: "food", effectiveAt: start("2026-05-20"))
            try ledger.recordEnvelopeTransaction("t4", account: "Assets:Bank", amount: usd("-30.00"), envelope: "food", effectiveAt: start("2026-06-03"))

            #expect(try ledger.notifications(asOf: ledger.calendar.endOfDay(day("2026-05-11"))).isEmpty)
            let notes = try ledger.notifications(asOf: ledger.calendar.endOfDay(day("2026-06-30")))
            #expect(ids(notes) == ["envelope_overspent:food:2026-05-01"])
            #expect(notes[0].at == over.events[0].effectiveAt)
            #expect(notes[0].causes == [over.events[0].sequence])
            #expect(notes[0].figures["spent"] == "110.00")
            #expect(notes[0].figures["over"] == "10.00")
            #expect(notes[0].message.hasPrefix("Envelope Food overspent on 2026-05-12: 110.00 USD spent of 100.00 USD available"))
            try ledger.close()
        }
    }

    @Test func aValuationReminderIsDueOnItsDayUnlessDoneBefore() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-05-01T12:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            try ledger.addAsset(assetId: "house", name: "House", category: .property, type: .realEstate, currency: .usd)
            let reminder = try ledger.setReminder(reminderId: "house-q2", assetId: "house", dueDate: day("2026-06-30"), note: "ask the agent")
            try ledger.setReminder(reminderId: "house-early", assetId: "house", dueDate: day("2026-06-15"))
            clock.set("2026-06-10T12:00:00Z")
            try ledger.completeReminder("house-early")
            let end = { (text: String) in ledger.calendar.endOfDay(day(text)) }

            #expect(try ledger.notifications(asOf: end("2026-06-29")).isEmpty)
            let due = try ledger.notifications(asOf: end("2026-06-30"))
            #expect(ids(due) == ["valuation_reminder_due:house-q2:2026-06-30"])
            #expect(due[0].at == ledger.calendar.startOfDay(day("2026-06-30")))
            #expect(due[0].causes == [reminder.events[0].sequence])
            #expect(due[0].message == "Time to update the value of house: reminder house-q2 fell due on 2026-06-30: ask the agent")
            clock.set("2026-07-02T12:00:00Z")
            try ledger.completeReminder("house-q2")
            #expect(ids(try ledger.notifications(asOf: end("2026-07-05"))) == ["valuation_reminder_due:house-q2:2026-06-30"], "done late: it was due")
            try ledger.close()
        }
    }

    @Test func aPriceGoesStaleAfterFifteenMinutesOfTradingAndAFreshOneWithdrawsIt() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-03-06T21:00:00Z")   // Friday 16:00 in New York: the close
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            try ledger.addAsset(assetId: "vea", name: "Developed markets", category: .investments, type: .stockOrETF, currency: .usd, symbol: "VEA")
            try ledger.setPosition(assetId: "vea", quantity: try Money(parsing: "10", commodity: try Commodity.named("VEA")))
            let quote = try ledger.quotePrice(symbol: try Commodity.named("VEA"), price: usd("50.00"), source: .live)

            #expect(try ledger.notifications(asOf: at("2026-03-09T13:40:00Z")).isEmpty, "Monday: 10 minutes of trading")
            let stale = try ledger.notifications(asOf: at("2026-03-09T14:00:00Z"))
            #expect(ids(stale) == ["price_stale:asset:vea:\(at("2026-03-06T21:00:00Z").microsecondsSinceEpoch)"])
            // New York opens at 09:30 EDT (13:30Z): stale from the first microsecond past 15 minutes of trading.
            #expect(stale[0].at == at("2026-03-09T13:45:00.000001Z"))
            #expect(stale[0].causes == [quote.events[0].sequence])
            #expect(stale[0].figures["value"] == "500.00")
            #expect(try ledger.notifications(asOf: at("2026-03-10T14:00:00Z")) == stale, "the same episode, the same notification")
            clock.set("2026-03-09T14:05:00Z")
            try ledger.quotePrice(symbol: try Commodity.named("VEA"), price: usd("51.00"), source: .live)
            #expect(try ledger.notifications(asOf: at("2026-03-09T14:06:00Z")).isEmpty)
            try ledger.close()
        }
    }

    @Test func aChallengeIsToldAtEachQuarterOfItsSteps() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-12-31T12:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            let start = try ledger.startChallenge("c52", template: "52_week", name: "52 weeks", unit: usd("1.00"),
                                                  effectiveAt: ledger.calendar.startOfDay(day("2026-01-01")))
            var steps: [Ledger.CommandResult] = []
            for week in 1...26 {
                steps.append(try ledger.completeChallengeStep("c52", effectiveAt: ledger.calendar.startOfDay(day("2026-01-01").adding(days: 7 * (week - 1)))))
            }
            let thirteenth = day("2026-01-01").adding(days: 7 * 12)
            #expect(try ledger.notifications(asOf: ledger.calendar.endOfDay(thirteenth.adding(days: -1))).isEmpty)
            let notes = try ledger.notifications()
            #expect(ids(notes) == ["challenge_milestone:c52:25", "challenge_milestone:c52:50"])
            #expect(notes[0].at == ledger.calendar.startOfDay(thirteenth))
            #expect(notes[0].causes == [start.events[0].sequence, steps[12].events[0].sequence])
            #expect(notes[0].message == "Challenge 52 weeks is 25% done: 13 of 52 steps, 91.00 USD saved.")
            #expect(notes[1].figures["saved"] == "351.00")
            try ledger.close()
        }
    }

    @Test func kindsSinceAndUnknownNamesAreAnsweredOrRefusedByName() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-05-01T12:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            try ledger.deposit(account: "main", amount: usd("10.00"))
            try ledger.defineRecurring(id: "rent", payee: "Landlord", category: .bills, amount: usd("-5.00"), dayOfMonth: 2, startMonth: month("2026-05"))
            clock.set("2026-05-20T12:00:00Z")
            try ledger.deposit(account: "main", amount: usd("20.00"))
            let all = try ledger.notifications()
            #expect(all.map(\.kind) == [.billDueSoon, .depositReceived, .billOverdue, .depositReceived])
            #expect(try ledger.notifications(since: all[1].id) == Array(all[2...]))
            #expect(try ledger.notifications(kinds: [.depositReceived], since: all[0].id) == [all[1], all[3]])
            #expect(try ledger.notifications(since: all[3].id).isEmpty)
            #expect { try ledger.notifications(kinds: [NotificationKind("no_such_kind")]) } throws: {
                ($0 as? LedgerError)?.code == .invalidArgument && "\($0)".contains("no_such_kind") && "\($0)".contains("deposit_received")
            }
            #expect { try ledger.notifications(since: "deposit_received:999") } throws: { ($0 as? LedgerError)?.code == .notFound }
            try ledger.close()
        }
    }

    /// An embedder's own kind: a source over the read models, passed beside the products'.
    private struct LargeDeposits: NotificationSource {
        var kinds: [NotificationKind] { [NotificationKind("large_deposit")] }
        func notifications(_ context: NotificationContext, _ db: Database) throws -> [LedgerNotification] {
            try Row.fetchAll(db, sql: "SELECT sequence, amount, effective_at FROM notification_deposits WHERE amount >= 100000 AND effective_at <= ?",
                             arguments: [context.point.effectiveBound]).map { row in
                let sequence = UInt64(row["sequence"] as Int64)
                return LedgerNotification(id: "large_deposit:\(sequence)", kind: NotificationKind("large_deposit"),
                                          at: Instant(microsecondsSinceEpoch: row["effective_at"]), subject: "wealth", causes: [sequence],
                                          message: "A large deposit.")
            }
        }
    }

    @Test func anEmbedderAddsItsOwnKindThroughASource() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-05-01T12:00:00Z"))
            try ledger.deposit(account: "main", amount: usd("10.00"))
            let large = try ledger.deposit(account: "main", amount: usd("1000.00"))
            let sources = standardNotificationSources + [LargeDeposits()]
            let notes = try ledger.notifications(kinds: [NotificationKind("large_deposit")], sources: sources)
            #expect(ids(notes) == ["large_deposit:\(large.events[0].sequence)"])
            #expect(try ledger.notifications(sources: sources).count == 3)
            #expect { try ledger.notifications(kinds: [NotificationKind("large_deposit")]) } throws: { ($0 as? LedgerError)?.code == .invalidArgument }
            try ledger.close()
        }
    }

    @Test(arguments: LogBackend.allCases) func aRebuildAndAReopenGiveTheSameNotificationsAtEveryDate(on backend: LogBackend) throws {
        try withTemporaryStore(on: backend) { store in
            let clock = ManualClock("2026-05-01T12:00:00Z")
            var ledger = try Ledger.forTesting(at: store, clock: clock)
            let start = { (text: String) in ledger.calendar.startOfDay(day(text)) }
            try ledger.deposit(account: "main", amount: usd("1000.00"))
            try ledger.connectBank(id: "chase", consentExpires: day("2026-05-20"))
            try ledger.setRoundUps(account: "main", enabled: true)
            try ledger.defineRecurring(id: "rent", payee: "Landlord", category: .bills, amount: usd("-900.00"), dayOfMonth: 15, startMonth: month("2026-05"))
            try ledger.setBudget(category: .groceries, month: month("2026-05"), maximum: usd("100.00"))
            try ledger.openEnvelopeAccount("Assets:Bank", commodity: .usd, openingBalance: usd("500.00"), effectiveAt: start("2026-05-01"))
            try ledger.createEnvelope("fun", name: "Fun", interval: .weekly, budgeted: usd("20.00"), startDate: day("2026-05-01"))
            try ledger.addAsset(assetId: "car", name: "Car", category: .other, type: .custom, currency: .usd)
            try ledger.setReminder(reminderId: "car", assetId: "car", dueDate: day("2026-05-20"))
            try ledger.startChallenge("c", template: "fixed_weekly", unit: usd("5.00"), effectiveAt: start("2026-05-01"))
            for week in 0..<4 {
                clock.set("2026-05-\(String(format: "%02d", 2 + 7 * week))T15:00:00Z")
                try ledger.purchase(account: "main", amount: usd("4.35"), merchant: "Cafe")
                try ledger.recordTransaction(payee: "Market", category: .groceries, amount: usd("-30.00"), date: ledger.calendar.date(of: clock.now))
                try ledger.recordEnvelopeTransaction("e\(week)", account: "Assets:Bank", amount: usd("-\(15 + 5 * week).00"), envelope: "fun")
                try ledger.completeChallengeStep("c")
                try ledger.deposit(account: "main", amount: usd("\(100 + week).00"))
            }
            clock.set("2026-07-01T12:00:00Z")
            let dates = ["2026-05-01", "2026-05-10", "2026-05-16", "2026-05-24", "2026-06-30"].map { ledger.calendar.endOfDay(day($0)) }
            let before = try dates.map { try ledger.notifications(asOf: $0) }
            #expect(Set(before.last!.map(\.kind)).count >= 7, "the story tells deposits, bills, a bank consent, budgets, envelopes, reminders and milestones")
            try ledger.rebuild()
            #expect(try dates.map { try ledger.notifications(asOf: $0) } == before)
            try ledger.close()
            ledger = try Ledger.open(at: store.root, options: Ledger.Options(clock: clock.function, syncMode: .none, features: standardFeatures))
            #expect(try dates.map { try ledger.notifications(asOf: $0) } == before)
            try ledger.close()
        }
    }
}
