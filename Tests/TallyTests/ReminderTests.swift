import Foundation
import Testing
@testable import Tally
import TallyTestSupport
import TallyLog
@testable import TallyEngine
@testable import TallyProducts

/// Reminders to update an asset's value, asked about at any point: open from when they are
/// set until done, due from their date, each version kept when one is set again.
@Suite struct ReminderTests {
    private func story(_ body: (Ledger, ManualClock) throws -> Void) throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-03-01T15:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)   // America/New_York
            try ledger.addAsset(assetId: "house", name: "House", category: .property, type: .realEstate, currency: .usd,
                                effectiveAt: try Instant(parsing: "2026-01-01T15:00:00Z"))
            try body(ledger, clock)
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    @Test func aReminderSetAgainKeepsWhatTheLedgerSaidBefore() throws {
        try story { ledger, clock in
            try ledger.setReminder(reminderId: "revalue", assetId: "house", dueDate: day("2026-03-10"), note: "Check sales")
            let before = clock.now
            let march12 = ledger.calendar.endOfDay(day("2026-03-12"))
            #expect(try ledger.reminders(asOf: march12).map(\.dueDate) == [day("2026-03-10")])
            #expect(try ledger.reminders(asOf: march12).map(\.isDue) == [true])
            clock.set("2026-03-05T15:00:00Z")
            // Learned on 5 March: the reminder was moved to 20 March on 2 March.
            try ledger.setReminder(reminderId: "revalue", assetId: "house", dueDate: day("2026-03-20"),
                                   effectiveAt: try Instant(parsing: "2026-03-02T15:00:00Z"))
            #expect(try ledger.reminders(asOf: march12).map(\.dueDate) == [day("2026-03-20")])
            #expect(try ledger.reminders(asOf: march12).map(\.isDue) == [false])
            #expect(try ledger.reminders(asOf: march12, knownAt: before).map(\.dueDate) == [day("2026-03-10")],
                    "before the change was recorded, the ledger said 10 March")
            #expect(try ledger.xray(asOf: march12, knownAt: before).remindersDue.map(\.reminderId) == ["revalue"])
            #expect(try ledger.xray(asOf: march12).remindersDue.isEmpty)
            clock.set("2026-03-21T15:00:00Z")
            try ledger.completeReminder("revalue")
            #expect(try ledger.reminders().isEmpty)
            #expect(try ledger.reminders(asOf: ledger.calendar.endOfDay(day("2026-03-20"))).map(\.isDue) == [true])
            // Done again: nothing to do, nothing recorded; an id never set is not found.
            #expect(try ledger.completeReminder("revalue").events.isEmpty)
            #expect { try ledger.completeReminder("never-set") } throws: { ($0 as? LedgerError)?.code == .notFound }
            // Set again after it was done: open again, and the past stays as it was.
            try ledger.setReminder(reminderId: "revalue", assetId: "house", dueDate: day("2026-06-01"))
            #expect(try ledger.reminders().map(\.dueDate) == [day("2026-06-01")])
            #expect(try ledger.reminders(asOf: ledger.calendar.endOfDay(day("2026-03-20"))).map(\.dueDate) == [day("2026-03-20")])
        }
    }

    /// The reference: the log's reminder events recorded by `knownAt`, folded in log order;
    /// at `asOf`, each reminder's latest version set by then, unless done by then.
    private func folded(_ events: [Event], asOf: Instant, knownAt: Instant?, calendar: LedgerCalendar) -> [OpenReminder] {
        struct Version { var set: ReminderSet; var setAt: Instant; var sequence: UInt64; var doneAt: Instant? }
        var versions: [String: [Version]] = [:]
        for event in events where event.recordedAt <= (knownAt ?? .latest) {
            switch event.body.payload {
            case let set as ReminderSet:
                versions[set.reminderId, default: []].append(Version(set: set, setAt: event.effectiveAt, sequence: event.sequence))
            case let done as ReminderCompleted:
                if let last = versions[done.reminderId]?.indices.last { versions[done.reminderId]![last].doneAt = event.effectiveAt }
            default:
                break
            }
        }
        let day = calendar.date(of: asOf)
        return versions.values.compactMap { list -> OpenReminder? in
            guard let version = list.filter({ $0.setAt <= asOf }).max(by: { ($0.setAt, $0.sequence) < ($1.setAt, $1.sequence) }),
                  !(version.doneAt.map { $0 <= asOf } ?? false) else { return nil }
            let set = version.set
            return OpenReminder(reminderId: set.reminderId, assetId: set.assetId, dueDate: set.dueDate, note: set.note, isDue: set.dueDate <= day)
        }.sorted { ($0.dueDate, $0.reminderId) < ($1.dueDate, $1.reminderId) }
    }

    /// Seeded random reminders set, set again and done, a third of it backdated: at random
    /// days as known at random instants, the open reminders equal a fold of the log, and the
    /// X-ray's due reminders are the due ones. `TALLY_TEST_SEED` replays a failure.
    @Test func theOpenRemindersAtAnyPointEqualAFoldOfTheLog() throws {
        let seed = TestSeed.value(default: 0x2E41_11D5)
        try story { ledger, clock in
            var random = SplitMix64(seed: seed)
            let ids = ["a", "b", "c", "d", "e"]
            var knownAts: [Instant] = []
            for step in 0..<120 {
                clock.advance(seconds: Int64.random(in: 3_600...100_000, using: &random))
                let at: Instant? = Int.random(in: 0..<3, using: &random) == 0
                    ? Instant(microsecondsSinceEpoch: clock.now.microsecondsSinceEpoch - Int64.random(in: 1...15, using: &random) * 86_400_000_000)
                    : nil
                let id = ids.randomElement(using: &random)!
                if Bool.random(using: &random) {
                    let due = ledger.calendar.date(of: clock.now).adding(days: Int.random(in: -10...30, using: &random))
                    try ledger.setReminder(reminderId: id, assetId: "house", dueDate: due, note: "step \(step)", effectiveAt: at)
                } else {
                    do { try ledger.completeReminder(id, effectiveAt: at) } catch let error as LedgerError where error.code == .notFound {}
                }
                if step % 12 == 11 { knownAts.append(clock.now) }
            }
            let events = try ledger.loggedEvents()
            let first = day("2026-02-20").daysSinceEpoch
            let last = ledger.calendar.date(of: clock.now).daysSinceEpoch
            for _ in 0..<40 {
                let asOf = ledger.calendar.endOfDay(LocalDate(daysSinceEpoch: Int.random(in: first...last, using: &random)))
                let knownAt = Bool.random(using: &random) ? knownAts.randomElement(using: &random) : nil
                let point = "seed \(seed) (TALLY_TEST_SEED=\(seed)): as of \(asOf) known at \(knownAt.map { "\($0)" } ?? "now")"
                let open = try ledger.reminders(asOf: asOf, knownAt: knownAt)
                #expect(open == folded(events, asOf: asOf, knownAt: knownAt, calendar: ledger.calendar), "\(point)")
                #expect(try ledger.xray(asOf: asOf, knownAt: knownAt).remindersDue.map(\.reminderId) == open.filter(\.isDue).map(\.reminderId), "\(point)")
            }
        }
    }
}
