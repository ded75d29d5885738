public import TallyEngine
import GRDB

// Savings challenges (docs/domain.md §3): started from a template; each completed step is a
// saving transaction; progress is derived from the completed steps.
//
// Idempotency: both commands take an optional key; a repeat with the same input (and the
// same day, when the caller gave one) returns the first result and appends nothing, with
// other input it throws `idempotencyConflict`.

extension Ledger {
    /// Starts a savings challenge from a template (``ChallengeTemplate/all``).
    ///
    /// ```swift
    /// try ledger.startChallenge("save-2026", template: "52_week", unit: usd("1.00"), account: "Assets:Savings")
    /// ```
    ///
    /// - Parameters:
    ///   - unit: what one template unit is worth (step n of `52_week` saves n units).
    ///   - account: where the savings go; each step then moves its amount there from the
    ///     account named when completing it. Without one, steps are only counted.
    ///   - idempotencyKey: an optional key; a repeat with the same input (and day, when given)
    ///     returns the first result and appends nothing, other input is refused.
    /// - Throws: ``LedgerError`` `invalidArgument` (unknown template, unit not above zero,
    ///   empty id), `alreadyExists`, `notFound` (account), `currencyMismatch`, `idempotencyConflict`.
    @discardableResult
    public func startChallenge(
        _ challengeId: String, template templateId: String, name: String? = nil, unit: Money, account: String? = nil,
        effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> CommandResult {
        try run(startChallengeCommand(challengeId, template: templateId, name: name, unit: unit, account: account, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``startChallenge(_:template:name:unit:account:effectiveAt:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func startChallengeCommand(
        _ challengeId: String, template templateId: String, name: String? = nil, unit: Money, account: String? = nil,
        effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> LedgerCommand {
        guard !challengeId.isEmpty, challengeId.count <= 100 else {
            throw LedgerError(.invalidArgument, "a challenge needs an id of up to 100 characters")
        }
        let name = try name.map { try NameRule.name($0, "the challenge name") }
        guard let template = ChallengeTemplate.named(templateId) else {
            let known = ChallengeTemplate.all.map(\.id).joined(separator: ", ")
            throw LedgerError(.invalidArgument, "there is no challenge template '\(templateId)'; use one of \(known)")
        }
        let started = NewEvent(effectiveAt: dayStart(effectiveAt), body: EventBody(ChallengeStarted(
            challengeId: challengeId, template: template.id, name: name ?? template.name, unit: unit,
            stepCount: template.stepCount, account: account)))
        let calendar = self.calendar
        return LedgerCommand(idempotencyKey: idempotencyKey, request: started, requestHasEffectiveTime: effectiveAt != nil) { db in
            guard try !ChallengesProjector.challengeExists(challengeId, db) else {
                throw LedgerError(.alreadyExists, "a challenge with id '\(challengeId)' exists; choose another id")
            }
            guard unit.isPositive else { throw LedgerError(.invalidArgument, "a challenge's unit must be above zero") }
            _ = try template.total(unit: unit)
            if let account {
                let commodity = try EnvelopeRules.openAccount(account, at: started.effectiveAt, calendar: calendar, db)
                guard commodity == unit.commodity else {
                    throw LedgerError(.currencyMismatch, "'\(account)' holds \(commodity.code); give the unit in \(commodity.code)")
                }
            }
            return [started]
        }
    }

    /// Completes a step of a challenge: a saving of the template's amount for that step.
    /// For a challenge with an account, the amount moves there from `source` (a
    /// `transfer_made` caused by the step, in the same commit).
    ///
    /// ```swift
    /// try ledger.completeChallengeStep("save-2026", from: "Assets:Bank")            // the lowest step not done
    /// try ledger.completeChallengeStep("save-2026", step: 10, from: "Assets:Bank")   // saves 10 units
    /// ```
    ///
    /// - Parameters:
    ///   - step: 1-based; the lowest step not completed by default.
    ///   - source: the account the saving comes from (required when the challenge has an account).
    ///   - idempotencyKey: an optional key. The step's amount (and, without `step`, its
    ///     number) depends on the challenge, so a repeat is compared on the challenge, the
    ///     step when given and the day when given, against the step the key recorded: the
    ///     same returns the first result and appends nothing (even once the source could no
    ///     longer cover it), others are refused. The source account lies in the step's second
    ///     event, which a repeat is not compared with.
    /// - Throws: ``LedgerError`` `notFound` (challenge, account), `invalidArgument` (step out
    ///   of range, missing source), `alreadyExists` (step done), `insufficientFunds` (the
    ///   source cannot cover the step), `currencyMismatch`, `idempotencyConflict`.
    @discardableResult
    public func completeChallengeStep(
        _ challengeId: String, step: Int? = nil, from source: String? = nil, effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> CommandResult {
        try run(completeChallengeStepCommand(challengeId, step: step, from: source, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``completeChallengeStep(_:step:from:effectiveAt:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func completeChallengeStepCommand(
        _ challengeId: String, step: Int? = nil, from source: String? = nil, effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> LedgerCommand {
        let at = dayStart(effectiveAt)
        @Sendable func completed(step number: Int, amount: Money) -> NewEvent {
            NewEvent(effectiveAt: at, body: EventBody(ChallengeStepCompleted(challengeId: challengeId, step: number, amount: amount)))
        }
        // The amount, and the step when none is given, come from the challenge: a repeat takes the first run's.
        let request = try repeatRequest(key: idempotencyKey) { first in
            guard let earlier = first.body.as(ChallengeStepCompleted.self) else { return nil }
            return completed(step: step ?? earlier.step, amount: earlier.amount)
        }
        let calendar = self.calendar
        return LedgerCommand(idempotencyKey: idempotencyKey, request: request, requestHasEffectiveTime: effectiveAt != nil) { db in
            guard let progress = try ChallengeBook.load(db, effectiveThrough: .latest).progress(of: challengeId) else {
                throw LedgerError(.notFound, "there is no challenge '\(challengeId)'; start it first (tally challenge start)")
            }
            // Nothing happens before it exists: a step dated before the challenge's first day is refused.
            if let started = try ChallengesProjector.startedAt(challengeId, db), calendar.date(of: at) < calendar.date(of: started) {
                throw LedgerError(.notAllowed, "challenge '\(challengeId)' starts on \(calendar.date(of: started)); a step dated \(calendar.date(of: at)) comes before it")
            }
            guard let template = ChallengeTemplate.named(progress.template) else {
                throw LedgerError(.notAllowed, "challenge '\(challengeId)' uses template '\(progress.template)', which this version does not know")
            }
            guard let number = step ?? progress.nextStep else {
                throw LedgerError(.notAllowed, "challenge '\(challengeId)' is complete: every step is done")
            }
            guard (1...progress.stepCount).contains(number) else {
                throw LedgerError(.invalidArgument, "challenge '\(challengeId)' has steps 1 to \(progress.stepCount), not \(number)")
            }
            guard !progress.completedSteps.contains(number) else {
                throw LedgerError(.alreadyExists, "step \(number) of challenge '\(challengeId)' is done already")
            }
            let amount = try template.amount(ofStep: number, unit: progress.unit)
            var events = [completed(step: number, amount: amount)]
            guard let target = progress.account else { return events }
            guard let source, source != target else {
                throw LedgerError(.invalidArgument, "challenge '\(challengeId)' saves into '\(target)'; name the account the saving comes from")
            }
            let commodity = try EnvelopeRules.openAccount(source, at: at, calendar: calendar, db)
            guard commodity == amount.commodity else {
                throw LedgerError(.currencyMismatch, "'\(source)' holds \(commodity.code); the challenge saves \(amount.commodity.code)")
            }
            guard try !BalanceQueries.balance(db, account: source, commodity: commodity).isLess(than: amount) else {
                throw LedgerError(.insufficientFunds, "'\(source)' cannot cover step \(number) of challenge '\(challengeId)'")
            }
            let transfer = TransferMade(transferId: "challenge:\(challengeId):\(number)", source: source, target: target, amount: amount)
            events.append(NewEvent(effectiveAt: at, cause: .earlierInBatch(0), body: EventBody(transfer)))
            return events
        }
    }

    /// A challenge's progress at the end of the day of `asOf` (today by default).
    ///
    /// ```swift
    /// let progress = try ledger.challengeProgress("save-2026")
    /// print(progress.saved, progress.remaining, progress.nextStep)
    /// ```
    ///
    /// - Parameters:
    ///   - asOf: the moment asked about: steps effective by the end of its day in the
    ///     ledger's time zone count (now by default).
    ///   - knownAt: count only what the ledger had recorded by this instant (default: all).
    /// - Throws: ``LedgerError`` `notFound` when it had not started by then.
    public func challengeProgress(_ challengeId: String, asOf: Instant? = nil, knownAt: Instant? = nil) throws -> ChallengeProgress {
        let day = calendar.date(of: asOf ?? now)
        return try read { db in
            guard let progress = try ChallengeBook.load(db, effectiveThrough: calendar.endOfDay(day), knownAt: knownAt).progress(of: challengeId) else {
                throw LedgerError(.notFound, "challenge '\(challengeId)' had not started by \(day)")
            }
            return progress
        }
    }

    /// Every challenge started by the end of the day of `asOf`, by id.
    ///
    /// ```swift
    /// for progress in try ledger.challengeProgresses() where !progress.isComplete { print(progress.name, progress.saved) }
    /// ```
    ///
    /// - Parameters:
    ///   - asOf: the moment asked about: its day in the ledger's time zone (now by default).
    ///   - knownAt: count only what the ledger had recorded by this instant (default: all).
    public func challengeProgresses(asOf: Instant? = nil, knownAt: Instant? = nil) throws -> [ChallengeProgress] {
        let day = calendar.date(of: asOf ?? now)
        return try read { db in try ChallengeBook.load(db, effectiveThrough: calendar.endOfDay(day), knownAt: knownAt).progresses() }
    }
}
