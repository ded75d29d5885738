import GRDB
import Testing
import TallyLog
import TallyTestSupport
@testable import TallyEngine

/// How the idempotency read model writes a run's keys (many to a statement) and answers a
/// run's look-ups (one range scan when the keys cluster, one look-up each when they
/// scatter): the same table and the same answers as one key at a time, whatever the mix.
@Suite struct IdempotencyKeyTableTests {
    /// Keys as imports and commands make them: a bank's ids counting up (clustered), content
    /// digests (scattered), other commands' keys, and keys that need the escape marker.
    private static func key(_ random: inout SplitMix64, counter: inout Int) -> String {
        switch random.next() % 8 {
        case 0, 1, 2, 3:
            counter += Int(random.next() % 3)
            return "journal:bank-7-\(counter)"
        case 4, 5:
            return "journal:row:\(String(random.next() % 1_000_000_007, radix: 36)):\(random.next() % 3 + 1)"
        case 6:
            return "recurring:rent:\(random.next() % 500)"
        default:
            return "\u{1}odd-\(random.next() % 200)"
        }
    }

    /// The first sequence stored for `key`, looked up on its own.
    private static func stored(_ key: String, _ db: Database) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT first_sequence FROM idempotency_keys WHERE key = ?", arguments: [StoredKey.spelling(of: key)])
    }

    @Test func runsOfKeysWrittenManyToAStatementKeepTheFirstUseOfEach() throws {
        let seed = TestSeed.value(default: 20_261_128)
        var random = SplitMix64(seed: seed)
        let db = try DatabaseQueue()
        var expected: [String: Int64] = [:]
        var counter = 0
        var sequence: Int64 = 0
        try db.write { db in
            try IdempotencyProjector().createTables(db)
            for _ in 0..<40 {
                // Runs shorter and longer than a statement's rows, repeats within one statement.
                let length = Int(random.next() % UInt64(3 * IdempotencyProjector.KeyInserts.rowsPerStatement))
                var inserts = try IdempotencyProjector.KeyInserts(db)
                defer { inserts.finish() }
                for _ in 0..<length {
                    sequence += 1
                    let key = random.next() % 6 == 0 && !expected.isEmpty ? expected.keys.randomElement(using: &random)! : Self.key(&random, counter: &counter)
                    inserts.add(key, firstSequence: sequence)
                    if expected[key] == nil { expected[key] = sequence }
                }
                try inserts.flush()
            }
            let rows = try Int.fetchOne(db, sql: "SELECT count(*) FROM idempotency_keys")
            #expect(rows == expected.count, "seed \(seed)")
            for (key, first) in expected {
                #expect(try Self.stored(key, db) == first, "seed \(seed): key '\(key.debugDescription)'")
            }
        }
        #expect(expected.count > 1_000, "seed \(seed): too few keys to tell anything")
    }

    @Test func aRunsLookUpsAnswerAsOneLookUpPerKeyWhetherItsKeysClusterOrScatter() throws {
        let seed = TestSeed.value(default: 20_261_129)
        var random = SplitMix64(seed: seed)
        let db = try DatabaseQueue()
        var counter = 0
        try db.write { db in
            try IdempotencyProjector().createTables(db)
            var inserts = try IdempotencyProjector.KeyInserts(db)
            defer { inserts.finish() }
            for sequence in 1...3_000 {
                inserts.add(Self.key(&random, counter: &counter), firstSequence: Int64(sequence))
            }
            try inserts.flush()
            let used = try IdempotencyProjector.UsedKeys(db)
            var clustered = 0
            var scattered = 0
            for round in 0..<300 {
                var keys: [String] = []
                var seen: Set<String> = []
                switch round % 3 {
                case 0:
                    // A bank's ids around where the stored ones end: mostly new, some stored.
                    var near = max(0, counter - Int(random.next() % 400))
                    for _ in 0..<Int(random.next() % 200 + 1) {
                        near += 1
                        keys.append("journal:bank-7-\(near)")
                    }
                default:
                    for _ in 0..<Int(random.next() % 200 + 1) {
                        var throwaway = Int(random.next() % UInt64(counter + 1))
                        keys.append(Self.key(&random, counter: &throwaway))
                    }
                }
                keys = keys.filter { seen.insert($0).inserted }
                let spellings = keys.map { Array(StoredKey.spelling(of: $0).utf8) }
                let least = spellings.min { $0.lexicographicallyPrecedes($1) }!
                let greatest = spellings.max { $0.lexicographicallyPrecedes($1) }!
                let inRange = try Int.fetchOne(db, sql: "SELECT count(*) FROM idempotency_keys WHERE key BETWEEN ? AND ?", arguments: [
                    String(decoding: least, as: UTF8.self), String(decoding: greatest, as: UTF8.self),
                ])!
                if inRange < IdempotencyProjector.UsedKeys.rangeScanLimit(keys: keys.count) { clustered += 1 } else { scattered += 1 }
                let answers = try used.firstSequences(of: keys)
                let expected = try keys.map { try Self.stored($0, db).map(UInt64.init) }
                #expect(answers == expected, "seed \(seed), round \(round)")
            }
            // Both ways of answering were taken.
            #expect(clustered > 20 && scattered > 20, "seed \(seed): \(clustered) clustered, \(scattered) scattered")
            #expect(try used.firstSequences(of: []) == [])
        }
    }
}
