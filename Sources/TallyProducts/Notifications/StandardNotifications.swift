import TallyEngine
public import GRDB

// The rules of the products' notification kinds (docs/notifications.md), one source each;
// every rule reads the read models at the context's point and never a clock, so an answer
// for a date is the same on every replay. Event-driven kinds take the ledger time of their
// event; time-driven kinds the first instant their condition holds.

/// `deposit_received` (docs/domain.md §1): each deposit not reversed, with its split when
/// made by then and the round-ups of its month up to it.
public struct DepositNotifications: NotificationSource {
    /// The source.
    public init() {}
    /// The kinds this source produces.
    public var kinds: [NotificationKind] { [.depositReceived] }

    /// The notifications of the rule above that refer to a time at or before the context's point.
    public func notifications(_ context: NotificationContext, _ db: Database) throws -> [LedgerNotification] {
        try NotificationQueries.deposits(db, point: context.point).map { deposit in
            let monthStart = context.calendar.startOfDay(context.calendar.date(of: deposit.effectiveAt).month.firstDay)
            let roundUps = try NotificationQueries.roundUps(db, account: deposit.account, commodity: deposit.amount.commodity,
                                                            from: monthStart, through: deposit.effectiveAt, knownAt: context.point.knownAt)
            let source = deposit.source == DepositSource.chain.rawValue ? "chain transfer" : "bank transfer"
            var figures = ["account": deposit.account, "amount": deposit.amount.decimalString, "currency": deposit.amount.commodity.code,
                           "source": deposit.source, "round_ups_month": roundUps.decimalString]
            var message = "Deposit of \(deposit.amount) received in wealth account \(deposit.account) (\(source))"
            if let split = deposit.split {
                figures["spend"] = split.spend.decimalString
                figures["invest"] = split.invest.decimalString
                figures["split_rule"] = "\(split.spendWeight)/\(split.investWeight)"
                message += ": \(split.spend) to Spend and \(split.invest) to Invest (split \(split.spendWeight)/\(split.investWeight))."
            } else {
                message += ", waiting to be split."
            }
            message += " Round-ups this month so far: \(roundUps)."
            return LedgerNotification(
                id: "deposit_received:\(deposit.sequence)", kind: .depositReceived, at: deposit.effectiveAt,
                subject: "wealth:\(deposit.account)", causes: [deposit.sequence] + (deposit.split.map { [$0.sequence] } ?? []),
                message: message, figures: figures
            )
        }
    }
}

/// `bill_due_soon` and `bill_overdue` (docs/domain.md §2), for each recurring bill (a
/// negative amount) in each month it falls due:
/// - due soon from the first instant of the day `window` days before its due date (the
///   due-soon window in force at the start of the due date), unless paid before then;
/// - overdue from the first instant of the day after its due date, unless paid by the end
///   of the due date.
///
/// A payment is the item's generated occurrence or a transaction of that month with the
/// same payee and amount (the rule of `recurring status`).
public struct BillNotifications: NotificationSource {
    /// The source.
    public init() {}
    /// The kinds this source produces.
    public var kinds: [NotificationKind] { [.billDueSoon, .billOverdue] }

    /// The notifications of the rule above that refer to a time at or before the context's point.
    public func notifications(_ context: NotificationContext, _ db: Database) throws -> [LedgerNotification] {
        let calendar = context.calendar
        let asOf = context.point.asOf
        let widest = try LedgerSettings.read(db, point: context.point).dueSoonDays
        let lastMonth = context.today.adding(days: Int(clamping: max(widest, 0))).month
        var notes: [LedgerNotification] = []
        for (item, sequence) in try NotificationQueries.recurringItems(db, point: context.point) where item.amount.isNegative {
            let bill = try item.amount.negated()
            var month = item.startMonth
            while month <= min(lastMonth, item.endMonth ?? lastMonth) {
                defer { month = month.adding(months: 1) }
                guard item.isDue(in: month) else { continue }
                let due = item.dueDate(in: month)
                let figures = ["payee": item.payee, "amount": bill.decimalString, "currency": bill.commodity.code, "due_date": due.description]
                let window = try LedgerSettings.read(db, point: PointInTime(asOf: calendar.startOfDay(due), knownAt: context.point.knownAt)).dueSoonDays
                let soonAt = calendar.startOfDay(BillDue.dueSoonFrom(due, window: window))
                if soonAt <= asOf, try NotificationQueries.payment(
                    of: item, month: month, calendar: calendar, through: Instant(microsecondsSinceEpoch: soonAt.microsecondsSinceEpoch - 1), knownAt: context.point.knownAt, db) == nil {
                    notes.append(LedgerNotification(
                        id: "bill_due_soon:\(item.id):\(month)", kind: .billDueSoon, at: soonAt, subject: "recurring:\(item.id)",
                        causes: [sequence], message: "Bill \(item.payee) of \(bill) is due on \(due) (the due-soon window is \(window) days).",
                        figures: figures.merging(["window_days": "\(window)"]) { $1 }))
                }
                let overdueAt = calendar.startOfDay(BillDue.overdueFrom(due))
                if overdueAt <= asOf, try NotificationQueries.payment(
                    of: item, month: month, calendar: calendar, through: calendar.endOfDay(due), knownAt: context.point.knownAt, db) == nil {
                    notes.append(LedgerNotification(
                        id: "bill_overdue:\(item.id):\(month)", kind: .billOverdue, at: overdueAt, subject: "recurring:\(item.id)",
                        causes: [sequence], message: "Bill \(item.payee) of \(bill) was due on \(due) and no payment was recorded by then.",
                        figures: figures))
                }
            }
        }
        return notes
    }
}

/// `bank_consent_expiring` (docs/domain.md §2): a bank's consent (``BankConsentGranted``)
/// is about to end, from the first instant of the day 7 days before its last day (or from
/// when it was given, when that is later), unless it was renewed or the bank disconnected
/// before then; a renewal after that does not withdraw it (it was told).
public struct BankConsentNotifications: NotificationSource {
    /// The source.
    public init() {}
    /// The kinds this source produces.
    public var kinds: [NotificationKind] { [.bankConsentExpiring] }

    /// The notifications of the rule above that refer to a time at or before the context's point.
    public func notifications(_ context: NotificationContext, _ db: Database) throws -> [LedgerNotification] {
        let calendar = context.calendar
        var notes: [String: LedgerNotification] = [:]
        for (bank, changes) in Dictionary(grouping: try NotificationQueries.bankChanges(db, point: context.point), by: \.bankId) {
            for consent in changes where consent.change == .consent {
                guard let last = consent.expiresOn else { continue }
                let at = max(calendar.startOfDay(last.adding(days: -BankRules.consentExpiringDays)), consent.effectiveAt)
                guard at <= context.point.asOf else { continue }
                // Renewed (a later consent) or disconnected before the window opened: never told.
                let ended = changes.contains { $0.sequence > consent.sequence && $0.change != .connected && $0.effectiveAt < at }
                let id = "bank_consent_expiring:\(bank):\(last)"
                guard !ended, notes[id] == nil else { continue }
                let name = changes.last { $0.change == .connected && $0.sequence < consent.sequence }?.name ?? bank
                let days = last.daysSinceEpoch - calendar.date(of: at).daysSinceEpoch
                let when = days == 0 ? "today" : days == 1 ? "tomorrow" : "in \(days) days"
                notes[id] = LedgerNotification(
                    id: id, kind: .bankConsentExpiring, at: at, subject: "bank:\(bank)", causes: [consent.sequence],
                    message: "The consent to read bank \(name) (\(bank)) ends on \(last), \(when): renew it at the bank and record it "
                        + "(tally bank consent \(bank) --expires DAY) to keep importing its transactions.",
                    figures: ["bank": bank, "name": name, "expires_on": last.description, "days_left": "\(days)"])
            }
        }
        return Array(notes.values)
    }
}

/// `budget_overspent` (docs/domain.md §2): a month's budget for a category, at the expense
/// that took the month's spending past its maximum, with the figures at that moment.
public struct BudgetNotifications: NotificationSource {
    /// The source.
    public init() {}
    /// The kinds this source produces.
    public var kinds: [NotificationKind] { [.budgetOverspent] }

    /// The notifications of the rule above that refer to a time at or before the context's point.
    public func notifications(_ context: NotificationContext, _ db: Database) throws -> [LedgerNotification] {
        try NotificationQueries.budgets(db, through: context.today.month, knownAt: context.point.knownAt).compactMap { budget in
            let range = BudgetQueries.range(of: budget.month, context.calendar)
            let expenses = try NotificationQueries.expenses(
                db, category: budget.category, commodity: budget.maximum.commodity, from: range.lowerBound,
                through: min(range.upperBound, context.point.effectiveBound), knownAt: context.point.knownAt)
            var spent = Money.zero(budget.maximum.commodity)
            for expense in expenses {
                spent = try spent.subtracting(expense.amount)
                guard spent.minorUnits > budget.maximum.minorUnits else { continue }
                let over = try spent.subtracting(budget.maximum)
                let name = budget.category.displayName
                return LedgerNotification(
                    id: "budget_overspent:\(budget.category.rawValue):\(budget.month)", kind: .budgetOverspent, at: expense.effectiveAt,
                    subject: "budget:\(budget.category.rawValue):\(budget.month)", causes: [budget.sequence, expense.sequence],
                    message: "\(name) budget for \(budget.month) overspent on \(context.calendar.date(of: expense.effectiveAt)): "
                        + "\(spent) spent of \(budget.maximum) (\(over) over), after \(expense.payee) (\(expense.amount)).",
                    figures: ["category": budget.category.rawValue, "month": budget.month.description, "spent": spent.decimalString,
                              "maximum": budget.maximum.decimalString, "over": over.decimalString, "currency": spent.commodity.code]
                )
            }
            return nil
        }
    }
}

/// `envelope_overspent` (docs/domain.md §3): the first day in each interval at whose end an
/// envelope has spent more than it had (its status is over budget), at the last of that
/// day's transactions in the envelope.
public struct EnvelopeNotifications: NotificationSource {
    /// The source.
    public init() {}
    /// The kinds this source produces.
    public var kinds: [NotificationKind] { [.envelopeOverspent] }

    /// The notifications of the rule above that refer to a time at or before the context's point.
    public func notifications(_ context: NotificationContext, _ db: Database) throws -> [LedgerNotification] {
        let calendar = context.calendar
        let book = try EnvelopeBook.load(db, effectiveThrough: context.point.asOf, knownAt: context.point.knownAt)
        var notes: [LedgerNotification] = []
        for id in book.envelopes.keys.sorted() {
            // The days the envelope's spending changed, each with its last transaction.
            var lastOfDay: [LocalDate: EnvelopeActivity] = [:]
            for activity in book.activity where activity.envelopeId == id {
                let day = calendar.date(of: activity.effectiveAt)
                if lastOfDay[day].map({ ($0.effectiveAt, $0.sequence) < (activity.effectiveAt, activity.sequence) }) ?? true {
                    lastOfDay[day] = activity
                }
            }
            var notified = Set<LocalDate>()
            for day in lastOfDay.keys.sorted() where day <= context.today {
                guard let status = try book.status(of: id, on: day, calendar: calendar), status.isOverBudget,
                      notified.insert(status.period.first).inserted, let activity = lastOfDay[day] else { continue }
                let over = try status.remaining.negated()
                notes.append(LedgerNotification(
                    id: "envelope_overspent:\(id):\(status.period.first)", kind: .envelopeOverspent, at: activity.effectiveAt,
                    subject: "envelope:\(id)", causes: [activity.sequence],
                    message: "Envelope \(status.name) overspent on \(day): \(status.spent) spent of \(status.available) available "
                        + "in the interval \(status.period) (\(over) over).",
                    figures: ["envelope": id, "interval_start": status.period.first.description, "spent": status.spent.decimalString,
                              "available": status.available.decimalString, "over": over.decimalString, "currency": status.spent.commodity.code]
                ))
            }
        }
        return notes
    }
}

/// `valuation_reminder_due` (docs/domain.md §4, §5): a reminder to update an asset's value,
/// from the first instant of its due date, unless it was done before then.
public struct ReminderNotifications: NotificationSource {
    /// The source.
    public init() {}
    /// The kinds this source produces.
    public var kinds: [NotificationKind] { [.valuationReminderDue] }

    /// The notifications of the rule above that refer to a time at or before the context's point.
    public func notifications(_ context: NotificationContext, _ db: Database) throws -> [LedgerNotification] {
        try NotificationQueries.reminders(db, point: context.point).compactMap { reminder in
            let dueAt = context.calendar.startOfDay(reminder.dueDate)
            guard dueAt <= context.point.asOf, reminder.completedAt.map({ $0 >= dueAt }) ?? true else { return nil }
            let note = reminder.note.map { ": \($0)" } ?? "."
            return LedgerNotification(
                id: "valuation_reminder_due:\(reminder.reminderId):\(reminder.dueDate)", kind: .valuationReminderDue, at: dueAt,
                subject: "asset:\(reminder.assetId)", causes: [reminder.sequence],
                message: "Time to update the value of \(reminder.assetId): reminder \(reminder.reminderId) fell due on \(reminder.dueDate)\(note)",
                figures: ["reminder": reminder.reminderId, "asset": reminder.assetId, "due_date": reminder.dueDate.description]
            )
        }
    }
}

/// `price_stale` (docs/domain.md §4): an item whose value, from a price or a live valuation,
/// is stale at the moment asked about, from the instant its market had traded longer than
/// the staleness threshold since the value. A fresh value withdraws it.
public struct PriceNotifications: NotificationSource {
    /// The source.
    public init() {}
    /// The kinds this source produces.
    public var kinds: [NotificationKind] { [.priceStale] }

    /// The notifications of the rule above that refer to a time at or before the context's point.
    public func notifications(_ context: NotificationContext, _ db: Database) throws -> [LedgerNotification] {
        let threshold = try LedgerSettings.read(db, point: context.point).priceStalenessSeconds
        let report = try NetWorthQueries.report(db, point: context.point, calendar: context.calendar)
        return try report.lines.filter(\.isStale).map { line in
            let value = line.value
            let market = Market.of(symbol: value.pricedSymbol, currency: value.value.commodity)
            let staleAt = Self.staleSince(value.valuedAt, market: market, thresholdSeconds: threshold, asOf: context.point.asOf)
            let cause = try NotificationQueries.valueSequence(db, kind: line.kind, itemId: line.itemId, symbol: value.pricedSymbol,
                                                              valuedAt: value.valuedAt, knownAt: context.point.knownAt)
            let from = value.pricedSymbol.map { "the price of \($0)" } ?? "a live valuation"
            return LedgerNotification(
                id: "price_stale:\(line.kind.rawValue):\(line.itemId):\(value.valuedAt.microsecondsSinceEpoch)", kind: .priceStale, at: staleAt,
                subject: "\(line.kind.rawValue):\(line.itemId)", causes: cause.map { [$0] } ?? [],
                message: "The value of \(line.name) (\(value.value), from \(from) at \(value.valuedAt)) is stale: "
                    + "its market has traded more than \(threshold) seconds since. It is still counted.",
                figures: ["item": line.itemId, "value": value.value.decimalString, "currency": value.value.commodity.code,
                          "valued_at": value.valuedAt.description, "threshold_seconds": "\(threshold)"]
            )
        }
    }

    /// The first instant after `valuedAt`, at or before `asOf`, at which the market has been
    /// open longer than the threshold since `valuedAt`: a binary search over whole
    /// microseconds (the open time only grows with the end), so the same at every replay.
    static func staleSince(_ valuedAt: Instant, market: Market, thresholdSeconds: Int64, asOf: Instant) -> Instant {
        let limit = thresholdSeconds.multipliedReportingOverflow(by: 1_000_000)
        let threshold = limit.overflow ? Int64.max : limit.partialValue
        var low = valuedAt.microsecondsSinceEpoch   // not yet stale
        var high = asOf.microsecondsSinceEpoch      // stale
        while high - low > 1 {
            let middle = low + (high - low) / 2
            let open = market.openMicroseconds(from: valuedAt, to: Instant(microsecondsSinceEpoch: middle), limit: threshold)
            if open > threshold { high = middle } else { low = middle }
        }
        return Instant(microsecondsSinceEpoch: high)
    }
}

/// `challenge_milestone` (docs/domain.md §3): a challenge reaching a quarter, half, three
/// quarters and all of its steps, at the step that reached it (steps in effective order).
/// When two milestones fall on one step (a challenge of fewer than four steps) the larger
/// is told.
public struct ChallengeNotifications: NotificationSource {
    /// The source.
    public init() {}
    /// The kinds this source produces.
    public var kinds: [NotificationKind] { [.challengeMilestone] }

    /// The notifications of the rule above that refer to a time at or before the context's point.
    public func notifications(_ context: NotificationContext, _ db: Database) throws -> [LedgerNotification] {
        var notes: [LedgerNotification] = []
        for challenge in try NotificationQueries.challenges(db, point: context.point) where challenge.stepCount > 0 {
            var byStepCount: [Int: Int] = [:]   // steps needed → the largest quarter reached with them
            for quarter in 1...4 { byStepCount[(challenge.stepCount * quarter + 3) / 4] = quarter }
            for (needed, quarter) in byStepCount.sorted(by: { $0.key < $1.key }) where challenge.steps.count >= needed {
                let reached = challenge.steps[needed - 1]
                let saved = try challenge.steps.prefix(needed).dropFirst().reduce(challenge.steps[0].amount) { try $0.adding($1.amount) }
                let percent = quarter * 25
                notes.append(LedgerNotification(
                    id: "challenge_milestone:\(challenge.challengeId):\(percent)", kind: .challengeMilestone, at: reached.effectiveAt,
                    subject: "challenge:\(challenge.challengeId)", causes: [challenge.sequence, reached.sequence],
                    message: "Challenge \(challenge.name) is \(percent)% done: \(needed) of \(challenge.stepCount) steps, \(saved) saved.",
                    figures: ["challenge": challenge.challengeId, "percent": "\(percent)", "steps_done": "\(needed)",
                              "step_count": "\(challenge.stepCount)", "saved": saved.decimalString, "currency": saved.commodity.code]
                ))
            }
        }
        return notes
    }
}

/// `liability_milestone` (docs/domain.md §4): a liability reaching a quarter, half, three
/// quarters and all of its starting amount paid off (``LiabilityMilestoneRules``), at the
/// valuation that reached it. When one valuation reaches two milestones the larger is told,
/// as for a challenge.
public struct LiabilityMilestoneNotifications: NotificationSource {
    /// The source.
    public init() {}
    /// The kinds this source produces.
    public var kinds: [NotificationKind] { [.liabilityMilestone] }

    /// The notifications of the rule above that refer to a time at or before the context's point.
    public func notifications(_ context: NotificationContext, _ db: Database) throws -> [LedgerNotification] {
        try LiabilityMilestoneRules.progresses(db, point: context.point, calendar: context.calendar).flatMap { progress in
            progress.milestones.filter { milestone in !progress.milestones.contains { $0.sequence == milestone.sequence && $0.percent > milestone.percent } }
                .map { milestone in
                let paid = milestone.percent == 100 ? "paid off" : "\(milestone.percent)% paid off"
                return LedgerNotification(
                    id: "liability_milestone:\(progress.liabilityId):\(milestone.percent)", kind: .liabilityMilestone, at: milestone.reachedAt,
                    subject: "liability:\(progress.liabilityId)", causes: [milestone.sequence],
                    message: "\(progress.name) is \(paid): \(milestone.owed) owed of \(progress.startingAmount) at the start.",
                    figures: ["liability": progress.liabilityId, "percent": "\(milestone.percent)", "owed": milestone.owed.decimalString,
                              "starting_amount": progress.startingAmount.decimalString, "currency": milestone.owed.commodity.code])
            }
        }
    }
}
