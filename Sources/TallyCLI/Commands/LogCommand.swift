import ArgumentParser
import Foundation
import Tally
import TallyLog

struct LogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "Print events in log order, filtered by sequence, type, entity or recorded time.",
        discussion: """
            Times are RFC 3339 instants (2026-03-31T12:00:00Z) or days in the ledger's time zone: \
            --since D means the start of D there, --until D its end. --since and --until select \
            by recorded time, the moment the ledger learned each event; the start is found \
            without reading the log before it.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "First sequence number.")
    var from: UInt64?

    @Option(help: "Last sequence number.")
    var to: UInt64?

    @Option(name: .customLong("type"), help: "Only events of this type (repeatable), e.g. deposit_received.")
    var types: [String] = []

    @Option(help: "Only events about this entity, or entities starting with it when it ends in ':' (e.g. pot:).")
    var entity: String?

    @Option(help: ArgumentHelp("Only events recorded at or after this time; D means the start of that day in the ledger's time zone.", valueName: "time"))
    var since: String?

    @Option(help: ArgumentHelp("Only events recorded at or before this time; D means the end of that day in the ledger's time zone.", valueName: "time"))
    var until: String?

    @Option(help: "Print at most this many events.")
    var limit: Int?

    @Flag(help: "One JSON object per line (the events' JSON form).")
    var json = false

    func validate() throws {
        if let from, let to, from > to { throw ValidationError("--from \(from) is after --to \(to)") }
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
        for name in types where EventCatalog.standard.type(named: name) == nil {
            throw ValidationError("--type '\(name)' is not an event type; known: \(EventCatalog.standard.types.map(\.name).joined(separator: ", "))")
        }
        _ = try since.map { try CLITime.parse($0, option: "--since") }
        _ = try until.map { try CLITime.parse($0, option: "--until") }
    }

    func run() throws {
        let reader = try EventStoreReader.open(at: storeOptions.path, options: try storeOptions.ledgerOptions())
        let calendar = since == nil && until == nil ? LedgerCalendar.utc : try reader.ledgerCalendar()
        let sinceInstant = try since.map { try CLITime.start($0, option: "--since", calendar: calendar) }
        let untilInstant = try until.map { try CLITime.end($0, option: "--until", calendar: calendar) }
        var first = from ?? 1
        if let sinceInstant {
            guard let found = try reader.firstSequence(recordedAtOrAfter: sinceInstant) else { return }
            first = max(first, found)
        }
        let wanted = Set(types.compactMap { EventCatalog.standard.type(named: $0)?.code })
        var printed = 0
        var rows: [[String]] = []
        let limit = self.limit ?? Int.max
        struct Done: Error {}
        do {
            try reader.forEach(from: first, through: to) { event in
                if let untilInstant, event.recordedAt > untilInstant { throw Done() }
                if !wanted.isEmpty && !wanted.contains(event.type.code) { return }
                if let entity {
                    if entity.hasSuffix(":") ? !event.entity.hasPrefix(entity) : event.entity != entity { return }
                }
                guard printed < limit else { throw Done() }
                printed += 1
                if json {
                    print(try EventJSON.encode(event))
                } else {
                    rows.append([
                        String(event.sequence), event.recordedAt.description, event.effectiveAt.description,
                        event.type.name, event.entity, event.cause.map(String.init) ?? "",
                        try EventJSON.payloadJSON(event.body),
                    ])
                    if rows.count == 1_000 { flush(&rows) }
                }
            }
        } catch is Done {}
        flush(&rows)
    }

    private func flush(_ rows: inout [[String]]) {
        guard !rows.isEmpty else { return }
        print(Output.table(["SEQ", "RECORDED", "EFFECTIVE", "TYPE", "ENTITY", "CAUSE", "DATA"], rows, rightAligned: [0, 5]))
        rows.removeAll()
    }
}
