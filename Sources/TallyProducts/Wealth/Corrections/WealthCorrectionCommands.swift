public import TallyEngine
import GRDB

// Corrections of a wealth account (issue 15, missing today 3): reversing or amending a
// deposit, a purchase or a withdrawal. The log keeps the original; a reversal
// (`wealth_entry_reversed`, effective when the entry was) moves its money back, together
// with what it caused (a deposit's split: `deposit_split_reversed`; a purchase's round-up),
// all caused by the reversal and in one commit. An amendment adds the new version after the
// reversals, caused by the first of them, decided again by the rules in force at its own
// effective date (the split rule and pause of that day, the card and round-ups of that day).
//
// The wealth rules hold at every effective date: the correction is refused, naming the day
// it would break, when with it the wallet, Spend or Invest would go below zero at the
// corrected entry's time or at any later one (the Spend of a reversed deposit was spent since;
// a purchase amended to more than Spend held).
//
// Idempotency: the first event is the reversal of the entry, so a repeat for the same entry
// returns the first result; an amendment's repeat is also compared on the new version it
// recorded (amount, date, merchant or destination), and a key used for a reversal cannot
// amend, nor one used for an amendment reverse.

extension Ledger {
    /// Reverses a deposit, a purchase or a withdrawal of a wealth account: from now on it no
    /// longer counts, at its own date or any other; the audit keeps it beside its reversal.
    /// A deposit's split and a purchase's round-up are reversed with it.
    ///
    /// ```swift
    /// let deposit = try ledger.deposit(account: "main", amount: usd("100.00"))
    /// try ledger.reverseWealthEntry(account: "main", entry: deposit.events[0].sequence)
    /// // Spend and Invest back to what they were before the deposit
    /// ```
    ///
    /// - Parameters:
    ///   - account: the wealth account.
    ///   - entry: the sequence number of the `deposit_received`, `purchase_made` or
    ///     `withdrawal_made` event (as `tally wealth history` shows it).
    ///   - idempotencyKey: an optional key; a repeat for the same entry returns the first result.
    /// - Throws: ``LedgerError``: `notFound` (no such entry in this account), `notAllowed` (a
    ///   split, round-up or reversal, which go with their entry; an entry reversed already),
    ///   `insufficientFunds` (what the entry brought was spent since: the message names the
    ///   day the balance would go below zero), `idempotencyConflict`. Nothing is appended.
    @discardableResult
    public func reverseWealthEntry(account: String, entry: UInt64, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(reverseWealthEntryCommand(account: account, entry: entry, idempotencyKey: idempotencyKey))
    }

    /// The command ``reverseWealthEntry(account:entry:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func reverseWealthEntryCommand(account: String, entry: UInt64, idempotencyKey: String? = nil) throws -> LedgerCommand {
        let original = try correctableEntry(account: account, entry: entry, action: "reversed")
        let reversal = original.reversal
        try requireCorrectionRepeat(key: idempotencyKey, reversal: reversal, newVersion: nil)
        let calendar = self.calendar
        return LedgerCommand(idempotencyKey: idempotencyKey, request: reversal, requestHasEffectiveTime: false) { db in
            let events = try Self.reversals(of: original, account: account, calendar, db)
            try Self.requireBalancesStayCovered(events, what: "reversing \(original.kind.rawValue) \(entry)", account: account, calendar, db)
            return events
        }
    }

    /// Amends a deposit, a purchase or a withdrawal of a wealth account: its reversal and a
    /// new version in one commit (the audit shows the original, the reversal and the new
    /// version). Arguments left nil keep the entry's value. A deposit's new version is split
    /// by the rule in force at its effective date; a purchase's rounds up as round-ups were
    /// then, and is refused on a day the card was frozen. Records nothing when the new
    /// version would be the entry as it is.
    ///
    /// ```swift
    /// // The coffee cost 4.40, not 3.40:
    /// try ledger.amendWealthEntry(account: "main", entry: coffee, amount: usd("4.40"))
    /// ```
    ///
    /// - Parameters:
    ///   - account: the wealth account.
    ///   - entry: the sequence number of the deposit, purchase or withdrawal.
    ///   - amount: the new amount, positive.
    ///   - effectiveAt: the new effective time.
    ///   - merchant: a purchase's new merchant (not empty).
    ///   - destination: a withdrawal's new destination.
    ///   - idempotencyKey: an optional key; a repeat with the same entry and new version
    ///     returns the first result, one with another is refused.
    /// - Throws: ``LedgerError``: `notFound`, `notAllowed` (not a deposit, purchase or
    ///   withdrawal; reversed already; a merchant for a deposit …), `insufficientFunds` (the
    ///   new version, or the reversal of the old one, would take a balance below zero at its
    ///   date or a later one: the message names the day), `cardFrozen`, `invalidArgument`,
    ///   `idempotencyConflict`. Nothing is appended.
    @discardableResult
    public func amendWealthEntry(
        account: String, entry: UInt64, amount: Money? = nil, effectiveAt: Instant? = nil, merchant: String? = nil,
        destination: String? = nil, idempotencyKey: String? = nil
    ) throws -> CommandResult {
        try run(amendWealthEntryCommand(account: account, entry: entry, amount: amount, effectiveAt: effectiveAt, merchant: merchant, destination: destination, idempotencyKey: idempotencyKey))
    }

    /// The command ``amendWealthEntry(account:entry:amount:effectiveAt:merchant:destination:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func amendWealthEntryCommand(
        account: String, entry: UInt64, amount: Money? = nil, effectiveAt: Instant? = nil, merchant: String? = nil,
        destination: String? = nil, idempotencyKey: String? = nil
    ) throws -> LedgerCommand {
        if let amount { try WealthRules.requirePositive(amount, "the new amount") }
        if let effectiveAt { _ = try wealthInstant(effectiveAt) }
        if let merchant { try WealthRules.validate(text: merchant, "the merchant", isRequired: true) }
        if let destination { try WealthRules.validate(text: destination, "the destination") }
        let original = try correctableEntry(account: account, entry: entry, action: "amended")
        let version = try original.newVersion(amount: amount, effectiveAt: effectiveAt, merchant: merchant, destination: destination)
        let reversal = original.reversal
        try requireCorrectionRepeat(key: idempotencyKey, reversal: reversal, newVersion: version)
        let calendar = self.calendar
        return LedgerCommand(idempotencyKey: idempotencyKey, request: reversal, requestHasEffectiveTime: false) { db in
            // The entry as it is: nothing to amend.
            guard version.body != original.event.body || version.effectiveAt != original.event.effectiveAt else { return [] }
            var events = try Self.reversals(of: original, account: account, calendar, db)
            let pending = try BalanceQueries.postings(of: events, db)
            let index = events.count
            events.append(version)
            switch version.body.payload {
            case let deposit as DepositReceived:
                try Self.requireBalancesCanHold(deposit: deposit.amount, db)
                events += try Self.depositSplit(deposit.amount, of: .earlierInBatch(index), account: account, at: version.effectiveAt, db)
            case let purchase as PurchaseMade:
                events += try Self.purchaseRoundUp(purchase.amount, of: .earlierInBatch(index), account: account, at: version.effectiveAt,
                                                   pending: pending, calendar, db)
            case let withdrawal as WithdrawalMade:
                let spend = try Self.lowestSpend(account, withdrawal.amount.commodity, from: version.effectiveAt, pending: pending, calendar, db)
                try WealthRules.requireSpendCovers(withdrawal.amount, lowestSpend: spend, on: calendar.date(of: version.effectiveAt),
                                                   account: account, what: "the withdrawal")
            default:
                break
            }
            try Self.requireBalancesStayCovered(events, what: "amending \(original.kind.rawValue) \(entry)", account: account, calendar, db)
            return events
        }
    }

    // MARK: Helpers

    /// The deposit, purchase or withdrawal at `entry` of `account`, read back from the log.
    private func correctableEntry(account: String, entry: UInt64, action: String) throws -> WealthCorrection {
        try WealthRules.validate(accountName: account)
        let notFound = LedgerError(.notFound, "wealth account '\(account)' has no entry \(entry); `tally wealth history --account \(account)` lists them with their numbers")
        guard entry >= 1, let event = try loggedEvent(at: entry) else { throw notFound }
        switch event.body.payload {
        case let deposit as DepositReceived where deposit.account == account:
            return WealthCorrection(event: event, kind: .deposit, amount: deposit.amount)
        case let purchase as PurchaseMade where purchase.account == account:
            return WealthCorrection(event: event, kind: .purchase, amount: purchase.amount)
        case let withdrawal as WithdrawalMade where withdrawal.account == account:
            return WealthCorrection(event: event, kind: .withdrawal, amount: withdrawal.amount)
        case let split as DepositSplit where split.account == account:
            throw LedgerError(.notAllowed, "entry \(entry) is a deposit's split and cannot be \(action) alone; correct the deposit\(event.cause.map { " (entry \($0))" } ?? "")")
        case let roundUp as RoundUpApplied where roundUp.account == account:
            throw LedgerError(.notAllowed, "entry \(entry) is a purchase's round-up and cannot be \(action) alone; correct the purchase\(event.cause.map { " (entry \($0))" } ?? "")")
        case let reversal as WealthEntryReversed where reversal.account == account:
            throw LedgerError(.notAllowed, "entry \(entry) is a reversal and cannot be \(action); amend entry \(reversal.entry)'s new version instead, or record the entry again")
        default:
            throw notFound
        }
    }

    /// Refuses a repeat of `key` that would reverse where it amended, amend where it
    /// reversed, or amend to another new version (the pipeline compares the reversal itself).
    private func requireCorrectionRepeat(key: String?, reversal: NewEvent, newVersion: NewEvent?) throws {
        var firstSequence: UInt64?
        _ = try repeatRequest(key: key) { first -> NewEvent? in
            guard first.body == reversal.body else { return first.body.payload is WealthEntryReversed ? reversal : nil }
            firstSequence = first.sequence
            return reversal
        }
        guard let key, let firstSequence else { return }
        let recorded = try read { db in try WealthQueries.consequences(of: firstSequence, db) }
            .first { [.deposit, .purchase, .withdrawal].contains($0.kind) }
        let earlier = try recorded.flatMap { try loggedEvent(at: $0.sequence) }
        let same = switch (earlier, newVersion) {
        case (nil, nil): true
        case let (earlier?, version?): earlier.body == version.body && earlier.effectiveAt == version.effectiveAt
        default: false
        }
        guard same else {
            throw LedgerError(.idempotencyConflict, """
                the idempotency key '\(key)' was used by event \(firstSequence) (wealth_entry_reversed) with different input; \
                a repeat must be the same command, and a new command needs a new key
                """)
        }
    }

    /// The reversal of `original` and of what it caused: its split, or its round-up.
    private static func reversals(of original: WealthCorrection, account: String, _ calendar: LedgerCalendar, _ db: Database) throws -> [NewEvent] {
        let sequence = original.event.sequence
        if let reversal = try WealthQueries.reversal(of: sequence, db) {
            throw LedgerError(.notAllowed, "\(original.kind.rawValue) \(sequence) of wealth account '\(account)' was reversed already (entry \(reversal.sequence), recorded \(calendar.date(of: reversal.recordedAt))); correct its new version, if it has one")
        }
        var events = [original.reversal]
        for consequence in try WealthQueries.consequences(of: sequence, db) {
            switch consequence.kind {
            case .split:
                events.append(NewEvent(effectiveAt: consequence.effectiveAt, cause: .earlierInBatch(0), body: EventBody(DepositSplitReversed(
                    account: account, split: consequence.sequence, spend: consequence.spendChange, invest: consequence.investChange))))
            case .roundUp:
                events.append(NewEvent(effectiveAt: consequence.effectiveAt, cause: .earlierInBatch(0), body: EventBody(WealthEntryReversed(
                    account: account, entry: consequence.sequence, kind: .roundUp, amount: consequence.amount))))
            case .deposit, .purchase, .withdrawal, .roundUpSkipped, .roundUpNotDefined, .reversal:
                continue
            }
        }
        return events
    }

    /// Refuses a correction after which the wallet, Spend or Invest would be below zero at the
    /// time of one of its legs or any later time, naming the first such day.
    private static func requireBalancesStayCovered(
        _ events: [NewEvent], what: String, account: String, _ calendar: LedgerCalendar, _ db: Database
    ) throws {
        let postings = try BalanceQueries.postings(of: events, db)
        let protected: [(account: String, name: String)] = [
            (LedgerAccounts.spend(account), "Spend"), (LedgerAccounts.invest(account), "Invest"), (LedgerAccounts.wallet(account), "wallet"),
        ]
        for (ledgerAccount, name) in protected {
            let legs = postings.filter { $0.account == ledgerAccount }
            for commodity in Set(legs.map(\.amount.commodity.code)).sorted() {
                let own = legs.filter { $0.amount.commodity.code == commodity }
                guard let from = own.map(\.effectiveAt).min(), own.contains(where: { $0.amount.isNegative }) else { continue }
                let lowest = try BalanceQueries.lowestBalance(db, account: ledgerAccount, commodity: own[0].amount.commodity, from: from, pending: postings)
                try WealthRules.requireCorrectionCovered(what, balance: name, lowest: (lowest.amount, calendar.date(of: lowest.at)), account: account)
            }
        }
    }
}

/// A deposit, purchase or withdrawal to correct, as the log recorded it.
struct WealthCorrection: Sendable {
    let event: Event
    let kind: WealthReversedKind
    let amount: Money

    /// The reversal of this entry, effective when it was.
    var reversal: NewEvent {
        NewEvent(effectiveAt: event.effectiveAt, body: EventBody(WealthEntryReversed(
            account: account, entry: event.sequence, kind: kind, amount: amount)))
    }

    private var account: String {
        switch event.body.payload {
        case let deposit as DepositReceived: deposit.account
        case let purchase as PurchaseMade: purchase.account
        case let withdrawal as WithdrawalMade: withdrawal.account
        default: ""
        }
    }

    /// The new version: the fields given laid over the entry's, caused by its reversal.
    func newVersion(amount: Money?, effectiveAt: Instant?, merchant: String?, destination: String?) throws -> NewEvent {
        let at = effectiveAt ?? event.effectiveAt
        let body: EventBody
        switch event.body.payload {
        case var deposit as DepositReceived:
            try refuse(merchant, "a merchant", "a deposit"); try refuse(destination, "a destination", "a deposit")
            deposit.amount = amount ?? deposit.amount
            body = EventBody(deposit)
        case var purchase as PurchaseMade:
            try refuse(destination, "a destination", "a purchase")
            purchase.amount = amount ?? purchase.amount
            purchase.merchant = merchant ?? purchase.merchant
            body = EventBody(purchase)
        case var withdrawal as WithdrawalMade:
            try refuse(merchant, "a merchant", "a withdrawal")
            withdrawal.amount = amount ?? withdrawal.amount
            withdrawal.destination = destination ?? withdrawal.destination
            body = EventBody(withdrawal)
        default:
            throw LedgerError(.notAllowed, "entry \(event.sequence) is not a deposit, purchase or withdrawal")
        }
        return NewEvent(effectiveAt: at, cause: .earlierInBatch(0), body: body)
    }

    private func refuse(_ value: String?, _ field: String, _ entry: String) throws {
        guard value != nil else { return }
        throw LedgerError(.invalidArgument, "\(field) cannot be given for \(entry) (entry \(event.sequence))")
    }
}
