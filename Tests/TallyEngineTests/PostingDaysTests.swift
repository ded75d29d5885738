import GRDB
import Testing
import TallyLog
import TallyTestSupport
@testable import TallyEngine

/// The packed form of a day's postings (`posting_days`, `posting_spans`): every leg reads back
/// as written, legs folded run by run give the rows of one run (so a rebuild, whatever its
/// batches, writes what the folds wrote), and damaged bytes are refused by name.
@Suite struct PostingDaysTests {
    /// Random legs on one random day, of events in one span of 128 sequence numbers (as a row
    /// holds them): amounts across the whole 64-bit range, effective times at the day's start,
    /// on whole seconds and between them (before 1970 too), with and without a cause, leg
    /// numbers and event codes on both sides of what a leg's shape byte holds (3 and 31); half
    /// of them with the number, code, time in the day and kind of cause of the leg before.
    private static func legs(count: Int, random: inout SplitMix64) -> (day: Int64, span: Int64, legs: [StoredLeg]) {
        precondition(count <= 60, "60 legs, two sequence numbers apart at most, stay in one span")
        let day = Int64.random(in: -40_000...40_000, using: &random)
        let span = Int64.random(in: 0...(1 << 40), using: &random)
        var sequence = (span << PostingDays.spanShift) + Int64.random(in: 0...7, using: &random)
        var previous: StoredLeg?
        let legs = (0..<count).map { _ -> StoredLeg in
            sequence += Int64.random(in: 0...2, using: &random)
            if let before = previous, Bool.random(using: &random) {
                let leg = StoredLeg(sequence: sequence, leg: before.leg, amount: Int64.random(in: Int64.min...Int64.max, using: &random),
                                    effectiveAt: before.effectiveAt, eventCode: before.eventCode,
                                    cause: before.cause == nil || sequence < 2 ? nil : Int64.random(in: 1..<sequence, using: &random))
                previous = leg
                return leg
            }
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
            let leg = StoredLeg(sequence: sequence, leg: Int64.random(in: 0...5, using: &random), amount: amount,
                                effectiveAt: day * RollupBuckets.dayMicroseconds + inDay,
                                eventCode: Int64.random(in: 1...200, using: &random), cause: cause == sequence ? nil : cause)
            previous = leg
            return leg
        }
        return (day, span, legs)
    }

    /// The bytes of a row holding `legs`, packed one after the other.
    private static func packed(_ legs: some Sequence<StoredLeg>, day: Int64) -> [UInt8] {
        var writer = BinaryWriter()
        var head: LegHead?
        for leg in legs { head = PostingDays.append(leg, day: day, after: head, to: &writer) }
        return writer.bytes
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
            #expect(legs.allSatisfy { $0.sequence >> PostingDays.spanShift == span }, "seed \(seed)")
            let read = try Self.read(Self.packed(legs, day: day), day: day, span: span)
            #expect(read.count == legs.count, "seed \(seed)")
            for (ours, theirs) in zip(read, legs) {
                #expect(ours.sequence == theirs.sequence && ours.leg == theirs.leg && ours.amount == theirs.amount
                        && ours.effectiveAt == theirs.effectiveAt && ours.eventCode == theirs.eventCode && ours.cause == theirs.cause,
                        "seed \(seed): \(ours) read back for \(theirs)")
            }
        }
    }

    /// Legs of several pairs and days folded in runs of random lengths (each run flushed to
    /// the table, as a command or a rebuild's batch is) leave the rows and span lists that one
    /// run of them all leaves: a run appending to a row reads the head of its last leg.
    @Test func legsFoldedRunByRunLeaveTheRowsOfOneRun() throws {
        let seed = TestSeed.value(default: 7)
        var random = SplitMix64(seed: seed)
        for _ in 0..<40 {
            var sequence = Int64.random(in: 0...1_000, using: &random)
            let legs = (0..<Int.random(in: 1...600, using: &random)).map { _ -> (pair: Int64, leg: StoredLeg) in
                sequence += Int64.random(in: 0...2, using: &random)
                let day = 15_000 + Int64.random(in: 0...3, using: &random)
                let inDay: Int64 = Int.random(in: 0..<4, using: &random) == 0 ? Int64.random(in: 0..<86_400, using: &random) * 1_000_000 : 0
                return (Int64.random(in: 1...5, using: &random), StoredLeg(
                    sequence: sequence, leg: Int64.random(in: 0...1, using: &random), amount: Int64.random(in: -99_999...99_999, using: &random),
                    effectiveAt: day * RollupBuckets.dayMicroseconds + inDay, eventCode: Int.random(in: 0..<5, using: &random) == 0 ? 7 : 12,
                    cause: Int.random(in: 0..<8, using: &random) == 0 ? sequence - 1 : nil))
            }
            /// Folds the legs into `db`, a run ending after each leg in `cuts`.
            func fold(cuttingAfter cuts: Set<Int>, into db: Database) throws {
                try PostingDays.createTables(db)
                var pending = PendingPostingDays()
                for (index, held) in legs.enumerated() {
                    pending.add(held.leg, pair: held.pair, number: Int(held.pair))
                    if cuts.contains(index) { try pending.flush(db) }
                }
                try pending.flush(db)
            }
            func fold(cuttingAfter cuts: Set<Int>) throws -> [String] {
                try DatabaseQueue().write { db in
                    try fold(cuttingAfter: cuts, into: db)
                    return try String.fetchAll(db, sql: """
                        SELECT pair || ' ' || day || ' ' || span || ' ' || hex(legs) FROM posting_days
                        UNION ALL SELECT 'span ' || span || ' ' || hex(rows) FROM posting_spans ORDER BY 1
                        """)
                }
            }
            let whole = try fold(cuttingAfter: [])
            let cuts = Set((0..<legs.count).filter { _ in Int.random(in: 0..<12, using: &random) == 0 })
            #expect(try fold(cuttingAfter: cuts) == whole, "seed \(seed): cut after \(cuts.sorted())")
            #expect(try fold(cuttingAfter: Set(legs.indices)) == whole, "seed \(seed): a leg a run")
            // Every leg reads back, by pair in log order.
            try DatabaseQueue().write { db in
                try fold(cuttingAfter: cuts, into: db)
                var read: [(pair: Int64, sequence: Int64, amount: Int64, effectiveAt: Int64)] = []
                try PostingDays.forEveryLeg(db) { read.append(($0, $1.sequence, $1.amount, $1.effectiveAt)) }
                let expected = legs.map { ($0.pair, $0.leg.sequence, $0.leg.amount, $0.leg.effectiveAt) }
                    .sorted { ($0.0, RollupBuckets.day($0.3), $0.1) < ($1.0, RollupBuckets.day($1.3), $1.1) }
                #expect(read.count == expected.count && zip(read, expected).allSatisfy { $0 == $1 }, "seed \(seed)")
                var inRun: [Int64] = []
                let run = legs[legs.count / 3].leg.sequence..<(legs[2 * legs.count / 3].leg.sequence + 1)
                try PostingDays.forEachLeg(inSequences: run, throughDay: Int64.max, db) { _, leg in inRun.append(leg.sequence) }
                #expect(inRun.sorted() == legs.map(\.leg.sequence).filter(run.contains).sorted(), "seed \(seed): the legs of \(run)")
            }
        }
    }

    /// A journal's legs to one account on one day (the same side, the same event type, the
    /// day's start) store their head once: the row's first leg takes three bytes and its
    /// amount, each after it one byte and its amount.
    @Test func aJournalsLegsStoreTheirHeadOncePerRow() throws {
        let day: Int64 = 20_000
        let legs = (0..<10).map { StoredLeg(sequence: 256 + 3 * Int64($0), leg: 0, amount: 5_000, effectiveAt: day * RollupBuckets.dayMicroseconds,
                                           eventCode: 12, cause: nil) }
        let bytes = Self.packed(legs, day: day)
        #expect(bytes.count == (3 + 2) + 9 * (1 + 2))
        #expect(try Self.read(bytes, day: day, span: 2).map(\.sequence) == legs.map(\.sequence))
    }

    @Test func aCutOrOverlongRowIsRefusedNamingTheDayAndTheWayOut() throws {
        let bytes = Self.packed([StoredLeg(sequence: 300, leg: 1, amount: -1_250, effectiveAt: 20_000 * RollupBuckets.dayMicroseconds + 5,
                                           eventCode: 12, cause: 299)], day: 20_000)
        #expect(try Self.read(bytes, day: 20_000, span: 2).map(\.sequence) == [300])
        // A leg (place byte 0x05) whose shape says a cause follows (0x04), with its amount
        // (0x02), its time at the day's start (0x00) and no cause.
        let causeMissing: [UInt8] = [0x05, 0x04, 0x02, 0x00]
        // A leg whose shape says its number follows (3 in bits 0–1), which does not.
        let legMissing: [UInt8] = [0x05, 0x03, 0x02, 0x00]
        // A row's first leg saying its head is the one of the leg before it.
        let nothingToRepeat: [UInt8] = [0x85, 0x02]
        // A time of whole seconds past what 64 bits hold in microseconds.
        let timeTooLate: [UInt8] = [0x05, 0x00, 0x02, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]
        for damaged in [Array(bytes.dropLast()), bytes.dropLast() + [0x80], [UInt8](repeating: 0xFF, count: 11), causeMissing, legMissing,
                        nothingToRepeat, timeTooLate] {
            #expect {
                _ = try Self.read(damaged, day: 20_000, span: 2)
            } throws: { error in
                "\(error)".contains("day 20000") && "\(error)".contains("tally rebuild")
            }
        }
        let list = SpanRows.encode([(1, 20_000), (1, 20_003), (4, 19_999)])
        #expect(try list.withUnsafeBytes { try SpanRows.decode($0, span: 9) }.map { [$0.pair, $0.day] } == [[1, 20_000], [1, 20_003], [4, 19_999]])
        for damaged in [Array(list.dropLast()), list + [0x00], [0xFF, 0x01, 0x00]] {
            #expect {
                _ = try damaged.withUnsafeBytes { try SpanRows.decode($0, span: 9) }
            } throws: { error in
                "\(error)".contains("span 9") && "\(error)".contains("tally rebuild")
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
