public import TallyEngine
import GRDB

/// A suggested maximum for one category's budget.
public struct BudgetSuggestion: Hashable, Sendable {
    /// The category whose budget is suggested.
    public let category: BudgetCategory
    /// The complete months averaged (3 to 6).
    public let months: [Month]
    /// Average monthly spend over those months (positive), rounded half-even.
    public let averageSpend: Money
    /// The average plus the margin, rounded up to a whole unit of the currency.
    public let suggestedMaximum: Money
}

/// A recurring item proposed from transaction history; nothing is recorded until the user
/// accepts it with `defineRecurring`.
public struct RecurringProposal: Hashable, Sendable {
    /// The payee as its latest occurrence spells it (occurrences are grouped ignoring case).
    public let payee: String
    /// The category most of its occurrences are in (on a tie, the first by stored name).
    public let category: BudgetCategory
    /// The latest amount (signed: positive income, negative expense).
    public let amount: Money
    /// The day of the month it fell on most recently.
    public let dayOfMonth: Int
    /// The months it was seen in, oldest first.
    public let months: [Month]
}

/// The documented defaults of suggestions and detection (docs/domain.md §2), in one place.
public enum SuggestionRules {
    /// At least this many complete months of history are needed to suggest a budget.
    public static let monthsMinimum = 3
    /// At most this many complete months are averaged.
    public static let monthsMaximum = 6
    /// The margin added to the average: 10%.
    public static let marginBasisPoints: Int64 = 1_000
    /// A recurring item repeats with amounts within 10% of its latest amount.
    public static let amountToleranceBasisPoints: Int64 = 1_000
    /// "Roughly monthly": consecutive occurrences 25 to 35 days apart.
    public static let monthlyGapDays = 25...35
    /// Seen at least this many times.
    public static let occurrencesMinimum = 3
}

extension Ledger {
    /// Suggested maxima for `month`'s budgets: per category, the average monthly spend over
    /// the last 3 to 6 complete months before it (months since the first transaction,
    /// empty months counting as zero) plus a 10% margin, rounded up to a whole unit.
    /// Categories with no spend in those months get no suggestion; with fewer than 3
    /// months of history there are none.
    ///
    /// ```swift
    /// let june = try ledger.suggestedBudgets(for: try Month(parsing: "2026-06"))
    /// ```
    ///
    /// - Parameters:
    ///   - knownAt: from the transactions as the ledger knew them at this instant; nil for
    ///     everything recorded.
    public func suggestedBudgets(for month: Month, knownAt: Instant? = nil) throws -> [BudgetSuggestion] {
        let calendar = self.calendar
        return try read { db in
            let currency = try BudgetSettings.currency(db)
            guard let firstAt = try TransactionRecords.firstEffectiveAt(knownAt: knownAt, db) else { return [] }
            let firstMonth = calendar.month(of: Instant(microsecondsSinceEpoch: firstAt))
            let earliest = max(firstMonth.ordinal, month.ordinal - SuggestionRules.monthsMaximum)
            let months = (earliest..<month.ordinal).map(Month.init(ordinal:))
            guard months.count >= SuggestionRules.monthsMinimum, let start = months.first, let end = months.last else { return [] }
            let spending = try TransactionRecords.spendingByCategory(
                from: calendar.startOfDay(start.firstDay), through: calendar.endOfDay(end.lastDay), in: currency, knownAt: knownAt, db)
            return try spending.map { category, spentMinorUnits in
                let spent = Money(minorUnits: spentMinorUnits, commodity: currency)
                let count = Int128(months.count)
                let average = RationalRounding.rounded(Int128(spent.minorUnits), dividedBy: count, rule: .halfEven)
                let unit = PowerOfTen.int128(currency.scale)
                let withMargin = RationalRounding.rounded(Int128(spent.minorUnits) * Int128(10_000 + SuggestionRules.marginBasisPoints),
                                                          dividedBy: count * 10_000 * unit, rule: .ceiling) * unit
                return BudgetSuggestion(
                    category: category, months: months,
                    averageSpend: Money(minorUnits: try Money.checkedMinorUnits(average, commodity: currency, operation: "an average"), commodity: currency),
                    suggestedMaximum: Money(minorUnits: try Money.checkedMinorUnits(withMargin, commodity: currency, operation: "a suggestion"), commodity: currency))
            }
        }
    }

    /// Recurring items proposed from history up to `date`: the same payee (ignoring case)
    /// seen at least 3 times, consecutive occurrences 25 to 35 days apart, every amount
    /// within 10% of the latest, and no recurring definition for that payee yet.
    ///
    /// ```swift
    /// let proposals = try ledger.proposedRecurringItems(through: try LocalDate(parsing: "2026-05-31"))
    /// ```
    ///
    /// - Parameters:
    ///   - knownAt: from the transactions and definitions as the ledger knew them at this
    ///     instant; nil for everything recorded.
    public func proposedRecurringItems(through date: LocalDate, knownAt: Instant? = nil) throws -> [RecurringProposal] {
        let calendar = self.calendar
        return try read { db in
            let through = calendar.endOfDay(date)
            let defined = Set(try RecurringItem.all(db, knownAt: knownAt).map { $0.payee.lowercased() })
            let rows = try TransactionRecords.unscheduled(through: through, knownAt: knownAt, db)
            var groups: [String: [TransactionRecords.Occurrence]] = [:]
            var order: [String] = []
            for row in rows {
                let key = row.payeeKey
                if groups[key] == nil { order.append(key) }
                groups[key, default: []].append(row)
            }
            return order.compactMap { key -> RecurringProposal? in
                guard let group = groups[key], group.count >= SuggestionRules.occurrencesMinimum, !defined.contains(key) else { return nil }
                let latest = group[group.count - 1]
                let commodity = latest.amount.commodity
                let latestAmount = latest.amount.minorUnits
                guard group.allSatisfy({ $0.amount.commodity == commodity }) else { return nil }
                let tolerance = Int128(latestAmount.magnitude) * Int128(SuggestionRules.amountToleranceBasisPoints)
                guard group.allSatisfy({ row in
                    let amount = row.amount.minorUnits
                    return (amount < 0) == (latestAmount < 0) && Int128((amount - latestAmount).magnitude) * 10_000 <= tolerance
                }) else { return nil }
                let dates = group.map { calendar.date(of: $0.effectiveAt) }
                for (earlier, later) in zip(dates, dates.dropFirst()) {
                    guard SuggestionRules.monthlyGapDays.contains(later.daysSinceEpoch - earlier.daysSinceEpoch) else { return nil }
                }
                var categories: [BudgetCategory: Int] = [:]
                for row in group { categories[row.category, default: 0] += 1 }
                let category = categories.max { $0.value != $1.value ? $0.value < $1.value : $0.key.rawValue > $1.key.rawValue }!.key
                return RecurringProposal(
                    payee: latest.payee, category: category,
                    amount: latest.amount,
                    dayOfMonth: dates[dates.count - 1].day, months: dates.map(\.month))
            }
        }
    }
}
