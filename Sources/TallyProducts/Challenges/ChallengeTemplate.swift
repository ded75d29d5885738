public import TallyEngine
/// A savings challenge's plan: how many steps and how many units each step saves. Step
/// `n` saves `firstMultiple + (n - 1) × increment` units.
///
/// Templates are data: ``all`` is the table, and a new template is a new row.
///
/// ```swift
/// let template = ChallengeTemplate.named("52_week")!
/// try template.amount(ofStep: 10, unit: usd("1.00"))   // 10.00 USD
/// try template.total(unit: usd("1.00"))                // 1378.00 USD
/// ```
public struct ChallengeTemplate: Hashable, Sendable {
    /// The id recorded in `challenge_started`, e.g. `52_week`.
    public let id: String
    /// A name for people.
    public let name: String
    /// What one step is, for people: `week`, `month`, `day`.
    public let cadence: String
    /// How many steps the challenge has.
    public let stepCount: Int
    /// How many units step 1 saves.
    public let firstMultiple: Int64
    /// How many units each step adds to the one before (negative counts down).
    public let increment: Int64

    /// The table of templates.
    public static let all: [ChallengeTemplate] = [
        ChallengeTemplate(id: "52_week", name: "52-week challenge", cadence: "week", stepCount: 52, firstMultiple: 1, increment: 1),
        ChallengeTemplate(id: "reverse_52_week", name: "Reverse 52-week challenge", cadence: "week", stepCount: 52, firstMultiple: 52, increment: -1),
        ChallengeTemplate(id: "fixed_weekly", name: "Same amount every week for a year", cadence: "week", stepCount: 52, firstMultiple: 1, increment: 0),
        ChallengeTemplate(id: "fixed_monthly", name: "Same amount every month for a year", cadence: "month", stepCount: 12, firstMultiple: 1, increment: 0),
        ChallengeTemplate(id: "100_envelope", name: "100-envelope challenge", cadence: "day", stepCount: 100, firstMultiple: 1, increment: 1),
    ]

    /// The template with that id, if the table has it.
    public static func named(_ id: String) -> ChallengeTemplate? { all.first { $0.id == id } }

    /// How many units step `step` (1-based) saves.
    public func multiple(ofStep step: Int) -> Int64 { firstMultiple + Int64(step - 1) * increment }

    /// What step `step` saves with a unit of `unit`.
    ///
    /// - Throws: ``MoneyError`` on overflow.
    public func amount(ofStep step: Int, unit: Money) throws -> Money { try unit.multiplied(by: multiple(ofStep: step)) }

    /// What the whole challenge saves with a unit of `unit`.
    ///
    /// - Throws: ``MoneyError`` on overflow.
    public func total(unit: Money) throws -> Money {
        var total = Money.zero(unit.commodity)
        for step in 1...stepCount { total = try total.adding(amount(ofStep: step, unit: unit)) }
        return total
    }
}

// A challenge tracks steps; it moves no money.
extension ChallengeStarted: MovesNoMoney {}
extension ChallengeStepCompleted: MovesNoMoney {}
