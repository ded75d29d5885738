public import TallyEngine
import GRDB

// The envelope product's commands and the rules they enforce (docs/domain.md §3): accounts
// with an opening balance, envelopes, and transactions and transfers assigned to them.
//
// Idempotency: every command takes an optional key; a repeat with the same input (and the
// same date, when the caller gave one) returns the first result and appends nothing, with
// other input it throws `idempotencyConflict`. The input is compared as the first event the
// command records, built once before planning and returned by the plan.

extension Ledger {
    /// The day a command without a date happens on: today in the ledger's time zone.
    var today: LocalDate { calendar.date(of: now) }

    /// When a day-kept command takes effect: the start of the day of `effectiveAt` (now by
    /// default) in the ledger's time zone. Envelopes and challenges are kept by day.
    func dayStart(_ effectiveAt: Instant?) -> Instant { calendar.startOfDay(calendar.date(of: effectiveAt ?? now)) }

    /// Opens a user account (`Assets:…` or `Liabilities:…`) in one currency, with an
    /// optional opening balance booked against `Equity:Opening Balances`.
    ///
    /// One convention in every product, as in net worth: an amount given for a liability is
    /// what is owed. A card opened with 300.00 owes 300.00; the ledger keeps its balance as
    /// -300.00 (the event records it so), which lowers every total by 300.00, and an expense
    /// paid by the card (a negative transaction on it) makes it owe more.
    ///
    /// ```swift
    /// try ledger.openEnvelopeAccount("Assets:Bank", commodity: .usd, openingBalance: usd("1500.00"))
    /// try ledger.openEnvelopeAccount("Liabilities:Card", commodity: .usd, openingBalance: usd("300.00"))   // 300.00 owed
    /// ```
    ///
    /// - Parameters:
    ///   - account: the name; its first segment gives its kind (`Liabilities:` a liability).
    ///   - commodity: the account's currency.
    ///   - openingBalance: in `commodity`: an asset's balance, or what a liability owes
    ///     (negative when the liability is in credit).
    ///   - effectiveAt: when it opens (now by default): from the start of that day.
    ///   - idempotencyKey: an optional key; a repeat with the same input returns the first
    ///     result and appends nothing, other input is refused.
    /// - Throws: ``LedgerError`` `invalidArgument` for another kind of name, `alreadyExists`,
    ///   `currencyMismatch` for an opening balance in another currency, `idempotencyConflict`.
    @discardableResult
    public func openEnvelopeAccount(
        _ account: String, commodity: Commodity, openingBalance: Money? = nil, effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> CommandResult {
        try run(openEnvelopeAccountCommand(account, commodity: commodity, openingBalance: openingBalance, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``openEnvelopeAccount(_:commodity:openingBalance:effectiveAt:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func openEnvelopeAccountCommand(
        _ account: String, commodity: Commodity, openingBalance: Money? = nil, effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> LedgerCommand {
        let kind = LedgerAccounts.kind(of: account)
        guard !account.isEmpty, account.count <= 200, let kind, kind == .asset || kind == .liability, !account.hasPrefix("Budget:") else {
            throw LedgerError(.invalidArgument, "the account name '\(account)' must start with Assets: or Liabilities:, e.g. Assets:Cash")
        }
        if let openingBalance, openingBalance.commodity != commodity {
            throw LedgerError(.currencyMismatch, "the opening balance of '\(account)' must be in \(commodity.code), the account's currency")
        }
        // The ledger keeps a liability's balance signed: what it owes is negative.
        let balance = try kind == .liability ? openingBalance?.negated() : openingBalance
        let opened = NewEvent(effectiveAt: dayStart(effectiveAt), body: EventBody(
            AccountOpened(account: account, kind: kind, commodity: commodity, openingBalance: balance)))
        return LedgerCommand(idempotencyKey: idempotencyKey, request: opened, requestHasEffectiveTime: effectiveAt != nil) { db in
            guard try !AccountRecords.exists(account, db) else {
                throw LedgerError(.alreadyExists, "an account named '\(account)' exists already; choose another name")
            }
            return [opened]
        }
    }

    /// Closes a user account opened with ``openEnvelopeAccount(_:commodity:openingBalance:effectiveAt:idempotencyKey:)``:
    /// from its closing day on it takes no transaction or transfer, and its history stays.
    /// Closing needs a zero balance at that day, with nothing recorded after it.
    ///
    /// ```swift
    /// try ledger.transferBetweenAccounts("empty-old", from: "Assets:Old bank", to: "Assets:Bank", amount: usd("12.00"))
    /// try ledger.closeEnvelopeAccount("Assets:Old bank")
    /// ```
    ///
    /// - Parameters:
    ///   - account: the account, e.g. `Assets:Old bank`.
    ///   - effectiveAt: when it closes (now by default): from the start of that day.
    ///   - idempotencyKey: an optional key; a repeat with the same input returns the first
    ///     result and appends nothing, other input is refused.
    /// - Throws: ``LedgerError`` `notFound` (no such account), `notAllowed` (closed already;
    ///   a balance other than zero, named with its amount; a transaction dated after the
    ///   closing day), `idempotencyConflict`.
    @discardableResult
    public func closeEnvelopeAccount(_ account: String, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(closeEnvelopeAccountCommand(account, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``closeEnvelopeAccount(_:effectiveAt:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func closeEnvelopeAccountCommand(_ account: String, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> LedgerCommand {
        let closed = NewEvent(effectiveAt: dayStart(effectiveAt), body: EventBody(AccountClosed(account: account)))
        let calendar = self.calendar
        return LedgerCommand(idempotencyKey: idempotencyKey, request: closed, requestHasEffectiveTime: effectiveAt != nil) { db in
            let commodity = try EnvelopeRules.openAccount(account, at: closed.effectiveAt, calendar: calendar, db)
            let day = calendar.date(of: closed.effectiveAt)
            if let later = try AccountRecords.firstMove(of: account, after: closed.effectiveAt, db) {
                throw LedgerError(.notAllowed, "account '\(account)' has a transaction dated \(calendar.date(of: later)), after \(day); close it on that day or later")
            }
            let balance = try BalanceQueries.balance(db, account: account, commodity: commodity)
            guard balance.isZero else {
                let owed = LedgerAccounts.kind(of: account) == .liability
                let shown = owed ? "owes \(try balance.negated())" : "holds \(balance)"
                throw LedgerError(.notAllowed, "account '\(account)' \(shown) on \(day); only an account at zero can be closed: move the money out (tally envelope transfer) first")
            }
            return [closed]
        }
    }

    /// Creates an envelope with a budgeted amount (in the base currency) per interval.
    ///
    /// ```swift
    /// try ledger.createEnvelope("groceries", name: "Groceries", interval: .monthly, budgeted: usd("400.00"),
    ///                           startDate: try LocalDate(parsing: "2026-05-01"))
    /// ```
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat with the same input returns the
    ///   first result and appends nothing, other input is refused. Without a start date, a
    ///   repeat keeps the day the first run started the envelope on.
    /// - Throws: ``LedgerError`` `invalidArgument` (empty id or name, amount not above
    ///   zero), `alreadyExists`, `currencyMismatch` (not the base currency), `idempotencyConflict`.
    @discardableResult
    public func createEnvelope(
        _ envelopeId: String, name: String, interval: EnvelopeInterval, budgeted: Money, startDate: LocalDate? = nil,
        idempotencyKey: String? = nil
    ) throws -> CommandResult {
        try run(createEnvelopeCommand(envelopeId, name: name, interval: interval, budgeted: budgeted, startDate: startDate, idempotencyKey: idempotencyKey))
    }

    /// The command ``createEnvelope(_:name:interval:budgeted:startDate:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func createEnvelopeCommand(
        _ envelopeId: String, name: String, interval: EnvelopeInterval, budgeted: Money, startDate: LocalDate? = nil,
        idempotencyKey: String? = nil
    ) throws -> LedgerCommand {
        guard !envelopeId.isEmpty, envelopeId.count <= 100 else {
            throw LedgerError(.invalidArgument, "an envelope needs an id (up to 100 characters)")
        }
        let name = try NameRule.name(name, "the envelope name")
        let at = now
        @Sendable func created(startingOn start: LocalDate) -> NewEvent {
            NewEvent(effectiveAt: min(at, calendar.startOfDay(start)), body: EventBody(
                EnvelopeCreated(envelopeId: envelopeId, name: name, interval: interval, budgeted: budgeted, startDate: start)))
        }
        // Without a start date the envelope starts today: a repeat keeps the first run's day.
        let request = try startDate.map(created) ?? repeatRequest(key: idempotencyKey) { first in
            guard let earlier = first.body.as(EnvelopeCreated.self) else { return nil }
            return created(startingOn: earlier.startDate)
        }
        return LedgerCommand(idempotencyKey: idempotencyKey, request: request, requestHasEffectiveTime: false) { [self] db in
            guard try !EnvelopeRecords.exists(envelopeId, db) else {
                throw LedgerError(.alreadyExists, "an envelope with id '\(envelopeId)' exists (or existed); choose another id")
            }
            guard budgeted.isPositive else {
                throw LedgerError(.invalidArgument, "the budgeted amount of envelope '\(envelopeId)' must be above zero")
            }
            // The base currency in force on the envelope's first day decides (issue 15, wrong today 2).
            let first = min(at, calendar.startOfDay(startDate ?? calendar.date(of: at)))
            let base = try LedgerSettings.read(db, point: PointInTime(asOf: first)).baseCurrency
            guard budgeted.commodity == base else {
                throw LedgerError(.currencyMismatch, "envelope budgets are in the base currency, \(base.code)")
            }
            return [created(startingOn: startDate ?? calendar.date(of: at))]
        }
    }

    /// Changes an envelope's budgeted amount (and interval) from a day on; a new interval
    /// re-anchors the envelope's intervals on that day (``EnvelopeSchedule``). Records nothing
    /// when that amount and interval are already in force on that day.
    ///
    /// ```swift
    /// try ledger.changeEnvelopeBudget("groceries", budgeted: usd("450.00"))                     // from today
    /// try ledger.changeEnvelopeBudget("groceries", budgeted: usd("100.00"), interval: .weekly)  // weeks from today
    /// ```
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat with the same input (and day,
    ///   when given) returns the first result and appends nothing, other input is refused.
    ///   Without an interval, a repeat keeps the interval the first run recorded. A command that
    ///   records nothing does not use up its key.
    /// - Throws: ``LedgerError`` `notFound`, `invalidArgument` (a negative amount),
    ///   `currencyMismatch`, `idempotencyConflict`.
    @discardableResult
    public func changeEnvelopeBudget(
        _ envelopeId: String, budgeted: Money, interval: EnvelopeInterval? = nil, effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> CommandResult {
        try run(changeEnvelopeBudgetCommand(envelopeId, budgeted: budgeted, interval: interval, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``changeEnvelopeBudget(_:budgeted:interval:effectiveAt:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func changeEnvelopeBudgetCommand(
        _ envelopeId: String, budgeted: Money, interval: EnvelopeInterval? = nil, effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> LedgerCommand {
        let at = dayStart(effectiveAt)
        @Sendable func changed(interval: EnvelopeInterval) -> NewEvent {
            NewEvent(effectiveAt: at, body: EventBody(EnvelopeBudgetChanged(envelopeId: envelopeId, budgeted: budgeted, interval: interval)))
        }
        // Without an interval the envelope keeps its own: a repeat keeps the one the first run recorded.
        let request = try interval.map(changed) ?? repeatRequest(key: idempotencyKey) { first in
            guard let earlier = first.body.as(EnvelopeBudgetChanged.self) else { return nil }
            return changed(interval: earlier.interval)
        }
        let calendar = self.calendar
        return LedgerCommand(idempotencyKey: idempotencyKey, request: request, requestHasEffectiveTime: effectiveAt != nil) { db in
            let envelope = try EnvelopeRules.liveEnvelope(envelopeId, db)
            try EnvelopeRules.requireStarted(envelopeId, at: at, calendar: calendar, db)
            guard !budgeted.isNegative else {
                throw LedgerError(.invalidArgument, "the budgeted amount of envelope '\(envelopeId)' cannot be negative")
            }
            try EnvelopeRules.requireCurrency(budgeted, of: envelope)
            let change = changed(interval: interval ?? envelope.interval)
            if let inForce = try EnvelopeRecords.setting(of: envelopeId, inForceAt: at, db),
               inForce.budgeted == budgeted, inForce.interval == interval ?? envelope.interval {
                return []
            }
            return [change]
        }
    }

    /// Assigns money to an envelope beyond its budget in the interval of `effectiveAt`'s day (a negative
    /// amount takes some back).
    ///
    /// ```swift
    /// try ledger.fundEnvelope("groceries", amount: usd("50.00"))
    /// ```
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat with the same input (and day,
    ///   when given) returns the first result and appends nothing, other input is refused.
    /// - Throws: ``LedgerError`` `notFound`, `invalidArgument` (zero), `currencyMismatch`,
    ///   `idempotencyConflict`.
    @discardableResult
    public func fundEnvelope(_ envelopeId: String, amount: Money, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(fundEnvelopeCommand(envelopeId, amount: amount, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``fundEnvelope(_:amount:effectiveAt:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func fundEnvelopeCommand(_ envelopeId: String, amount: Money, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> LedgerCommand {
        let funded = NewEvent(effectiveAt: dayStart(effectiveAt), body: EventBody(EnvelopeFunded(envelopeId: envelopeId, amount: amount)))
        let calendar = self.calendar
        return LedgerCommand(idempotencyKey: idempotencyKey, request: funded, requestHasEffectiveTime: effectiveAt != nil) { db in
            let envelope = try EnvelopeRules.liveEnvelope(envelopeId, db)
            try EnvelopeRules.requireStarted(envelopeId, at: funded.effectiveAt, calendar: calendar, db)
            guard !amount.isZero else { throw LedgerError(.invalidArgument, "the amount funding envelope '\(envelopeId)' cannot be zero") }
            try EnvelopeRules.requireCurrency(amount, of: envelope)
            return [funded]
        }
    }

    /// Sets what an envelope's unspent and overspent amounts do next interval, from a day
    /// on (``EnvelopeRollover``; ``RolloverPolicy/default`` before any). Records nothing when
    /// that policy is already in force on that day.
    ///
    /// ```swift
    /// try ledger.setEnvelopeRollover("groceries", policy: .reset)
    /// ```
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat with the same input (and day,
    ///   when given) returns the first result and appends nothing, other input is refused. A
    ///   command that records nothing does not use up its key.
    /// - Throws: ``LedgerError`` `notFound`, `idempotencyConflict`.
    @discardableResult
    public func setEnvelopeRollover(_ envelopeId: String, policy: RolloverPolicy, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(setEnvelopeRolloverCommand(envelopeId, policy: policy, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``setEnvelopeRollover(_:policy:effectiveAt:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func setEnvelopeRolloverCommand(_ envelopeId: String, policy: RolloverPolicy, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> LedgerCommand {
        let set = NewEvent(effectiveAt: dayStart(effectiveAt), body: EventBody(EnvelopeRolloverSet(envelopeId: envelopeId, policy: policy)))
        return LedgerCommand(idempotencyKey: idempotencyKey, request: set, requestHasEffectiveTime: effectiveAt != nil) { db in
            _ = try EnvelopeRules.liveEnvelope(envelopeId, db)
            let inForce = try EnvelopeRecords.policy(of: envelopeId, inForceAt: set.effectiveAt, db) ?? .default
            return inForce == policy ? [] : [set]
        }
    }

    /// Deletes an envelope from a day on; its transactions stay, and answers for earlier
    /// days still show it.
    ///
    /// ```swift
    /// try ledger.deleteEnvelope("groceries")
    /// ```
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat for the same envelope (and day,
    ///   when given) returns the first result and appends nothing, other input is refused.
    /// - Throws: ``LedgerError`` `notFound`, `idempotencyConflict`.
    @discardableResult
    public func deleteEnvelope(_ envelopeId: String, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(deleteEnvelopeCommand(envelopeId, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``deleteEnvelope(_:effectiveAt:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func deleteEnvelopeCommand(_ envelopeId: String, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> LedgerCommand {
        let deleted = NewEvent(effectiveAt: dayStart(effectiveAt), body: EventBody(EnvelopeDeleted(envelopeId: envelopeId)))
        return LedgerCommand(idempotencyKey: idempotencyKey, request: deleted, requestHasEffectiveTime: effectiveAt != nil) { db in
            _ = try EnvelopeRules.liveEnvelope(envelopeId, db)
            return [deleted]
        }
    }

    /// Records income (positive) or an expense (negative) on an account, in the account's
    /// currency, with its rate to the base currency when they differ, assigned to an
    /// envelope.
    ///
    /// ```swift
    /// // A 3,000 JPY dinner in a USD ledger, 1 JPY = 0.0067 USD: 20.10 USD from Dining out.
    /// try ledger.recordEnvelopeTransaction("t1", account: "Assets:Travel cash", amount: Money(parsing: "-3000", commodity: .jpy),
    ///                                      rateToBase: ExactDecimal(parsing: "0.0067"), envelope: "dining", payee: "Sushi bar")
    /// ```
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat with the same input (and day,
    ///   when given) returns the first result and appends nothing, other input is refused. A
    ///   transaction in the base currency records no rate, so there a rate of 1 and none are
    ///   the same input.
    /// - Throws: ``LedgerError`` `notFound` (account, envelope), `alreadyExists` (the
    ///   transaction id), `invalidArgument` (zero amount, a missing or non-positive rate),
    ///   `currencyMismatch` (not the account's currency), `idempotencyConflict`.
    @discardableResult
    public func recordEnvelopeTransaction(
        _ transactionId: String, account: String, amount: Money, rateToBase: ExactDecimal? = nil, envelope: String? = nil,
        payee: String = "", category: BudgetCategory = .general, effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> CommandResult {
        try run(recordEnvelopeTransactionCommand(transactionId, account: account, amount: amount, rateToBase: rateToBase, envelope: envelope, payee: payee, category: category, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``recordEnvelopeTransaction(_:account:amount:rateToBase:envelope:payee:category:effectiveAt:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func recordEnvelopeTransactionCommand(
        _ transactionId: String, account: String, amount: Money, rateToBase: ExactDecimal? = nil, envelope: String? = nil,
        payee: String = "", category: BudgetCategory = .general, effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> LedgerCommand {
        guard !transactionId.isEmpty, transactionId.count <= 100, payee.count <= 200 else {
            throw LedgerError(.invalidArgument, "a transaction needs an id (up to 100 characters) and a payee of up to 200")
        }
        let at = dayStart(effectiveAt)
        @Sendable func recorded(rate: ExactDecimal?) -> NewEvent {
            NewEvent(effectiveAt: at, body: EventBody(TransactionRecorded(
                transactionId: transactionId, payee: payee, category: category, amount: amount, source: .manual,
                account: account, envelope: envelope, rateToBase: rate
            )))
        }
        // The rate recorded depends on the base currency when planned (none for the base
        // currency itself): a repeat keeps "none" when the first run recorded none and the
        // rate given is 1 or none, and compares the rate given otherwise.
        let request = try repeatRequest(key: idempotencyKey) { first in
            guard let earlier = first.body.as(TransactionRecorded.self) else { return nil }
            let isBaseCurrency = earlier.rateToBase == nil && (rateToBase == nil || rateToBase == .one)
            return recorded(rate: isBaseCurrency ? nil : rateToBase)
        }
        let calendar = self.calendar
        return LedgerCommand(idempotencyKey: idempotencyKey, request: request, requestHasEffectiveTime: effectiveAt != nil) { db in
            guard try !TransactionVersionRecords.exists(transactionId, db) else {
                throw LedgerError(.alreadyExists, "a transaction with id '\(transactionId)' exists; choose another id")
            }
            let commodity = try EnvelopeRules.openAccount(account, at: at, calendar: calendar, db)
            guard amount.commodity == commodity else {
                throw LedgerError(.currencyMismatch, "'\(account)' holds \(commodity.code); record the transaction in \(commodity.code)")
            }
            guard !amount.isZero else { throw LedgerError(.invalidArgument, "a transaction's amount cannot be zero") }
            let rate = try EnvelopeRules.rateToBase(rateToBase, for: amount.commodity, at: at, calendar: calendar, db)
            if let envelope {
                _ = try EnvelopeRules.liveEnvelope(envelope, db)
                try EnvelopeRules.requireStarted(envelope, at: at, calendar: calendar, db)
            }
            return [recorded(rate: rate)]
        }
    }

    /// Moves money between two user accounts; across currencies, `received` is what the
    /// target got. Assigned to an envelope, the amount counts as spent from it.
    ///
    /// ```swift
    /// try ledger.transferBetweenAccounts("move-1", from: "Assets:Bank", to: "Assets:Savings", amount: usd("200.00"))
    /// // Across currencies, say what the target received:
    /// try ledger.transferBetweenAccounts("move-2", from: "Assets:Bank", to: "Assets:Travel cash", amount: usd("100.00"),
    ///                                    received: try Money(parsing: "15000", commodity: .jpy))
    /// ```
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat with the same input (and day,
    ///   when given) returns the first result and appends nothing, other input is refused.
    /// - Throws: ``LedgerError`` `notFound`, `invalidArgument` (same account, amount not
    ///   above zero, `received` missing across currencies or given within one),
    ///   `currencyMismatch`, `idempotencyConflict`.
    @discardableResult
    public func transferBetweenAccounts(
        _ transferId: String, from source: String, to target: String, amount: Money, received: Money? = nil,
        envelope: String? = nil, effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> CommandResult {
        try run(transferBetweenAccountsCommand(transferId, from: source, to: target, amount: amount, received: received, envelope: envelope, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``transferBetweenAccounts(_:from:to:amount:received:envelope:effectiveAt:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func transferBetweenAccountsCommand(
        _ transferId: String, from source: String, to target: String, amount: Money, received: Money? = nil,
        envelope: String? = nil, effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> LedgerCommand {
        guard !transferId.isEmpty, transferId.count <= 100 else {
            throw LedgerError(.invalidArgument, "a transfer needs an id of up to 100 characters")
        }
        guard source != target else { throw LedgerError(.invalidArgument, "a transfer needs two different accounts") }
        // Within one currency the received amount is the amount itself, and is not recorded;
        // across currencies it differs from the amount (another currency) and is.
        let made = NewEvent(effectiveAt: dayStart(effectiveAt), body: EventBody(TransferMade(
            transferId: transferId, source: source, target: target, amount: amount,
            received: received == amount ? nil : received, envelope: envelope
        )))
        let calendar = self.calendar
        return LedgerCommand(idempotencyKey: idempotencyKey, request: made, requestHasEffectiveTime: effectiveAt != nil) { db in
            let sourceCommodity = try EnvelopeRules.openAccount(source, at: made.effectiveAt, calendar: calendar, db)
            let targetCommodity = try EnvelopeRules.openAccount(target, at: made.effectiveAt, calendar: calendar, db)
            guard amount.commodity == sourceCommodity else {
                throw LedgerError(.currencyMismatch, "'\(source)' holds \(sourceCommodity.code); give the amount in \(sourceCommodity.code)")
            }
            guard amount.isPositive else { throw LedgerError(.invalidArgument, "a transfer's amount must be above zero") }
            if sourceCommodity == targetCommodity {
                guard received == nil || received == amount else {
                    throw LedgerError(.invalidArgument, "both accounts hold \(sourceCommodity.code); give no received amount")
                }
            } else {
                guard let received, received.commodity == targetCommodity, received.isPositive else {
                    throw LedgerError(.invalidArgument, "'\(target)' holds \(targetCommodity.code); give the amount received in \(targetCommodity.code), above zero")
                }
            }
            if let envelope {
                _ = try EnvelopeRules.liveEnvelope(envelope, db)
                try EnvelopeRules.requireStarted(envelope, at: made.effectiveAt, calendar: calendar, db)
            }
            return [made]
        }
    }
}

/// The checks the envelope commands share, read from the read models.
enum EnvelopeRules {
    struct LiveEnvelope {
        let commodity: Commodity
        let interval: EnvelopeInterval
    }

    /// An envelope that exists and is not deleted.
    static func liveEnvelope(_ envelopeId: String, _ db: Database) throws -> LiveEnvelope {
        let changes = try EnvelopeRecords.changes(of: envelopeId, db)
        guard try EnvelopeRecords.exists(envelopeId, db),
              let created = changes.first(where: { $0.kind == .created }), let commodity = created.commodity,
              !changes.contains(where: { $0.kind == .deleted }) else {
            throw LedgerError(.notFound, "there is no envelope '\(envelopeId)'; create it first (tally envelope create)")
        }
        guard let interval = changes.last(where: { $0.kind == .created || $0.kind == .budget })?.interval else {
            throw LedgerError(.inconsistentLog, "envelope '\(envelopeId)' has no interval in its read model; run tally rebuild")
        }
        return LiveEnvelope(commodity: commodity, interval: interval)
    }

    /// Nothing happens before it exists (docs/domain.md): a record of an envelope dated
    /// before the envelope's first day is refused, naming both days, so that its status,
    /// spending, audit and export never disagree about it.
    static func requireStarted(_ envelopeId: String, at: Instant, calendar: LedgerCalendar, _ db: Database) throws {
        guard let start = try EnvelopeRecords.startDate(of: envelopeId, db) else { return }
        let day = calendar.date(of: at)
        guard day >= start else {
            throw LedgerError(.notAllowed, "envelope '\(envelopeId)' starts on \(start); a record dated \(day) comes before it")
        }
    }

    static func requireCurrency(_ amount: Money, of envelope: LiveEnvelope) throws {
        guard amount.commodity == envelope.commodity else {
            throw LedgerError(.currencyMismatch, "the envelope's amounts are in \(envelope.commodity.code)")
        }
    }

    /// The currency of an opened user account that a transaction at `at` may move: refused
    /// on a closed one, naming the closing day (one dated on or after it; one dated before
    /// would change the zero balance it closed with).
    /// Nothing happens before it exists: one dated before the day the account opened is
    /// refused, naming both days.
    static func openAccount(_ account: String, at: Instant, calendar: LedgerCalendar, _ db: Database) throws -> Commodity {
        guard let commodity = try EnvelopeRecords.accountCurrency(account, db), try AccountRecords.isOpen(account, db) != nil else {
            throw LedgerError(.notFound, "there is no open account '\(account)'; open it first (tally envelope account-open)")
        }
        if let opened = try EnvelopeRecords.accountOpenedAt(account, db), calendar.date(of: at) < calendar.date(of: opened) {
            throw LedgerError(.notAllowed, "account '\(account)' opened on \(calendar.date(of: opened)); a record dated \(calendar.date(of: at)) comes before it")
        }
        if let closed = try AccountRecords.closedAt(account, db) {
            let day = calendar.date(of: closed)
            throw LedgerError(.notAllowed, at >= closed
                ? "account '\(account)' was closed on \(day); it takes no transaction dated \(calendar.date(of: at)), after its closing"
                : "account '\(account)' was closed on \(day) with a zero balance; a transaction dated before the closing would change it")
        }
        return commodity
    }

    /// The rate to record: none (or exactly 1, dropped) for the base currency; for another
    /// currency the rate given, above zero, or, when none is given, none: the transaction is
    /// then kept in its own currency and every answer converts it by the one conversion rule
    /// (``RateBook``: the ledger's rate in force on its day, directly or through one other
    /// currency), as `envelope total` and `balances --value` do. Without a rate given, one the
    /// ledger knows on that day is required (issue 32, rule 2: after a change of base
    /// currency a JPY account keeps taking expenses when the ledger knows JPY's rate).
    /// The base currency is the one in force at `at`, the transaction's effective time (issue
    /// 15, wrong today 2): a transaction dated before a change of base currency is in the old one.
    static func rateToBase(_ rate: ExactDecimal?, for commodity: Commodity, at: Instant, calendar: LedgerCalendar, _ db: Database) throws -> ExactDecimal? {
        let base = try LedgerSettings.read(db, point: PointInTime(asOf: at)).baseCurrency
        if commodity == base {
            guard rate == nil || rate == .one else {
                throw LedgerError(.invalidArgument, "the transaction is in the base currency \(base.code); its rate to base is 1")
            }
            return nil
        }
        guard let rate else {
            let rates = RateBook(quotes: try EnvelopeBook.quotes(db, through: at, knownAt: nil, after: nil))
            guard try rates.convert(Money(minorUnits: 1, commodity: commodity), to: base, at: at) != nil else {
                throw LedgerError(.invalidArgument, "a transaction in \(commodity.code) needs its rate to \(base.code), above zero (1 \(commodity.code) = RATE \(base.code)): the ledger knows no rate between them on \(calendar.date(of: at)), directly or through one other currency")
            }
            return nil
        }
        guard rate.significand > 0 else {
            throw LedgerError(.invalidArgument, "a transaction in \(commodity.code) needs its rate to \(base.code), above zero (1 \(commodity.code) = RATE \(base.code))")
        }
        return rate
    }
}
