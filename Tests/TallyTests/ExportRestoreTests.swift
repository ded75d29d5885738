import Foundation
import Testing
@testable import Tally
import TallyTestSupport
import TallyProductTestSupport
import TallyLog
@testable import TallyEngine
@testable import TallyProducts

/// A household moves its ledger: it exports everything, restores the export into a new
/// store, and the new store answers every question (every product, at any date, as known at
/// any time) exactly as the old one did, down to the head digest of its hash chain. A file
/// that is not a whole export is refused, naming the line, and leaves nothing behind.
/// Seeded: `TALLY_TEST_SEED` replays a failure.
struct ExportRestoreTests {
    static let ledgers = 3
    static let pointsPerLedger = 50

    @Test func randomLedgersRestoredFromTheirExportGiveEveryAnswerAtFiftyRandomPoints() throws {
        let seed = TestSeed.value(default: 0xE4_9057)
        for index in 0..<Self.ledgers {
            let ledgerSeed = TestSeed.ledger(index, of: seed)
            let context = "seed \(seed) (TALLY_TEST_SEED=\(seed)), ledger seed \(ledgerSeed)"
            var random = SplitMix64(seed: ledgerSeed)
            try withTemporaryStore { root in
                let clock = ManualClock("2025-01-06T14:00:00Z")
                let ledger = try Ledger.forTesting(at: root, clock: clock, timeZone: "Europe/London")
                defer { try? ledger.close() }
                var story = try RandomStory.play(on: ledger, clock: clock, steps: 90, random: &random)
                let envelopes = try EnvelopeStory.play(on: ledger, clock: clock, steps: 40, random: &random)
                story.recorded += envelopes.recorded
                story.effective += envelopes.effective
                let directory = URL(fileURLWithPath: root).deletingLastPathComponent().path
                let exported = try ledger.export(to: directory + "/ledger.ndjson")
                #expect(exported.events == ledger.head.sequence && exported.olderVersionEvents == 0, "\(context)")

                let restored = try Ledger.restore(from: directory + "/ledger.ndjson", into: directory + "/restored", options: .standard)
                #expect(restored.head == exported.head, "the restored chain's head digest differs, \(context)")
                let copy = try Ledger.openForReading(at: directory + "/restored", options: .standard)
                defer { try? copy.close() }
                try expectSameEvents(ledger, copy, context)
                #expect(try copy.readModels.dump() == ledger.readModels.dump(), "read models differ, \(context)")

                let (accounts, wealthAccounts) = try ProductAnswers.subjects(of: ledger)
                #expect(wealthAccounts == ["main"] && accounts.count > 10, "\(context)")
                let knownAts = TestSeed.knownAts(Self.pointsPerLedger, recorded: story.recorded, random: &random)
                for (position, knownAt) in knownAts.enumerated() {
                    let asOf: Instant = position % 5 == 0
                        ? ledger.calendar.endOfDay(ledger.calendar.date(of: story.effective.randomElement(using: &random)!))
                        : Instant(microsecondsSinceEpoch: story.effective.randomElement(using: &random)!.microsecondsSinceEpoch + [-1, 0, 1].randomElement(using: &random)!)
                    // Three accounts audited at each point, in turn.
                    let audited = (0..<3).map { accounts[(position * 3 + $0) % accounts.count] }
                    let original = ProductAnswers(ledger, asOf: asOf, knownAt: knownAt, accounts: audited, wealthAccounts: wealthAccounts)
                    let again = ProductAnswers(copy, asOf: asOf, knownAt: knownAt, accounts: audited, wealthAccounts: wealthAccounts)
                    #expect(again.differences(from: original).isEmpty, "\(again.differences(from: original)) differ as of \(asOf) known at \(knownAt.map { "\($0)" } ?? "now"), \(context)")
                }
            }
        }
    }

    @Test func anExportStreamedLineByLineIsTheFileAndAReaderExportsTheSame() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-05-01T09:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            defer { try? ledger.close() }
            try ledger.recordTransaction(payee: "Grocer, \"the\" corner", category: .groceries, amount: usd("-42.10"), date: day("2026-04-30"))
            clock.advance(seconds: 60)
            try ledger.deposit(account: "main", amount: usd("100.00"))
            let path = URL(fileURLWithPath: root).deletingLastPathComponent().path + "/ledger.ndjson"
            let summary = try ledger.export(to: path)
            var streamed = ""
            _ = try ledger.export { streamed += $0 }
            let file = try String(contentsOfFile: path, encoding: .utf8)
            #expect(file == streamed)
            #expect(file.split(separator: "\n").count == Int(summary.events))
            #expect(file.hasPrefix("{\"seq\":1,"))
            let reader = try Ledger.openForReading(at: root, options: .standard)
            defer { try? reader.close() }
            var fromReader = ""
            #expect(try reader.export { fromReader += $0 } == summary)
            #expect(fromReader == file)
        }
    }

    // MARK: Refusals

    /// A small ledger's export, as lines, in a directory the test owns.
    private func exportLines(_ body: (_ directory: String, _ lines: [String]) throws -> Void) throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-05-01T09:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            try ledger.recordTransaction(payee: "Rent", category: .bills, amount: usd("-900.00"), date: day("2026-05-01"))
            clock.advance(seconds: 60)
            try ledger.deposit(account: "main", amount: usd("100.00"))
            var text = ""
            try ledger.export { text += $0 }
            try ledger.close()
            let lines = text.split(separator: "\n").map(String.init)
            try #require(lines.count == 4, "ledger_created, the transaction, the deposit and its split")
            try body(URL(fileURLWithPath: root).deletingLastPathComponent().path, lines)
        }
    }

    /// Restores `lines` into `directory/restored` and expects a refusal naming `expected`,
    /// with nothing left beside the target.
    private func expectRefused(_ lines: [String], in directory: String, mentioning expected: String,
                               sourceLocation: SourceLocation = #_sourceLocation) throws {
        let path = directory + "/bad.ndjson"
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let before = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(sourceLocation: sourceLocation) {
            try Ledger.restore(from: path, into: directory + "/restored", options: .standard)
        } throws: { error in
            "\(error)".contains(expected) || { print("unexpected message: \(error)"); return false }()
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == before, "something was left behind", sourceLocation: sourceLocation)
    }

    @Test func anExportWithASequenceMissingOrOutOfOrderIsRefusedNamingTheLine() throws {
        try exportLines { directory, lines in
            try #require(lines.count >= 4)
            try expectRefused(Array(lines[0..<2] + lines[3...]), in: directory, mentioning: "bad.ndjson:3: field 'seq'")
            try expectRefused([lines[0], lines[2], lines[1]] + lines[3...], in: directory, mentioning: "bad.ndjson:2: field 'seq'")
            let withoutSeq = lines[1].replacingOccurrences(of: "{\"seq\":2,", with: "{")
            try expectRefused([lines[0], withoutSeq] + lines[2...], in: directory, mentioning: "bad.ndjson:2: field 'seq'")
        }
    }

    @Test func anExportWhoseRecordedTimesGoBackwardsIsRefused() throws {
        try exportLines { directory, lines in
            let last = lines.count - 1
            let early = lines[last].replacingOccurrences(of: "\"recorded_at\":\"2026-05-01T09:01:00", with: "\"recorded_at\":\"2026-05-01T08:00:00")
            #expect(early != lines[last])
            try expectRefused(Array(lines[..<last]) + [early], in: directory, mentioning: "bad.ndjson:\(last + 1): field 'recorded_at'")
        }
    }

    @Test func anExportThatDoesNotStartWithLedgerCreatedIsRefused() throws {
        try exportLines { directory, lines in
            let renumbered = lines.dropFirst().enumerated().map { index, line in
                line.replacingOccurrences(of: "{\"seq\":\(index + 2),", with: "{\"seq\":\(index + 1),")
            }
            try expectRefused(renumbered, in: directory, mentioning: "bad.ndjson:1: field 'type'")
            try expectRefused([], in: directory, mentioning: "holds no event")
            let second = lines[0].replacingOccurrences(of: "{\"seq\":1,", with: "{\"seq\":2,")
            try expectRefused([lines[0], second], in: directory, mentioning: "created once")
        }
    }

    @Test func aTargetThatHoldsAStoreOrAnythingElseIsRefusedAndKept() throws {
        try exportLines { directory, lines in
            let path = directory + "/ledger.ndjson"
            try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            // The exported store itself.
            let store = directory + "/store"
            let logBefore = try FileManager.default.contentsOfDirectory(atPath: store + "/log").sorted()
            #expect { try Ledger.restore(from: path, into: store, options: .standard) } throws: { "\($0)".contains("a store already exists") }
            #expect(try FileManager.default.contentsOfDirectory(atPath: store + "/log").sorted() == logBefore)
            // A directory with a file in it.
            try FileManager.default.createDirectory(atPath: directory + "/busy", withIntermediateDirectories: false)
            try "keep".write(toFile: directory + "/busy/note.txt", atomically: true, encoding: .utf8)
            #expect { try Ledger.restore(from: path, into: directory + "/busy", options: .standard) } throws: { "\($0)".contains("not an empty directory") }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/busy") == ["note.txt"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).allSatisfy { !$0.contains("tally-restore") })
            // An empty directory is taken, as init takes one.
            try FileManager.default.createDirectory(atPath: directory + "/empty", withIntermediateDirectories: false)
            #expect(try Ledger.restore(from: path, into: directory + "/empty", options: .standard).events == UInt64(lines.count))
        }
    }

    @Test func aRestoreThatEndsAtAnotherDigestThanExpectedLeavesNothing() throws {
        try exportLines { directory, lines in
            let path = directory + "/ledger.ndjson"
            try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            let wrong = LogDigest(sequence: UInt64(lines.count), hash: [UInt8](repeating: 7, count: 32))
            #expect { try Ledger.restore(from: path, into: directory + "/restored", options: .standard, expect: wrong) } throws: {
                "\($0)".contains("not at the expected digest")
            }
            #expect(!FileManager.default.fileExists(atPath: directory + "/restored"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).allSatisfy { !$0.contains("tally-restore") })
        }
    }

    /// Every event of both logs, envelope and payload, equal.
    private func expectSameEvents(_ source: Ledger, _ copy: Ledger, _ context: String) throws {
        var original: [Event] = []
        try EventStoreReader.open(at: source.layout.root, catalog: .standard).forEach { original.append($0) }
        var restored: [Event] = []
        try EventStoreReader.open(at: copy.layout.root, catalog: .standard).forEach { restored.append($0) }
        #expect(original.count == restored.count, "\(context)")
        for (left, right) in zip(original, restored) where left != right {
            Issue.record("event \(left.sequence) differs after the restore: \(left) vs \(right), \(context)")
            return
        }
    }
}

/// Envelopes and a savings challenge beside a ``RandomStory``: accounts, envelopes of every
/// interval, fundings, transactions in two currencies, budget changes, rollover policies,
/// deletions and challenge steps, some backdated. Commands the ledger refuses are skipped.
enum EnvelopeStory {
    static func play(on ledger: Ledger, clock: ManualClock, steps: Int, random: inout SplitMix64) throws -> RandomStory.Played {
        var played = RandomStory.Played()
        func note(_ result: Ledger.CommandResult?) {
            guard let result, let first = result.events.first else { return }
            played.recorded.append(first.recordedAt)
            played.effective += result.events.map(\.effectiveAt)
        }
        let start = ledger.calendar.date(of: clock.now)
        note(try ledger.openEnvelopeAccount("Assets:Wallet", commodity: .usd, openingBalance: usd("500.00"), effectiveAt: ledger.calendar.startOfDay(start.adding(days: -30))))
        note(try ledger.openEnvelopeAccount("Assets:Euro", commodity: .eur, openingBalance: Money(parsing: "300.00", commodity: .eur), effectiveAt: ledger.calendar.startOfDay(start.adding(days: -30))))
        note(try ledger.openEnvelopeAccount("Assets:Savings Jar", commodity: .usd, effectiveAt: ledger.calendar.startOfDay(start.adding(days: -30))))
        note(try ledger.startChallenge("c52", template: "52_week", unit: usd("1.00"), account: "Assets:Savings Jar", effectiveAt: ledger.calendar.startOfDay(start.adding(days: -20))))
        let intervals: [EnvelopeInterval] = [.weekly, .biweekly, .monthly, .oneTime]
        let policies: [RolloverPolicy] = [.reset, .carryForward, .takeFromToAssign]
        for (index, interval) in intervals.enumerated() {
            note(try ledger.createEnvelope("e\(index)", name: "Envelope \(index)", interval: interval,
                                           budgeted: Money(minorUnits: Int64.random(in: 1_000...50_000, using: &random), commodity: .usd),
                                           startDate: start.adding(days: -Int.random(in: 0...25, using: &random))))
        }
        for number in 0..<steps {
            clock.advance(seconds: Int64.random(in: 60...(2 * 86_400), using: &random))
            let date = ledger.calendar.date(of: clock.now).adding(days: -Int.random(in: 0...20, using: &random))
            let at = ledger.calendar.startOfDay(date)
            let envelope = "e\(Int.random(in: 0..<4, using: &random))"
            do {
                switch Int.random(in: 0..<12, using: &random) {
                case 0: note(try ledger.setEnvelopeRollover(envelope, policy: policies.randomElement(using: &random)!, effectiveAt: at))
                case 1: note(try ledger.changeEnvelopeBudget(envelope, budgeted: Money(minorUnits: Int64.random(in: 0...50_000, using: &random), commodity: .usd),
                                                             interval: intervals.randomElement(using: &random)!, effectiveAt: at))
                case 2: note(try ledger.fundEnvelope(envelope, amount: Money(minorUnits: Int64.random(in: 1...5_000, using: &random), commodity: .usd), effectiveAt: at))
                case 3: note(try ledger.recordEnvelopeTransaction("x\(number)", account: "Assets:Euro",
                                                                  amount: Money(minorUnits: -Int64.random(in: 1...9_999, using: &random), commodity: .eur),
                                                                  rateToBase: ExactDecimal(significand: Int64.random(in: 10_000...13_000, using: &random), scale: 4),
                                                                  envelope: envelope, effectiveAt: at))
                case 4: note(try ledger.completeChallengeStep("c52", from: "Assets:Wallet", effectiveAt: at))
                case 5 where number > steps / 2: note(try ledger.deleteEnvelope(envelope, effectiveAt: at))
                default: note(try ledger.recordEnvelopeTransaction("x\(number)", account: "Assets:Wallet",
                                                                   amount: Money(minorUnits: Int64.random(in: -9_999...2_000, using: &random), commodity: .usd),
                                                                   envelope: envelope, payee: "Shop \(number)", effectiveAt: at))
                }
            } catch is LedgerError {
                continue
            }
        }
        return played
    }
}
