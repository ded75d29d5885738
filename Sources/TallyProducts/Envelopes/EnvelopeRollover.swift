public import TallyEngine
extension RolloverPolicy {
    /// The policy of an envelope that no `envelope_rollover_set` has touched:
    /// ``carryForward``. Unspent money stays in the envelope for the next interval (as in
    /// YNAB and Actual), and overspending is paid back from the envelope's next interval
    /// (Actual's "rollover overspending", Goodbudget's envelopes), so every unit budgeted
    /// or spent stays visible in the envelope itself. Choose ``takeFromToAssign`` for
    /// YNAB's handling of overspending, ``reset`` for Firefly III's budgets.
    public static let `default`: RolloverPolicy = .carryForward
}

/// What an interval's remaining amount does in the next interval, by policy: the rollover
/// rule, in one place (docs/domain.md §3).
///
/// | policy | unspent (remaining > 0) | overspent (remaining < 0) |
/// |---|---|---|
/// | `reset` | returns to what is left to assign | is taken from what is left to assign |
/// | `carry_forward` (default) | adds to the next interval | takes from the next interval |
/// | `take_from_to_assign` | adds to the next interval | is taken from what is left to assign; the envelope starts the next interval from its budget |
///
/// The policy in force on an interval's last day decides what that interval's remainder does.
public enum EnvelopeRollover {
    /// What moves into the next interval.
    public struct Carry: Hashable, Sendable {
        /// Added to (or, negative, taken from) the next interval's available amount.
        public let carried: Money
        /// Overspending covered by what is left to assign instead of by the envelope.
        public let takenFromToAssign: Money
    }

    /// The carry of an interval that ended with `remaining` under `policy`.
    ///
    /// ```swift
    /// EnvelopeRollover.carry(remaining: usd("-20.00"), policy: .takeFromToAssign)
    /// // carried 0.00, takenFromToAssign 20.00
    /// ```
    ///
    /// - Throws: ``MoneyError`` on overflow.
    public static func carry(remaining: Money, policy: RolloverPolicy) throws -> Carry {
        let zero = Money.zero(remaining.commodity)
        switch policy {
        case .reset:
            return Carry(carried: zero, takenFromToAssign: remaining.isNegative ? try remaining.negated() : zero)
        case .carryForward:
            return Carry(carried: remaining, takenFromToAssign: zero)
        case .takeFromToAssign:
            return remaining.isNegative
                ? Carry(carried: zero, takenFromToAssign: try remaining.negated())
                : Carry(carried: remaining, takenFromToAssign: zero)
        }
    }
}

// Envelopes plan money; they never move it between accounts.
extension EnvelopeCreated: MovesNoMoney {}
extension EnvelopeBudgetChanged: MovesNoMoney {}
extension EnvelopeFunded: MovesNoMoney {}
extension EnvelopeRolloverSet: MovesNoMoney {}
extension EnvelopeDeleted: MovesNoMoney {}
