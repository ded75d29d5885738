public import TallyEngine
import GRDB
import TallyLog

// The commands of the automated wealth account (docs/domain.md §1). Each validates against the
// read models at its effective time and every later one (a backdated command is normal:
// the settings in force then decide, and what was recorded for later must stay true),
// applies the rules of `WealthRules`, and returns the events that `perform` appends in one
// commit; a refusal throws `LedgerError` and appends nothing.
//
// Idempotency: every command takes an optional key. A repeat with the same input returns
// the first result and appends nothing, without planning again (so a withdrawal repeated
// after Spend was spent still returns the first withdrawal); a repeat with other input
// (amount, merchant, an explicit effective time …) throws `idempotencyConflict`. The input
// is compared as the first event the command records, built once, before planning, and
// returned by the plan as its first event.

extension Ledger {
    /// Records a deposit and, unless automation is paused, its split by the rule in force,
    /// in one commit: `deposit_received`, then `deposit_split` caused by it.
    ///
    /// ```swift
    /// try ledger.deposit(account: "main", amount: try Money(parsing: "100.00", commodity: .usd),
    ///                    source: .bankTransfer, externalId: "tx-1", idempotencyKey: "bank:tx-1")
    /// // Spend 70.00 USD, Invest 30.00 USD
    /// ```
    ///
    /// - Parameters:
    ///   - account: the wealth account, e.g. `main`; its first event creates it.
    ///   - amount: positive, in any currency (USD, GBP, USDC …); balances are per currency.
    ///   - source: a bank transfer or a chain.
    ///   - externalId: the bank's or the chain's transaction id.
    ///   - effectiveAt: when the money arrived (default: now).
    ///   - idempotencyKey: a key (e.g. the bank's id). A repeat with the same account, amount,
    ///     source, external id and effective time (when given) returns the first result and
    ///     appends nothing; with other input it is refused.
    /// - Throws: ``LedgerError`` (`invalidArgument`) for a bad account name, a non-positive
    ///   amount, text past its limit, or a deposit no balance could hold; `idempotencyConflict`
    ///   for a key used with other input.
    @discardableResult
    public func deposit(
        account: String, amount: Money, source: DepositSource = .bankTransfer, externalId: String? = nil,
        effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> CommandResult {
        try run(depositCommand(account: account, amount: amount, source: source, externalId: externalId, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``deposit(account:amount:source:externalId:effectiveAt:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func depositCommand(
        account: String, amount: Money, source: DepositSource = .bankTransfer, externalId: String? = nil,
        effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> LedgerCommand {
        let at = try wealthInstant(effectiveAt)
        try WealthRules.validate(accountName: account)
        try WealthRules.requirePositive(amount, "the deposit amount")
        if let externalId { try WealthRules.validate(text: externalId, "the external id") }
        let received = NewEvent(effectiveAt: at, body: EventBody(
            DepositReceived(account: account, amount: amount, source: source, externalId: externalId)))
        return LedgerCommand(idempotencyKey: idempotencyKey, request: received, requestHasEffectiveTime: effectiveAt != nil) { db in
            try CurrencyRule.require(amount, "the deposit amount", db)
            try Self.requireBalancesCanHold(deposit: amount, db)
            return try [received] + Self.depositSplit(amount, of: .earlierInBatch(0), account: account, at: at, db)
        }
    }

    /// Sets the split rule for deposits that arrive from now on; earlier deposits keep
    /// theirs, including those waiting while automation is paused. Nothing is recorded when
    /// the rule is already in force.
    ///
    /// ```swift
    /// try ledger.setSplitRule(account: "main", spendWeight: 50, investWeight: 50)
    /// ```
    ///
    /// - Parameters:
    ///   - account: the wealth account.
    ///   - spendWeight: Spend's weight, 0 to ``WealthRules/splitWeightLimit``.
    ///   - investWeight: Invest's weight, 0 to ``WealthRules/splitWeightLimit``; not both zero.
    ///   - effectiveAt: when the rule takes effect (default: now).
    ///   - idempotencyKey: an optional key. A repeat with the same weights (and effective time,
    ///     when given) returns the first result; with others it is refused. A command that
    ///     records nothing (the rule was in force) does not use up its key.
    /// - Throws: ``LedgerError`` (`invalidArgument`) for a negative weight, a weight past the
    ///   limit, or both weights zero; `idempotencyConflict` for a key used with other input.
    @discardableResult
    public func setSplitRule(
        account: String, spendWeight: Int64, investWeight: Int64, effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> CommandResult {
        try run(setSplitRuleCommand(account: account, spendWeight: spendWeight, investWeight: investWeight, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``setSplitRule(account:spendWeight:investWeight:effectiveAt:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func setSplitRuleCommand(
        account: String, spendWeight: Int64, investWeight: Int64, effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> LedgerCommand {
        let at = try wealthInstant(effectiveAt)
        try WealthRules.validate(accountName: account)
        let rule = SplitRule(spendWeight: spendWeight, investWeight: investWeight)
        try WealthRules.validate(rule)
        let event = NewEvent(effectiveAt: at, body: EventBody(SplitRuleSet(account: account, spendWeight: spendWeight, investWeight: investWeight)))
        let calendar = self.calendar
        return LedgerCommand(idempotencyKey: idempotencyKey, request: event, requestHasEffectiveTime: effectiveAt != nil) { db in
            guard try WealthQueries.settings(account, asOf: at, db).splitRule != rule else { return [] }
            // Deposits received after `at` until the rule's next change were split by the rule they met.
            let end = try WealthQueries.nextChange(account, .splitRule, after: at, db)
            var conflict: (what: String, date: LocalDate)?
            for deposit in try WealthQueries.entries(account, [.deposit], after: at, before: end, db) where conflict == nil {
                if let split = try WealthQueries.consequences(of: deposit.sequence, db).first(where: { $0.kind == .split }), split.detail != rule.description {
                    conflict = ("the \(split.detail ?? "") split of a deposit", calendar.date(of: deposit.effectiveAt))
                }
            }
            try WealthRules.requireNoLaterDecision("the split rule \(rule)", from: calendar.date(of: at), conflict: conflict)
            return [event]
        }
    }

    /// Switches round-ups on or off. Nothing is recorded when they are already so.
    ///
    /// ```swift
    /// try ledger.setRoundUps(account: "main", enabled: true)
    /// ```
    ///
    /// - Parameters:
    ///   - account: the wealth account.
    ///   - enabled: on or off.
    ///   - effectiveAt: when the switch takes effect (default: now).
    ///   - idempotencyKey: an optional key. A repeat with the same input (and effective time,
    ///     when given) returns the first result; with other input it is refused. A command
    ///     that records nothing does not use up its key.
    /// - Throws: ``LedgerError`` (`invalidArgument`) for a bad account name;
    ///   `idempotencyConflict` for a key used with other input.
    @discardableResult
    public func setRoundUps(account: String, enabled: Bool, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(setRoundUpsCommand(account: account, enabled: enabled, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``setRoundUps(account:enabled:effectiveAt:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func setRoundUpsCommand(account: String, enabled: Bool, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> LedgerCommand {
        let calendar = self.calendar
        return try wealthSwitch(account, effectiveAt, idempotencyKey, isInForce: { $0.roundUpsEnabled == enabled }, laterDecisions: { at, db in
            // Purchases after `at` until the next switch rounded up (or not) as round-ups then were.
            let change = "switching round-ups \(enabled ? "on" : "off")"
            let end = try WealthQueries.nextChange(account, .roundUps, after: at, db)
            for purchase in try WealthQueries.entries(account, [.purchase], after: at, before: end, db)
            where try Self.roundUpDecision(for: purchase.amount, at: purchase.effectiveAt, before: purchase.sequence, db) != nil {
                let roundedUp = try WealthQueries.consequences(of: purchase.sequence, db).contains { Self.roundUpKinds.contains($0.kind) }
                if roundedUp != enabled {
                    return (change, ("a purchase \(roundedUp ? "with" : "without") a round-up", calendar.date(of: purchase.effectiveAt)))
                }
            }
            return (change, nil)
        }) {
            EventBody(RoundUpsSwitched(account: account, enabled: enabled))
        }
    }

    /// Sets the round-up increment of one currency for every wealth account, from its
    /// effective date until the next change by date: purchases in it round up to the next
    /// multiple of `increment` (100 JPY, 0.001 BTC); nil sets none, and their round-ups are
    /// then recorded as not defined, moving nothing. Until set, the default of
    /// ``WealthRules/defaultRoundUpIncrement(for:)`` holds (one major unit for an ISO currency
    /// with minor units; none for JPY, crypto and other codes). Nothing is recorded when the
    /// increment is already in force.
    ///
    /// ```swift
    /// try ledger.setRoundUpIncrement(currency: .jpy, increment: Money(minorUnits: 100, commodity: .jpy))
    /// try ledger.setRoundUpIncrement(currency: .gbp, increment: nil)   // no round-ups in GBP
    /// ```
    ///
    /// - Parameters:
    ///   - currency: a currency the ledger accepts (``CurrencyRule``).
    ///   - increment: positive, in `currency`; nil for none.
    ///   - effectiveAt: when the increment takes effect (default: now).
    ///   - idempotencyKey: an optional key. A repeat with the same input (and effective time,
    ///     when given) returns the first result; with other input it is refused.
    /// - Throws: ``LedgerError``: `invalidArgument` for an unknown currency or an increment not
    ///   positive or in another currency; `notAllowed` when a purchase in `currency` recorded
    ///   after the effective time rounded up by another increment (naming its day);
    ///   `idempotencyConflict` for a key used with other input.
    @discardableResult
    public func setRoundUpIncrement(currency: Commodity, increment: Money?, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(setRoundUpIncrementCommand(currency: currency, increment: increment, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``setRoundUpIncrement(currency:increment:effectiveAt:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func setRoundUpIncrementCommand(
        currency: Commodity, increment: Money?, effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> LedgerCommand {
        let at = try wealthInstant(effectiveAt)
        if let increment { try WealthRules.validate(roundUpIncrement: increment, for: currency) }
        let event = NewEvent(effectiveAt: at, body: EventBody(RoundUpIncrementSet(currency: currency, increment: increment)))
        let calendar = self.calendar
        return LedgerCommand(idempotencyKey: idempotencyKey, request: event, requestHasEffectiveTime: effectiveAt != nil) { db in
            try CurrencyRule.require(currency, db)
            if let increment { try CurrencyRule.require(increment, "the round-up increment", db) }
            guard try WealthQueries.roundUpIncrement(currency, asOf: at, db).increment != increment else { return [] }
            let change = "the round-up increment \(increment.map(\.description) ?? "none") for \(currency.code)"
            try WealthRules.requireNoLaterDecision(change, from: calendar.date(of: at), conflict: try Self.roundUpConflict(
                currency, increment, from: at, calendar, db))
            return [event]
        }
    }

    /// The first purchase in `currency` after `at` (until the increment's next change) whose
    /// recorded round-up differs from what `increment` gives it, as the conflict to name.
    private static func roundUpConflict(
        _ currency: Commodity, _ increment: Money?, from at: Instant, _ calendar: LedgerCalendar, _ db: Database
    ) throws -> (what: String, date: LocalDate)? {
        let end = try WealthQueries.nextIncrementChange(currency, after: at, db)
        for purchase in try WealthQueries.purchases(in: currency, after: at, before: end, db) {
            let account = try WealthQueries.account(of: purchase.sequence, db)
            guard try WealthQueries.settings(account, asOf: purchase.effectiveAt, before: purchase.sequence, db).roundUpsEnabled else { continue }
            let recorded = try WealthQueries.consequences(of: purchase.sequence, db).first { roundUpKinds.contains($0.kind) }
            let wanted: RoundUpDecision? = try increment.map { increment in
                let roundUp = try WealthRules.roundUp(for: purchase.amount, increment: increment)
                return roundUp.isPositive ? .roundUp(roundUp) : nil
            } ?? .notDefined
            let had: RoundUpDecision? = recorded.map { $0.kind == .roundUpNotDefined ? .notDefined : .roundUp($0.amount) }
            if had != wanted {
                return ("a purchase of \(purchase.amount) in wealth account '\(account)' with \(had?.description ?? "no round-up")", calendar.date(of: purchase.effectiveAt))
            }
        }
        return nil
    }

    /// Pauses automation: deposits from now on stay unsplit in the wallet (status `paused`).
    /// Nothing is recorded when automation is already paused.
    ///
    /// ```swift
    /// try ledger.pauseAutomation(account: "main")
    /// try ledger.wealthSummary(account: "main").status   // .paused
    /// ```
    ///
    /// - Parameters:
    ///   - account: the wealth account.
    ///   - effectiveAt: when the pause takes effect (default: now).
    ///   - idempotencyKey: an optional key. A repeat with the same input (and effective time,
    ///     when given) returns the first result; with other input it is refused. A command
    ///     that records nothing does not use up its key.
    /// - Throws: ``LedgerError`` (`invalidArgument`) for a bad account name;
    ///   `idempotencyConflict` for a key used with other input.
    @discardableResult
    public func pauseAutomation(account: String, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(pauseAutomationCommand(account: account, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``pauseAutomation(account:effectiveAt:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func pauseAutomationCommand(account: String, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> LedgerCommand {
        let calendar = self.calendar
        return try wealthSwitch(account, effectiveAt, idempotencyKey, isInForce: { $0.isPaused }, laterDecisions: { at, db in
            // Deposits received after `at` until the next resume were split when they arrived.
            let end = try WealthQueries.nextChange(account, .paused, after: at, db)
            for deposit in try WealthQueries.entries(account, [.deposit], after: at, before: end, db) {
                if let split = try WealthQueries.consequences(of: deposit.sequence, db).first(where: { $0.kind == .split }),
                   split.effectiveAt < end ?? .latest {
                    return ("pausing automation", ("the split of a deposit", calendar.date(of: split.effectiveAt)))
                }
            }
            return ("pausing automation", nil)
        }) {
            EventBody(AutomationPaused(account: account))
        }
    }

    /// Resumes automation and, in the same commit, splits every deposit that waited, each
    /// caused by its deposit and split by the rule in force when that deposit arrived.
    /// When automation is not paused it only splits deposits that wait (if any); otherwise
    /// nothing is recorded.
    ///
    /// ```swift
    /// try ledger.resumeAutomation(account: "main")   // automation_resumed, deposit_split …
    /// ```
    ///
    /// - Parameters:
    ///   - account: the wealth account.
    ///   - effectiveAt: when automation resumes and the waiting deposits split (default: now).
    ///   - idempotencyKey: an optional key. Which event comes first depends on state (the
    ///     resume, or a waiting deposit's split), so a repeat is compared on the account and
    ///     the effective time (when given) of the event the key recorded: the same returns
    ///     the first result, others are refused.
    /// - Throws: ``LedgerError`` (`invalidArgument`) for a bad account name;
    ///   `idempotencyConflict` for a key used with other input or by another command.
    @discardableResult
    public func resumeAutomation(account: String, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(resumeAutomationCommand(account: account, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``resumeAutomation(account:effectiveAt:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func resumeAutomationCommand(account: String, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> LedgerCommand {
        let at = try wealthInstant(effectiveAt)
        try WealthRules.validate(accountName: account)
        let resumed = NewEvent(effectiveAt: at, body: EventBody(AutomationResumed(account: account)))
        // The first event is the resume, or a waiting deposit's split: a repeat is compared on the account.
        let request = try repeatRequest(key: idempotencyKey) { first in
            switch first.body.payload {
            case is AutomationResumed:
                return resumed
            case var split as DepositSplit:
                split.account = account
                return NewEvent(effectiveAt: at, body: EventBody(split))
            default:
                return nil
            }
        }
        let calendar = self.calendar
        return LedgerCommand(idempotencyKey: idempotencyKey, request: request, requestHasEffectiveTime: effectiveAt != nil) { db in
            var events: [NewEvent] = []
            let end = try WealthQueries.nextChange(account, .paused, after: at, to: true, db) ?? .latest
            if try WealthQueries.settings(account, asOf: at, db).isPaused {
                // Deposits recorded as arriving after `at` (until the next pause) must not have waited for a later resume.
                var conflict: (what: String, date: LocalDate)?
                for deposit in try WealthQueries.entries(account, [.deposit], after: at, before: end, db) where conflict == nil {
                    if let split = try WealthQueries.consequences(of: deposit.sequence, db).first(where: { $0.kind == .split }),
                       split.effectiveAt > deposit.effectiveAt {
                        conflict = ("a deposit that waited for automation to resume", calendar.date(of: deposit.effectiveAt))
                    }
                }
                try WealthRules.requireNoLaterDecision("resuming automation", from: calendar.date(of: at), conflict: conflict)
                events.append(resumed)
            }
            // Waiting deposits up to the next pause split at the resume, or when they arrived if later,
            // each by the rule in force on its own day.
            for deposit in try WealthQueries.unsplitDeposits(account, db) where deposit.effectiveAt < end {
                let rule = try WealthQueries.settings(account, asOf: deposit.effectiveAt, before: deposit.sequence, db).splitRule
                events.append(try Self.split(deposit.amount, of: .sequence(deposit.sequence), account: account, rule: rule, at: max(at, deposit.effectiveAt)))
            }
            return events
        }
    }

    /// Freezes the card: purchases are refused until it is unfrozen. Nothing is recorded
    /// when the card is already frozen.
    ///
    /// ```swift
    /// try ledger.freezeCard(account: "main")
    /// try ledger.purchase(account: "main", amount: try Money(parsing: "3.40", commodity: .usd), merchant: "Coffee")
    /// // throws LedgerError cardFrozen
    /// ```
    ///
    /// - Parameters:
    ///   - account: the wealth account.
    ///   - effectiveAt: when the freeze takes effect (default: now).
    ///   - idempotencyKey: an optional key. A repeat with the same input (and effective time,
    ///     when given) returns the first result; with other input it is refused. A command
    ///     that records nothing does not use up its key.
    /// - Throws: ``LedgerError`` (`invalidArgument`) for a bad account name;
    ///   `idempotencyConflict` for a key used with other input.
    @discardableResult
    public func freezeCard(account: String, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(freezeCardCommand(account: account, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``freezeCard(account:effectiveAt:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func freezeCardCommand(account: String, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> LedgerCommand {
        let calendar = self.calendar
        return try wealthSwitch(account, effectiveAt, idempotencyKey, isInForce: { $0.cardFrozen }, laterDecisions: { at, db in
            // A frozen card refuses purchases: none may be recorded after `at` until the next unfreeze.
            let end = try WealthQueries.nextChange(account, .cardFrozen, after: at, db)
            let purchase = try WealthQueries.entries(account, [.purchase], after: at, before: end, db).first
            return ("freezing the card", purchase.map { ("a card purchase", calendar.date(of: $0.effectiveAt)) })
        }) {
            EventBody(CardFrozen(account: account))
        }
    }

    /// Unfreezes the card. Nothing is recorded when the card is not frozen.
    ///
    /// ```swift
    /// try ledger.unfreezeCard(account: "main")
    /// ```
    ///
    /// - Parameters:
    ///   - account: the wealth account.
    ///   - effectiveAt: when the card works again (default: now).
    ///   - idempotencyKey: an optional key. A repeat with the same input (and effective time,
    ///     when given) returns the first result; with other input it is refused. A command
    ///     that records nothing does not use up its key.
    /// - Throws: ``LedgerError`` (`invalidArgument`) for a bad account name;
    ///   `idempotencyConflict` for a key used with other input.
    @discardableResult
    public func unfreezeCard(account: String, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(unfreezeCardCommand(account: account, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``unfreezeCard(account:effectiveAt:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func unfreezeCardCommand(account: String, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> LedgerCommand {
        try wealthSwitch(account, effectiveAt, idempotencyKey, isInForce: { !$0.cardFrozen }) {
            EventBody(CardUnfrozen(account: account))
        }
    }

    /// Pays a card purchase from Spend and, with round-ups on, moves its round-up from Spend
    /// to Invest in the same commit (`round_up_applied`, caused by the purchase) — or, when
    /// Spend after the purchase cannot cover the round-up whole, records `round_up_skipped`
    /// and moves nothing. A whole amount rounds up by zero: no round-up event.
    ///
    /// ```swift
    /// try ledger.purchase(account: "main", amount: try Money(parsing: "3.40", commodity: .usd), merchant: "Coffee")
    /// // Spend -3.40, and with round-ups on -0.60 more; Invest +0.60
    /// ```
    ///
    /// - Parameters:
    ///   - account: the wealth account.
    ///   - amount: positive, in the currency of a Spend balance that covers it.
    ///   - merchant: who was paid (not empty).
    ///   - externalId: the card network's transaction id.
    ///   - effectiveAt: when the purchase was made (default: now).
    ///   - idempotencyKey: an optional key. A repeat with the same amount, merchant, external
    ///     id and effective time (when given) returns the first result, even when Spend could
    ///     no longer cover it; with other input it is refused.
    /// - Throws: ``LedgerError``: `notFound` when the wealth account has no deposit yet (no
    ///   such account); `cardFrozen` when the card is frozen; `insufficientFunds`
    ///   when the amount is more than Spend in its currency; `invalidArgument` for a
    ///   non-positive amount, an empty merchant or text past its limit; `idempotencyConflict`
    ///   for a key used with other input. Nothing is appended.
    @discardableResult
    public func purchase(
        account: String, amount: Money, merchant: String, externalId: String? = nil,
        effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> CommandResult {
        try run(purchaseCommand(account: account, amount: amount, merchant: merchant, externalId: externalId, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``purchase(account:amount:merchant:externalId:effectiveAt:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func purchaseCommand(
        account: String, amount: Money, merchant: String, externalId: String? = nil,
        effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> LedgerCommand {
        let at = try wealthInstant(effectiveAt)
        try WealthRules.validate(accountName: account)
        try WealthRules.requirePositive(amount, "the purchase amount")
        try WealthRules.validate(text: merchant, "the merchant", isRequired: true)
        if let externalId { try WealthRules.validate(text: externalId, "the external id") }
        let made = NewEvent(effectiveAt: at, body: EventBody(
            PurchaseMade(account: account, amount: amount, merchant: merchant, externalId: externalId)))
        let calendar = self.calendar
        return LedgerCommand(idempotencyKey: idempotencyKey, request: made, requestHasEffectiveTime: effectiveAt != nil) { db in
            try CurrencyRule.require(amount, "the purchase amount", db)
            // No account is `notFound`, not a Spend balance of zero that cannot cover it.
            try WealthQueries.requireAccount(account, db)
            return try [made] + Self.purchaseRoundUp(amount, of: .earlierInBatch(0), account: account, at: at, calendar, db)
        }
    }

    /// Withdraws money from Spend (to a bank account, a wallet address …).
    ///
    /// ```swift
    /// try ledger.withdraw(account: "main", amount: try Money(parsing: "20.00", commodity: .usd), destination: "checking")
    /// ```
    ///
    /// - Parameters:
    ///   - account: the wealth account.
    ///   - amount: positive, at most Spend in its currency.
    ///   - destination: where the money went, optional.
    ///   - effectiveAt: when the withdrawal was made (default: now).
    ///   - idempotencyKey: an optional key. A repeat with the same amount, destination and
    ///     effective time (when given) returns the first result, even when Spend could no
    ///     longer cover it; with other input it is refused.
    /// - Throws: ``LedgerError``: `notFound` when the wealth account has no deposit yet;
    ///   `insufficientFunds` when the amount is more than Spend in its
    ///   currency; `invalidArgument` for a non-positive amount or text past its limit;
    ///   `idempotencyConflict` for a key used with other input.
    @discardableResult
    public func withdraw(
        account: String, amount: Money, destination: String? = nil, effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> CommandResult {
        try run(withdrawCommand(account: account, amount: amount, destination: destination, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``withdraw(account:amount:destination:effectiveAt:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func withdrawCommand(
        account: String, amount: Money, destination: String? = nil, effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> LedgerCommand {
        let at = try wealthInstant(effectiveAt)
        try WealthRules.validate(accountName: account)
        try WealthRules.requirePositive(amount, "the withdrawal amount")
        if let destination { try WealthRules.validate(text: destination, "the destination") }
        let made = NewEvent(effectiveAt: at, body: EventBody(WithdrawalMade(account: account, amount: amount, destination: destination)))
        let calendar = self.calendar
        return LedgerCommand(idempotencyKey: idempotencyKey, request: made, requestHasEffectiveTime: effectiveAt != nil) { db in
            try CurrencyRule.require(amount, "the withdrawal amount", db)
            try WealthQueries.requireAccount(account, db)
            let spend = try Self.lowestSpend(account, amount.commodity, from: at, calendar, db)
            try WealthRules.requireSpendCovers(amount, lowestSpend: spend, on: calendar.date(of: at), account: account, what: "the withdrawal")
            return [made]
        }
    }

    // MARK: Helpers

    /// The effective time of a wealth command: `now` by default; refused outside years 0001-9999.
    func wealthInstant(_ effectiveAt: Instant?) throws -> Instant {
        let at = effectiveAt ?? now
        guard at.isInCalendarRange else {
            throw LedgerError(.invalidArgument, "the effective time must lie in years 0001 to 9999")
        }
        return at
    }

    /// A command that records one event unless the setting it asks for is already in force at
    /// its effective time; `laterDecisions` names the change and the first event recorded
    /// after that time which the change would contradict (it is then refused).
    private func wealthSwitch(
        _ account: String, _ effectiveAt: Instant?, _ idempotencyKey: String?,
        isInForce: @escaping @Sendable (WealthQueries.Settings) -> Bool,
        laterDecisions: (@Sendable (Instant, Database) throws -> (change: String, conflict: (what: String, date: LocalDate)?))? = nil,
        _ body: () -> EventBody
    ) throws -> LedgerCommand {
        let at = try wealthInstant(effectiveAt)
        try WealthRules.validate(accountName: account)
        let event = NewEvent(effectiveAt: at, body: body())
        let calendar = self.calendar
        return LedgerCommand(idempotencyKey: idempotencyKey, request: event, requestHasEffectiveTime: effectiveAt != nil) { db in
            guard try !isInForce(WealthQueries.settings(account, asOf: at, db)) else { return [] }
            if let decisions = try laterDecisions?(at, db) {
                try WealthRules.requireNoLaterDecision(decisions.change, from: calendar.date(of: at), conflict: decisions.conflict)
            }
            return [event]
        }
    }

    /// The lowest Spend balance in `commodity` from `instant` on, and its day; with `pending`,
    /// as if those legs (a correction's reversals) were recorded.
    static func lowestSpend(
        _ account: String, _ commodity: Commodity, from instant: Instant, pending: [Posting] = [], _ calendar: LedgerCalendar, _ db: Database
    ) throws -> (amount: Money, date: LocalDate) {
        let lowest = try BalanceQueries.lowestBalance(db, account: LedgerAccounts.spend(account), commodity: commodity, from: instant, pending: pending)
        return (lowest.amount, calendar.date(of: lowest.at))
    }

    /// Checks a purchase of `amount` at `at` (caused-by reference `purchase`) against the card
    /// and Spend in force then and after, and returns its round-up: applied, skipped or none.
    /// With `pending`, Spend counts those legs (a correction's reversals) as recorded.
    static func purchaseRoundUp(
        _ amount: Money, of purchase: CauseReference, account: String, at: Instant, pending: [Posting] = [],
        _ calendar: LedgerCalendar, _ db: Database
    ) throws -> [NewEvent] {
        let settings = try WealthQueries.settings(account, asOf: at, db)
        guard !settings.cardFrozen else {
            throw LedgerError(.cardFrozen, "the card of wealth account '\(account)' is frozen on \(calendar.date(of: at)); unfreeze it to make purchases")
        }
        let spend = try lowestSpend(account, amount.commodity, from: at, pending: pending, calendar, db)
        try WealthRules.requireSpendCovers(amount, lowestSpend: spend, on: calendar.date(of: at), account: account, what: "the purchase")
        guard settings.roundUpsEnabled else { return [] }
        let roundUp: Money
        switch try roundUpDecision(for: amount, at: at, db) {
        case nil: return []
        case .notDefined?:
            return [NewEvent(effectiveAt: at, cause: purchase, body: EventBody(RoundUpNotDefined(account: account, currency: amount.commodity)))]
        case .roundUp(let amount)?: roundUp = amount
        }
        // The round-up too must leave Spend covered from the purchase on.
        switch try WealthRules.roundUpOutcome(roundUp, spendAfterPurchase: try spend.amount.subtracting(amount)) {
        case .applied:
            return [NewEvent(effectiveAt: at, cause: purchase, body: EventBody(RoundUpApplied(account: account, amount: roundUp)))]
        case .skipped:
            return [NewEvent(effectiveAt: at, cause: purchase, body: EventBody(RoundUpSkipped(account: account, amount: roundUp)))]
        case nil:
            return []
        }
    }

    /// What a purchase of `amount` at `at` (with `sequence`, the recorded one of that number)
    /// rounds up by when round-ups are on: a positive round-up by the increment of its currency
    /// in force then, not defined when the currency has none, nil when it is a multiple of it.
    static func roundUpDecision(for amount: Money, at: Instant, before sequence: UInt64? = nil, _ db: Database) throws -> RoundUpDecision? {
        guard let increment = try WealthQueries.roundUpIncrement(amount.commodity, asOf: at, before: sequence, db).increment else {
            return .notDefined
        }
        let roundUp = try WealthRules.roundUp(for: amount, increment: increment)
        return roundUp.isPositive ? .roundUp(roundUp) : nil
    }

    /// A purchase's round-up when round-ups are on: an amount (applied or skipped by Spend), or
    /// not defined for its currency.
    enum RoundUpDecision: Equatable, CustomStringConvertible {
        case roundUp(Money)
        case notDefined

        var description: String {
            switch self {
            case .roundUp(let amount): "the round-up \(amount)"
            case .notDefined: "a round-up not defined"
            }
        }
    }

    /// The history kinds a purchase's round-up decision is recorded as.
    static let roundUpKinds: Set<WealthHistoryEntry.Kind> = [.roundUp, .roundUpSkipped, .roundUpNotDefined]

    /// The split of a deposit of `amount` arriving at `at` (caused by `deposit`): at once by
    /// the rule in force then; when automation was paused then and resumed since, at the
    /// resume, by the rule of its own day; while still paused, none (it waits).
    static func depositSplit(
        _ amount: Money, of deposit: CauseReference, account: String, at: Instant, _ db: Database
    ) throws -> [NewEvent] {
        let settings = try WealthQueries.settings(account, asOf: at, db)
        if !settings.isPaused {
            return [try split(amount, of: deposit, account: account, rule: settings.splitRule, at: at)]
        }
        if let resumed = try WealthQueries.nextChange(account, .paused, after: at, to: false, db) {
            // Paused when it arrived and resumed since: it waited until the resume, and splits by its own day's rule.
            return [try split(amount, of: deposit, account: account, rule: settings.splitRule, at: resumed)]
        }
        return []
    }

    /// The split of one deposit, caused by it.
    private static func split(_ amount: Money, of deposit: CauseReference, account: String, rule: SplitRule, at: Instant) throws -> NewEvent {
        let parts = try WealthRules.split(amount, by: rule)
        return NewEvent(effectiveAt: at, cause: deposit, body: EventBody(DepositSplit(
            account: account, spend: parts.spend, invest: parts.invest, spendWeight: rule.spendWeight, investWeight: rule.investWeight)))
    }

    /// Refuses a deposit that would take the sum of all deposits in its currency (and so the
    /// wallet, Spend or Invest) past what 64-bit minor units hold.
    static func requireBalancesCanHold(deposit amount: Money, _ db: Database) throws {
        let deposited = try BalanceQueries.balance(db, account: LedgerAccounts.deposits, commodity: amount.commodity)
        do {
            _ = try deposited.subtracting(amount).negated()
        } catch {
            throw LedgerError(.invalidArgument, "the deposit would take the \(amount.commodity.code) balance past the largest amount an account can hold")
        }
    }
}
