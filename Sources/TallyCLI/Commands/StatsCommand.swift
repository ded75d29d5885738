import ArgumentParser
import Foundation
import Tally
import TallyLog

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Events, segments, bytes on disk and compression ratios of the log, and the read models' snapshots.",
        discussion: """
            --ndjson also encodes every event in its JSON form to compare sizes (reads the whole log). Snapshots are \
            counted as of the read models' last fold (the store is not opened for writing).
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Flag(name: .customLong("ndjson"), help: "Compare the log's size with the same events as NDJSON.")
    var compareWithNDJSON = false

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() throws {
        let reader = try EventStoreReader.open(at: storeOptions.path, options: try storeOptions.ledgerOptions())
        let statistics = try reader.statistics()
        var ndjsonBytes: Int64?
        if compareWithNDJSON {
            var total: Int64 = 0
            try reader.forEach { event in total += Int64(try EventJSON.encode(event).utf8.count + 1) }
            ndjsonBytes = total
        }
        let snapshots = try SnapshotStatistics.read(storeAt: storeOptions.path, options: .standard)
        if json {
            var fields: [(String, String)] = [
                ("events", String(statistics.events)), ("segments", String(statistics.segments)),
                ("frames", String(statistics.frames)), ("bytes_on_disk", String(statistics.bytesOnDisk)),
                ("uncompressed_bytes", String(statistics.uncompressedBytes)),
                ("stored_bytes", String(statistics.storedBytes)),
            ]
            if let ndjsonBytes { fields.append(("ndjson_bytes", String(ndjsonBytes))) }
            fields.append(("snapshots", Output.jsonObject(snapshots.map { table, statistics in
                (table, Output.jsonObject([
                    ("count", String(statistics.count)), ("current", String(statistics.current)),
                    ("stored_bytes", String(statistics.storedBytes)), ("state_bytes", String(statistics.stateBytes)),
                ]))
            })))
            print(Output.jsonObject(fields))
            return
        }
        var rows = [
            ["events", String(statistics.events)],
            ["segments", String(statistics.segments)],
            ["frames (commits)", String(statistics.frames)],
            ["bytes on disk", "\(statistics.bytesOnDisk) (\(Output.bytes(statistics.bytesOnDisk)))"],
            ["encoded events", "\(statistics.uncompressedBytes) (\(Output.bytes(statistics.uncompressedBytes)))"],
            ["compression (LZ4)", Output.ratio(statistics.uncompressedBytes, statistics.storedBytes)],
        ]
        if statistics.events > 0 {
            rows.append(["bytes per event on disk", String(statistics.bytesOnDisk / Int64(statistics.events))])
        }
        if let ndjsonBytes {
            rows.append(["same events as NDJSON", "\(ndjsonBytes) (\(Output.bytes(ndjsonBytes)))"])
            rows.append(["NDJSON / log on disk", Output.ratio(ndjsonBytes, statistics.bytesOnDisk)])
        }
        for (table, snapshot) in snapshots {
            rows.append([table, "\(snapshot.count) (\(snapshot.current) current), \(Output.bytes(Int64(snapshot.storedBytes))) stored, "
                + "\(Output.bytes(Int64(snapshot.stateBytes))) raw (\(Output.ratio(Int64(snapshot.stateBytes), Int64(snapshot.storedBytes))))"])
        }
        print(Output.table(["STORE \(storeOptions.path)", "VALUE"], rows))
    }
}
