import Foundation
import GRDB
import Testing
import TallyLog
import TallyTestSupport
@testable import TallyEngine

/// The idempotency keys kept loose and then packed in blocks (``PackedKeys``): every
/// question asked of the keys gets the answer a row per key gives, however the keys came
/// (a bank's ids counting up, scattered digests, repeats, keys past every block) and however
/// the folds were batched.
@Suite struct PackedKeysTests {
    /// Keys as imports and commands make them, with repeats of earlier keys.
    private static func key(_ random: inout SplitMix64, counter: inout Int, earlier: [String]) -> String {
        if !earlier.isEmpty, random.next() % 10 == 0 { return earlier[Int(random.next() % UInt64(earlier.count))] }
        switch random.next() % 10 {
        case 0, 1, 2, 3:
            counter += 1
            return "journal:bank-42-\(counter)"
        case 4:
            return "journal:row:~\(String(random.next(), radix: 36)):\(random.next() % 2 + 1)"
        case 5:
            // A dated content key (stored in bytes, not text), its day from a few years.
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
            let digest = String((0..<16).map { _ in alphabet[Int(random.next() % 64)] })
            return "journal:row:~:\(2024 + random.next() % 3)0\(1 + random.next() % 9)1\(random.next() % 10)\(digest):\(random.next() % 3 + 1)"
        case 6:
            return "journal:row:\(String(random.next() % 1_000_003, radix: 36)):1"
        case 7:
            return "recurring:rent:\(random.next() % 5_000)"
        case 8:
            return "zz-\(String(random.next(), radix: 16))"
        default:
            return "\u{1}odd-\(random.next() % 300)"
        }
    }

    /// Folds `keys` (numbered from 1 in order) in runs of the given lengths, as a fold writes
    /// them, and returns the first sequence number of each key.
    @discardableResult
    private static func fold(_ keys: [String], runs: [Int], _ db: Database) throws -> [String: Int64] {
        var first: [String: Int64] = [:]
        var next = 0
        for length in runs {
            var inserts = try IdempotencyProjector.KeyInserts(db)
            defer { inserts.finish() }
            for key in keys[next..<min(keys.count, next + length)] {
                next += 1
                inserts.add(key, firstSequence: Int64(next))
                if first[key] == nil { first[key] = Int64(next) }
            }
            try inserts.flush()
        }
        precondition(next == keys.count, "runs must cover the keys")
        return first
    }

    private static func keys(count: Int, seed: UInt64) -> [String] {
        var random = SplitMix64(seed: seed)
        var counter = 0
        var keys: [String] = []
        for _ in 0..<count { keys.append(key(&random, counter: &counter, earlier: keys)) }
        return keys
    }

    private static func runs(total: Int, _ random: inout SplitMix64) -> [Int] {
        var runs: [Int] = []
        var left = total
        while left > 0 {
            let length = min(left, Int(random.next() % 3_000) + 1)
            runs.append(length)
            left -= length
        }
        return runs
    }

    @Test func everyQuestionGetsTheAnswerOfARowPerKeyAfterManyPackings() throws {
        let seed = TestSeed.value(default: 20_261_130)
        var random = SplitMix64(seed: seed)
        let keys = Self.keys(count: 60_000, seed: seed)
        let db = try DatabaseQueue()
        try db.write { db in
            try IdempotencyProjector().createTables(db)
            let first = try Self.fold(keys, runs: Self.runs(total: keys.count, &random), db)
            let (loose, packed, _) = try PackedKeys.counts(db)
            #expect(packed > 30_000, "seed \(seed): the keys were packed (\(packed) packed, \(loose) loose)")
            #expect(try Int64.fetchOne(db, sql: "SELECT count(*) FROM idempotency_keys") == loose, "seed \(seed)")
            // A loose row may repeat a packed key (a key used again after it was packed): each
            // key is in the blocks or among the loose rows that repeat none.
            var repeats: Int64 = 0
            // Spellings read as bytes (a dated key's is no UTF-8 text).
            for key in try Data.fetchAll(db, sql: "SELECT CAST(key AS BLOB) FROM idempotency_keys") {
                if try Array(key).withUnsafeBytes({ try PackedKeys.firstSequence(ofSpelling: $0, db) }) != nil { repeats += 1 }
            }
            #expect(loose - repeats + packed == Int64(first.count), "seed \(seed): \(loose) loose (\(repeats) repeating a packed key), \(packed) packed")

            // Blocks in order, none overlapping, each keyed by its last key.
            var previousLast: [UInt8]?
            var entries = 0
            for row in try Row.fetchAll(db, sql: "SELECT CAST(last_key AS BLOB) AS last_key, keys FROM idempotency_key_blocks ORDER BY last_key") {
                let last: [UInt8] = Array(row["last_key"] as Data)
                let bytes: [UInt8] = Array(row["keys"] as Data)
                var blockKeys: [[UInt8]] = []
                try bytes.withUnsafeBytes { bytes in
                    let cursor = KeyBlockCursor(bytes)
                    while try cursor.next() { cursor.withKey { blockKeys.append(Array($0)) } }
                }
                entries += blockKeys.count
                #expect(blockKeys.last == last, "seed \(seed)")
                #expect(zip(blockKeys, blockKeys.dropFirst()).allSatisfy { $0.lexicographicallyPrecedes($1) }, "seed \(seed)")
                if let previousLast, let firstKey = blockKeys.first {
                    #expect(previousLast.lexicographicallyPrecedes(firstKey), "seed \(seed): blocks overlap")
                }
                previousLast = last
            }
            #expect(Int64(entries) == packed, "seed \(seed)")

            // One key at a time, then runs of keys (clustered and scattered), then the journal's questions.
            for (key, sequence) in first {
                #expect(try IdempotencyProjector.range(of: key, db)?.lowerBound == UInt64(sequence), "seed \(seed): '\(key.debugDescription)'")
            }
            var counter = 0
            for unknown in ["journal:bank-42-0", "journal:bank-42-999999", "zzzz", "", "\u{1}", "journal:row:~"] where first[unknown] == nil {
                #expect(try IdempotencyProjector.range(of: unknown, db) == nil, "seed \(seed): '\(unknown.debugDescription)'")
                counter += 1
            }
            let used = try IdempotencyProjector.UsedKeys(db)
            for round in 0..<200 {
                var asked: [String] = []
                var seen: Set<String> = []
                if round % 2 == 0 {
                    var id = Int(random.next() % 25_000)
                    for _ in 0..<Int(random.next() % 400 + 1) {
                        id += 1
                        asked.append("journal:bank-42-\(id)")
                    }
                } else {
                    for _ in 0..<Int(random.next() % 400 + 1) {
                        asked.append(random.next() % 2 == 0 ? keys[Int(random.next() % UInt64(keys.count))] : "journal:row:~\(random.next()):1")
                    }
                }
                asked = asked.filter { seen.insert($0).inserted }
                #expect(try used.firstSequences(of: asked) == asked.map { first[$0].map(UInt64.init) }, "seed \(seed), round \(round)")
            }
            #expect(try IdempotencyProjector.hasJournalKeys(db))
            #expect(try IdempotencyProjector.hasJournalExternalIds(db))
            #expect(try IdempotencyProjector.hasLegacyContentKeys(db))
        }
    }

    @Test func theJournalsQuestionsSeeKeysWhetherLooseOrPacked() throws {
        for packedFirst in [false, true] {
            let db = try DatabaseQueue()
            try db.write { db in
                try IdempotencyProjector().createTables(db)
                #expect(try !IdempotencyProjector.hasJournalKeys(db))
                // Keys around the journal's ranges, none in them.
                let others = (0..<Int(PackedKeys.looseMinimum) + 10).map { "recurring:rent:\($0)" }
                try Self.fold(others, runs: [others.count], db)
                #expect(try PackedKeys.counts(db).packed > 0)
                let legacy = "journal:row:Qdmk:1"
                let sealed = "journal:row:~Qdmk:1"
                let external = "journal:bank-1"
                var keys = others
                for (key, legacyAfter, externalAfter) in [(sealed, false, false), (legacy, true, false), (external, true, true)] {
                    keys.append(key)
                    var inserts = try IdempotencyProjector.KeyInserts(db)
                    inserts.add(key, firstSequence: Int64(keys.count))
                    try inserts.flush()
                    inserts.finish()
                    if packedFirst { try PackedKeys.pack(db) }
                    #expect(try IdempotencyProjector.hasJournalKeys(db))
                    #expect(try IdempotencyProjector.hasLegacyContentKeys(db) == legacyAfter, "after \(key), packed: \(packedFirst)")
                    #expect(try IdempotencyProjector.hasJournalExternalIds(db) == externalAfter, "after \(key), packed: \(packedFirst)")
                }
            }
        }
    }

    @Test func twoFoldsOfTheSameKeysInOtherRunsCompareAlike() throws {
        let seed = TestSeed.value(default: 20_261_131)
        var random = SplitMix64(seed: seed)
        let keys = Self.keys(count: 30_000, seed: seed)
        var compared: [[String]] = []
        var layouts: [[String]] = []
        for runs in [[keys.count], Self.runs(total: keys.count, &random), Array(repeating: 1, count: 200) + [keys.count - 200]] {
            let db = try DatabaseQueue()
            try db.write { db in
                try IdempotencyProjector().createTables(db)
                let first = try Self.fold(keys, runs: runs, db)
                let rows = try IdempotencyProjector().comparableRows(db, schema: "main")
                #expect(rows.count == first.count, "seed \(seed)")
                compared.append(rows)
                layouts.append(try Data.fetchAll(db, sql: "SELECT CAST(last_key AS BLOB) FROM idempotency_key_blocks ORDER BY last_key").map { Array($0).description })
            }
        }
        #expect(compared.allSatisfy { $0 == compared[0] }, "seed \(seed)")
        // The comparison is needed: the blocks were cut differently.
        #expect(Set(layouts).count > 1, "seed \(seed)")
    }

    @Test func aRebuildsHeldKeysEndAsTheLooseRowsOfAFoldDo() throws {
        let seed = TestSeed.value(default: 20_261_133)
        var random = SplitMix64(seed: seed)
        let keys = Self.keys(count: 25_000, seed: seed)
        var compared: [[String]] = []
        // Packed every `heldMost` keys, sorted in chunks of `chunkKeys` that are merged (a
        // key's repeats fall in other chunks, whose merge keeps its first sequence number);
        // `mergedAhead`: the sorter is told to merge what it has at these places (as a
        // rebuild does before making its indexes), keys may follow, and the write takes it all.
        let configurations: [(heldMost: Int?, chunkKeys: Int, mergedAhead: Set<Int>)] = [
            (nil, 0, []), (1_000, 64, []), (7_919, 1_000, [keys.count]), (1 << 20, 3_001, [keys.count]),
            (1 << 20, 1 << 16, []), (1 << 20, 2_048, [9_999, 17_000, keys.count]),
        ]
        for (heldMost, chunkKeys, mergedAhead) in configurations {
            let db = try DatabaseQueue()
            try db.write { db in
                try IdempotencyProjector().createTables(db)
                guard let heldMost else {
                    try Self.fold(keys, runs: Self.runs(total: keys.count, &random), db)
                    compared.append(try IdempotencyProjector().comparableRows(db, schema: "main"))
                    return
                }
                let backlog = KeyBacklog(heldMost: heldMost, chunkKeys: chunkKeys)
                for (index, key) in keys.enumerated() {
                    if mergedAhead.contains(index) { backlog.finishSorting() }
                    try backlog.add(key, sequence: Int64(index + 1), db)
                }
                if mergedAhead.contains(keys.count) { backlog.finishSorting() }
                try backlog.write(db)
                let (loose, packed, _) = try PackedKeys.counts(db)
                #expect(loose == 0, "seed \(seed): held keys are packed, never loose")
                let rows = try IdempotencyProjector().comparableRows(db, schema: "main")
                #expect(packed == Int64(rows.count), "seed \(seed), held \(heldMost), chunks of \(chunkKeys), merged ahead at \(mergedAhead.sorted())")
                compared.append(rows)
            }
        }
        #expect(compared.allSatisfy { $0 == compared[0] }, "seed \(seed)")
    }

    @Test func aDamagedBlockIsReportedNotRead() throws {
        let db = try DatabaseQueue()
        try db.write { db in
            try IdempotencyProjector().createTables(db)
            let keys = (0..<Int(PackedKeys.looseMinimum)).map { "journal:bank-9-\($0)" }
            try Self.fold(keys, runs: [keys.count], db)
            try db.execute(sql: "UPDATE idempotency_key_blocks SET keys = x'05ff' WHERE last_key = (SELECT min(last_key) FROM idempotency_key_blocks)")
            #expect {
                _ = try IdempotencyProjector.range(of: "journal:bank-9-0", db)
            } throws: { error in
                (error as? StoreError)?.code == .readModelsDisagree && "\(error)".contains("idempotency_key_blocks")
            }
        }
    }

    @Test func blocksReadBackWhatWasWritten() throws {
        let seed = TestSeed.value(default: 20_261_132)
        var random = SplitMix64(seed: seed)
        for _ in 0..<200 {
            var entries: [([UInt8], Int64)] = []
            var keys = Set<[UInt8]>()
            for _ in 0..<Int(random.next() % 300 + 1) {
                let length = Int(random.next() % 40)
                keys.insert((0..<length).map { _ in UInt8(random.next() % 4) + 48 })
            }
            for key in keys.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                entries.append((key, Int64(bitPattern: random.next() >> UInt64(random.next() % 64))))
            }
            let writer = KeyBlockWriter()
            for (key, sequence) in entries { key.withUnsafeBytes { writer.add($0, sequence: sequence) } }
            var read: [([UInt8], Int64)] = []
            let cursor = KeyBlockCursor(writer.bytes)
            while try cursor.next() { cursor.withKey { read.append((Array($0), cursor.sequence)) } }
            #expect(read.map(\.0) == entries.map(\.0) && read.map(\.1) == entries.map(\.1), "seed \(seed)")
            #expect(Array(writer.last) == entries.last?.0 ?? [], "seed \(seed)")
        }
    }
}
