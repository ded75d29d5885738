import ArgumentParser
import Foundation
import Tally

extension TallyCommand {
    /// Runs the command line `tally` was started with, and exits with its status
    /// (``execute(_:)``).
    static func main() {
        let status = execute(Array(CommandLine.arguments.dropFirst()))
        Foundation.exit(status)
    }

    /// Runs one command line (without the program's name) as `ParsableCommand.main()` does,
    /// on ``Console/current``, and returns the exit status; the executable exits with it.
    /// An error message is written with its control characters made visible
    /// (``Output/visibleLines(_:)``): a refused name echoed in a message cannot drive the
    /// terminal. Help and `--version` are written as ArgumentParser writes them, to standard
    /// output; exit codes are ArgumentParser's. The arguments are read as
    /// ``CommandLineArguments/normalized(_:root:)`` puts them (a global `--store`, negative
    /// amounts without `--`).
    package static func execute(_ arguments: [String]) -> Int32 {
        CommittedWrites.$current.withValue(CommittedWrites()) { executeOnce(arguments) }
    }

    private static func executeOnce(_ arguments: [String]) -> Int32 {
        do {
            var command = try parseAsRoot(CommandLineArguments.normalized(arguments))
            try command.run()
            return ExitCode.success.rawValue
        } catch {
            let code = exitCode(for: error)
            guard code != .success else {
                let message = fullMessage(for: error)
                if !message.isEmpty { print(message) }
                return code.rawValue
            }
            // A command that committed before the error: success, with a warning naming the events.
            // An import's error says itself how far it got and how to finish: it stays a failure.
            if !(error is ExitCode), !CommittedWrites.saysHowFarItGot(error), let warning = CommittedWrites.warning(for: error) {
                Output.note("tally: " + Output.visibleLines(warning) + "\n")
                return ExitCode.success.rawValue
            }
            let message = fullMessage(for: error)
            if !message.isEmpty {
                Output.note(Output.visibleLines(message) + "\n")
            }
            return code.rawValue
        }
    }
}

extension Output {
    /// Multi-line text (an error message with its usage) with the control characters of each
    /// line made visible and the line breaks kept.
    static func visibleLines(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { visible(String($0)) }.joined(separator: "\n")
    }
}
