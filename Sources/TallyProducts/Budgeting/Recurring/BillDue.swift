public import TallyEngine

/// The one rule for when a recurring item is due soon or overdue (docs/domain.md §2), asked
/// by `recurring status`, the recurring bills list and the `bill_due_soon` / `bill_overdue`
/// notifications alike:
/// - due soon from the start of the day `window` days before its due date (the due-soon
///   window, the `due_soon_days` setting, 5 days unless set);
/// - overdue from the start of the day after its due date, until paid;
/// - paid once a payment matches it; upcoming before it is due soon.
///
/// ```swift
/// BillDue.state(due: day("2026-03-01"), isPaid: false, today: day("2026-04-27"), window: 5)   // .overdue (57 days late)
/// BillDue.state(due: day("2026-05-03"), isPaid: false, today: day("2026-04-29"), window: 5)   // .dueSoon
/// ```
public enum BillDue {
    /// The first day a bill due on `due` is due soon: `window` days before it (never after it).
    public static func dueSoonFrom(_ due: LocalDate, window: Int64) -> LocalDate {
        due.adding(days: -Int(clamping: max(window, 0)))
    }

    /// The first day a bill due on `due` and not paid is overdue: the day after it.
    public static func overdueFrom(_ due: LocalDate) -> LocalDate {
        due.adding(days: 1)
    }

    /// Where an item due on `due` stands on `today`: paid when `isPaid`; else overdue from
    /// ``overdueFrom(_:)``; else due soon from ``dueSoonFrom(_:window:)``; else upcoming.
    public static func state(due: LocalDate, isPaid: Bool, today: LocalDate, window: Int64) -> RecurringState {
        if isPaid { return .paid }
        if today >= overdueFrom(due) { return .overdue }
        if today >= dueSoonFrom(due, window: window) { return .dueSoon }
        return .upcoming
    }
}
