import TallyEngine

/// A chart drawn for a terminal with Unicode blocks, one row per label and series, fitting a
/// given width and readable without colour: the first series in solid blocks with eighths,
/// the others in shades (`▓`, `░`, `▒`), each named in the legend, every value written out.
///
/// ```text
/// Budgets of 2026-05, spent through 2026-05-31
/// USD   █ Spent   ▓ Maximum
/// Groceries  Spent    │████████████████████████████▊  105.50
///            Maximum  │▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓    100.00
/// ```
public enum TerminalChart {
    /// The narrowest drawing: a narrower width is drawn at this one.
    public static let minimumWidth = 40

    /// The glyph of each series after the first, by position (repeating).
    static let shades: [Character] = ["▓", "░", "▒"]
    /// Eighths of a cell for the first series: none, ▏ … ▉.
    static let eighths = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]

    /// The chart in lines of at most `width` characters (at least ``minimumWidth``).
    ///
    /// The bars' lengths are whole eighths of a cell (first series) or whole cells (the
    /// others), computed from the exact minor units with integer arithmetic: the longest bar
    /// fills its side of the axis; a chart with negative values draws them left of the axis.
    public static func render(_ chart: Chart, width: Int) -> String {
        let width = max(width, minimumWidth)
        let many = chart.series.count > 1
        let texts = chart.series.map { $0.values.map { $0?.decimalString ?? "-" } }
        let labelWidth = min(24, chart.labels.map(\.count).max() ?? 0)
        let nameWidth = many ? min(16, chart.series.map(\.name.count).max() ?? 0) : 0
        let valueWidth = texts.flatMap { $0 }.map(\.count).max() ?? 1
        let barWidth = max(10, width - labelWidth - 1 - (many ? nameWidth + 1 : 0) - 3 - valueWidth)
        let positive = Int128(max(0, chart.minorUnits.max() ?? 0))
        let negative = Int128(max(0, -(chart.minorUnits.min() ?? 0)))
        // The cells left of the axis, in proportion to the largest negative value.
        let negativeCells = negative == 0 ? 0 : max(1, Int(Int128(barWidth) * negative / (positive + negative)))
        let positiveCells = barWidth - negativeCells

        var lines = wrap(chart.title, width)
        let legend = chart.series.enumerated().map { index, series in "\(glyph(index)) \(series.name)" }
        lines += wrap(([chart.currency.code] + (many ? legend : [])).joined(separator: "   "), width)
        for (row, label) in chart.labels.enumerated() {
            for (index, series) in chart.series.enumerated() {
                let shownLabel = index == 0 ? fit(label, labelWidth) : String(repeating: " ", count: labelWidth)
                let name = many ? fit(series.name, nameWidth) + " " : ""
                var bar = String(repeating: " ", count: negativeCells) + "│" + String(repeating: " ", count: positiveCells)
                if let value = series.values[row] {
                    bar = draw(Int128(value.minorUnits), series: index, negativeCells: negativeCells, positiveCells: positiveCells,
                               negative: negative, positive: positive)
                }
                let text = texts[index][row]
                lines.append(shownLabel + " " + name + bar + " " + String(repeating: " ", count: valueWidth - text.count) + text)
            }
        }
        lines += chart.notes.flatMap { wrap("* " + $0, width) }
        return lines.joined(separator: "\n") + "\n"
    }

    static func glyph(_ series: Int) -> Character { series == 0 ? "█" : shades[(series - 1) % shades.count] }

    /// One bar: the negative side, the axis, the positive side.
    private static func draw(_ value: Int128, series: Int, negativeCells: Int, positiveCells: Int, negative: Int128, positive: Int128) -> String {
        let full = String(glyph(series))
        var left = String(repeating: " ", count: negativeCells)
        var right = String(repeating: " ", count: positiveCells)
        if value < 0, negative > 0 {
            let cells = Int((-value * Int128(negativeCells) + negative / 2) / negative)
            left = String(repeating: " ", count: negativeCells - cells) + String(repeating: full, count: cells)
        } else if value > 0, positive > 0 {
            if series == 0 {
                let units = Int(value * Int128(positiveCells) * 8 / positive)
                let drawn = String(repeating: full, count: units / 8) + eighths[units % 8]
                right = drawn + String(repeating: " ", count: positiveCells - units / 8 - (units % 8 == 0 ? 0 : 1))
            } else {
                let cells = Int((value * Int128(positiveCells) + positive / 2) / positive)
                right = String(repeating: full, count: cells) + String(repeating: " ", count: positiveCells - cells)
            }
        }
        return left + "│" + right
    }

    /// `text` in lines of at most `width` characters, broken at spaces (a longer word is cut).
    static func wrap(_ text: String, _ width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false).map(String.init) {
            var word = word
            while word.count > width {
                if !line.isEmpty { lines.append(line); line = "" }
                lines.append(String(word.prefix(width)))
                word = String(word.dropFirst(width))
            }
            if line.isEmpty { line = word } else if line.count + 1 + word.count <= width { line += " " + word } else { lines.append(line); line = word }
        }
        return lines + [line]
    }

    /// `text` cut or padded to `width` characters.
    private static func fit(_ text: String, _ width: Int) -> String {
        text.count > width ? String(text.prefix(width - 1)) + "…" : text + String(repeating: " ", count: width - text.count)
    }
}
