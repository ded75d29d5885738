import Foundation
import Synchronization
import Tally
import Testing
@testable import TallyService

/// A read without a date answers as of today in the ledger's time zone: the day the ledger's
/// clock is on when the request arrives, not the day the server started or the day an answer
/// was first given. A replayed command still answers word for word as it first did.
@Suite struct TodayTests {
    /// A clock the test moves.
    final class TestClock: Sendable {
        private let instant: Mutex<Instant>
        init(_ text: String) throws { instant = Mutex(try Instant(parsing: text)) }
        func set(_ text: String) throws {
            let next = try Instant(parsing: text)
            instant.withLock { $0 = next }
        }
        var now: Instant { instant.withLock { $0 } }
    }

    /// What a read without a date and the same read with `as_of=DAY` answer, side by side.
    static func undated(_ service: ServiceHarness, _ path: String, equalsDay day: String) async throws -> (undated: [String: Any], dated: [String: Any]) {
        let separator = path.contains("?") ? "&" : "?"
        let undated = try await service.send(.GET, path)
        let dated = try await service.send(.GET, path + separator + "as_of=" + day)
        #expect(undated.status == 200, "\(path): \(undated.text)")
        #expect(dated.status == 200, "\(path)\(separator)as_of=\(day): \(dated.text)")
        return (undated.json, dated.json)
    }

    @Test func aReadWithoutADateIsTodayInTheLedgersTimeZoneAlsoAfterARestartOnALaterDay() async throws {
        // 10:30 UTC on 10 March is 23:30 in Auckland (UTC+13): still the 10th there.
        let clock = try TestClock("2026-03-10T10:30:00Z")
        let directory = NSTemporaryDirectory() + "tally-today-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var service = try await ServiceHarness.start(directory: directory) { $0.ledgerOptions.clock = { clock.now } }
        let created = try await service.send(.POST, "/ledgers", body: #"{"id":"kiwi","base_currency":"NZD","time_zone":"Pacific/Auckland"}"#)
        #expect(created.status == 201, "\(created.text)")
        let deposit = try await service.command("/ledgers/kiwi/wealth/main/deposits", #"{"amount":"100.00"}"#, idempotencyKey: "first-deposit")
        #expect(deposit.status == 201, "\(deposit.text)")
        try await Self.expectToday("2026-03-10", service)

        // An hour later it is 00:30 on the 11th in Auckland, 11:30 on the 10th in UTC.
        try clock.set("2026-03-10T11:30:00Z")
        try await Self.expectToday("2026-03-11", service)

        // The server stops; it starts again two days later on the same data.
        try await service.stop()
        try clock.set("2026-03-13T02:00:00Z")
        service = try await ServiceHarness.start(directory: directory) { $0.ledgerOptions.clock = { clock.now } }
        try await Self.expectToday("2026-03-13", service)

        // The command's retry is its first answer, word for word, dated as it was then.
        let replay = try await service.command("/ledgers/kiwi/wealth/main/deposits", #"{"amount":"100.00"}"#, idempotencyKey: "first-deposit")
        #expect(replay.status == 201)
        #expect(replay.headers.first(name: "Idempotent-Replayed") == "true")
        #expect(replay.body == deposit.body, "a replay answers as the command first did")
        try await service.stop()
    }

    /// Every undated read below answers as the same read dated `day`, and not as the day before.
    static func expectToday(_ day: String, _ service: ServiceHarness, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let balances = try await undated(service, "/ledgers/kiwi/balances", equalsDay: day)
        #expect(balances.undated["as_of"] as? String == balances.dated["as_of"] as? String, "balances: \(balances.undated)", sourceLocation: sourceLocation)
        let wealth = try await undated(service, "/ledgers/kiwi/wealth/main", equalsDay: day)
        #expect(wealth.undated["as_of"] as? String == wealth.dated["as_of"] as? String, "wealth: \(wealth.undated)", sourceLocation: sourceLocation)
        let status = try await undated(service, "/ledgers/kiwi/recurring-status", equalsDay: day)
        #expect(status.undated["today"] as? String == day, "recurring status: \(status.undated)", sourceLocation: sourceLocation)
        let overview = try await undated(service, "/ledgers/kiwi/budgets/overview", equalsDay: day)
        #expect(overview.undated["month"] as? String == String(day.prefix(7)), "budget overview: \(overview.undated)", sourceLocation: sourceLocation)
        // The end of that day in Auckland, which is not the end of the UTC day of the clock.
        let asOf = try #require(balances.undated["as_of"] as? String, sourceLocation: sourceLocation)
        let end = try Instant(parsing: asOf)
        let calendar = try LedgerCalendar(timeZoneIdentifier: "Pacific/Auckland")
        #expect(calendar.date(of: end).description == day, "as_of \(asOf) is in \(day) in Auckland", sourceLocation: sourceLocation)
        #expect(calendar.date(of: Instant(microsecondsSinceEpoch: end.microsecondsSinceEpoch + 1)).description != day,
                "as_of \(asOf) is the end of \(day)", sourceLocation: sourceLocation)
    }
}
