internal import Foundation
import Synchronization
public import TallyEngine

/// A fresh directory per test that touches disk, removed at the end.
public func withTemporaryStore<T>(_ body: (String) throws -> T) throws -> T {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("tally-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: root) }
    return try body(root + "/store")
}

/// A clock the test moves by hand: the ledger records events at the instants the story says.
public final class ManualClock: Sendable {
    private let value: Mutex<Instant>
    public init(_ start: Instant) { value = Mutex(start) }
    public init(_ text: String) { value = Mutex(try! Instant(parsing: text)) }
    public var now: Instant { value.withLock { $0 } }
    public func set(_ text: String) { value.withLock { $0 = try! Instant(parsing: text) } }
    public func advance(seconds: Int64) { value.withLock { $0 = Instant(microsecondsSinceEpoch: $0.microsecondsSinceEpoch + seconds * 1_000_000) } }
    public var function: @Sendable () -> Instant { { self.now } }
}

/// Money in a test's own words: `usd("70.00")`.
public func usd(_ text: String) -> Money { try! Money(parsing: text, commodity: .usd) }
public func gbp(_ text: String) -> Money { try! Money(parsing: text, commodity: .gbp) }

/// A day in a story: `day("2026-05-03")`.
public func day(_ text: String) -> LocalDate { try! LocalDate(parsing: text) }
/// A month in a story: `month("2026-05")`.
public func month(_ text: String) -> Month { try! Month(parsing: text) }

/// The error of type `E` behind `error`: the one another layer raised when the ledger's
/// boundary reports it as a ``LedgerError`` (its `underlying`), or `error` itself.
public func underlying<E: Error>(_ error: any Error, as type: E.Type) -> E? {
    ((error as? LedgerError)?.underlying as? E) ?? (error as? E)
}
