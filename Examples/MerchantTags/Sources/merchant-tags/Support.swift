import Foundation
import Synchronization
import TallyEngine

/// A clock moved by hand (`Ledger.Options(clock:)`): the example records its events at the
/// instants it names, so that "known at" questions have fixed answers.
final class ManualClock: Sendable {
    private let instant: Mutex<Instant>

    init(_ text: String) throws { instant = Mutex(try Instant(parsing: text)) }

    var now: Instant { instant.withLock { $0 } }
    func set(_ text: String) throws {
        let new = try Instant(parsing: text)
        instant.withLock { $0 = new }
    }
}

/// A check of the example that did not hold.
struct CheckFailed: Error, CustomStringConvertible {
    let description: String
}

/// Throws ``CheckFailed`` saying what failed unless `condition` holds.
func check(_ condition: Bool, _ what: @autoclosure () -> String) throws {
    guard condition else { throw CheckFailed(description: what()) }
}

/// Runs `body`, which must be refused with `code`; returns the refusal.
func expectRefusal(_ code: LedgerError.Code, _ what: String, _ body: () async throws -> Void) async throws -> LedgerError {
    do {
        try await body()
    } catch let refusal as LedgerError {
        try check(refusal.code == code, "\(what): refused as '\(refusal.code)' (\(refusal.message)), expected '\(code)'")
        return refusal
    }
    throw CheckFailed(description: "\(what): was not refused")
}

/// Money in the example's words: `usd("84.50")`.
func usd(_ text: String) throws -> Money { try Money(parsing: text, commodity: .usd) }

/// Balances as account → amount, for comparing with expected values.
func amounts(_ balances: [AccountBalance]) -> [String: Money] {
    Dictionary(uniqueKeysWithValues: balances.map { ($0.account, $0.amount) })
}

/// Balances for printing: `Assets:Till 84.50 USD, …`.
func describe(_ balances: [String: Money]) -> String {
    balances.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
}
