import Foundation
import Tally
import TallyLog

/// Printing helpers shared by the commands: standard error, tables, sizes, ratios.
///
/// Text meant for people never carries a control character raw: table cells, names in
/// one-line reports and error messages go through ``visible(_:)`` (``EventText/escaped(_:)``),
/// so a name recorded before control characters were refused cannot drive the terminal
/// (`\e[2J`), hide itself (`\0`) or break a table's rows (`\n`). JSON output escapes by its
/// own rules; CSV output carries the text as it is (the format quotes CR and LF).
enum Output {
    /// `tally: message` on standard error, control characters made visible.
    static func error(_ message: String) {
        Console.current.writeError("tally: \(visibleLines(message))\n")
    }

    /// Text on standard error as given.
    static func note(_ message: String) {
        Console.current.writeError(message)
    }

    /// Text with every control character made visible: `\0`, `\t`, `\n`, `\r`, `\e`, `\u{7F}`.
    static func visible(_ text: String) -> String { EventText.escaped(text) }

    /// A table with left-aligned text columns and right-aligned numeric ones; every cell
    /// and heading is shown with control characters made visible (``visible(_:)``). Every
    /// column has a heading and every row one cell per column (docs/cli.md, "Lists"): a
    /// table that breaks this is a programmer error and traps.
    static func table(_ header: [String], _ rows: [[String]], rightAligned: Set<Int> = []) -> String {
        precondition(header.allSatisfy { !$0.allSatisfy(\.isWhitespace) }, "every column of a table has a heading: \(header)")
        precondition(rows.allSatisfy { $0.count == header.count }, "every row of a table has one cell per heading: \(header)")
        let header = header.map(visible)
        let rows = rows.map { $0.map(visible) }
        var widths = header.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.count)
            }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                let padding = String(repeating: " ", count: max(0, widths[index] - cell.count))
                return rightAligned.contains(index) ? padding + cell : cell + padding
            }.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n")
    }

    /// Bytes in a readable unit, computed with integers.
    static func bytes(_ count: Int64) -> String {
        if count < 1024 { return "\(count) B" }
        let units = ["KiB", "MiB", "GiB", "TiB"]
        var value = count
        var unit = -1
        while value >= 1024 * 1024, unit < units.count - 2 {
            value /= 1024
            unit += 1
        }
        // value is now in units[unit + 1] * 1024; print one decimal.
        let tenths = value * 10 / 1024
        return "\(tenths / 10).\(tenths % 10) \(units[unit + 1])"
    }

    /// An exact ratio printed with two decimals, rounded half up: "3.42x".
    static func ratio(_ numerator: Int64, _ denominator: Int64) -> String {
        guard denominator > 0 else { return "n/a" }
        let hundredths = (numerator * 200 / denominator + 1) / 2
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)x"
    }

    /// Basis points as a percentage with two decimals: 1234 → "12.34%".
    static func percent(_ basisPoints: Int64) -> String { hundredths(basisPoints) + "%" }

    /// Hundredths as a decimal with two places: 2500 → "25.00".
    static func hundredths(_ value: Int64) -> String {
        let sign = value < 0 ? "-" : ""
        let magnitude = value.magnitude
        let fraction = magnitude % 100
        return "\(sign)\(magnitude / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    /// One line of JSON from string keys and already-encoded JSON values, in the given order.
    static func jsonObject(_ fields: [(String, String)]) -> String {
        "{" + fields.map { "\(EventJSON.quoted($0.0)):\($0.1)" }.joined(separator: ",") + "}"
    }
}

/// What a command appended, for the user.
enum CommandOutput {
    /// `{"already_applied": …, "events": [...]}`: what a command did, in the events' JSON form.
    /// - Throws: ``EventCodingError`` for an event that cannot be written as JSON.
    static func json(_ result: Ledger.CommandResult) throws -> String {
        Output.jsonObject([
            ("already_applied", String(result.wasAlreadyApplied)),
            ("events", "[" + (try result.events.map { try EventJSON.encode($0) }).joined(separator: ",") + "]"),
        ])
    }

    /// `seq 12` or `seq 12-14` for the events a command appended; nil when there are none.
    static func sequenceRange(_ result: Ledger.CommandResult) -> String? {
        guard let first = result.events.first, let last = result.events.last else { return nil }
        return first.sequence == last.sequence ? "seq \(first.sequence)" : "seq \(first.sequence)-\(last.sequence)"
    }

    static func printRecorded(_ result: Ledger.CommandResult) {
        if result.wasAlreadyApplied {
            print("already recorded (seq \(result.events.first.map { String($0.sequence) } ?? "?")); nothing appended")
            return
        }
        for event in result.events {
            print("recorded seq \(event.sequence): \(event.type.name) \(Output.visible(event.entity))")
        }
    }
}
