public import TallyEngine

/// The charts Tally draws (docs/notifications.md, "Charts").
public enum ChartName: String, CaseIterable, Hashable, Sendable {
    /// Net worth at the end of each month (docs/domain.md §4): a line.
    case networth
    /// The budget's expenses by category over a period, largest first (docs/domain.md §2): bars.
    case spending
    /// A month's budgets: spent beside the maximum, by category (docs/domain.md §2): bars.
    case budget
    /// The what-if projection of savings, month by month, beside the goal (docs/domain.md §3): a line.
    case whatIf = "what-if"
    /// The portfolio's allocation by asset type (docs/domain.md §5): bars.
    case allocation
}

/// One named series of a chart: a value per label, in the chart's currency; nil where there
/// is none (a month whose answer is in another currency, listed in ``Chart/notes``).
public struct ChartSeries: Hashable, Sendable {
    /// What the series shows: `Net worth`, `Spent`, `Maximum`.
    public let name: String
    /// One value per ``Chart/labels`` entry, exact.
    public let values: [Money?]

    /// A series named `name`.
    public init(name: String, values: [Money?]) {
        self.name = name
        self.values = values
    }
}

/// A chart's data: labels along one axis, series of exact amounts along the other. The
/// terminal and SVG drawings (``TerminalChart``, ``SVGChart``) and the JSON (``json``) are
/// made from it; none of them changes an amount.
public struct Chart: Hashable, Sendable {
    /// How the chart is drawn.
    public enum Style: String, Hashable, Sendable {
        /// Points joined along the labels (a series over months).
        case line
        /// A bar per label and series.
        case bars
    }

    /// Which chart.
    public let name: ChartName
    /// The title: what, and for which period or day.
    public let title: String
    /// Every value's currency.
    public let currency: Commodity
    /// Line or bars.
    public let style: Style
    /// The labels: months (`2026-05`), categories, asset types.
    public let labels: [String]
    /// The series, each with a value per label.
    public let series: [ChartSeries]
    /// What the reader must know: amounts left out, and why.
    public let notes: [String]

    /// A chart; every series has one value per label.
    public init(name: ChartName, title: String, currency: Commodity, style: Style, labels: [String], series: [ChartSeries], notes: [String] = []) {
        precondition(series.allSatisfy { $0.values.count == labels.count }, "a chart's series have one value per label")
        self.name = name
        self.title = title
        self.currency = currency
        self.style = style
        self.labels = labels
        self.series = series
        self.notes = notes
    }

    /// The chart as one JSON object: amounts as decimal strings in the currency's scale,
    /// never numbers, so no reader turns them into floats.
    ///
    /// ```json
    /// {"chart":"budget","title":"…","currency":"USD","style":"bars","labels":["Groceries"],
    ///  "series":[{"name":"Spent","values":["105.50"]},{"name":"Maximum","values":["100.00"]}],"notes":[]}
    /// ```
    public var json: String {
        func list(_ items: [String]) -> String { "[" + items.joined(separator: ",") + "]" }
        let series = self.series.map { series in
            "{\"name\":\(EventJSON.quoted(series.name)),\"values\":" + list(series.values.map { $0.map { EventJSON.quoted($0.decimalString) } ?? "null" }) + "}"
        }
        return "{\"chart\":\(EventJSON.quoted(name.rawValue)),\"title\":\(EventJSON.quoted(title)),\"currency\":\(EventJSON.quoted(currency.code)),"
            + "\"style\":\(EventJSON.quoted(style.rawValue)),\"labels\":" + list(labels.map(EventJSON.quoted)) + ",\"series\":" + list(series)
            + ",\"notes\":" + list(notes.map(EventJSON.quoted)) + "}"
    }

    /// The values of every series, present ones only, in minor units: what the drawings scale.
    var minorUnits: [Int64] { series.flatMap { $0.values.compactMap { $0?.minorUnits } } }
}

/// The period and moment a chart is asked about.
public struct ChartRequest: Hashable, Sendable {
    /// The first day (or its month) of the period; nil for the chart's default.
    public var from: LocalDate?
    /// The last day (or its month) of the period; nil for the day of ``asOf``.
    public var to: LocalDate?
    /// The moment the answers are for; nil for now.
    public var asOf: Instant?
    /// As the ledger knew it at this instant; nil for everything recorded.
    public var knownAt: Instant?
    /// The what-if chart's goal; nil for none (the projection alone, over 24 months).
    public var goal: Money?

    /// A request; every part optional.
    public init(from: LocalDate? = nil, to: LocalDate? = nil, asOf: Instant? = nil, knownAt: Instant? = nil, goal: Money? = nil) {
        self.from = from
        self.to = to
        self.asOf = asOf
        self.knownAt = knownAt
        self.goal = goal
    }
}
