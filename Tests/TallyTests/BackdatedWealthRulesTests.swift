import Testing
import TallyLog
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// The wealth account's rules at the command's effective date (issue 15, findings 1 and 2):
/// a backdated payment must be covered then and at every later date, a backdated deposit is
/// split by the rule in force on its own day, and a backdated change of a setting cannot
/// rewrite what was already recorded after it.
@Suite struct BackdatedWealthRulesTests {
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

    /// Noon of a day in the ledger's time zone.
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

    // MARK: Finding 1: payments are covered at their date and after

    @Test func aWithdrawalDatedBeforeTheOnlyDepositIsRefusedNamingItsDay() throws {
        try story { ledger, _ in
            try ledger.deposit(account: "main", amount: usd("100.00"))
            let message = refusal(.insufficientFunds, by: ledger) {
                try ledger.withdraw(account: "main", amount: usd("40.00"), effectiveAt: noon(ledger, "2026-10-01"))
            }
            #expect(message.contains("2026-10-01"), "\(message)")
            let then = try ledger.wealthSummary(account: "main", asOf: ledger.calendar.endOfDay(day("2026-10-01")))
            #expect(then.balance(in: .usd).spend == usd("0.00"), "Spend on 1 October was never negative")
        }
    }

    @Test func aBackdatedPurchaseBeforeTheMoneyArrivedIsRefused() throws {
        try story { ledger, _ in
            try ledger.deposit(account: "main", amount: usd("100.00"), effectiveAt: noon(ledger, "2026-11-10"))
            _ = refusal(.insufficientFunds, by: ledger) {
                try ledger.purchase(account: "main", amount: usd("5.00"), merchant: "Bakery", effectiveAt: noon(ledger, "2026-11-09"))
            }
            try ledger.purchase(account: "main", amount: usd("5.00"), merchant: "Bakery", effectiveAt: noon(ledger, "2026-11-11"))
        }
    }

    @Test func aBackdatedWithdrawalCannotOverdrawAPurchaseRecordedForLater() throws {
        try story { ledger, _ in
            // 70.00 reaches Spend on the 1st; an 60.00 purchase is recorded for the 20th.
            try ledger.deposit(account: "main", amount: usd("100.00"), effectiveAt: noon(ledger, "2026-11-01"))
            try ledger.purchase(account: "main", amount: usd("60.00"), merchant: "Rent share", effectiveAt: noon(ledger, "2026-11-20"))
            // On the 10th Spend holds 70.00, but 20.00 taken then leaves the purchase of the 20th short.
            let message = refusal(.insufficientFunds, by: ledger) {
                try ledger.withdraw(account: "main", amount: usd("20.00"), effectiveAt: noon(ledger, "2026-11-10"))
            }
            #expect(message.contains("2026-11-20"), "the refusal names the day it would break: \(message)")
            #expect(message.contains("2026-11-10"), "\(message)")
            // 10.00 leaves the purchase covered.
            try ledger.withdraw(account: "main", amount: usd("10.00"), effectiveAt: noon(ledger, "2026-11-10"))
            #expect(try ledger.wealthSummary(account: "main").balance(in: .usd).spend == usd("0.00"))
        }
    }

    @Test func aBackdatedRoundUpThatWouldOverdrawLaterIsSkippedNotMade() throws {
        try story { ledger, _ in
            try ledger.setRoundUps(account: "main", enabled: true, effectiveAt: noon(ledger, "2026-10-01"))
            try ledger.deposit(account: "main", amount: usd("10.50"), effectiveAt: noon(ledger, "2026-11-01"))   // Spend 7.35
            try ledger.purchase(account: "main", amount: usd("5.00"), merchant: "Cinema", effectiveAt: noon(ledger, "2026-11-20"))
            // On the 10th: 1.40 and its round-up 0.60 are covered then and on the 20th (7.35 − 2.00 − 5.00 = 0.35).
            let covered = try ledger.purchase(account: "main", amount: usd("1.40"), merchant: "Kiosk", effectiveAt: noon(ledger, "2026-11-10"))
            #expect(covered.events.map(\.type.name) == ["purchase_made", "round_up_applied"])
            // On the 12th Spend holds 5.35, enough for 0.30 and its round-up 0.70, but the 20th would be short: skipped.
            let skipped = try ledger.purchase(account: "main", amount: usd("0.30"), merchant: "Gum", effectiveAt: noon(ledger, "2026-11-12"))
            #expect(skipped.events.map(\.type.name) == ["purchase_made", "round_up_skipped"])
        }
    }

    @Test func aFrozenCardRefusesPurchasesDatedWhileItWasFrozenOnly() throws {
        try story { ledger, _ in
            try ledger.deposit(account: "main", amount: usd("100.00"), effectiveAt: noon(ledger, "2026-11-01"))
            try ledger.freezeCard(account: "main", effectiveAt: noon(ledger, "2026-11-10"))
            try ledger.unfreezeCard(account: "main", effectiveAt: noon(ledger, "2026-11-15"))
            try ledger.purchase(account: "main", amount: usd("3.00"), merchant: "Before", effectiveAt: noon(ledger, "2026-11-05"))
            let message = refusal(.cardFrozen, by: ledger) {
                try ledger.purchase(account: "main", amount: usd("3.00"), merchant: "While frozen", effectiveAt: noon(ledger, "2026-11-12"))
            }
            #expect(message.contains("2026-11-12"), "\(message)")
            try ledger.purchase(account: "main", amount: usd("3.00"), merchant: "After", effectiveAt: noon(ledger, "2026-11-16"))
            // The card is unfrozen today, although the freeze was recorded after a later purchase's day.
            #expect(try ledger.wealthSummary(account: "main").cardFrozen == false)
        }
    }

    @Test func aBackdatedFreezeOverARecordedPurchaseIsRefusedNamingThePurchaseDay() throws {
        try story { ledger, _ in
            try ledger.deposit(account: "main", amount: usd("100.00"), effectiveAt: noon(ledger, "2026-11-01"))
            try ledger.purchase(account: "main", amount: usd("3.00"), merchant: "Kiosk", effectiveAt: noon(ledger, "2026-11-18"))
            let message = refusal(.notAllowed, by: ledger) {
                try ledger.freezeCard(account: "main", effectiveAt: noon(ledger, "2026-11-15"))
            }
            #expect(message.contains("2026-11-18"), "\(message)")
            try ledger.freezeCard(account: "main", effectiveAt: noon(ledger, "2026-11-19"))
            #expect(try ledger.wealthSummary(account: "main").cardFrozen)
        }
    }

    // MARK: Finding 2: decisions use the settings in force at the effective date

    @Test func aBackdatedDepositIsSplitByTheRuleInForceOnItsDay() throws {
        try story { ledger, clock in
            try ledger.deposit(account: "main", amount: usd("10.00"), effectiveAt: noon(ledger, "2026-11-01"))
            clock.advance(seconds: 60)
            try ledger.setSplitRule(account: "main", spendWeight: 50, investWeight: 50)   // from today
            let backdated = try ledger.deposit(account: "main", amount: usd("100.00"), effectiveAt: noon(ledger, "2026-11-02"))
            let split = try #require(backdated.events.last?.body.as(DepositSplit.self))
            #expect(split.spend == usd("70.00") && split.invest == usd("30.00"), "the 70/30 rule of 2 November")
            let then = try ledger.wealthSummary(account: "main", asOf: ledger.calendar.endOfDay(day("2026-11-02")))
            #expect(then.splitRule == SplitRule(spendWeight: 70, investWeight: 30))
            let today = try ledger.deposit(account: "main", amount: usd("100.00"))
            #expect(today.events.last?.body.as(DepositSplit.self)?.spend == usd("50.00"), "today's deposit meets today's rule")
        }
    }

    @Test func aBackdatedPurchaseRoundsUpAsRoundUpsWereOnItsDay() throws {
        try story { ledger, _ in
            try ledger.deposit(account: "main", amount: usd("100.00"), effectiveAt: noon(ledger, "2026-11-01"))
            try ledger.setRoundUps(account: "main", enabled: true, effectiveAt: noon(ledger, "2026-11-10"))
            let before = try ledger.purchase(account: "main", amount: usd("3.40"), merchant: "Coffee", effectiveAt: noon(ledger, "2026-11-05"))
            #expect(before.events.map(\.type.name) == ["purchase_made"], "round-ups were off on the 5th")
            let after = try ledger.purchase(account: "main", amount: usd("3.40"), merchant: "Coffee", effectiveAt: noon(ledger, "2026-11-12"))
            #expect(after.events.map(\.type.name) == ["purchase_made", "round_up_applied"])
        }
    }

    @Test func aDepositDatedInAPausedSpanWaitsForTheResumeThatEndedIt() throws {
        try story { ledger, _ in
            try ledger.pauseAutomation(account: "main", effectiveAt: noon(ledger, "2026-11-01"))
            try ledger.resumeAutomation(account: "main", effectiveAt: noon(ledger, "2026-11-10"))
            try ledger.setSplitRule(account: "main", spendWeight: 50, investWeight: 50, effectiveAt: noon(ledger, "2026-11-20"))
            let deposit = try ledger.deposit(account: "main", amount: usd("100.00"), effectiveAt: noon(ledger, "2026-11-05"))
            let split = try #require(deposit.events.last)
            #expect(split.effectiveAt == noon(ledger, "2026-11-10"), "it waited until the resume")
            #expect(split.body.as(DepositSplit.self)?.spend == usd("70.00"), "by the rule of its own day")
            let paused = try ledger.wealthSummary(account: "main", asOf: ledger.calendar.endOfDay(day("2026-11-07")))
            #expect(paused.status == .paused && paused.balance(in: .usd).wallet == usd("100.00"))
            #expect(try ledger.wealthSummary(account: "main").status == .active)
        }
    }

    @Test func aBackdatedSplitRuleThatWouldContradictARecordedSplitIsRefused() throws {
        try story { ledger, _ in
            try ledger.deposit(account: "main", amount: usd("100.00"), effectiveAt: noon(ledger, "2026-11-12"))   // 70/30
            let message = refusal(.notAllowed, by: ledger) {
                try ledger.setSplitRule(account: "main", spendWeight: 50, investWeight: 50, effectiveAt: noon(ledger, "2026-11-10"))
            }
            #expect(message.contains("2026-11-12"), "\(message)")
            // A rule from after the split is fine, and a backdated change before a later one keeps the later in force.
            try ledger.setSplitRule(account: "main", spendWeight: 60, investWeight: 40, effectiveAt: noon(ledger, "2026-11-20"))
            try ledger.setSplitRule(account: "main", spendWeight: 50, investWeight: 50, effectiveAt: noon(ledger, "2026-11-15"))
            #expect(try ledger.wealthSummary(account: "main").splitRule == SplitRule(spendWeight: 60, investWeight: 40))
            let mid = try ledger.deposit(account: "main", amount: usd("10.00"), effectiveAt: noon(ledger, "2026-11-16"))
            #expect(mid.events.last?.body.as(DepositSplit.self)?.spend == usd("5.00"))
        }
    }

    @Test func anImportedWithdrawalThatOverdrawsALaterPurchaseIsRefused() throws {
        try story { ledger, _ in
            try ledger.deposit(account: "main", amount: usd("100.00"), effectiveAt: noon(ledger, "2026-11-01"))
            try ledger.purchase(account: "main", amount: usd("60.00"), merchant: "Rent share", effectiveAt: noon(ledger, "2026-11-20"))
            let head = ledger.head
            #expect {
                try ledger.appendEvents([NewEvent(effectiveAt: noon(ledger, "2026-11-10"), body: EventBody(
                    WithdrawalMade(account: "main", amount: usd("20.00"), destination: nil)))])
            } throws: { error in
                let error = error as? LedgerError
                return error?.code == .insufficientFunds && error?.message.contains("2026-11-20") == true
            }
            #expect(ledger.head == head)
        }
    }

    // MARK: Random ledgers, every rule checked at every date against a full replay

    /// Seeded random wealth activity with a third of the commands backdated up to 40 days,
    /// and corrections (reversals and amendments of deposits, purchases and withdrawals):
    /// the log, replayed in effective order, never has Spend, the wallet or Invest below zero
    /// at any instant, splits every deposit by the rule in force on its day (at once, or at the
    /// resume that ended its pause), never has a purchase on a frozen card, rounds up exactly
    /// the purchases made while round-ups were on, reverses a corrected entry's split or
    /// round-up with it; every refused payment was short at its date or later; and the summary
    /// at random days equals the replay, where a reversed entry no longer counts.
    /// `TALLY_TEST_SEED` replays.
    @Test func randomBackdatedLedgersKeepEveryRuleAtEveryDate() throws {
        let master = TestSeed.value(default: 0xBAC_DA7E)
        for index in 0..<4 {
            let seed = TestSeed.ledger(index, of: master)
            try story { ledger, clock in
                try checkRandomLedger(ledger, clock, seed: seed, context: "TALLY_TEST_SEED=\(master), ledger \(index) (seed \(seed))")
            }
        }
    }

    private func checkRandomLedger(_ ledger: Ledger, _ clock: ManualClock, seed: UInt64, context: String) throws {
        var random = SplitMix64(seed: seed)
        let currencies: [Commodity] = [.usd, .gbp]
        var refusedPayments: [(at: Instant, amount: Money, recordedBefore: UInt64)] = []
        var counts = (accepted: 0, refused: 0, corrected: 0)
        /// Deposits, purchases and withdrawals recorded: what a correction may name.
        var entries: [UInt64] = []
        func remember(_ result: Ledger.CommandResult) {
            let kinds: Set<String> = ["deposit_received", "purchase_made", "withdrawal_made"]
            entries += result.events.filter { kinds.contains($0.type.name) && !result.wasAlreadyApplied }.map(\.sequence)
        }
        for step in 0..<160 {
            clock.advance(seconds: Int64.random(in: 600...30_000, using: &random))
            let at: Instant? = Int.random(in: 0..<3, using: &random) == 0
                ? Instant(microsecondsSinceEpoch: clock.now.microsecondsSinceEpoch - Int64.random(in: 1...(40 * 86_400), using: &random) * 1_000_000)
                : nil
            let commodity = currencies.randomElement(using: &random)!
            let amount = Money(minorUnits: Int64.random(in: 1...4_000, using: &random), commodity: commodity)
            let isPayment: Bool
            do {
                switch Int.random(in: 0..<23, using: &random) {
                case 0..<6:
                    isPayment = false
                    remember(try ledger.deposit(account: "main", amount: try amount.multiplied(by: 3), effectiveAt: at))
                case 6..<12:
                    isPayment = true
                    remember(try ledger.purchase(account: "main", amount: amount, merchant: "shop \(step)", effectiveAt: at))
                case 12..<14:
                    isPayment = true
                    remember(try ledger.withdraw(account: "main", amount: amount, effectiveAt: at))
                case 20 where !entries.isEmpty:
                    isPayment = false
                    try ledger.reverseWealthEntry(account: "main", entry: entries.randomElement(using: &random)!)
                    counts.corrected += 1
                case 21, 22:
                    isPayment = false
                    guard let entry = entries.randomElement(using: &random) else { continue }
                    let original = try ledger.wealthEntry(account: "main", sequence: entry)
                    let newAmount = Money(minorUnits: Int64.random(in: 1...4_000, using: &random), commodity: original.amount.commodity)
                    remember(try ledger.amendWealthEntry(account: "main", entry: entry, amount: newAmount, effectiveAt: at))
                    counts.corrected += 1
                case 14:
                    isPayment = false
                    let weights = [(70, 30), (50, 50), (1, 0), (0, 1), (3, 1)].randomElement(using: &random)!
                    try ledger.setSplitRule(account: "main", spendWeight: Int64(weights.0), investWeight: Int64(weights.1), effectiveAt: at)
                case 15:
                    isPayment = false
                    try ledger.setRoundUps(account: "main", enabled: Bool.random(using: &random), effectiveAt: at)
                case 16:
                    isPayment = false
                    try ledger.pauseAutomation(account: "main", effectiveAt: at)
                case 17:
                    isPayment = false
                    try ledger.resumeAutomation(account: "main", effectiveAt: at)
                case 18:
                    isPayment = false
                    try ledger.freezeCard(account: "main", effectiveAt: at)
                default:
                    isPayment = false
                    try ledger.unfreezeCard(account: "main", effectiveAt: at)
                }
                counts.accepted += 1
            } catch let error as LedgerError where [.insufficientFunds, .notAllowed, .cardFrozen].contains(error.code) || (isPayment && error.code == .notFound) {
                // A payment before the account's first event: no such account (issue 35).
                counts.refused += 1
                if isPayment && error.code == .insufficientFunds {
                    refusedPayments.append((at ?? clock.now, amount, ledger.head.sequence))
                }
            }
        }
        let events = try ledger.loggedEvents()
        let replay = try WealthReplayModel(events.filter { _ in true })
        for problem in replay.problems { Issue.record("\(context): \(problem)") }

        // Every refused payment was short at its date or later, as the log then stood.
        for refused in refusedPayments {
            let then = try WealthReplayModel(events.filter { $0.sequence <= refused.recordedBefore })
            let lowest = then.lowestSpend(in: refused.amount.commodity, from: refused.at)
            #expect(lowest < refused.amount.minorUnits, "\(context): a payment of \(refused.amount) at \(refused.at) was refused with Spend at least \(lowest) from then on")
        }

        // The summary at random days equals the replay's state at the end of that day.
        let first = ledger.calendar.date(of: Instant(microsecondsSinceEpoch: clock.now.microsecondsSinceEpoch - 50 * 86_400_000_000)).daysSinceEpoch
        let last = ledger.calendar.date(of: clock.now).daysSinceEpoch
        for _ in 0..<12 {
            let asOf = ledger.calendar.endOfDay(LocalDate(daysSinceEpoch: Int.random(in: first...last, using: &random)))
            guard (try? ledger.wealthSummary(account: "main", asOf: asOf)) != nil else { continue }
            let summary = try ledger.wealthSummary(account: "main", asOf: asOf)
            let state = try WealthReplayModel(events.filter { $0.effectiveAt <= asOf }).state
            for commodity in currencies {
                let balance = summary.balance(in: commodity)
                let model = state.balances[commodity.code] ?? (0, 0, 0)
                #expect([balance.wallet.minorUnits, balance.spend.minorUnits, balance.invest.minorUnits] == [model.wallet, model.spend, model.invest],
                        "\(context): \(commodity.code) balances as of \(asOf)")
            }
            #expect(summary.splitRule == state.rule, "\(context): split rule as of \(asOf)")
            #expect(summary.roundUpsEnabled == state.roundUps, "\(context): round-ups as of \(asOf)")
            #expect(summary.isPausedOrNot == state.paused, "\(context): paused as of \(asOf)")
            #expect(summary.cardFrozen == state.frozen, "\(context): card as of \(asOf)")
        }
        #expect(counts.accepted > 60 && counts.refused > 5 && counts.corrected > 3, "\(context): the story exercised both ways (\(counts))")
    }
}

private extension WealthSummary {
    var isPausedOrNot: Bool { status == .paused }
}

/// A full replay of a wealth account's events in effective order (then sequence), checking
/// docs/domain.md §1 at every instant. It shares no code with the commands or the read model.
private struct WealthReplayModel {
    struct State {
        var balances: [String: (wallet: Int64, spend: Int64, invest: Int64)] = [:]
        var rule = SplitRule(spendWeight: 70, investWeight: 30)
        var roundUps = false
        var paused = false
        var frozen = false
    }

    private(set) var state = State()
    private(set) var problems: [String] = []
    /// Spend per currency after each instant, in order.
    private var spendAfter: [String: [(at: Instant, amount: Int64)]] = [:]

    init(_ events: [Event]) throws {
        let ordered = events.sorted { ($0.effectiveAt, $0.sequence) < ($1.effectiveAt, $1.sequence) }
        /// For each deposit: its amount, the rule and pause it met, when it arrived.
        var deposits: [UInt64: (amount: Money, rule: SplitRule, paused: Bool, at: Instant)] = [:]
        var purchases: [UInt64: (amount: Money, roundUps: Bool, at: Instant)] = [:]
        var roundedUp: Set<UInt64> = []
        /// Every deposit, purchase, withdrawal and round-up: amount and time, for the reversals.
        var moved: [UInt64: (amount: Money, at: Instant)] = [:]
        var splits: [UInt64: (spend: Money, invest: Money, deposit: UInt64, at: Instant)] = [:]
        var roundUpOf: [UInt64: UInt64] = [:]
        var reversed: Set<UInt64> = []
        // A reversed entry's decisions (its split's rule, its round-up, the card it met) no
        // longer bind: a later setting change may contradict them, as the commands allow.
        let correctedLater = Set(ordered.flatMap { event -> [UInt64] in
            switch event.body.payload {
            case let reversal as WealthEntryReversed: [UInt64(reversal.entry)]
            case let reversal as DepositSplitReversed: [UInt64(reversal.split)]
            default: []
            }
        })
        for (index, event) in ordered.enumerated() {
            switch event.body.payload {
            case let deposit as DepositReceived:
                moved[event.sequence] = (deposit.amount, event.effectiveAt)
                move(deposit.amount, wallet: 1)
                deposits[event.sequence] = (deposit.amount, state.rule, state.paused, event.effectiveAt)
            case let split as DepositSplit:
                guard let cause = event.cause, let deposit = deposits[cause] else {
                    problems.append("split \(event.sequence) comes before its deposit in effective order")
                    continue
                }
                let parts = try WealthRules.split(deposit.amount, by: deposit.rule)
                if (split.spend, split.invest) != (parts.spend, parts.invest) && !correctedLater.contains(cause) {
                    problems.append("split \(event.sequence) of deposit \(cause) is \(split.spend)/\(split.invest), the rule \(deposit.rule) of its day gives \(parts.spend)/\(parts.invest)")
                }
                if !deposit.paused && event.effectiveAt != deposit.at && !correctedLater.contains(cause) {
                    problems.append("deposit \(cause) arrived while automation ran but was split at \(event.effectiveAt), not at once")
                }
                if deposit.paused && state.paused && !correctedLater.contains(cause) {
                    problems.append("deposit \(cause) was split at \(event.effectiveAt) while automation was paused")
                }
                splits[event.sequence] = (split.spend, split.invest, cause, event.effectiveAt)
                move(deposit.amount, wallet: -1)
                move(split.spend, spend: 1)
                move(split.invest, invest: 1)
            case let purchase as PurchaseMade:
                if state.frozen && !correctedLater.contains(event.sequence) { problems.append("purchase \(event.sequence) at \(event.effectiveAt) was made on a frozen card") }
                purchases[event.sequence] = (purchase.amount, state.roundUps, event.effectiveAt)
                moved[event.sequence] = (purchase.amount, event.effectiveAt)
                move(purchase.amount, spend: -1)
            case let roundUp as RoundUpApplied:
                roundedUp.insert(event.cause ?? 0)
                moved[event.sequence] = (roundUp.amount, event.effectiveAt)
                roundUpOf[event.cause ?? 0] = event.sequence
                move(roundUp.amount, spend: -1)
                move(roundUp.amount, invest: 1)
            case is RoundUpSkipped:
                roundedUp.insert(event.cause ?? 0)
            case let withdrawal as WithdrawalMade:
                moved[event.sequence] = (withdrawal.amount, event.effectiveAt)
                move(withdrawal.amount, spend: -1)
            case let reversal as WealthEntryReversed:
                guard let original = moved[UInt64(reversal.entry)], original.amount == reversal.amount, original.at == event.effectiveAt,
                      !reversed.contains(UInt64(reversal.entry)) else {
                    problems.append("reversal \(event.sequence) of \(reversal.entry) does not undo an entry once, at its time, by its amount")
                    continue
                }
                reversed.insert(UInt64(reversal.entry))
                switch reversal.kind {
                case .deposit: move(reversal.amount, wallet: -1)
                case .purchase, .withdrawal: move(reversal.amount, spend: 1)
                case .roundUp:
                    move(reversal.amount, spend: 1)
                    move(reversal.amount, invest: -1)
                }
            case let reversal as DepositSplitReversed:
                guard let split = splits[UInt64(reversal.split)], (split.spend, split.invest) == (reversal.spend, reversal.invest),
                      split.at == event.effectiveAt, !reversed.contains(UInt64(reversal.split)) else {
                    problems.append("split reversal \(event.sequence) of \(reversal.split) does not undo a split once, at its time, by its parts")
                    continue
                }
                reversed.insert(UInt64(reversal.split))
                move(reversal.spend, spend: -1)
                move(reversal.invest, invest: -1)
                move(reversal.spend, wallet: 1)
                move(reversal.invest, wallet: 1)
            case let rule as SplitRuleSet:
                state.rule = SplitRule(spendWeight: rule.spendWeight, investWeight: rule.investWeight)
            case let change as RoundUpsSwitched:
                state.roundUps = change.enabled
            case is AutomationPaused:
                state.paused = true
            case is AutomationResumed:
                state.paused = false
            case is CardFrozen:
                state.frozen = true
            case is CardUnfrozen:
                state.frozen = false
            default:
                break
            }
            // At the end of each instant no balance is below zero.
            if index + 1 == ordered.count || ordered[index + 1].effectiveAt != event.effectiveAt {
                for (code, balance) in state.balances {
                    if balance.wallet < 0 || balance.spend < 0 || balance.invest < 0 {
                        problems.append("\(code) wallet/spend/invest \(balance) below zero at \(event.effectiveAt)")
                    }
                    spendAfter[code, default: []].append((event.effectiveAt, balance.spend))
                }
            }
        }
        // A reversed deposit's split and a reversed purchase's round-up were reversed with it; nothing else was.
        for (sequence, split) in splits where reversed.contains(split.deposit) != reversed.contains(sequence) {
            problems.append("deposit \(split.deposit) and its split \(sequence) were not reversed together")
        }
        for (purchase, roundUp) in roundUpOf where reversed.contains(purchase) != reversed.contains(roundUp) {
            problems.append("purchase \(purchase) and its round-up \(roundUp) were not reversed together")
        }
        reversedEntries = reversed
        for (sequence, purchase) in purchases where !correctedLater.contains(sequence) {
            let isWhole = try WealthRules.roundUp(for: purchase.amount, increment: WealthRules.defaultRoundUpIncrement(for: purchase.amount.commodity)!).isZero
            let shouldRoundUp = purchase.roundUps && !isWhole
            if shouldRoundUp != roundedUp.contains(sequence) {
                problems.append("purchase \(sequence) at \(purchase.at): round-ups were \(purchase.roundUps ? "on" : "off") but it was \(roundedUp.contains(sequence) ? "" : "not ")rounded up")
            }
        }
    }

    /// Whether the entry at `sequence` was reversed (a reversed deposit, split, purchase or round-up no longer counts).
    private(set) var reversedEntries: Set<UInt64> = []

    /// The lowest Spend in `commodity` at the end of any instant from `instant` on.
    func lowestSpend(in commodity: Commodity, from instant: Instant) -> Int64 {
        let series = spendAfter[commodity.code] ?? []
        let atStart = series.last { $0.at <= instant }?.amount ?? 0
        return series.filter { $0.at > instant }.map(\.amount).reduce(atStart, min)
    }

    private mutating func move(_ amount: Money, wallet: Int64 = 0, spend: Int64 = 0, invest: Int64 = 0) {
        var balance = state.balances[amount.commodity.code] ?? (0, 0, 0)
        balance.wallet += wallet * amount.minorUnits
        balance.spend += spend * amount.minorUnits
        balance.invest += invest * amount.minorUnits
        state.balances[amount.commodity.code] = balance
    }
}
