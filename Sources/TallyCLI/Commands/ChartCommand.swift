import ArgumentParser
import Foundation
import Tally

/// `tally chart NAME`: a chart of the ledger's answers, drawn for the terminal, as a
/// standalone SVG, or its series as JSON (docs/notifications.md, "Charts").
struct ChartCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chart", abstract: "Draw net worth, spending, a budget, the what-if projection or the allocation.",
        discussion: """
            networth: net worth at each month's end from --from's month (default: eleven months \
            before) to --to's (default: the --as-of day). spending: the budget's expenses by \
            category from --from (default: the first of --to's month) to --to. budget: --to's \
            month's budgets, spent beside the maximum. what-if: the savings projection from \
            --to toward --goal. allocation: the portfolio's value by asset type. \
            --format terminal (default) draws Unicode blocks fitting --width (default $COLUMNS, \
            else 80) and reads without colour; svg writes a standalone SVG document (axes, \
            labels, legend, currency; no script); json prints the series with exact decimal \
            amounts. --output FILE writes the drawing to FILE instead of standard output.
            """)
    enum Format: String, ExpressibleByArgument, CaseIterable { case terminal, svg, json }
    enum Name: String, ExpressibleByArgument, CaseIterable { case networth, spending, budget, whatIf = "what-if", allocation }

    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "networth, spending, budget, what-if or allocation.") var name: Name
    @Option(help: ArgumentHelp("The period's first day (YYYY-MM-DD), a day in the ledger's time zone.", valueName: "D")) var from: String?
    @Option(help: ArgumentHelp("The period's last day (YYYY-MM-DD), a day in the ledger's time zone; default: the --as-of day.", valueName: "D")) var to: String?
    @Option(help: ArgumentHelp("what-if: the goal, in the base currency.", valueName: "AMOUNT")) var goal: String?
    @Option(help: "terminal (default), svg or json.") var format: Format = .terminal
    @Option(help: ArgumentHelp("Write the drawing to this file.", valueName: "FILE")) var output: String?
    @Option(help: ArgumentHelp("The terminal drawing's width in characters.", valueName: "N")) var width: Int?
    @OptionGroup var time: TimeTravelOptions

    func validate() throws {
        _ = try from.map { try CLIParse.date($0, option: "--from") }
        _ = try to.map { try CLIParse.date($0, option: "--to") }
        if goal != nil && name != .whatIf { throw ValidationError("--goal is for the what-if chart only") }
        if name == .whatIf && goal == nil { throw ValidationError("the what-if chart needs --goal AMOUNT") }
        if let width, width < TerminalChart.minimumWidth { throw ValidationError("--width must be \(TerminalChart.minimumWidth) or more") }
    }

    func run() throws {
        let text = try storeOptions.withReadingLedger { ledger in
            let goal = try self.goal.map { try CLIParse.money($0, currency: try ledger.settings().baseCurrency.code, ledger, option: "--goal") }
            let request = ChartRequest(from: try from.map { try CLIParse.date($0, option: "--from") }, to: try to.map { try CLIParse.date($0, option: "--to") },
                                       asOf: try time.asOfInstant(ledger), knownAt: try time.knownAtInstant(ledger), goal: goal)
            let chart = try ledger.chart(ChartName(rawValue: name.rawValue)!, request)
            switch format {
            case .terminal: return TerminalChart.render(chart, width: width ?? Self.terminalWidth)
            case .svg: return SVGChart.render(chart)
            case .json: return chart.json + "\n"
            }
        }
        guard let output else { return print(text, terminator: "") }
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            throw ValidationError("--output \(output): \(error.localizedDescription)")
        }
    }

    /// `$COLUMNS`, else 80.
    static var terminalWidth: Int {
        Console.current.environment["COLUMNS"].flatMap(Int.init).map { max($0, TerminalChart.minimumWidth) } ?? 80
    }
}
