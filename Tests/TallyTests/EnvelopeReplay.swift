import Foundation
import Testing
@testable import Tally
@testable import TallyEngine
@testable import TallyProducts

/// The reference answers: fold the log's events up to a date from scratch and compute
/// the same answers the ledger gives from its read models.
extension Ledger {
    /// Every event in the log, in order.
    func loggedEvents() throws -> [Event] {
        var events: [Event] = []
        try EventStoreReader.open(at: layout.root, catalog: .standard).forEach { events.append($0) }
        return events
    }

    /// Fails unless every envelope, challenge and balance answer for `date` equals the one a
    /// full replay of the log up to that date computes.
    func expectAnswersMatchReplay(on date: LocalDate, knownAt: Instant? = nil, context: String = "", sourceLocation: SourceLocation = #_sourceLocation) throws {
        let events = try loggedEvents()
        let bound = calendar.endOfDay(date)
        let book = try EnvelopeBook.folding(events, effectiveThrough: bound, knownAt: knownAt)
        #expect(try envelopeStatuses(asOf: bound, knownAt: knownAt) == book.statuses(on: date, calendar: calendar),
                "envelope statuses on \(date) \(context)", sourceLocation: sourceLocation)
        for status in try envelopeStatuses(asOf: bound, knownAt: knownAt) {
            let audit = try envelopeAudit(status.envelopeId, through: date, knownAt: knownAt)
            #expect((audit.last?.balance ?? .zero(status.remaining.commodity)) == status.remaining,
                    "the audit of \(status.envelopeId) through \(date) ends at what is left \(context)", sourceLocation: sourceLocation)
        }
        let month = date.month
        #expect(try envelopeSpending(from: month.firstDay, through: date, knownAt: knownAt)
                == book.spending(from: month.firstDay, through: date, calendar: calendar),
                "spending by envelope in \(month) through \(date) \(context)", sourceLocation: sourceLocation)
        #expect(try envelopeAccountsTotal(asOf: bound, knownAt: knownAt) == book.total(balances: book.foldedBalances, at: bound),
                "total balance on \(date) \(context)", sourceLocation: sourceLocation)
        let challenges = ChallengeBook.folding(events, effectiveThrough: bound, knownAt: knownAt)
        #expect(try challengeProgresses(asOf: bound, knownAt: knownAt) == challenges.progresses(),
                "challenge progress on \(date) \(context)", sourceLocation: sourceLocation)
    }
}

func jpy(_ text: String) -> Money { try! Money(parsing: text, commodity: .jpy) }
func rate(_ text: String) -> ExactDecimal { try! ExactDecimal(parsing: text) }
