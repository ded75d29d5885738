import ArgumentParser
import Tally

@main
struct TallyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tally",
        abstract: "An event-sourced ledger engine.",
        version: TallyVersion.string
    )
}
