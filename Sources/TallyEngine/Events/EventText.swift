internal import Foundation

/// What text an event may carry, and how to show any text safely.
///
/// Every string field of an event refuses control characters: C0 (U+0000–U+001F: NUL, ESC,
/// tab, CR, LF …), DEL (U+007F), C1 (U+0080–U+009F) and the bidirectional formatting
/// controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), which reorder what a
/// terminal shows: `pay\u{202E}gpj.exe` reads as `payexe.jpg`. Names, ids, payees, categories,
/// currencies and idempotency keys are single-line values: they are printed in tables,
/// compared, and passed to SQLite and other C APIs. A NUL cuts a name short for a C-string
/// reader (an account's balance vanished from `balances`); an ESC drives the terminal that
/// prints the name; a newline breaks every line-oriented report.
///
/// One exception: a free-text field (``freeTextFields``: a reminder's `note`) may hold tabs
/// (U+0009) and line feeds (U+000A), so that a note can span lines. Every other control
/// character, CR included, is refused there too: write line breaks as LF.
///
/// The rule is enforced in one place, ``EventCatalog/record(for:)``, which every event
/// passes before it reaches the log: commands, journal and NDJSON imports, `append`.
/// Decoding never applies it, so events recorded before the rule existed still read; show
/// such text with ``escaped(_:)``.
///
/// ```swift
/// EventText.isControl("\u{1B}")          // true
/// EventText.escaped("Bad\u{1B}[31mName") // "Bad\e[31mName"
/// ```
public enum EventText {
    /// The names of the fields (the last key of their JSON path) that hold free text and
    /// may therefore hold tabs and line feeds.
    public static let freeTextFields: Set<String> = ["note"]

    /// Whether a scalar is a control character: C0, DEL, C1 or a bidirectional formatting control.
    @inlinable
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || isBidiControl(scalar)
    }

    /// Whether a scalar is a bidirectional formatting control: the Arabic letter mark (U+061C),
    /// the left-to-right and right-to-left marks (U+200E, U+200F), the embeddings and overrides
    /// (U+202A–U+202E) and the isolates (U+2066–U+2069).
    @inlinable
    public static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// Whether UTF-8 bytes hold a control character: a byte below 0x20, 0x7F, the two-byte
    /// form of U+0080–U+009F (`C2 80` to `C2 9F`) or of U+061C (`D8 9C`), or the three-byte
    /// form of a bidirectional control (`E2 80 8E`, `E2 80 8F`, `E2 80 AA`–`AE`,
    /// `E2 81 A6`–`A9`). The fast check of the read-back.
    ///
    /// Bytes held in one run (a native string's) are first read eight at a time: text of
    /// printable ASCII alone (0x20–0x7E, most names and ids) holds none of those, and only
    /// other text goes byte by byte.
    @inlinable
    static func containsControl<Bytes: Sequence>(_ bytes: Bytes) -> Bool where Bytes.Element == UInt8 {
        if bytes.withContiguousStorageIfAvailable({ isPrintableASCII(UnsafeRawBufferPointer($0)) }) == true { return false }
        return containsControlByteByByte(bytes)
    }

    /// Whether every byte is printable ASCII (0x20–0x7E), eight bytes a step: a byte below
    /// 0x20 borrows into its top bit when 0x20 is taken from it and its top bit is clear;
    /// a byte of 0x7F or more has its top bit set once 1 is added to it.
    @usableFromInline
    static func isPrintableASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let tops: UInt64 = 0x8080_8080_8080_8080
        let ones: UInt64 = 0x0101_0101_0101_0101
        var index = 0
        while index + 8 <= bytes.count {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            if ((word &- ones &* 0x20) & ~word | (word &+ ones) | word) & tops != 0 { return false }
            index += 8
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x20 || byte >= 0x7F { return false }
            index += 1
        }
        return true
    }

    /// ``containsControl(_:)``, a byte at a time.
    @inlinable
    static func containsControlByteByByte<Bytes: Sequence>(_ bytes: Bytes) -> Bool where Bytes.Element == UInt8 {
        var previous: UInt8 = 0
        var beforePrevious: UInt8 = 0
        for byte in bytes {
            if byte < 0x20 || byte == 0x7F || (previous == 0xC2 && (0x80...0x9F).contains(byte)) || (previous == 0xD8 && byte == 0x9C) {
                return true
            }
            if beforePrevious == 0xE2 {
                if previous == 0x80 && (byte == 0x8E || byte == 0x8F || (0xAA...0xAE).contains(byte)) { return true }
                if previous == 0x81 && (0xA6...0xA9).contains(byte) { return true }
            }
            beforePrevious = previous
            previous = byte
        }
        return false
    }

    /// The text with every control character made visible, for a terminal or a log line:
    /// `\0` (NUL), `\t`, `\n`, `\r`, `\e` (ESC), and `\u{XX}` for the others (DEL and C1
    /// included). Other text, backslashes included, is left as it is.
    ///
    /// ```swift
    /// EventText.escaped("a\u{0}b\nc\u{9B}")  // "a\0b\nc\u{9B}"
    /// ```
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard isControl(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar.value {
            case 0x00: result += "\\0"
            case 0x09: result += "\\t"
            case 0x0A: result += "\\n"
            case 0x0D: result += "\\r"
            case 0x1B: result += "\\e"
            default: result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return result
    }

    /// Why `text` may not be stored in a field, or nil when it may.
    ///
    /// - Parameter isFreeText: whether the field is free text (tab and LF allowed).
    static func problem(in text: String, isFreeText: Bool) -> String? {
        var position = 0
        for scalar in text.unicodeScalars {
            position += 1
            guard isControl(scalar) else { continue }
            if isFreeText && (scalar == "\t" || scalar == "\n") { continue }
            let found = "holds a control character (\(name(of: scalar))) at character \(position)"
            if isFreeText {
                return "\(found); a note may hold tabs and line feeds (LF), no other control character"
            }
            return "\(found); names, ids and other text fields must be printable: no NUL, ESC, tab, line break or other control character"
        }
        return nil
    }

    /// `U+001B ESC`, `U+0000 NUL`, `U+0085 C1 control`.
    static func name(of scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        let names: [UInt32: String] = [
            0x00: "NUL", 0x07: "BEL", 0x08: "backspace", 0x09: "tab", 0x0A: "line feed", 0x0B: "vertical tab",
            0x0C: "form feed", 0x0D: "carriage return", 0x1B: "ESC", 0x7F: "DEL",
        ]
        if isBidiControl(scalar) { return "\(code) bidirectional formatting control" }
        return "\(code) \(names[scalar.value] ?? (scalar.value < 0x20 ? "C0 control" : "C1 control"))"
    }

    // MARK: Naming the field at fault

    /// A field that breaks a rule of the record check.
    struct FieldProblem: Hashable {
        var code: EventCodingError.Code
        /// The field's path in the event's JSON form, e.g. `data.payee`.
        var field: String
        var reason: String
    }

    /// The first field of the payload, in its JSON form, that holds a control character
    /// (outside what a free-text field may hold), a string past ``eventStringBytesLimit`` or
    /// a list past ``eventListCountLimit``. The slow path of the record check: it runs only
    /// when the fast read-back found such a value, to name the field.
    static func firstProblem(in body: EventBody) throws -> FieldProblem? {
        let json = try EventJSON.payloadJSON(body)
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(json.utf8)) else {
            // Unreachable (the JSON is our own encoding); refuse rather than let the value through.
            return FieldProblem(code: .invalidValue, field: "data", reason: "holds a value this build cannot check; report this as a bug")
        }
        return firstProblem(in: value, path: "data")
    }

    private static func firstProblem(in value: JSONValue, path: String) -> FieldProblem? {
        switch value {
        case .string(let text):
            let bytes = text.utf8.count
            if bytes > eventStringBytesLimit {
                return FieldProblem(code: .limitExceeded, field: path, reason: "holds \(bytes) bytes; the limit is \(eventStringBytesLimit)")
            }
            let fieldName = String(path.split(separator: ".").last?.split(separator: "[").first ?? "")
            return problem(in: text, isFreeText: freeTextFields.contains(fieldName)).map {
                FieldProblem(code: .invalidValue, field: path, reason: $0)
            }
        case .array(let values):
            if values.count > eventListCountLimit {
                return FieldProblem(code: .limitExceeded, field: path, reason: "holds \(values.count) elements; the limit is \(eventListCountLimit)")
            }
            for (index, element) in values.enumerated() {
                if let found = firstProblem(in: element, path: "\(path)[\(index)]") { return found }
            }
            return nil
        case .object(let fields):
            for key in fields.keys.sorted() {
                if let found = firstProblem(in: fields[key]!, path: "\(path).\(key)") { return found }
            }
            return nil
        default:
            return nil
        }
    }

    /// The payload field the entity is built from (`account:<account>` → `data.account`):
    /// the longest non-empty string field whose text the entity contains; `entity` if none.
    static func fieldFormingEntity(_ entity: String, of body: EventBody) throws -> String {
        let json = try EventJSON.payloadJSON(body)
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(json.utf8)) else { return "entity" }
        var best: (field: String, bytes: Int)?
        func visit(_ value: JSONValue, _ path: String) {
            switch value {
            case .string(let text) where !text.isEmpty && entity.contains(text):
                if text.utf8.count > (best?.bytes ?? 0) { best = (path, text.utf8.count) }
            case .object(let fields):
                for key in fields.keys.sorted() { visit(fields[key]!, "\(path).\(key)") }
            default:
                break
            }
        }
        visit(value, "data")
        return best?.field ?? "entity"
    }
}
