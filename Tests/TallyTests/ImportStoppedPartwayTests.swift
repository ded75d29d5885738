import Foundation
import Testing
import TallyLog
@testable import Tally
import TallyTestSupport
@testable import TallyEngine

/// An import that stops after some of its commits says so: the rows committed stay, durable,
/// and the error names them, their sequence numbers, what stopped the import (reported with
/// its code) and how to finish it. An NDJSON file whose committed events have no idempotency
/// key must not be imported whole again, and the error says so. (A journal stopped by a full
/// disk and run again: FullDiskCommandTests.)
@Suite struct ImportStoppedPartwayTests {
    /// `count` journal rows from a seeded generator, with the balance each account should end with.
    private func journal(_ count: Int, seed: UInt64, path: String) throws -> [String: Int64] {
        var random = SplitMix64(seed: seed)
        let accounts = ["Assets:Checking", "Assets:Savings", "Expenses:Food", "Income:Salary"]
        var lines = [JournalCSV.header]
        var expected: [String: Int64] = [:]
        for index in 0..<count {
            let target = accounts[Int(random.next() % UInt64(accounts.count))]
            var source = target
            while source == target { source = accounts[Int(random.next() % UInt64(accounts.count))] }
            let cents = Int64(random.next() % 100_000) + 1
            lines.append("2026-03-\(10 + index % 18),\(target),\(source),\(Money(minorUnits: cents, commodity: .usd).decimalString),USD,Shop \(index % 7),Cat,")
            expected[target, default: 0] += cents
            expected[source, default: 0] -= cents
        }
        try Data(lines.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: path))
        return expected.filter { $0.value != 0 }
    }

    private func opened(_ index: Int, key: String?, account: String? = nil) -> String {
        let key = key.map { #","idempotency_key":"\#($0)""# } ?? ""
        return #"{"type":"account_opened","version":1,"effective_at":"2026-05-01T09:00:00Z"\#(key),"data":{"account":"\#(account ?? "Assets:Cash\(index)")","kind":"asset","commodity":"USD"}}"#
    }

    /// A 250-event file is imported 100 events a commit; after the second commit another
    /// writer records key `open-230` for another event, so the third batch is refused. The
    /// 200 events committed stay, and the error says whether running the file again is safe:
    /// not when they have no idempotency key (a second import would record them twice), yes
    /// when every event has one.
    @Test(arguments: [false, true])
    func anEventsFileStoppedPartwaySaysWhetherRunningItAgainIsSafe(keyed: Bool) throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-06-01T12:00:00Z"))
            let path = root + "-events.ndjson", other = root + "-other.ndjson"
            let lines = (1...250).map { index in opened(index, key: keyed || index == 230 ? "open-\(index)" : nil) }
            try Data(lines.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: path))
            try Data((opened(0, key: "open-230", account: "Assets:Elsewhere") + "\n").utf8).write(to: URL(fileURLWithPath: other))

            var commits = 0
            let thrown = #expect(throws: LedgerError.self) {
                try ledger.importEvents(ndjsonAt: path, batchSize: 100) { step in
                    guard step.phase == .appending else { return }
                    commits += 1
                    if commits == 2 { _ = try ledger.importEvents(ndjsonAt: other) }
                }
            }
            #expect(thrown?.code == .idempotencyConflict, "the cause's code: \(String(describing: thrown))")
            let error = thrown.flatMap { underlying($0, as: ImportError.self) }
            #expect(error?.code == .stoppedPartway)
            #expect(error?.cause?.code == .idempotencyConflict)
            let conflict = try #require(error?.cause?.message)
            let stopped = "\(path): the import stopped after its first 200 rows were committed (events 2-201, durable): \(conflict). Those rows stay; "
            #expect(error?.description == stopped + (keyed
                ? "run the same import again to finish: the rows already imported are recognised and skipped"
                : "do not import the whole file again: 200 of the events committed have no idempotency key and would be recorded twice; import the events after its first 200"))
            #expect(ledger.head.sequence == 202, "the file's 200 and the other writer's one")
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    /// An import stopped before its first commit is not "stopped partway": the error is what
    /// stopped it (here the file, changed after its validating pass), and the store is as it was.
    @Test func aStopBeforeTheFirstCommitIsTheErrorItself() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-04-01T12:00:00Z"))
            let path = root + "-export.csv"
            _ = try journal(50, seed: 7, path: path)
            let validated = try JournalImport.validate(csvAt: path, calendar: .utc)
            var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            let comma = try #require(bytes.firstIndex(of: UInt8(ascii: "\n")))
            bytes[comma + 4] = bytes[comma + 4] == UInt8(ascii: "6") ? UInt8(ascii: "5") : UInt8(ascii: "6")
            try bytes.write(to: URL(fileURLWithPath: path))

            let thrown = #expect(throws: LedgerError.self) { try ledger.importJournal(validated, batchSize: 10) }
            let error = thrown.flatMap { underlying($0, as: ImportError.self) }
            #expect(error?.code == .changedDuringImport)
            #expect(error?.description.hasSuffix("; nothing was appended") == true, "\(String(describing: error))")
            #expect(ledger.head.sequence == 1)
            try ledger.close()
        }
    }
}
