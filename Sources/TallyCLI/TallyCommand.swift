import ArgumentParser
import Tally

@main
struct TallyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tally",
        abstract: "An event-sourced ledger engine: record money facts, ask what was true when.",
        discussion: """
            Every command works on one store directory: --store DIR, else $TALLY_STORE, \
            else ./.tally. Run `tally demo` for a tour.
            """,
        version: TallyVersion.string,
        subcommands: [
            InitCommand.self, AppendCommand.self, LogCommand.self, VerifyCommand.self,
            StatsCommand.self, DemoCommand.self,
            ImportCommand.self,
            BalancesCommand.self,
            RebuildCommand.self,
        ]
    )
}
