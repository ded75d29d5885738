import GRDB
import Testing
import TallyLog
import TallyTestSupport
@testable import TallyEngine

/// The packed form of a day's postings (`posting_days`): every leg reads back as written,
/// legs appended run by run give the bytes of one run (so a rebuild, whatever its batches,
/// writes what the folds wrote), and damaged bytes are refused by name.
@Suite struct PostingDaysTests {
    /// Random legs on one random day, of events in one span of 128 sequence numbers (as a row
    /// holds them): amounts across the whole 64-bit range, effective times at the day's start,
    /// on whole seconds and between them (before 1970 too), with and without a cause, leg
    /// numbers and event codes on both sides of what a leg's shape byte holds (3 and 31).
    private static func legs(count: Int, random: inout SplitMix64) -> (day: Int64, span: Int64, legs: [StoredLeg]) {
        precondition(count <= 60, "60 legs, two sequence numbers apart at most, stay in one span")
        let day = Int64.random(in: -40_000...40_000, using: &random)
        let span = Int64.random(in: 0...(1 << 40), using: &random)
        var sequence = (span << PostingDays.spanShift) + Int64.random(in: 0...7, using: &random)
        let legs = (0..<count).map { _ -> StoredLeg in
            sequence += Int64.random(in: 0...2, using: &random)
            let amount: Int64 = switch Int.random(in: 0..<4, using: &random) {
            case 0: Int64.random(in: -10_000...10_000, using: &random)
            case 1: [Int64.max, Int64.min, 0, -1].randomElement(using: &random)!
            default: Int64.random(in: Int64.min...Int64.max, using: &random)
            }
            let inDay: Int64 = switch Int.random(in: 0..<3, using: &random) {
            case 0: 0
            case 1: Int64.random(in: 0..<86_400, using: &random) * 1_000_000
            default: Int64.random(in: 0..<RollupBuckets.dayMicroseconds, using: &random)
            }
            let cause = Bool.random(using: &random) ? Int64.random(in: 1...sequence, using: &random) : nil
            return StoredLeg(sequence: sequence, leg: Int64.random(in: 0...5, using: &random), amount: amount,
                             effectiveAt: day * RollupBuckets.dayMicroseconds + inDay,
                             eventCode: Int64.random(in: 1...200, using: &random), cause: cause == sequence ? nil : cause)
        }
        return (day, span, legs)
    }

    private static func read(_ bytes: [UInt8], day: Int64, span: Int64) throws -> [StoredLeg] {
        var read: [StoredLeg] = []
        try bytes.withUnsafeBytes { try PostingDays.forEachLeg(in: $0, day: day, span: span) { read.append($0) } }
        return read
    }

    @Test func everyLegReadsBackAsWritten() throws {
        let seed = TestSeed.value(default: 20_261_126)
        var random = SplitMix64(seed: seed)
        for _ in 0..<200 {
            let (day, span, legs) = Self.legs(count: Int.random(in: 1...60, using: &random), random: &random)
            var writer = BinaryWriter()
            for leg in legs { PostingDays.append(leg, day: day, to: &writer) }
            #expect(legs.allSatisfy { $0.sequence >> PostingDays.spanShift == span }, "seed \(seed)")
            let read = try Self.read(writer.bytes, day: day, span: span)
            #expect(read.count == legs.count, "seed \(seed)")
            for (ours, theirs) in zip(read, legs) {
                #expect(ours.sequence == theirs.sequence && ours.leg == theirs.leg && ours.amount == theirs.amount
                        && ours.effectiveAt == theirs.effectiveAt && ours.eventCode == theirs.eventCode && ours.cause == theirs.cause,
                        "seed \(seed): \(ours) read back for \(theirs)")
            }
        }
    }

    @Test func legsAppendedRunByRunAreTheBytesOfOneRun() {
        let seed = TestSeed.value(default: 7)
        var random = SplitMix64(seed: seed)
        for _ in 0..<100 {
            let (day, _, legs) = Self.legs(count: 40, random: &random)
            var whole = BinaryWriter()
            for leg in legs { PostingDays.append(leg, day: day, to: &whole) }
            var runs: [UInt8] = []
            var start = 0
            while start < legs.count {
                let end = min(legs.count, start + Int.random(in: 1...9, using: &random))
                var run = BinaryWriter()
                for leg in legs[start..<end] { PostingDays.append(leg, day: day, to: &run) }
                runs += run.bytes
                start = end
            }
            #expect(runs == whole.bytes, "seed \(seed)")
        }
    }

    @Test func aCutOrOverlongRowIsRefusedNamingTheDayAndTheWayOut() throws {
        var writer = BinaryWriter()
        PostingDays.append(StoredLeg(sequence: 300, leg: 1, amount: -1_250, effectiveAt: 20_000 * RollupBuckets.dayMicroseconds + 5,
                                     eventCode: 12, cause: 299), day: 20_000, to: &writer)
        #expect(try Self.read(writer.bytes, day: 20_000, span: 2).map(\.sequence) == [300])
        // A leg at the day's start (place byte 0x85) whose shape says a cause follows (0x04),
        // with its amount (0x02) and no cause.
        let causeMissing: [UInt8] = [0x85, 0x04, 0x02]
        // A leg whose shape says its number follows (3 in bits 0–1), which does not.
        let legMissing: [UInt8] = [0x85, 0x03, 0x02]
        for damaged in [Array(writer.bytes.dropLast()), writer.bytes.dropLast() + [0x80], [UInt8](repeating: 0xFF, count: 11), causeMissing, legMissing] {
            #expect {
                _ = try Self.read(damaged, day: 20_000, span: 2)
            } throws: { error in
                "\(error)".contains("day 20000") && "\(error)".contains("tally rebuild")
            }
        }
    }

    /// A shop posting to one account all day, a command at a time: each command appends to a
    /// row of at most 128 events' legs, not to one that grows with the day (which made a day
    /// of n commands cost n² bytes copied), and the day reads back whole, in log order.
    @Test func aBusyDayOfOnePairIsKeptInRowsOfBoundedSize() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-03-02T09:00:00Z")
            let ledger = try Ledger.create(at: root, name: "Shop", baseCurrency: .usd, timeZone: "UTC",
                                           options: Ledger.Options(clock: clock.function, syncMode: .none))
            defer { try? ledger.close() }
            for _ in 0..<600 {
                try ledger.appendEvents([NewEvent(effectiveAt: clock.now, body: EventBody(JournalEntryPosted(
                    account: "Assets:Till", counterAccount: "Income:Sales", amount: try Money(parsing: "1.25", commodity: .usd))))])
                clock.advance(seconds: 1)
            }
            let (rows, longest, sequences) = try ledger.read { db -> (Int, Int, [Int64]) in
                let pair = try #require(try PostingDays.pair(of: "Assets:Till", commodity: "USD", db))
                let rows = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM posting_days WHERE pair = ?", arguments: [pair]) ?? 0
                let longest = try Int.fetchOne(db, sql: "SELECT MAX(length(legs)) FROM posting_days WHERE pair = ?", arguments: [pair]) ?? 0
                var sequences: [Int64] = []
                try PostingDays.forEachLeg(ofPair: pair, fromDay: Int64.min, throughDay: Int64.max, db) { sequences.append($0.sequence) }
                return (rows, longest, sequences)
            }
            #expect(rows >= 600 / 128)
            #expect(longest <= 128 * 16, "a row holds at most 128 events' legs")
            #expect(sequences.count == 600 && sequences == sequences.sorted())
            #expect(try ledger.balances().first { $0.account == "Assets:Till" }?.amount == Money(parsing: "750.00", commodity: .usd))
        }
    }
}
