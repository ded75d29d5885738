import Benchmark
import Foundation
import Tally

// MARK: - Import of many distinct payees (issue 31: the `SUBJECTS` file appended to)

/// A journal CSV of `rows` rows, each with a payee of its own: every row makes a subject and a
/// sealed text, so the store's `SUBJECTS` file grows by two records a row.
func distinctPayeeJournal(rows: Int, at path: String) throws {
    var text = "date,account,counter_account,amount,currency,payee,category,external_id\n"
    text.reserveCapacity(rows * 90)
    for row in 0..<rows {
        let day = 1 + row % 28
        let cents = 100 + (row * 7_919) % 30_000
        text += "2026-03-\(day < 10 ? "0" : "")\(day),Expenses:Groceries,Assets:Checking,\(cents / 100).\(cents % 100 < 10 ? "0" : "")\(cents % 100),USD,"
        text += "Corner Shop #\(row),Groceries,row-\(row)\n"
    }
    try text.write(toFile: path, atomically: true, encoding: .utf8)
}

func payeeImportBenchmarks() {
    let rows = 10_000
    for batchSize in [10_000, 100] {
        var csv: String?
        var scratch: String?
        Benchmark(
            "Import: \(rows) rows, \(rows) distinct payees, batches of \(batchSize)",
            configuration: .init(metrics: [.wallClock, .throughput], warmupIterations: 0, maxDuration: .seconds(30), maxIterations: 3)
        ) { benchmark in
            guard let csv, let scratch else { return benchmark.error("no journal") }
            Fixtures.importIntoNewLedger(benchmark, csv: csv, scratch: scratch, name: "Payee import", rows: rows,
                                         batchSize: batchSize, measuringImportOnly: true)
        } setup: {
            scratch = try Fixtures.temporaryDirectory("payee-import")
            csv = scratch! + "/journal.csv"
            try distinctPayeeJournal(rows: rows, at: csv!)
        } teardown: {
            scratch.map(Fixtures.remove)
        }
    }
}
