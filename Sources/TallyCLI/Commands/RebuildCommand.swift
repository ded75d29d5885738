import ArgumentParser
import Foundation
import Tally

struct RebuildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rebuild",
        abstract: "Drop every read model and fold the whole log again.",
        discussion: """
            Read models are derived data: a rebuild reproduces them exactly from the log. It never needs the old \
            read-model file to be readable (a damaged one is replaced), and it is the way to accept the log as it is \
            when the read models are ahead of it or disagree with it.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "bar (on a terminal), json (one {\"folded_seq\": N} line per batch on standard output) or none.")
    var progress: ProgressMode = .bar

    func run() throws {
        let total = try EventStoreReader.open(at: storeOptions.path, options: try storeOptions.ledgerOptions()).head.sequence
        let bar = ProgressBar(label: "rebuild", enabled: progress == .bar)
        let stopwatch = Stopwatch()
        // The engine may report from a thread of its own: the lines go to this command's console.
        let console = Console.current
        try Ledger.rebuild(at: storeOptions.path, options: try storeOptions.ledgerOptions()) { sequence in
            bar.update(completed: Int64(sequence), total: Int64(total), detail: "\(sequence)/\(total) events")
            if progress == .json {
                console.writeOutput("{\"folded_seq\": \(sequence)}\n")
                fflush(nil)
            }
        }
        bar.finish()
        let elapsed = stopwatch.elapsedMicroseconds
        let summary = "Rebuilt read models: \(total) events in \(Stopwatch.seconds(elapsed)) (\(Stopwatch.rate(Int64(total), elapsed)) events/s)"
        if progress == .json { Output.note(summary + "\n") } else { print(summary) }
    }
}
