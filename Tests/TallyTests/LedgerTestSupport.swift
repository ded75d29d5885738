import Foundation
import Synchronization
import Testing
@testable import Tally

/// A fresh directory per test that touches disk, removed at the end.
func withTemporaryStore<T>(_ body: (String) throws -> T) throws -> T {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("tally-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: root) }
    return try body(root + "/store")
}

/// A clock the test moves by hand: the ledger records events at the instants the story says.
final class ManualClock: Sendable {
    private let value: Mutex<Instant>
    init(_ start: Instant) { value = Mutex(start) }
    init(_ text: String) { value = Mutex(try! Instant(parsing: text)) }
    var now: Instant { value.withLock { $0 } }
    func set(_ text: String) { value.withLock { $0 = try! Instant(parsing: text) } }
    func advance(seconds: Int64) { value.withLock { $0 = Instant(microsecondsSinceEpoch: $0.microsecondsSinceEpoch + seconds * 1_000_000) } }
    var function: @Sendable () -> Instant { { self.now } }
}

extension Ledger {
    /// A new ledger in `root` on a manual clock (USD, New York unless told otherwise).
    static func forTesting(
        at root: String, clock: ManualClock, baseCurrency: Commodity = .usd, timeZone: String = "America/New_York",
        snapshotInterval: SnapshotInterval = .default
    ) throws -> Ledger {
        try Ledger.create(at: root, name: "Test household", baseCurrency: baseCurrency, timeZone: timeZone,
                          options: Options(clock: clock.function, syncMode: .none, snapshotInterval: snapshotInterval))
    }

    /// Fails the test unless the books balance and a full rebuild reproduces every read
    /// model exactly: the check every scenario ends with.
    func expectConsistent(sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try trialBalance().isEmpty, "trial balance", sourceLocation: sourceLocation)
        let incremental = try readModels.dump()
        try rebuild()
        let rebuilt = try readModels.dump()
        for table in Set(incremental.keys).union(rebuilt.keys).sorted() {
            #expect(incremental[table] == rebuilt[table], "table \(table) differs after rebuild", sourceLocation: sourceLocation)
        }
    }
}

/// Money in a test's own words: `usd("70.00")`.
func usd(_ text: String) -> Money { try! Money(parsing: text, commodity: .usd) }
func gbp(_ text: String) -> Money { try! Money(parsing: text, commodity: .gbp) }

/// A day in a story: `day("2026-05-03")`.
func day(_ text: String) -> LocalDate { try! LocalDate(parsing: text) }
/// A month in a story: `month("2026-05")`.
func month(_ text: String) -> Month { try! Month(parsing: text) }
