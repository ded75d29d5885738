import TallyEngine

/// A chart as a standalone SVG document: title, axes with ticks in the chart's currency,
/// labels, a legend, and the series as bars or lines; no script, no external asset.
///
/// Every mark carries its exact value (`data-series`, `data-label`, `data-value`, the
/// decimal string of the amount) and a `<title>` a reader's tooltip shows, so the drawing
/// can be checked and read without measuring it.
///
/// ```swift
/// try SVGChart.render(try ledger.chart(.budget)).write(toFile: "budget.svg", atomically: true, encoding: .utf8)
/// ```
public enum SVGChart {
    /// The drawing's size in user units.
    static let width = 760.0, height = 440.0
    static let left = 96.0, right = 24.0, top = 64.0, bottom = 96.0
    /// One colour per series (repeating), each with a dash pattern for lines, so series differ
    /// without colour too.
    static let colours = ["#1f5f99", "#b35900", "#2e7d32", "#6a1b9a"]
    static let dashes = ["", "6 4", "2 3", "10 3 2 3"]

    /// The document.
    public static func render(_ chart: Chart) -> String {
        let plot = Plot(chart)
        var svg = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
                   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(number(width))\" height=\"\(number(height))\" viewBox=\"0 0 \(number(width)) \(number(height))\" role=\"img\" aria-labelledby=\"chart-title chart-desc\" font-family=\"sans-serif\" font-size=\"12\">",
                   "<title id=\"chart-title\">\(escaped(chart.title))</title>",
                   "<desc id=\"chart-desc\">\(escaped(description(chart)))</desc>",
                   "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>",
                   "<text x=\"\(number(left))\" y=\"28\" font-size=\"16\" font-weight=\"bold\" fill=\"#111111\">\(escaped(chart.title))</text>"]
        svg += axes(chart, plot)
        svg += marks(chart, plot)
        svg += legendAndNotes(chart)
        svg.append("</svg>")
        return svg.joined(separator: "\n") + "\n"
    }

    /// Where amounts and labels fall on the page. Geometry only: the amounts are final;
    /// Double places them on the page.
    private struct Plot {
        let scale: AxisScale
        let height = SVGChart.height - top - bottom
        let slot: Double

        init(_ chart: Chart) {
            scale = AxisScale(values: chart.minorUnits)
            slot = (width - left - right) / Double(max(chart.labels.count, 1))
        }

        /// The height of an amount.
        func y(_ minorUnits: Int64) -> Double {
            top + height * Double(scale.upper - Int128(minorUnits)) / Double(scale.upper - scale.lower)
        }

        /// The middle of a label's slot.
        func x(_ index: Int) -> Double { left + slot * (Double(index) + 0.5) }
    }

    /// Axes, ticks in the chart's currency, the currency and the labels (at most twelve shown).
    private static func axes(_ chart: Chart, _ plot: Plot) -> [String] {
        var svg: [String] = []
        svg.append("<g class=\"axes\" stroke=\"#333333\" fill=\"#333333\">")
        for tick in plot.scale.ticks {
            let ty = number(plot.y(Int64(tick)))
            svg.append("<line x1=\"\(number(left))\" x2=\"\(number(width - right))\" y1=\"\(ty)\" y2=\"\(ty)\" stroke=\"#dddddd\"/>")
            svg.append("<text class=\"tick\" x=\"\(number(left - 6))\" y=\"\(ty)\" text-anchor=\"end\" dominant-baseline=\"middle\" stroke=\"none\">\(Money(minorUnits: Int64(tick), commodity: chart.currency).decimalString)</text>")
        }
        svg.append("<line x1=\"\(number(left))\" x2=\"\(number(left))\" y1=\"\(number(top))\" y2=\"\(number(top + plot.height))\"/>")
        svg.append("<line x1=\"\(number(left))\" x2=\"\(number(width - right))\" y1=\"\(number(plot.y(0)))\" y2=\"\(number(plot.y(0)))\"/>")
        svg.append("<text class=\"currency\" x=\"\(number(left - 6))\" y=\"\(number(top - 12))\" text-anchor=\"end\" stroke=\"none\">\(escaped(chart.currency.code))</text>")
        let every = max(1, (chart.labels.count + 11) / 12)
        for (index, label) in chart.labels.enumerated() where index % every == 0 {
            let lx = number(plot.x(index)), ly = number(top + plot.height + 14)
            svg.append("<text class=\"label\" x=\"\(lx)\" y=\"\(ly)\" text-anchor=\"end\" transform=\"rotate(-35 \(lx) \(ly))\" stroke=\"none\">\(escaped(label))</text>")
        }
        svg.append("</g>")
        return svg
    }

    /// The series, as bars or lines, every mark with its exact value.
    private static func marks(_ chart: Chart, _ plot: Plot) -> [String] {
        var svg: [String] = []
        for (index, series) in chart.series.enumerated() {
            let colour = colours[index % colours.count]
            svg.append("<g class=\"series\" data-series=\"\(escaped(series.name))\" fill=\"\(colour)\" stroke=\"\(colour)\">")
            switch chart.style {
            case .bars:
                let barWidth = plot.slot * 0.8 / Double(chart.series.count)
                for (row, value) in series.values.enumerated() {
                    guard let value else { continue }
                    let bx = plot.x(row) - plot.slot * 0.4 + barWidth * Double(index)
                    let y0 = plot.y(max(0, value.minorUnits)), y1 = plot.y(min(0, value.minorUnits))
                    svg.append("<rect class=\"mark\" data-series=\"\(escaped(series.name))\" data-label=\"\(escaped(chart.labels[row]))\" data-value=\"\(value.decimalString)\" x=\"\(number(bx))\" y=\"\(number(y0))\" width=\"\(number(barWidth))\" height=\"\(number(max(y1 - y0, 0.5)))\" stroke=\"none\"><title>\(escaped(chart.labels[row])), \(escaped(series.name)): \(escaped(value.description))</title></rect>")
                }
            case .line:
                var run: [String] = []
                func flush() {
                    if run.count > 1 {
                        let dash = dashes[index % dashes.count].isEmpty ? "" : " stroke-dasharray=\"\(dashes[index % dashes.count])\""
                        svg.append("<polyline fill=\"none\" stroke-width=\"2\"\(dash) points=\"\(run.joined(separator: " "))\"/>")
                    }
                    run = []
                }
                for (row, value) in series.values.enumerated() {
                    guard let value else { flush(); continue }
                    run.append("\(number(plot.x(row))),\(number(plot.y(value.minorUnits)))")
                }
                flush()
                for (row, value) in series.values.enumerated() {
                    guard let value else { continue }
                    svg.append("<circle class=\"mark\" data-series=\"\(escaped(series.name))\" data-label=\"\(escaped(chart.labels[row]))\" data-value=\"\(value.decimalString)\" cx=\"\(number(plot.x(row)))\" cy=\"\(number(plot.y(value.minorUnits)))\" r=\"3\" stroke=\"none\"><title>\(escaped(chart.labels[row])), \(escaped(series.name)): \(escaped(value.description))</title></circle>")
                }
            }
            svg.append("</g>")
        }
        return svg
    }

    /// The legend, top right, and the notes under the labels.
    private static func legendAndNotes(_ chart: Chart) -> [String] {
        var svg: [String] = []
        svg.append("<g class=\"legend\">")
        for (index, series) in chart.series.enumerated() {
            let ly = 20.0 + 16.0 * Double(index)
            let colour = colours[index % colours.count]
            svg.append("<rect x=\"\(number(width - right - 150))\" y=\"\(number(ly - 9))\" width=\"12\" height=\"12\" fill=\"\(colour)\"/>")
            svg.append("<text x=\"\(number(width - right - 132))\" y=\"\(number(ly + 1))\" fill=\"#111111\">\(escaped(series.name)) (\(escaped(chart.currency.code)))</text>")
        }
        svg.append("</g>")
        for (index, note) in chart.notes.prefix(3).enumerated() {
            svg.append("<text class=\"note\" x=\"\(number(left))\" y=\"\(number(height - 30 + 14 * Double(index)))\" fill=\"#555555\">\(escaped(note))</text>")
        }
        return svg
    }

    /// The whole chart in words, for a screen reader: each series' values.
    static func description(_ chart: Chart) -> String {
        let series = chart.series.map { series in
            series.name + ": " + zip(chart.labels, series.values).map { "\($0) \($1?.decimalString ?? "none")" }.joined(separator: ", ")
        }
        return "In \(chart.currency.code). " + series.joined(separator: "; ") + "."
    }

    /// A coordinate with at most two decimals: `12.5`, `300`.
    static func number(_ value: Double) -> String {
        let hundredths = Int64((value * 100).rounded())
        let whole = hundredths / 100, fraction = abs(hundredths % 100)
        let sign = hundredths < 0 && whole == 0 ? "-" : ""
        return fraction == 0 ? "\(sign)\(whole)" : "\(sign)\(whole).\(fraction < 10 ? "0" : "")\(fraction % 10 == 0 ? fraction / 10 : fraction)"
    }

    /// Text made safe for XML content and attributes.
    static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default:
                // XML 1.0 allows no control character but tab, newline and carriage return.
                if let scalar = character.unicodeScalars.first, character.unicodeScalars.count == 1,
                   scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                    out += " "
                } else {
                    out.append(character)
                }
            }
        }
        return out
    }
}

/// A value axis in minor units: from at most zero to at least zero, in five or so steps of
/// 1, 2 or 5 times a power of ten, computed exactly.
struct AxisScale {
    let lower: Int128
    let upper: Int128
    let step: Int128

    init(values: [Int64]) {
        let low = Int128(min(0, values.min() ?? 0))
        var high = Int128(max(0, values.max() ?? 0))
        if high == low { high = low + 100 }
        let raw = (high - low + 4) / 5
        var power: Int128 = 1
        while power * 10 <= raw { power *= 10 }
        step = [1, 2, 5, 10].map { Int128($0) * power }.first { $0 >= raw } ?? power * 10
        lower = (low / step - (low % step < 0 ? 1 : 0)) * step
        upper = (high / step + (high % step > 0 ? 1 : 0)) * step
    }

    /// The ticks from ``lower`` to ``upper``.
    var ticks: [Int128] {
        var ticks: [Int128] = []
        var tick = lower
        while tick <= upper {
            ticks.append(tick)
            tick += step
        }
        return ticks
    }
}
