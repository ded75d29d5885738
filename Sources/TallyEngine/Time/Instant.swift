/// A moment in time: microseconds since 1970-01-01T00:00:00Z, exact.
///
/// Its text form is RFC 3339 in UTC with microseconds, `2026-03-31T22:15:00.000000Z`;
/// parsing accepts any RFC 3339 offset (`+01:00`) and 0 to 6 fraction digits.
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Microseconds since the Unix epoch, UTC.
    public let microsecondsSinceEpoch: Int64

    /// The instant `microsecondsSinceEpoch` microseconds after 1970-01-01T00:00:00Z.
    public init(microsecondsSinceEpoch: Int64) {
        self.microsecondsSinceEpoch = microsecondsSinceEpoch
    }

    /// The earliest instant of a civil date in UTC.
    public init(utcDate date: LocalDate) {
        microsecondsSinceEpoch = Int64(date.daysSinceEpoch) * Self.microsecondsPerDay
    }

    /// The earliest instant events may carry: 0001-01-01T00:00:00Z.
    public static let earliest = Instant(microsecondsSinceEpoch: -62_135_596_800_000_000)
    /// The latest instant events may carry: 9999-12-31T23:59:59.999999Z.
    public static let latest = Instant(microsecondsSinceEpoch: 253_402_300_799_999_999)

    /// Whether the instant lies in years 0001 to 9999, the range RFC 3339 can write.
    public var isInCalendarRange: Bool { self >= Self.earliest && self <= Self.latest }

    static let microsecondsPerSecond: Int64 = 1_000_000
    static let microsecondsPerDay: Int64 = 86_400 * 1_000_000

    public static func < (lhs: Instant, rhs: Instant) -> Bool {
        lhs.microsecondsSinceEpoch < rhs.microsecondsSinceEpoch
    }

    /// The UTC civil date this instant falls on.
    public var utcDate: LocalDate {
        let (quotient, remainder) = microsecondsSinceEpoch.quotientAndRemainder(dividingBy: Self.microsecondsPerDay)
        return LocalDate(daysSinceEpoch: Int(remainder < 0 ? quotient - 1 : quotient))
    }

    /// RFC 3339 in UTC with six fraction digits.
    public var description: String {
        let date = utcDate
        let microsOfDay = microsecondsSinceEpoch - Int64(date.daysSinceEpoch) * Self.microsecondsPerDay
        let seconds = Int(microsOfDay / Self.microsecondsPerSecond)
        let fraction = Int(microsOfDay % Self.microsecondsPerSecond)
        return "\(date)T\(CivilCalendar.pad(seconds / 3600, 2)):\(CivilCalendar.pad(seconds / 60 % 60, 2)):"
            + "\(CivilCalendar.pad(seconds % 60, 2)).\(CivilCalendar.pad(fraction, 6))Z"
    }

    /// Parses RFC 3339: `YYYY-MM-DDTHH:MM:SS[.ffffff](Z|±HH:MM)`.
    ///
    /// ```swift
    /// let instant = try Instant(parsing: "2026-03-31T23:59:59+01:00")
    /// ```
    /// - Throws: ``EventCodingError`` with code `invalidValue`, quoting the text.
    public init(parsing text: String) throws {
        let bytes = Array(text.utf8)
        func fail(_ why: String) -> EventCodingError {
            EventCodingError(.invalidValue, "'\(text)' is not an RFC 3339 instant (\(why)); write e.g. 2026-03-31T12:00:00Z")
        }
        guard bytes.count >= 20, bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t") else {
            throw fail("expected YYYY-MM-DDTHH:MM:SS followed by Z or an offset")
        }
        let date = try LocalDate(parsing: String(decoding: bytes[0..<10], as: UTF8.self))
        guard bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
              let hour = CivilCalendar.digits(bytes[11..<13]),
              let minute = CivilCalendar.digits(bytes[14..<16]),
              let second = CivilCalendar.digits(bytes[17..<19]),
              hour < 24, minute < 60, second < 60
        else { throw fail("bad time of day") }
        var index = 19
        var fraction: Int64 = 0
        if bytes[index] == UInt8(ascii: ".") {
            let start = index + 1
            var end = start
            while end < bytes.count, bytes[end] >= 0x30, bytes[end] <= 0x39 { end += 1 }
            let count = end - start
            guard count >= 1, count <= 6, let value = CivilCalendar.digits(bytes[start..<end]) else {
                throw fail("1 to 6 fraction digits expected")
            }
            var scaled = Int64(value)
            for _ in count..<6 { scaled *= 10 }
            fraction = scaled
            index = end
        }
        guard index < bytes.count else { throw fail("missing Z or offset") }
        var offsetSeconds: Int64 = 0
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            guard index + 1 == bytes.count else { throw fail("text after Z") }
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard bytes.count == index + 6, bytes[index + 3] == UInt8(ascii: ":"),
                  let offsetHours = CivilCalendar.digits(bytes[(index + 1)..<(index + 3)]),
                  let offsetMinutes = CivilCalendar.digits(bytes[(index + 4)..<(index + 6)]),
                  offsetHours < 24, offsetMinutes < 60
            else { throw fail("offset must be ±HH:MM") }
            offsetSeconds = Int64(offsetHours * 3600 + offsetMinutes * 60)
            if bytes[index] == UInt8(ascii: "-") { offsetSeconds = -offsetSeconds }
        default:
            throw fail("missing Z or offset")
        }
        let localSeconds = Int64(date.daysSinceEpoch) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        microsecondsSinceEpoch = (localSeconds - offsetSeconds) * Self.microsecondsPerSecond + fraction
    }
}

extension Instant: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        do {
            self = try Instant(parsing: try container.decode(String.self))
        } catch let error as EventCodingError {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.message)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension Instant: BinaryCodable {
    public func encode(to writer: inout BinaryWriter) { writer.writeZigZag(microsecondsSinceEpoch) }
    public init(from reader: inout BinaryReader) throws { microsecondsSinceEpoch = try reader.readZigZag() }
}
