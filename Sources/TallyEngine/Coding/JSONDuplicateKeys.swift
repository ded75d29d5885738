/// Finds a key that appears twice in one JSON object: input that parses one way only.
///
/// JSON leaves duplicate keys to the reader (RFC 8259 §4): `{"amount":"1.00","amount":"900.00"}`
/// reads as 1.00 to some parsers and 900.00 to most, so an event, a command body or a file
/// that holds one could mean one thing to Tally and another to whoever wrote or checks it.
/// Every JSON input (NDJSON events, HTTP bodies) is refused when it has one.
///
/// ```swift
/// JSONDuplicateKeys.first(in: Array(#"{"data":{"amount":"1.00","amount":"900.00"}}"#.utf8))   // "data.amount"
/// ```
public enum JSONDuplicateKeys {
    /// The deepest nesting walked; deeper input is left to the JSON parser's own limit.
    static let depthMax = 512

    /// The path (`data.amount`, `lines[2].amount`) of the first key that appears twice in one
    /// object, keys compared after their escapes are decoded (`"amo\u0075nt"` is `amount`); nil
    /// when there is none, or when `bytes` is not well-formed JSON (its parser says why).
    public static func first(in bytes: some Collection<UInt8>) -> String? {
        var scanner = Scanner(bytes: Array(bytes))
        return (try? scanner.value(path: "", depth: 0)) ?? nil
    }

    /// The path of the value whose bytes hold `offset` (`data.name` for a byte inside that
    /// string), or nil when `offset` lies outside every value of a key (or `bytes` cannot be
    /// walked up to it): names the field of an invalid UTF-8 byte.
    public static func path(containing offset: Int, in bytes: some Collection<UInt8>) -> String? {
        var scanner = Scanner(bytes: Array(bytes))
        scanner.target = offset
        _ = try? scanner.value(path: "", depth: 0)
        return scanner.found
    }

    /// The path of the first number too large for any integer or decimal Tally reads
    /// (`1e400`, `99999999999999999999999`), or nil: names the field a parser's overflow hides.
    public static func firstOutOfRangeNumber(in bytes: some Collection<UInt8>) -> String? {
        var scanner = Scanner(bytes: Array(bytes))
        scanner.checkNumbers = true
        _ = try? scanner.value(path: "", depth: 0)
        return scanner.found
    }

    private struct Malformed: Error {}

    private struct Scanner {
        let bytes: [UInt8]
        var position = 0
        /// A byte offset whose value's path is wanted (``path(containing:in:)``).
        var target: Int? = nil
        /// Whether numbers are checked for range (``firstOutOfRangeNumber(in:)``).
        var checkNumbers = false
        /// What a targeted walk found; the walk stops once it is set.
        var found: String? = nil

        init(bytes: [UInt8]) { self.bytes = bytes }

        /// Stops the walk (as if a duplicate were found) once `found` is set.
        mutating func stop(_ path: String) -> String? {
            found = path
            return path
        }

        mutating func skipSpace() {
            while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
        }

        mutating func expect(_ byte: UInt8) throws {
            skipSpace()
            guard position < bytes.count, bytes[position] == byte else { throw Malformed() }
            position += 1
        }

        /// Scans one value; returns the path of a duplicate key inside it, if any.
        mutating func value(path: String, depth: Int) throws -> String? {
            guard depth < JSONDuplicateKeys.depthMax else { throw Malformed() }
            skipSpace()
            guard position < bytes.count else { throw Malformed() }
            switch bytes[position] {
            case UInt8(ascii: "{"):
                position += 1
                var keys: Set<String> = []
                skipSpace()
                if position < bytes.count, bytes[position] == UInt8(ascii: "}") { position += 1; return nil }
                while true {
                    skipSpace()
                    let key = try string()
                    let keyPath = path.isEmpty ? key : path + "." + key
                    guard keys.insert(key).inserted else { return keyPath }
                    try expect(UInt8(ascii: ":"))
                    if let duplicate = try value(path: keyPath, depth: depth + 1) { return duplicate }
                    skipSpace()
                    guard position < bytes.count else { throw Malformed() }
                    if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                    guard bytes[position] == UInt8(ascii: "}") else { throw Malformed() }
                    position += 1
                    return nil
                }
            case UInt8(ascii: "["):
                position += 1
                skipSpace()
                if position < bytes.count, bytes[position] == UInt8(ascii: "]") { position += 1; return nil }
                var index = 0
                while true {
                    if let duplicate = try value(path: "\(path)[\(index)]", depth: depth + 1) { return duplicate }
                    index += 1
                    skipSpace()
                    guard position < bytes.count else { throw Malformed() }
                    if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                    guard bytes[position] == UInt8(ascii: "]") else { throw Malformed() }
                    position += 1
                    return nil
                }
            case UInt8(ascii: "\""):
                let start = position
                _ = try string()
                if let target, target >= start, target < position { return stop(path) }
                return nil
            default:
                // A number or a literal: everything up to the next delimiter.
                let start = position
                while position < bytes.count, ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) {
                    position += 1
                }
                if let target, target >= start, target < position { return stop(path) }
                if checkNumbers, !Self.fits(bytes[start..<position]) { return stop(path) }
                return nil
            }
        }

        /// A string at `position`, its escapes decoded.
        mutating func string() throws -> String {
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw Malformed() }
            position += 1
            var scalars = String.UnicodeScalarView()
            var raw: [UInt8] = []
            func flush() {
                if !raw.isEmpty { scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars); raw.removeAll() }
            }
            while position < bytes.count {
                let byte = bytes[position]
                position += 1
                if byte == UInt8(ascii: "\"") {
                    flush()
                    return String(scalars)
                }
                guard byte == UInt8(ascii: "\\") else { raw.append(byte); continue }
                flush()
                guard position < bytes.count else { throw Malformed() }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var unit = try hex4()
                    if (0xD800...0xDBFF).contains(unit), position + 1 < bytes.count,
                       bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") {
                        let saved = position
                        position += 2
                        let low = try hex4()
                        if (0xDC00...0xDFFF).contains(low) {
                            unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            position = saved
                        }
                    }
                    scalars.append(Unicode.Scalar(unit) ?? "\u{FFFD}")
                default:
                    throw Malformed()
                }
            }
            throw Malformed()
        }

        /// Whether a number token (or literal) is one an integer or a decimal holds: an integer
        /// up to 2^64 in magnitude, or a decimal of at most 38 significant digits whose exponent
        /// stays within ±120 (Foundation's `Decimal` reaches ±127).
        static func fits(_ token: ArraySlice<UInt8>) -> Bool {
            guard let first = token.first, first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return true }
            let text = String(decoding: token, as: UTF8.self)
            if Int64(text) != nil || UInt64(text) != nil { return true }
            let lower = text.lowercased()
            let parts = lower.split(separator: "e", maxSplits: 1)
            let mantissa = parts[0].filter { $0 != "-" && $0 != "+" }
            let digits = mantissa.filter(\.isNumber).drop { $0 == "0" }
            let point = mantissa.firstIndex(of: ".").map { mantissa.distance(from: mantissa.startIndex, to: $0) } ?? mantissa.count
            let explicit = parts.count == 2 ? Int(parts[1]) : 0
            guard let explicit else { return false }
            // The magnitude's exponent: digits before the point, plus the explicit exponent.
            let magnitude = point + explicit
            return digits.count <= 38 && magnitude <= 120 && magnitude >= -120
        }

        mutating func hex4() throws -> UInt32 {
            guard position + 4 <= bytes.count else { throw Malformed() }
            var value: UInt32 = 0
            for byte in bytes[position..<(position + 4)] {
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: throw Malformed()
                }
                value = value << 4 | digit
            }
            position += 4
            return value
        }
    }
}
