import ArgumentParser
import Dispatch
import Foundation
import Tally

/// `tally follow`: keeps this machine's read models of a store current while another node
/// writes it (``LedgerFollower``).
struct FollowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "follow",
        abstract: "Keep this machine's read models current while another node writes the store.",
        discussion: """
            For a store on PostgreSQL read on several machines: folds each commit of the writing node into this \
            machine's read models (--read-models) as its commit notice arrives, and at least every --poll \
            milliseconds besides, so that reads here answer at most one fold behind the writer. It never takes the \
            ledger's lease: writers do not wait for it. Runs until interrupted (SIGINT, SIGTERM), or with --until-sequence \
            until the read models are folded through that sequence number (exit 1 when --timeout passes first).
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "The longest wait between folds without a commit notice, in milliseconds (1 … 3600000).")
    var poll: Int32 = 1_000

    @Option(name: .customLong("until-sequence"), help: "Stop once the read models are folded through this sequence number.")
    var until: UInt64?

    @Option(help: "With --until-sequence: give up after this many seconds.")
    var timeout: Int = 60

    @Flag(help: "Print nothing but errors.")
    var quiet = false

    func validate() throws {
        guard timeout >= 0 else { throw ValidationError("--timeout must be 0 or more seconds") }
    }

    func run() throws {
        let follower = try LedgerFollower.start(at: storeOptions.path, options: try storeOptions.ledgerOptions(), pollMilliseconds: poll)
        defer { follower.stop() }
        var shown = follower.progress.folded
        if !quiet { print("following: read models folded through \(shown)"); fflush(nil) }
        if let until {
            guard follower.waitUntilFolded(through: until, timeoutMilliseconds: timeout * 1_000) else {
                let progress = follower.progress
                Output.error("the read models reached \(progress.folded), not \(until), in \(timeout) s"
                             + (progress.failure.map { ": \($0)" } ?? ""))
                throw ExitCode.failure
            }
            if !quiet { print("folded through \(follower.progress.folded)") }
            return
        }
        let stopping = DispatchSemaphore(value: 0)
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number)
            source.setEventHandler { stopping.signal() }
            source.resume()
            sources.append(source)
        }
        var failure: String?
        while stopping.wait(timeout: .now() + .milliseconds(200)) == .timedOut {
            let progress = follower.progress
            if progress.folded != shown && !quiet {
                print("folded through \(progress.folded)")
                fflush(nil)
            }
            shown = progress.folded
            if progress.failure != failure, let message = progress.failure { Output.error(message) }
            failure = progress.failure
        }
        for source in sources { source.cancel() }
    }
}
