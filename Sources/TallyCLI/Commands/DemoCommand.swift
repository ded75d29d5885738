import ArgumentParser
import Foundation
import Tally
import TallyLog

struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Record a few months of a synthetic household into a new store, verify it, and say what was done.",
        discussion: """
            The household is deterministic: the same --seed gives the same events and the \
            same head digest. --replace removes a store that an earlier `tally demo` made \
            (never any other).
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "Seed of the synthetic household.")
    var seed: UInt64 = 42

    @Option(help: "Months of activity to record.")
    var months = 5

    @Option(name: .customLong("first-month"), help: "The first month recorded (YYYY-MM).")
    var firstMonth = "2026-06"

    @Flag(help: "Replace a store made by an earlier demo.")
    var replace = false

    func validate() throws {
        guard (1...120).contains(months) else { throw ValidationError("--months must be 1 to 120") }
    }

    func run() throws {
        let path = storeOptions.path
        let first: Month
        do { first = try Month(parsing: firstMonth) } catch { throw ValidationError("--first-month: \(error)") }
        if replace {
            try DemoRunner.removeDemoStore(at: path)
        }
        let household = DemoHousehold(seed: seed, firstMonth: first, monthCount: months)
        let summary = try DemoRunner.run(at: path, household: household)
        let statistics = summary.statistics
        print("Tally demo: store \(path), seed \(seed)")
        print("Recorded \(summary.events) events in \(summary.commits) commits, \(summary.firstMonth) to \(summary.lastMonth):")
        print(Output.table(
            ["EVENT TYPE", "COUNT"],
            summary.countsByType.map { [$0.type, String($0.count)] },
            rightAligned: [1]
        ))
        print("")
        let log = summary.verification.log
        print("verify: \(summary.verification.isIntact ? "ok" : "FAILED"): \(log.events) events, \(log.segments) segment(s), \(log.frames) frames; checksums, hash chain and payloads checked")
        print("head digest \(log.head)  (keep it; `tally verify --expect \(log.head)` checks it later)")
        print("log on disk: \(Output.bytes(statistics.bytesOnDisk)); events encoded \(Output.bytes(statistics.uncompressedBytes)), LZ4 \(Output.ratio(statistics.uncompressedBytes, statistics.storedBytes))")
        print("")
        let program = CommandLine.arguments.first ?? "tally"
        print("Next: \(program) log --store \(path) --type deposit_split --limit 5")
        print("      \(program) stats --store \(path) --ndjson")
        if !summary.verification.isIntact { throw ExitCode.failure }
    }
}
