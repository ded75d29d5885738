import Foundation
import Testing

/// docs/conventions.md, "State and effects": no function body in `Sources/` runs over 70
/// lines; a longer one is split into named steps, so that a reader follows the story by the
/// steps' names.
@Suite struct FunctionLengthTests {
    static let linesMax = 70

    /// Functions still over the limit, each with the work that splits it; the list only
    /// shrinks (an entry that is no longer over the limit fails the test too).
    static let beingSplit: Set<String> = []

    @Test func noFunctionBodyIsOverSeventyLines() throws {
        var long: [String] = []
        for module in SourceLayoutTests.modules {
            for (path, lines) in try SourceLayoutTests.sources(module) {
                for function in FunctionBodies.scan(lines.joined(separator: "\n")) where function.bodyLines > Self.linesMax {
                    long.append("\(path) \(function.name)|\(path):\(function.line): \(function.name) has a body of \(function.bodyLines) lines")
                }
            }
        }
        let offenders = long.filter { !Self.beingSplit.contains(String($0.prefix { $0 != "|" })) }.map { String($0.drop { $0 != "|" }.dropFirst()) }
        #expect(offenders.isEmpty, "functions over \(Self.linesMax) lines (split each into named steps):\n\(offenders.joined(separator: "\n"))")
        let stillListed = Self.beingSplit.filter { entry in !long.contains { $0.hasPrefix(entry + "|") } }
        #expect(stillListed.isEmpty, "no longer over \(Self.linesMax) lines: remove from `beingSplit`: \(stillListed.sorted())")
    }

    /// The scanner measures what a reader sees: braces in strings and comments do not count,
    /// a protocol requirement has no body, nested functions and closures count in their
    /// enclosing function.
    @Test func theScannerMeasuresBodies() {
        let source = #"""
            protocol P {
                func required() throws
                init(value: Int)
            }
            struct S {
                init?(text: String) {
                    guard text != "}" else { return nil }
                }
                func outer(_ x: [Int]) -> Int {
                    // a brace in a comment: }
                    let s = "\(x.map { "\($0)}" })"
                    func inner() -> Int {
                        1
                    }
                    /* { */
                    let raw = #"}"#
                    return """
                        }
                        """.count + s.count + raw.count + inner()
                }
                deinit {}
            }
            """#
        let found = FunctionBodies.scan(source).map { "\($0.name)@\($0.line):\($0.bodyLines)" }
        #expect(found == ["init?@6:1", "func outer@9:10", "func inner@12:1", "deinit@21:0"])
    }
}

/// Functions, initialisers and deinitialisers of a Swift source and the lines of their bodies
/// (between the line of the opening brace and the line of the closing one), found by a
/// lexer that blanks comments and string literals (with their interpolations) first.
enum FunctionBodies {
    struct Function: Equatable {
        /// `func NAME`, `init`, `init?` or `deinit`.
        var name: String
        /// The line of the declaration, from 1.
        var line: Int
        var bodyLines: Int
    }

    static func scan(_ source: String) -> [Function] {
        let code = blanked(Array(source.utf8))
        let newlines = code.indices.filter { code[$0] == UInt8(ascii: "\n") }
        /// How many lines end before `index`.
        func line(at index: Int) -> Int {
            var low = 0, high = newlines.count
            while low < high {
                let middle = (low + high) / 2
                if newlines[middle] < index { low = middle + 1 } else { high = middle }
            }
            return low
        }
        var functions: [Function] = []
        var index = 0
        while index < code.count {
            guard isIdentifierStart(code[index]), index == 0 || !isIdentifier(code[index - 1]) else {
                index += 1
                continue
            }
            var end = index
            while end < code.count, isIdentifier(code[end]) { end += 1 }
            let word = String(decoding: code[index..<end], as: UTF8.self)
            defer { index = end }
            guard let name = declaredName(word, code, end), !isCall(code, index) else { continue }
            guard let open = bodyStart(code, from: end), let close = matchingBrace(code, open) else { continue }
            let declarationLine = line(at: index) + 1
            let openLine = line(at: open)
            let closeLine = line(at: close)
            functions.append(Function(name: name, line: declarationLine, bodyLines: max(0, closeLine - openLine - 1)))
        }
        return functions
    }

    static func isIdentifierStart(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || byte == UInt8(ascii: "_")
    }

    static func isIdentifier(_ byte: UInt8) -> Bool {
        isIdentifierStart(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    /// `func NAME`, `init`, `init?`, `init!` or `deinit` when `word` (ending at `end`) declares one.
    static func declaredName(_ word: String, _ code: [UInt8], _ end: Int) -> String? {
        switch word {
        case "func":
            var start = end
            while start < code.count, code[start] == UInt8(ascii: " ") { start += 1 }
            var stop = start
            while stop < code.count, !(code[stop] == UInt8(ascii: "(") || code[stop] == UInt8(ascii: "<") || code[stop] == UInt8(ascii: " ") || code[stop] == UInt8(ascii: "\n")) { stop += 1 }
            guard stop > start else { return nil }
            return "func " + String(decoding: code[start..<stop], as: UTF8.self)
        case "init", "deinit":
            guard end < code.count else { return nil }
            let next = code[end]
            if word == "init", next == UInt8(ascii: "?") || next == UInt8(ascii: "!") { return "init" + String(UnicodeScalar(next)) }
            return [UInt8(ascii: "("), UInt8(ascii: "<"), UInt8(ascii: " "), UInt8(ascii: "{")].contains(next) ? word : nil
        default:
            return nil
        }
    }

    /// `.init(…)` and `self.init(…)` are calls, not declarations.
    static func isCall(_ code: [UInt8], _ index: Int) -> Bool {
        var before = index - 1
        while before >= 0, code[before] == UInt8(ascii: " ") { before -= 1 }
        return before >= 0 && code[before] == UInt8(ascii: ".")
    }

    /// The body's opening brace: the first `{` outside the signature's parentheses, unless
    /// another declaration starts first (a requirement without a body).
    static func bodyStart(_ code: [UInt8], from start: Int) -> Int? {
        var depth = 0
        var index = start
        var lineStart = false
        let declarations = ["func ", "init", "var ", "let ", "static ", "public ", "case ", "@"].map { Array($0.utf8) }
        while index < code.count {
            let byte = code[index]
            switch byte {
            case UInt8(ascii: "("), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: ")"), UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: "{") where depth == 0: return index
            case UInt8(ascii: "}") where depth == 0: return nil
            case UInt8(ascii: "\n"): lineStart = true; index += 1; continue
            case UInt8(ascii: " "), UInt8(ascii: "\t"): index += 1; continue
            default:
                if lineStart, depth == 0, declarations.contains(where: { starts(code, index, $0) }) { return nil }
            }
            lineStart = false
            index += 1
        }
        return nil
    }

    static func matchingBrace(_ code: [UInt8], _ open: Int) -> Int? {
        var depth = 0
        for index in open..<code.count {
            if code[index] == UInt8(ascii: "{") { depth += 1 }
            if code[index] == UInt8(ascii: "}") {
                depth -= 1
                if depth == 0 { return index }
            }
        }
        return nil
    }

    /// `bytes` with every comment and string literal turned into spaces (newlines kept).
    static func blanked(_ bytes: [UInt8]) -> [UInt8] {
        var out = bytes
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "/") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "#") else {
                index += 1
                continue
            }
            let end: Int
            if starts(bytes, index, "//") {
                end = bytes[index...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            } else if starts(bytes, index, "/*") {
                end = blockCommentEnd(bytes, index)
            } else if let stringEnd = stringLiteralEnd(bytes, index) {
                end = stringEnd
            } else {
                index += 1
                continue
            }
            for blank in index..<end where out[blank] != UInt8(ascii: "\n") { out[blank] = UInt8(ascii: " ") }
            index = end
        }
        return out
    }

    static func starts(_ bytes: [UInt8], _ index: Int, _ prefix: String) -> Bool {
        starts(bytes, index, Array(prefix.utf8))
    }

    static func starts(_ bytes: [UInt8], _ index: Int, _ prefix: [UInt8]) -> Bool {
        guard index + prefix.count <= bytes.count else { return false }
        for offset in prefix.indices where bytes[index + offset] != prefix[offset] { return false }
        return true
    }

    /// Past the end of the block comment at `index` (nested ones included).
    static func blockCommentEnd(_ bytes: [UInt8], _ start: Int) -> Int {
        var depth = 0
        var index = start
        while index < bytes.count {
            if starts(bytes, index, "/*") { depth += 1; index += 2; continue }
            if starts(bytes, index, "*/") {
                depth -= 1
                index += 2
                if depth == 0 { return index }
                continue
            }
            index += 1
        }
        return bytes.count
    }

    /// Past the end of the string literal at `start` (`"…"`, `"""…"""`, raw `#"…"#`), its
    /// interpolations' own strings included; nil when no literal starts there.
    static func stringLiteralEnd(_ bytes: [UInt8], _ start: Int) -> Int? {
        var index = start
        while index < bytes.count, bytes[index] == UInt8(ascii: "#") { index += 1 }
        let hashes = index - start
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        let multiline = starts(bytes, index, "\"\"\"")
        let closing = Array((multiline ? "\"\"\"" : "\"").utf8) + Array(repeating: UInt8(ascii: "#"), count: hashes)
        let escape = [UInt8(ascii: "\\")] + Array(repeating: UInt8(ascii: "#"), count: hashes)
        index += multiline ? 3 : 1
        while index < bytes.count {
            if starts(bytes, index, escape) {
                index += escape.count
                if index < bytes.count, bytes[index] == UInt8(ascii: "(") {
                    index = interpolationEnd(bytes, index)
                } else {
                    index += 1
                }
                continue
            }
            if starts(bytes, index, closing) { return index + closing.count }
            if !multiline && bytes[index] == UInt8(ascii: "\n") { return index }
            index += 1
        }
        return bytes.count
    }

    /// Past the `)` that closes the interpolation whose `(` is at `start`.
    static func interpolationEnd(_ bytes: [UInt8], _ start: Int) -> Int {
        var depth = 0
        var index = start
        while index < bytes.count {
            if let end = stringLiteralEnd(bytes, index) { index = end; continue }
            if bytes[index] == UInt8(ascii: "(") { depth += 1 }
            if bytes[index] == UInt8(ascii: ")") {
                depth -= 1
                if depth == 0 { return index + 1 }
            }
            index += 1
        }
        return bytes.count
    }
}
