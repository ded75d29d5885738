import Foundation
import Synchronization
import Tally

/// The ledgers one command line opened for writing, each with its head when it opened: an
/// error thrown after a command committed (a read-model commit that failed on a full disk,
/// then a query that found the read models behind; a failed close) must not read as "nothing
/// happened", or a retry records the command twice. ``TallyCommand/execute(_:)`` reports
/// such an error as success with a warning naming the events committed (``warning(for:)``),
/// except an import's, which says itself how far it got (``saysHowFarItGot(_:)``).
///
/// One record per command line: ``TallyCommand/execute(_:)`` binds a fresh one
/// (``current``) for the span of the command, so two command lines run in one process (the
/// CLI's tests) neither see each other's commits nor keep each other's ledgers alive.
final class CommittedWrites: Sendable {
    private let opened = Mutex<[(ledger: Ledger, head: UInt64)]>([])

    /// The record of the command line running on this task.
    @TaskLocal static var current = CommittedWrites()

    /// Remembers `ledger` (just opened for writing) and its head; returns it.
    static func track(_ ledger: Ledger) -> Ledger {
        let head = ledger.head.sequence
        current.opened.withLock { $0.append((ledger, head)) }
        return ledger
    }

    /// The events this command line committed, one range per ledger that committed any.
    static var committed: [ClosedRange<UInt64>] {
        current.opened.withLock { entries in
            entries.compactMap { entry in
                let now = entry.ledger.head.sequence
                return now > entry.head ? (entry.head + 1)...now : nil
            }
        }
    }

    /// Whether `error` names what its command committed and how to finish it: an import that
    /// stopped after some of its batches (``ImportError``), which running it again resumes.
    /// Such an error is reported as it is, a failure: the import did not finish.
    static func saysHowFarItGot(_ error: any Error) -> Bool {
        // `reporting` gives an ImportError as the underlying error of its LedgerError, and a
        // LedgerError as it is: one test covers both forms.
        LedgerError.reporting(error)?.underlying is ImportError
    }

    /// The warning that replaces `error` as the outcome of a command that committed events
    /// before it was thrown, or nil when this command line committed nothing.
    static func warning(for error: any Error) -> String? {
        let ranges = committed
        guard !ranges.isEmpty else { return nil }
        let events = ranges.map { "\($0.lowerBound)…\($0.upperBound)" }.joined(separator: ", ")
        return "warning: the command was committed (events \(events) are in the log, durable), but then failed: \(error). "
            + "Do not run it again: it would be recorded twice. The read models catch up from the log when the store is next opened"
    }
}
