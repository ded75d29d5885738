import Testing
import TallyLog
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// Corrections of the wealth account (issue 15, missing today 3), as the user lives them:
/// a deposit, a purchase or a withdrawal recorded wrong is reversed or amended; the audit
/// shows the original, the reversal and the new version; the split and the round-up go with
/// their entry; and the rules hold at every effective date.
@Suite struct WealthCorrectionsTests {
    /// "Today" in these stories: a Wednesday in New York.
    static let today = "2026-11-25T15:00:00Z"

    private func story(_ body: (Ledger, ManualClock) throws -> Void) throws {
        try withTemporaryStore { root in
            let clock = ManualClock(Self.today)
            let ledger = try Ledger.forTesting(at: root, clock: clock)   // America/New_York
            try body(ledger, clock)
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    private func noon(_ ledger: Ledger, _ text: String) -> Instant {
        Instant(microsecondsSinceEpoch: ledger.calendar.startOfDay(day(text)).microsecondsSinceEpoch + 12 * 3_600_000_000)
    }

    private func refusal(
        _ code: LedgerError.Code, by ledger: Ledger, sourceLocation: SourceLocation = #_sourceLocation, _ command: () throws -> Void
    ) -> String {
        let head = ledger.head
        var message = ""
        #expect(sourceLocation: sourceLocation) { try command() } throws: { error in
            message = (error as? LedgerError)?.message ?? "\(error)"
            return (error as? LedgerError)?.code == code
        }
        #expect(ledger.head == head, "a refused command appends nothing", sourceLocation: sourceLocation)
        return message
    }

    private func spend(_ ledger: Ledger, asOf: Instant? = nil, knownAt: Instant? = nil) throws -> Money {
        try ledger.wealthSummary(account: "main", asOf: asOf, knownAt: knownAt).balance(in: .usd).spend
    }

    private func invest(_ ledger: Ledger, asOf: Instant? = nil, knownAt: Instant? = nil) throws -> Money {
        try ledger.wealthSummary(account: "main", asOf: asOf, knownAt: knownAt).balance(in: .usd).invest
    }

    @Test func aDepositRecordedTwiceIsReversedWithItsSplitAndTheAuditKeepsBoth() throws {
        try story { ledger, clock in
            try ledger.deposit(account: "main", amount: usd("100.00"), effectiveAt: noon(ledger, "2026-11-02"))
            let twice = try ledger.deposit(account: "main", amount: usd("100.00"), effectiveAt: noon(ledger, "2026-11-02"))
            let deposit = twice.events[0].sequence
            let split = twice.events[1].sequence
            clock.advance(seconds: 3_600)
            let beforeCorrection = ledger.now
            clock.advance(seconds: 60)
            let reversed = try ledger.reverseWealthEntry(account: "main", entry: deposit)
            #expect(reversed.events.map(\.type.name) == ["wealth_entry_reversed", "deposit_split_reversed"])
            #expect(reversed.events[1].cause == reversed.events[0].sequence, "the split's reversal is caused by the correction")
            #expect(reversed.events.allSatisfy { $0.effectiveAt == noon(ledger, "2026-11-02") }, "effective when the deposit was")
            #expect(try spend(ledger) == usd("70.00") && invest(ledger) == usd("30.00"))
            let secondOfNovember = ledger.calendar.endOfDay(day("2026-11-02"))
            #expect(try spend(ledger, asOf: secondOfNovember) == usd("70.00"), "the past reads corrected")
            #expect(try spend(ledger, asOf: secondOfNovember, knownAt: beforeCorrection) == usd("140.00"), "as known before, it does not")

            // The audit of Spend: the original split, then its reversal at the same date.
            let audit = try ledger.audit(account: LedgerAccounts.spend("main"))
            #expect(audit.map(\.eventType) == ["deposit_split", "deposit_split", "deposit_split_reversed"])
            #expect(audit.last?.amount == usd("-70.00") && audit.last?.balance == usd("70.00"))
            #expect(audit.last?.cause == reversed.events[0].sequence)
            let wallet = try ledger.audit(account: LedgerAccounts.wallet("main")).map(\.eventType)
            #expect(wallet.contains("wealth_entry_reversed"))

            // The history lists the deposit as reversed, and the reversals.
            let history = try ledger.wealthHistory(account: "main", pageSize: 50).entries
            #expect(history.first { $0.sequence == deposit }?.reversedBy == reversed.events[0].sequence)
            #expect(history.filter { $0.kind == .reversal }.map(\.reverses) == [split, deposit])
            let known = try ledger.wealthHistory(account: "main", pageSize: 50, knownAt: beforeCorrection).entries
            #expect(known.first { $0.sequence == deposit }?.reversedBy == nil && !known.contains { $0.kind == .reversal })

            _ = refusal(.notAllowed, by: ledger) { try ledger.reverseWealthEntry(account: "main", entry: deposit) }
            _ = refusal(.notAllowed, by: ledger) { try ledger.reverseWealthEntry(account: "main", entry: split) }
            _ = refusal(.notFound, by: ledger) { try ledger.reverseWealthEntry(account: "other", entry: deposit) }
            _ = refusal(.notFound, by: ledger) { try ledger.reverseWealthEntry(account: "main", entry: 9_999) }
        }
    }

    @Test func reversingADepositWhoseSpendWasSpentSinceIsRefusedNamingTheDay() throws {
        try story { ledger, _ in
            let deposit = try ledger.deposit(account: "main", amount: usd("100.00"), effectiveAt: noon(ledger, "2026-11-02")).events[0].sequence
            try ledger.deposit(account: "main", amount: usd("20.00"), effectiveAt: noon(ledger, "2026-11-10"))   // Spend 84.00
            try ledger.purchase(account: "main", amount: usd("60.00"), merchant: "Rent share", effectiveAt: noon(ledger, "2026-11-20"))
            let message = refusal(.insufficientFunds, by: ledger) { try ledger.reverseWealthEntry(account: "main", entry: deposit) }
            #expect(message.contains("2026-11-20"), "names the day Spend would go below zero: \(message)")
            #expect(message.contains("Spend"), "\(message)")
            #expect(try spend(ledger) == usd("24.00"))
        }
    }

    @Test func aPurchaseAmendedToTheRightAmountRoundsUpAgainAndTheAuditShowsThreeVersions() throws {
        try story { ledger, _ in
            try ledger.setRoundUps(account: "main", enabled: true, effectiveAt: noon(ledger, "2026-11-01"))
            try ledger.deposit(account: "main", amount: usd("100.00"), effectiveAt: noon(ledger, "2026-11-01"))   // Spend 70.00
            let coffee = try ledger.purchase(account: "main", amount: usd("3.40"), merchant: "Coffee", effectiveAt: noon(ledger, "2026-11-05"))
            #expect(coffee.events.map(\.type.name) == ["purchase_made", "round_up_applied"])
            #expect(try ledger.roundUpTotal(account: "main", month: Month(parsing: "2026-11")) == [usd("0.60")])
            // The coffee cost 4.75.
            let amended = try ledger.amendWealthEntry(account: "main", entry: coffee.events[0].sequence, amount: usd("4.75"))
            #expect(amended.events.map(\.type.name) == ["wealth_entry_reversed", "wealth_entry_reversed", "purchase_made", "round_up_applied"])
            let reversal = amended.events[0].sequence
            #expect(amended.events[1].body.as(WealthEntryReversed.self)?.kind == .roundUp)
            #expect(amended.events[1].cause == reversal && amended.events[2].cause == reversal)
            #expect(amended.events[3].cause == amended.events[2].sequence, "the new round-up names the new version")
            #expect(amended.events[3].body.as(RoundUpApplied.self)?.amount == usd("0.25"))
            #expect(amended.events[2].body.as(PurchaseMade.self)?.merchant == "Coffee", "fields not given are kept")
            #expect(try spend(ledger) == usd("65.00") && invest(ledger) == usd("30.25"))
            #expect(try ledger.roundUpTotal(account: "main", month: Month(parsing: "2026-11")) == [usd("0.25")])
            #expect(try ledger.roundUpTotal(account: "main", month: Month(parsing: "2026-11"), asOf: ledger.now) == [usd("0.25")])

            // Spend's audit: original, its round-up, their reversals, the new version and its round-up.
            let audit = try ledger.audit(account: LedgerAccounts.spend("main"), from: day("2026-11-05"))
            #expect(audit.map(\.eventType) == ["purchase_made", "round_up_applied", "wealth_entry_reversed", "wealth_entry_reversed", "purchase_made", "round_up_applied"])
            #expect(audit.map(\.amount) == [usd("-3.40"), usd("-0.60"), usd("3.40"), usd("0.60"), usd("-4.75"), usd("-0.25")])
            let purchases = try ledger.wealthHistory(account: "main", filter: .spend, pageSize: 50).entries.filter { $0.kind == .purchase }
            #expect(purchases.map(\.reversedBy) == [nil, reversal])

            // Amending again with nothing changed records nothing.
            #expect(try ledger.amendWealthEntry(account: "main", entry: amended.events[2].sequence, amount: usd("4.75")).events.isEmpty)
            _ = refusal(.notAllowed, by: ledger) {
                try ledger.amendWealthEntry(account: "main", entry: coffee.events[0].sequence, amount: usd("5.00"))
            }
            _ = refusal(.invalidArgument, by: ledger) {
                try ledger.amendWealthEntry(account: "main", entry: amended.events[2].sequence, destination: "bank")
            }
        }
    }

    @Test func aPurchaseAmendedToMoreThanSpendHeldIsRefusedNamingTheDay() throws {
        try story { ledger, _ in
            try ledger.deposit(account: "main", amount: usd("100.00"), effectiveAt: noon(ledger, "2026-11-01"))   // Spend 70.00
            let rent = try ledger.purchase(account: "main", amount: usd("30.00"), merchant: "Rent share", effectiveAt: noon(ledger, "2026-11-05"))
            try ledger.withdraw(account: "main", amount: usd("35.00"), effectiveAt: noon(ledger, "2026-11-15"))
            // 40.00 on the 5th is covered then (70.00) but leaves the withdrawal of the 15th short.
            let message = refusal(.insufficientFunds, by: ledger) {
                try ledger.amendWealthEntry(account: "main", entry: rent.events[0].sequence, amount: usd("40.00"))
            }
            #expect(message.contains("2026-11-15"), "\(message)")
            // 35.00 fits, moved to the 6th.
            let amended = try ledger.amendWealthEntry(account: "main", entry: rent.events[0].sequence, amount: usd("35.00"),
                                                      effectiveAt: noon(ledger, "2026-11-06"))
            #expect(amended.events.last?.effectiveAt == noon(ledger, "2026-11-06"))
            #expect(try spend(ledger) == usd("0.00"))
            #expect(try spend(ledger, asOf: ledger.calendar.endOfDay(day("2026-11-05"))) == usd("70.00"), "nothing was paid on the 5th any more")
        }
    }

    @Test func anAmendedDepositIsSplitByTheRuleInForceOnItsDate() throws {
        try story { ledger, clock in
            let deposit = try ledger.deposit(account: "main", amount: usd("100.00"), effectiveAt: noon(ledger, "2026-11-02"))
            try ledger.setSplitRule(account: "main", spendWeight: 50, investWeight: 50, effectiveAt: noon(ledger, "2026-11-10"))
            // The deposit was 200.00, and arrived on the 12th: the 50/50 rule of that day splits it.
            let amended = try ledger.amendWealthEntry(account: "main", entry: deposit.events[0].sequence, amount: usd("200.00"),
                                                      effectiveAt: noon(ledger, "2026-11-12"))
            #expect(amended.events.map(\.type.name) == ["wealth_entry_reversed", "deposit_split_reversed", "deposit_received", "deposit_split"])
            #expect(amended.events[3].body.as(DepositSplit.self).map { [$0.spend, $0.invest] } == [usd("100.00"), usd("100.00")])
            #expect(try spend(ledger) == usd("100.00") && invest(ledger) == usd("100.00"))
            #expect(try spend(ledger, asOf: ledger.calendar.endOfDay(day("2026-11-05"))) == usd("0.00"))
            // Amended back to the 2nd, the 70/30 rule of the 2nd splits it.
            clock.advance(seconds: 60)
            let back = try ledger.amendWealthEntry(account: "main", entry: amended.events[2].sequence, effectiveAt: noon(ledger, "2026-11-02"))
            #expect(back.events.last?.body.as(DepositSplit.self).map { [$0.spend, $0.invest] } == [usd("140.00"), usd("60.00")])
            let audit = try ledger.audit(account: LedgerAccounts.wallet("main")).map(\.eventType)
            #expect(audit.filter { $0 == "deposit_received" }.count == 3 && audit.filter { $0 == "wealth_entry_reversed" }.count == 2)
        }
    }

    @Test func aWithdrawalIsReversedAndAWaitingDepositLeavesTheWallet() throws {
        try story { ledger, _ in
            try ledger.deposit(account: "main", amount: usd("100.00"), effectiveAt: noon(ledger, "2026-11-01"))
            let cash = try ledger.withdraw(account: "main", amount: usd("20.00"), destination: "checking", effectiveAt: noon(ledger, "2026-11-03"))
            try ledger.reverseWealthEntry(account: "main", entry: cash.events[0].sequence)
            #expect(try spend(ledger) == usd("70.00"))
            try ledger.pauseAutomation(account: "main", effectiveAt: noon(ledger, "2026-11-10"))
            let waiting = try ledger.deposit(account: "main", amount: usd("50.00"), effectiveAt: noon(ledger, "2026-11-11"))
            #expect(try ledger.wealthSummary(account: "main").unsplitDepositCount == 1)
            try ledger.reverseWealthEntry(account: "main", entry: waiting.events[0].sequence)
            let summary = try ledger.wealthSummary(account: "main")
            #expect(summary.unsplitDepositCount == 0 && summary.balance(in: .usd).wallet == usd("0.00"))
            let resumed = try ledger.resumeAutomation(account: "main")
            #expect(resumed.events.map(\.type.name) == ["automation_resumed"], "the reversed deposit no longer waits")
            let deposits = try ledger.wealthHistory(account: "main", filter: .deposits, pageSize: 50).entries
            #expect(deposits.map(\.kind) == [.reversal, .deposit, .deposit])
        }
    }

    @Test func aRepeatedCorrectionWithItsKeyRecordsOnceAndAnotherInputIsAConflict() throws {
        try story { ledger, _ in
            try ledger.deposit(account: "main", amount: usd("100.00"), effectiveAt: noon(ledger, "2026-11-01"))
            let kiosk = try ledger.purchase(account: "main", amount: usd("3.00"), merchant: "Kiosk", effectiveAt: noon(ledger, "2026-11-02"))
            let entry = kiosk.events[0].sequence
            let first = try ledger.amendWealthEntry(account: "main", entry: entry, amount: usd("4.00"), idempotencyKey: "fix-kiosk")
            let again = try ledger.amendWealthEntry(account: "main", entry: entry, amount: usd("4.00"), idempotencyKey: "fix-kiosk")
            #expect(again.wasAlreadyApplied && again.events.map(\.sequence) == first.events.map(\.sequence))
            _ = refusal(.idempotencyConflict, by: ledger) {
                try ledger.amendWealthEntry(account: "main", entry: entry, amount: usd("5.00"), idempotencyKey: "fix-kiosk")
            }
            _ = refusal(.idempotencyConflict, by: ledger) {
                try ledger.reverseWealthEntry(account: "main", entry: entry, idempotencyKey: "fix-kiosk")
            }
            let newVersion = first.events[1].sequence
            let reversed = try ledger.reverseWealthEntry(account: "main", entry: newVersion, idempotencyKey: "drop-kiosk")
            #expect(try ledger.reverseWealthEntry(account: "main", entry: newVersion, idempotencyKey: "drop-kiosk").events == reversed.events)
            #expect(try spend(ledger) == usd("70.00"))
        }
    }
}
