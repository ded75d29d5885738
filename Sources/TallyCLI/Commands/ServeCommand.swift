import ArgumentParser
import Foundation
import Logging
import Tally
import TallyService

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve many ledgers over HTTP (JSON, API keys, live events); Schemas/openapi.yaml describes the API.",
        discussion: """
            One store per ledger under --data DIR/ledgers, opened on first use and closed when \
            idle. The admin key is $TALLY_ADMIN_KEY when set; else one is made at the first \
            start, printed once, and only its hash kept (DIR/keys.json, mode 0600). SIGTERM or \
            SIGINT shuts down gracefully: live event streams end, requests in flight finish, \
            every ledger is closed.
            """
    )

    @Option(help: ArgumentHelp("The data directory (created when missing).", valueName: "dir"))
    var data: String

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port (0: any free port, printed).")
    var port = 8080

    @Option(name: .customLong("open-ledgers"), help: "At most this many ledgers open at once.")
    var openLedgers = 256

    @Option(name: .customLong("rate-limit"), help: "Requests a second per API key.")
    var rateLimit = 500

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port \(port) is not a TCP port (0-65535)") }
        guard openLedgers >= 1 else { throw ValidationError("--open-ledgers must be at least 1") }
        guard rateLimit >= 1 else { throw ValidationError("--rate-limit must be at least 1") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("--log-level '\(logLevel)' is not a level") }
    }

    func run() throws {
        var logger = Logger(label: "tally.serve")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        let adminKey = ProcessInfo.processInfo.environment["TALLY_ADMIN_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        let server = try TallyServer(
            configuration: .init(
                dataDirectory: data, host: host, port: port, adminKey: adminKey, openLedgersLimit: openLedgers,
                rateLimitPerSecond: rateLimit, rateLimitBurst: rateLimit * 2),
            logger: logger)
        if let key = server.generatedAdminKey {
            print("admin key (shown once, only its hash is kept; set TALLY_ADMIN_KEY to choose your own): \(key)")
        }
        let host = self.host
        let outcome = BlockingOutcome()
        Task {
            do {
                try await server.run(gracefulShutdownSignals: [.sigterm, .sigint]) { port in
                    print("listening on http://\(host):\(port)")
                    fflush(nil)
                }
                outcome.finish(nil)
            } catch {
                outcome.finish(error)
            }
        }
        if let error = outcome.wait() { throw error }
    }
}

/// The end of an async run, waited for by a synchronous command.
private final class BlockingOutcome: @unchecked Sendable {
    private let condition = NSCondition()
    private var done = false
    private var error: (any Error)?

    func finish(_ error: (any Error)?) {
        condition.lock()
        self.error = error
        done = true
        condition.broadcast()
        condition.unlock()
    }

    func wait() -> (any Error)? {
        condition.lock()
        defer { condition.unlock() }
        while !done { condition.wait() }
        return error
    }
}
