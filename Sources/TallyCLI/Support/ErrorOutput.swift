import ArgumentParser
import Foundation
import Tally

extension TallyCommand {
    /// Runs the command as `ParsableCommand.main()` does, except that an error message is
    /// printed with its control characters made visible (``Output/visibleLines(_:)``): a
    /// refused name echoed in a message cannot drive the terminal. Help and `--version`
    /// print as ArgumentParser prints them; exit codes are ArgumentParser's. The arguments
    /// are read as ``CommandLineArguments/normalized(_:root:)`` puts them (a global
    /// `--store`, negative amounts without `--`).
    static func main() {
        do {
            var command = try parseAsRoot(CommandLineArguments.normalized(Array(CommandLine.arguments.dropFirst())))
            try command.run()
        } catch {
            let code = exitCode(for: error)
            guard code != .success else { exit(withError: error) }
            // A command that committed before the error: success, with a warning naming the events.
            // An import's error says itself how far it got and how to finish: it stays a failure.
            if !(error is ExitCode), !CommittedWrites.saysHowFarItGot(error), let warning = CommittedWrites.warning(for: error) {
                FileHandle.standardError.write(Data(("tally: " + Output.visibleLines(warning) + "\n").utf8))
                Foundation.exit(0)
            }
            let message = fullMessage(for: error)
            if !message.isEmpty {
                FileHandle.standardError.write(Data((Output.visibleLines(message) + "\n").utf8))
            }
            Foundation.exit(code.rawValue)
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
