import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// Charts (docs/notifications.md, "Charts"): the series are the products' exact answers, and
/// the terminal and SVG drawings carry them unchanged.
@Suite struct ChartTests {
    /// The marks of an SVG document, read back with an XML parser: (series, label, value).
    private final class Marks: NSObject, XMLParserDelegate {
        var marks: [[String]] = []
        var elements: [String] = []
        var texts: [String] = []
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            elements.append(name)
            if attributes["class"] == "mark", let series = attributes["data-series"], let label = attributes["data-label"], let value = attributes["data-value"] {
                marks.append([series, label, value])
            }
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) { texts.append(string) }
    }

    private func parse(_ svg: String) throws -> Marks {
        let marks = Marks()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = marks
        #expect(parser.parse(), "the SVG is well-formed XML: \(String(describing: parser.parserError))")
        return marks
    }

    /// The chart's values as (series, label, value) triples, nil values left out.
    private func triples(_ chart: Chart) -> [[String]] {
        chart.series.flatMap { series in zip(chart.labels, series.values).compactMap { label, value in value.map { [series.name, label, $0.decimalString] } } }
    }

    private func budgetHousehold(_ root: String) throws -> Ledger {
        let clock = ManualClock("2026-06-01T12:00:00Z")
        let ledger = try Ledger.forTesting(at: root, clock: clock)
        try ledger.setBudget(category: .groceries, month: month("2026-05"), maximum: usd("100.00"))
        try ledger.setBudget(category: .diningOut, month: month("2026-05"), maximum: usd("50.00"))
        try ledger.recordTransaction(payee: "Market", category: .groceries, amount: usd("-60.00"), date: day("2026-05-10"))
        try ledger.recordTransaction(payee: "Grocer", category: .groceries, amount: usd("-45.55"), date: day("2026-05-24"))
        try ledger.recordTransaction(payee: "Bistro", category: .diningOut, amount: usd("-12.30"), date: day("2026-05-12"))
        try ledger.recordTransaction(payee: "Cinema", category: .entertainment, amount: usd("-200.00"), date: day("2026-05-02"))
        return ledger
    }

    @Test func theBudgetChartIsSpentBesideTheMaximumInEveryForm() throws {
        try withTemporaryStore { root in
            let ledger = try budgetHousehold(root)
            let chart = try ledger.chart(.budget, ChartRequest(asOf: ledger.calendar.endOfDay(day("2026-05-31"))))
            #expect(chart.labels == ["Dining Out", "Groceries"])
            #expect(chart.series.map(\.name) == ["Spent", "Maximum"])
            #expect(chart.series[0].values == [usd("12.30"), usd("105.55")])
            #expect(chart.series[1].values == [usd("50.00"), usd("100.00")])
            #expect(chart.json == """
                {"chart":"budget","title":"Budgets of 2026-05, spent through 2026-05-31","currency":"USD","style":"bars","labels":["Dining Out","Groceries"],\
                "series":[{"name":"Spent","values":["12.30","105.55"]},{"name":"Maximum","values":["50.00","100.00"]}],"notes":[]}
                """)
            // As of the 20th, the Grocer's 45.55 is not spent yet.
            let earlier = try ledger.chart(.budget, ChartRequest(asOf: ledger.calendar.endOfDay(day("2026-05-20"))))
            #expect(earlier.series[0].values == [usd("12.30"), usd("60.00")])

            let svg = SVGChart.render(chart)
            let parsed = try parse(svg)
            #expect(parsed.marks == triples(chart))
            #expect(parsed.elements.first == "svg")
            #expect(!parsed.elements.contains("script"))
            #expect(parsed.elements.contains("title") && parsed.elements.contains("desc"))
            #expect(parsed.texts.contains("USD"), "the currency is on the axis")
            #expect(parsed.texts.contains("Spent (USD)") && parsed.texts.contains("Maximum (USD)"), "the legend names each series")
            #expect(parsed.texts.contains("Groceries") && parsed.texts.contains("Dining Out"))

            for width in [40, 64, 120] {
                let drawing = TerminalChart.render(chart, width: width)
                let lines = drawing.split(separator: "\n").map(String.init)
                #expect(lines.allSatisfy { $0.count <= width }, "every line fits \(width) columns")
                let legend = try #require(lines.firstIndex(of: "USD   █ Spent   ▓ Maximum"))
                let rows = Array(lines[(legend + 1)...])
                #expect(rows.count == 4)
                #expect(rows[2].hasPrefix("Groceries  Spent   │") && rows[2].hasSuffix(" 105.55"))
                // The largest value fills its side of the axis; the others are in proportion.
                let cells = rows[2].split(separator: "│")[1].filter { $0 == "█" }.count
                #expect(cells == width - 10 - 1 - 8 - 3 - 6)
                let maximum = rows[3].filter { $0 == "▓" }.count
                #expect(maximum == Int((10_000 * cells + 10_555 / 2) / 10_555))
            }
            try ledger.close()
        }
    }

    @Test func spendingIsByCategoryLargestFirstOverThePeriod() throws {
        try withTemporaryStore { root in
            let ledger = try budgetHousehold(root)
            let chart = try ledger.chart(.spending, ChartRequest(from: day("2026-05-01"), to: day("2026-05-31")))
            #expect(chart.labels == ["Entertainment", "Groceries", "Dining Out"])
            #expect(chart.series[0].values == [usd("200.00"), usd("105.55"), usd("12.30")])
            let parsed = try parse(SVGChart.render(chart))
            #expect(parsed.marks == triples(chart))
            #expect { try ledger.chart(.spending, ChartRequest(from: day("2026-06-01"), to: day("2026-05-31"))) } throws: {
                ($0 as? LedgerError)?.code == .invalidArgument
            }
            try ledger.close()
        }
    }

    @Test func netWorthIsEachMonthsEndAsTheNetWorthAnswerGivesIt() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-01-01T12:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            try ledger.addAsset(assetId: "cash", name: "Cash", category: .cash, type: .cash, currency: .usd)
            try ledger.addLiability(liabilityId: "card", name: "Card", category: .creditCard, currency: .usd)
            for (index, text) in ["2026-01-15", "2026-02-15", "2026-03-15", "2026-04-15"].enumerated() {
                clock.set("\(text)T12:00:00Z")
                try ledger.recordValuation(itemKind: .asset, itemId: "cash", value: usd("\(1000 + 250 * index).00"), source: .manual)
                try ledger.recordValuation(itemKind: .liability, itemId: "card", value: usd("\(1500 - 400 * index).10"), source: .manual)
            }
            clock.set("2026-04-20T12:00:00Z")
            let chart = try ledger.chart(.networth, ChartRequest(from: day("2025-12-01")))
            #expect(chart.labels == ["2025-12", "2026-01", "2026-02", "2026-03", "2026-04"])
            let expected = try ["2025-12-31", "2026-01-31", "2026-02-28", "2026-03-31"].map { try ledger.netWorth(asOf: ledger.calendar.endOfDay(day($0))).netWorth }
                + [try ledger.netWorth().netWorth]
            #expect(chart.series[0].values == expected)
            #expect(chart.series[0].values[1] == (try Money(parsing: "-500.10", commodity: .usd)), "a negative net worth is drawn below the axis")
            let svg = SVGChart.render(chart)
            #expect(try parse(svg).marks == triples(chart))
            #expect(svg.contains("<polyline"))
            let drawing = TerminalChart.render(chart, width: 60)
            #expect(drawing.split(separator: "\n").allSatisfy { $0.count <= 60 })
            let january = try #require(drawing.split(separator: "\n").first { $0.hasPrefix("2026-01") })
            let sides = january.split(separator: "│", omittingEmptySubsequences: false)
            #expect(sides[0].contains("█") && !sides[1].contains("█"), "a negative month's bar is left of the axis")
            try ledger.close()
        }
    }

    @Test func allocationAndWhatIfComeFromTheirProducts() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-05-01T12:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            try ledger.addAsset(assetId: "house", name: "House", category: .property, type: .realEstate, currency: .usd)
            try ledger.addAsset(assetId: "gold", name: "Gold", category: .investments, type: .gold, currency: .usd)
            try ledger.recordValuation(itemKind: .asset, itemId: "house", value: usd("300000.00"), source: .manual)
            try ledger.recordValuation(itemKind: .asset, itemId: "gold", value: usd("12345.67"), source: .manual)
            let allocation = try ledger.chart(.allocation)
            let xray = try ledger.xray()
            #expect(allocation.labels == xray.allocationByType.map(\.group))
            #expect(allocation.series[0].values == xray.allocationByType.map(\.total))
            #expect(try parse(SVGChart.render(allocation)).marks == triples(allocation))

            #expect { try ledger.chart(.whatIf) } throws: { ($0 as? LedgerError)?.code == .invalidArgument }
            try ledger.openEnvelopeAccount("Assets:Savings", commodity: .usd, openingBalance: usd("1000.00"))
            let whatIf = try ledger.chart(.whatIf, ChartRequest(goal: usd("1500.00")))
            let projection = try ledger.whatIf(goal: usd("1500.00"))
            #expect(whatIf.series[0].values == projection.series.map(\.balance))
            #expect(whatIf.series[1].values.allSatisfy { $0 == usd("1500.00") })
            try ledger.close()
        }
    }
}
