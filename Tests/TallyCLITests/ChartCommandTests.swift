import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
import PostgresTestSupport

/// `tally chart` (docs/notifications.md, "Charts"): the same series in the terminal, as SVG
/// in a file, and as JSON; bad options refused by name.
@Suite struct ChartCommandTests {
    private func household() throws -> BudgetStore {
        let store = try BudgetStore(on: .files)
        try store.run(["budget", "set", "--category", "Groceries", "--month", "2026-05", "--maximum", "100.00"])
        try store.run(["tx", "add", "--payee", "Market", "--category", "Groceries", "--amount", "-60.00", "--date", "2026-05-10"])
        try store.run(["tx", "add", "--payee", "Grocer", "--category", "Groceries", "--amount", "-45.50", "--date", "2026-05-24"])
        return store
    }

    @Test func aBudgetIsDrawnInEachFormWithTheSameFigures() throws {
        let store = try household()
        let json = try store.run(["chart", "budget", "--as-of", "2026-05-31", "--format", "json"])
        #expect(json == """
            {"chart":"budget","title":"Budgets of 2026-05, spent through 2026-05-31","currency":"USD","style":"bars","labels":["Groceries"],\
            "series":[{"name":"Spent","values":["105.50"]},{"name":"Maximum","values":["100.00"]}],"notes":[]}

            """)
        let terminal = try store.run(["chart", "budget", "--as-of", "2026-05-31", "--width", "50"])
        let lines = terminal.split(separator: "\n").map(String.init)
        #expect(lines.allSatisfy { $0.count <= 50 }, "\(terminal)")
        #expect(lines.contains { $0.hasPrefix("Groceries Spent   │") && $0.hasSuffix(" 105.50") }, "\(terminal)")
        #expect(lines.contains { $0.contains("Maximum │▓") && $0.hasSuffix(" 100.00") }, "\(terminal)")

        let file = store.directory.path + "/budget.svg"
        #expect(try store.run(["chart", "budget", "--as-of", "2026-05-31", "--format", "svg", "--output", file]) == "")
        let svg = try String(contentsOfFile: file, encoding: .utf8)
        #expect(XMLParser(data: Data(svg.utf8)).parse(), "a well-formed document")
        #expect(svg.contains(#"data-series="Spent" data-label="Groceries" data-value="105.50""#))
        #expect(svg.contains(#"data-series="Maximum" data-label="Groceries" data-value="100.00""#))
        #expect(!svg.contains("<script"))
    }

    @Test func badOptionsAreRefusedByName() throws {
        let store = try household()
        try store.expectRefused(["chart", "what-if"], "needs --goal")
        try store.expectRefused(["chart", "budget", "--goal", "10.00"], "--goal is for the what-if chart only")
        try store.expectRefused(["chart", "budget", "--width", "10"], "--width must be")
        try store.expectRefused(["chart", "spending", "--from", "2026-06-01", "--to", "2026-05-31"], "after its last")
        try store.expectRefused(["chart", "pie"], "pie")
    }
}
