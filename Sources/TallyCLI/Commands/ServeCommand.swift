import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `tally serve ARGS`: runs the HTTP service, the `tally-serve` executable built beside
/// `tally`, with the same arguments. The service is an executable of its own so that
/// `tally` links none of its dependencies (Hummingbird, NIO, TLS); the server replaces this
/// process (`execv`), so its signals, output and exit status are those of `tally serve`.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve many ledgers over HTTP (JSON, API keys, live events); Schemas/openapi.yaml describes the API.",
        discussion: """
            Runs tally-serve, installed beside tally (or found on PATH), with these arguments; \
            `tally serve --help` lists its options.
            """,
        // Every argument, --help included, is the server's.
        helpNames: []
    )

    /// The executable's name.
    static let serverName = "tally-serve"

    @Argument(parsing: .captureForPassthrough, help: "The server's options: see `tally serve --help`.")
    var arguments: [String] = []

    func run() throws {
        guard let server = Self.serverExecutable() else {
            Output.error("""
                tally serve runs the \(Self.serverName) executable, which is neither beside tally nor on PATH: \
                build it beside tally: `swift build` builds both, and so does `make release`
                """)
            throw ExitCode.failure
        }
        let argv = ([server] + arguments).map { strdup($0) } + [nil]
        execv(server, argv)
        Output.error("tally serve: could not run \(server): \(String(cString: strerror(errno)))")
        throw ExitCode.failure
    }

    /// `tally-serve` beside this executable, else the first on PATH; nil when there is none.
    static func serverExecutable() -> String? {
        var candidates: [String] = []
        if let own = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            candidates.append(own.deletingLastPathComponent().appendingPathComponent(serverName).path)
        }
        let path = Console.current.environment["PATH"] ?? ""
        candidates += path.split(separator: ":").map { "\($0)/\(serverName)" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
