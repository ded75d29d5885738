import Foundation
import Testing
@testable import TallyEngine
@testable import TallyProducts

/// Issue 34, item 15: a time zone this machine cannot read is an error in the wealth fold,
/// never a silent fallback to UTC days (which would move round-ups to other days).
@Suite struct WealthTimeZoneTests {
    @Test func anUnknownTimeZoneStopsTheFoldInsteadOfCountingUTCDays() throws {
        let cache = CalendarCache()
        #expect(try cache.calendar(for: "Europe/London").timeZoneIdentifier == "Europe/London")
        #expect(throws: EventCodingError.self) { try cache.calendar(for: "Mars/Olympus_Mons") }
        // The cached calendar is not handed out for another zone.
        #expect(throws: EventCodingError.self) { try cache.calendar(for: "Europe/Londres") }
    }
}
