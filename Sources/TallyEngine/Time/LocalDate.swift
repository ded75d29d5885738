/// A calendar date without a time zone, `YYYY-MM-DD`: a due date, a budget day, a
/// challenge start. Years 0001 to 9999.
public struct LocalDate: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Days since 1970-01-01.
    public let daysSinceEpoch: Int

    /// The date `daysSinceEpoch` days after 1970-01-01 (before it when negative).
    public init(daysSinceEpoch: Int) { self.daysSinceEpoch = daysSinceEpoch }

    /// A validated date.
    ///
    /// ```swift
    /// let leapDay = try LocalDate(year: 2028, month: 2, day: 29)
    /// ```
    /// - Throws: ``EventCodingError`` (`invalidValue`) for a day the calendar does not have.
    public init(year: Int, month: Int, day: Int) throws {
        guard (1...9999).contains(year), (1...12).contains(month),
              (1...CivilCalendar.daysInMonth(year: year, month: month)).contains(day)
        else {
            throw EventCodingError(.invalidValue, "\(year)-\(month)-\(day) is not a calendar date")
        }
        daysSinceEpoch = CivilCalendar.days(year: year, month: month, day: day)
    }

    /// Parses `YYYY-MM-DD` exactly (no other separators, no time).
    /// - Throws: ``EventCodingError`` (`invalidValue`) quoting the text.
    public init(parsing text: String) throws {
        // Read in place (a journal import parses a date per row: no array of its bytes).
        var utf8 = text
        let parts = utf8.withUTF8 { bytes -> (year: Int, month: Int, day: Int)? in
            guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
                  let year = CivilCalendar.digits(bytes[0..<4]),
                  let month = CivilCalendar.digits(bytes[5..<7]),
                  let day = CivilCalendar.digits(bytes[8..<10])
            else { return nil }
            return (year, month, day)
        }
        guard let (year, month, day) = parts else {
            throw EventCodingError(.invalidValue, "'\(text)' is not a date in the form YYYY-MM-DD")
        }
        do {
            try self.init(year: year, month: month, day: day)
        } catch {
            throw EventCodingError(.invalidValue, "'\(text)' is not a calendar date")
        }
    }

    /// The year, month (1 to 12) and day of the month.
    public var components: (year: Int, month: Int, day: Int) { CivilCalendar.civil(days: daysSinceEpoch) }
    /// The year, 1 to 9999.
    public var year: Int { components.year }
    /// The month the date falls in.
    public var month: Month { let c = components; return Month(unchecked: c.year, c.month) }
    /// The day of the month, from 1.
    public var day: Int { components.day }

    /// The date `count` days later (earlier when negative).
    public func adding(days count: Int) -> LocalDate { LocalDate(daysSinceEpoch: daysSinceEpoch + count) }

    public static func < (lhs: LocalDate, rhs: LocalDate) -> Bool { lhs.daysSinceEpoch < rhs.daysSinceEpoch }

    public var description: String {
        let c = components
        return "\(CivilCalendar.pad(c.year, 4))-\(CivilCalendar.pad(c.month, 2))-\(CivilCalendar.pad(c.day, 2))"
    }
}

extension LocalDate: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        do {
            self = try LocalDate(parsing: try container.decode(String.self))
        } catch let error as EventCodingError {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.message)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension LocalDate: BinaryCodable {
    public func encode(to writer: inout BinaryWriter) { writer.writeZigZag(Int64(daysSinceEpoch)) }
    public init(from reader: inout BinaryReader) throws {
        let days = try reader.readZigZag()
        guard days >= -719_162, days <= 2_932_896 else {
            throw EventCodingError(.invalidValue, "day number \(days) is outside years 0001-9999\(reader.where)")
        }
        daysSinceEpoch = Int(days)
    }
}

/// A calendar month, `YYYY-MM`: the period of a budget or a recurring occurrence.
public struct Month: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The year, 1 to 9999.
    public let year: Int
    /// 1 to 12.
    public let month: Int

    init(unchecked year: Int, _ month: Int) {
        self.year = year
        self.month = month
    }

    /// - Throws: ``EventCodingError`` (`invalidValue`) outside 0001-01 to 9999-12.
    public init(year: Int, month: Int) throws {
        guard (1...9999).contains(year), (1...12).contains(month) else {
            throw EventCodingError(.invalidValue, "\(year)-\(month) is not a month")
        }
        self.init(unchecked: year, month)
    }

    /// Parses `YYYY-MM`.
    public init(parsing text: String) throws {
        var utf8 = text
        let parts = utf8.withUTF8 { bytes -> (year: Int, month: Int)? in
            guard bytes.count == 7, bytes[4] == UInt8(ascii: "-"),
                  let year = CivilCalendar.digits(bytes[0..<4]),
                  let month = CivilCalendar.digits(bytes[5..<7])
            else { return nil }
            return (year, month)
        }
        guard let (year, month) = parts, (1...9999).contains(year), (1...12).contains(month) else {
            throw EventCodingError(.invalidValue, "'\(text)' is not a month in the form YYYY-MM")
        }
        self.init(unchecked: year, month)
    }

    /// Months since 0000-01, for ordering and arithmetic.
    public var ordinal: Int { year * 12 + month - 1 }

    /// The month with this ``ordinal``.
    public init(ordinal: Int) { self.init(unchecked: ordinal / 12, ordinal % 12 + 1) }

    /// The month `count` months later (earlier when negative).
    public func adding(months count: Int) -> Month { Month(ordinal: ordinal + count) }

    /// The month's first day.
    public var firstDay: LocalDate { LocalDate(daysSinceEpoch: CivilCalendar.days(year: year, month: month, day: 1)) }
    /// How many days the month has, 28 to 31.
    public var dayCount: Int { CivilCalendar.daysInMonth(year: year, month: month) }
    /// The month's last day.
    public var lastDay: LocalDate { firstDay.adding(days: dayCount - 1) }

    public static func < (lhs: Month, rhs: Month) -> Bool { lhs.ordinal < rhs.ordinal }

    public var description: String { "\(CivilCalendar.pad(year, 4))-\(CivilCalendar.pad(month, 2))" }
}

extension Month: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        do {
            self = try Month(parsing: try container.decode(String.self))
        } catch let error as EventCodingError {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.message)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension Month: BinaryCodable {
    public func encode(to writer: inout BinaryWriter) { writer.writeZigZag(Int64(ordinal)) }
    public init(from reader: inout BinaryReader) throws {
        let ordinal = try reader.readZigZag()
        guard ordinal >= 12, ordinal < 120_000 else {
            throw EventCodingError(.invalidValue, "month number \(ordinal) is outside 0001-01 to 9999-12\(reader.where)")
        }
        self.init(ordinal: Int(ordinal))
    }
}
