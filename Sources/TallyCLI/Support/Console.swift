package import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a run of `tally` reads its input and environment and writes its output.
///
/// The executable runs with ``standard``: standard output through the C library's buffer (as
/// `print` writes), standard error unbuffered, standard input, the process's environment.
/// ``TallyCommand/execute(_:)`` runs one command line against ``current``, so a caller in the
/// same process (the CLI's test suite) can run `tally` with buffers of its own and an
/// environment of its own, without starting a process per command line.
///
/// Every write of the CLI goes through here: `print` inside this module is the module's own
/// (below), and standard error is written by ``Output``. The engine writes nothing.
/// The console is bound for the task that runs the command: a closure the engine calls on a
/// thread of its own captures ``current`` before handing the closure over.
package struct Console: Sendable {
    /// Text for standard output, written as given (no line break added).
    package let writeOutput: @Sendable (String) -> Void
    /// Text for standard error, written as given.
    package let writeError: @Sendable (String) -> Void
    /// Everything on standard input, read to its end.
    package let readInput: @Sendable () -> Data
    /// The environment variables the CLI reads (`TALLY_STORE`, `TALLY_KEY_FILE`, `TALLY_WAIT`,
    /// `COLUMNS`, `PATH`).
    package let environment: [String: String]
    /// Whether standard error is a terminal (a progress bar is drawn only on one).
    package let errorIsTerminal: Bool

    package init(
        writeOutput: @escaping @Sendable (String) -> Void,
        writeError: @escaping @Sendable (String) -> Void,
        readInput: @escaping @Sendable () -> Data,
        environment: [String: String],
        errorIsTerminal: Bool
    ) {
        self.writeOutput = writeOutput
        self.writeError = writeError
        self.readInput = readInput
        self.environment = environment
        self.errorIsTerminal = errorIsTerminal
    }

    /// The process's standard streams and environment.
    package static let standard = Console(
        writeOutput: { Swift.print($0, terminator: "") },
        writeError: { FileHandle.standardError.write(Data($0.utf8)) },
        readInput: { FileHandle.standardInput.readDataToEndOfFile() },
        environment: ProcessInfo.processInfo.environment,
        errorIsTerminal: isatty(STDERR_FILENO) == 1
    )

    /// The console of the command running on this task: ``standard`` unless a caller bound
    /// another for the span of ``TallyCommand/execute(_:)``.
    @TaskLocal package static var current: Console = .standard

    /// The value of an environment variable, nil when unset or empty.
    func variable(_ name: String) -> String? {
        environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }
}

/// `print` as the standard library's, written to the running command's console
/// (``Console/current``): every `print` of this module goes through it.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    Console.current.writeOutput(items.map { "\($0)" }.joined(separator: separator) + terminator)
}
