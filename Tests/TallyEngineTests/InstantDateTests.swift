import Foundation
import Testing
import TallyEngine

/// `Instant` to and from `Foundation.Date`, to the microsecond.
@Suite struct InstantDateTests {
    static let instants: [String] = [
        "1970-01-01T00:00:00Z", "2001-01-01T00:00:00Z", "2026-03-31T23:59:59.999999Z", "2026-05-01T09:00:00.000001Z",
        "1969-12-31T23:59:59.999999Z", "1900-02-28T12:34:56.789012Z", "2100-12-31T23:59:59.999999Z",
    ]

    @Test(arguments: instants)
    func anInstantRoundTripsThroughADateExactly(_ text: String) throws {
        let instant = try Instant(parsing: text)
        #expect(Instant(instant.date) == instant)
    }

    @Test func aDateGivesTheSameMomentAsItsUnixTime() {
        let date = Date(timeIntervalSince1970: 1_780_000_000.25)
        #expect(Instant(date).microsecondsSinceEpoch == 1_780_000_000_250_000)
        #expect(Instant(date).date == date)
        #expect(Instant(Date(timeIntervalSince1970: 0)) == Instant(microsecondsSinceEpoch: 0))
    }

    @Test func everyMicrosecondOfASecondRoundTrips() {
        let base: Int64 = 1_780_000_000_000_000
        for offset in stride(from: Int64(0), to: 1_000_000, by: 997) {
            let instant = Instant(microsecondsSinceEpoch: base + offset)
            #expect(Instant(instant.date) == instant)
        }
    }

    /// A Date between two microseconds is rounded to the nearer one.
    @Test func subMicrosecondDatesRoundToTheNearestMicrosecond() {
        let second = Date(timeIntervalSince1970: 1_780_000_000)
        #expect(Instant(second.addingTimeInterval(0.000_000_4)).microsecondsSinceEpoch == 1_780_000_000_000_000)
        #expect(Instant(second.addingTimeInterval(0.000_000_6)).microsecondsSinceEpoch == 1_780_000_000_000_001)
        #expect(Instant(second.addingTimeInterval(-0.000_000_6)).microsecondsSinceEpoch == 1_779_999_999_999_999)
    }

    @Test func datesOutsideTheCalendarAreClamped() {
        #expect(Instant(Date.distantFuture).microsecondsSinceEpoch <= Instant.latest.microsecondsSinceEpoch)
        #expect(Instant(Date(timeIntervalSince1970: 1e15)) == .latest)
        #expect(Instant(Date(timeIntervalSince1970: -1e15)) == .earliest)
        #expect(Instant(Date(timeIntervalSinceReferenceDate: .infinity)) == .latest)
        #expect(Instant(Date(timeIntervalSinceReferenceDate: .nan)) == .earliest)
    }
}
