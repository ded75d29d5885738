public import TallyEngine
import GRDB

/// The envelope app's status screen in one answer (docs/domain.md §3): every envelope's
/// budgeted, spent and remaining for the interval holding a day, their totals in the base
/// currency in force that day, and the latest activity.
///
/// ```swift
/// let board = try ledger.envelopeBoard()
/// print(board.budgeted, board.spent, board.remaining, board.recentActivity.count)
/// ```
public struct EnvelopeBoard: Hashable, Sendable {
    /// How many entries ``recentActivity`` holds at most.
    public static let recentActivityCount = 5
    /// How far back ``recentActivity`` first looks, in days, before it reads the whole
    /// history (so that the screen reads a month of activity, not every year of it).
    static let recentWindowDays = 31

    /// The day shown, in the ledger's time zone.
    public let date: LocalDate
    /// The currency of the totals: the base currency in force at the end of ``date``.
    public let currency: Commodity
    /// Every envelope that exists that day, by name (``Ledger/envelopeStatuses(asOf:knownAt:)``).
    public let statuses: [EnvelopeStatus]
    /// The envelopes' budgets for their intervals, added up in ``currency``.
    public let budgeted: Money
    /// What they spent in their intervals, added up in ``currency``.
    public let spent: Money
    /// What they have left, added up in ``currency`` (negative: overspent overall).
    public let remaining: Money
    /// The envelopes whose currency has no rate into ``currency`` that day: named, and left
    /// out of the three totals (never counted as zero).
    public let notConverted: [String]
    /// The latest transactions and transfers assigned to envelopes by the end of ``date``,
    /// newest first (an amendment shows as its reversal and new version, a deletion as its
    /// reversal): at most ``recentActivityCount``.
    public let recentActivity: [EnvelopeActivity]
}

extension Ledger {
    /// The envelope status screen on the day of `asOf` (today by default) as known at
    /// `knownAt` (``EnvelopeBoard``). Each envelope's amounts are in its own currency; the
    /// totals convert them into the base currency in force that day by the one rule
    /// (``RateBook``, as ``envelopeAccountsTotal(asOf:knownAt:)`` converts balances).
    ///
    /// - Parameters:
    ///   - asOf: the moment asked about (now by default): its day in the ledger's time zone.
    ///   - knownAt: what the ledger had recorded by then (everything by default).
    /// - Throws: ``MoneyError`` when a total overflows.
    public func envelopeBoard(asOf: Instant? = nil, knownAt: Instant? = nil) throws -> EnvelopeBoard {
        let day = calendar.date(of: asOf ?? now)
        let bound = calendar.endOfDay(day)
        return try read { db in
            let statuses = try envelopeStatuses(on: day, knownAt: knownAt, db)
            let windowStart = calendar.startOfDay(day.adding(days: -EnvelopeBoard.recentWindowDays))
            var book = try EnvelopeBook.load(db, effectiveThrough: bound, knownAt: knownAt, after: windowStart)
            if book.activity.count < EnvelopeBoard.recentActivityCount {
                book = try EnvelopeBook.load(db, effectiveThrough: bound, knownAt: knownAt)
            }
            let base = book.baseCurrency(at: bound)
            let rates = RateBook(quotes: book.quotes)
            var totals = (Money.zero(base), Money.zero(base), Money.zero(base))
            var notConverted: [String] = []
            for status in statuses {
                guard let budgeted = try rates.convert(status.budgeted, to: base, at: bound),
                      let spent = try rates.convert(status.spent, to: base, at: bound),
                      let remaining = try rates.convert(status.remaining, to: base, at: bound) else {
                    notConverted.append(status.envelopeId)
                    continue
                }
                totals = (try totals.0.adding(budgeted), try totals.1.adding(spent), try totals.2.adding(remaining))
            }
            let recent = book.activity.sorted { ($0.effectiveAt, $0.sequence) > ($1.effectiveAt, $1.sequence) }
            return EnvelopeBoard(date: day, currency: base, statuses: statuses, budgeted: totals.0, spent: totals.1, remaining: totals.2,
                                 notConverted: notConverted, recentActivity: Array(recent.prefix(EnvelopeBoard.recentActivityCount)))
        }
    }
}
