import Crypto
import Testing
@testable import TallyLog

/// The chain step hashes exactly the canonical form its documentation gives: every log
/// already written was chained that way, so a faster step must give the same bytes.
struct ChainHashTests {
    /// The canonical form gathered into one array, as the format's documentation spells it.
    static func reference(after previous: [UInt8], _ event: LoggedEvent) -> [UInt8] {
        var bytes = previous
        func put<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
        put(event.sequence)
        put(event.recordedAt)
        put(event.effectiveAt)
        put(event.kind)
        put(event.version)
        put(event.cause ?? 0)
        put(UInt32(event.entity.utf8.count))
        bytes.append(contentsOf: event.entity.utf8)
        put(UInt32(event.idempotencyKey?.utf8.count ?? 0))
        bytes.append(contentsOf: event.idempotencyKey?.utf8 ?? "".utf8)
        put(UInt32(event.payload.count))
        bytes.append(contentsOf: event.payload)
        return Array(SHA256.hash(data: bytes))
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { (($0 < 16) ? "0" : "") + String($0, radix: 16) }.joined()
    }

    @Test func twoStepsGiveTheDigestsComputedOutsideSwift() {
        // Computed with Python's hashlib over the documented layout (struct '<QqqIHQ', then
        // each length as '<I' before its bytes).
        let first = LoggedEvent(
            sequence: 1, recordedAt: 1_700_000_000_000_000, kind: 7, version: 2, effectiveAt: -62_135_596_800_000_000,
            entity: "account:Expenses:Groceries", cause: nil, idempotencyKey: nil, payload: [])
        let second = LoggedEvent(
            sequence: 2, recordedAt: 1_700_000_000_000_001, kind: .max, version: .max, effectiveAt: 1_600_000_000_000_000,
            entity: "pot:épargne-vacances-2026", cause: 1, idempotencyKey: "journal:bank-42-1000000", payload: (0..<200).map(UInt8.init))
        let h1 = ChainHash.next(after: (0..<32).map(UInt8.init), first)
        let h2 = ChainHash.next(after: h1, second)
        #expect(Self.hex(h1) == "63589d631cafa8ac140903e771a293731942b1a245784b2b179adc7a2a47b939")
        #expect(Self.hex(h2) == "77134d4e7e52b1dcd4925eaafad33558edab769795ba2e2357804a7efca1de9f")
    }

    @Test func everyStepEqualsTheDocumentedLayoutHashedWhole() {
        let seed: UInt64 = 2026_1201
        var rng = SplitMix64(seed: seed)
        var hash = [UInt8](repeating: 0, count: 32)
        var reference = hash
        for step in 0..<2_000 {
            let record = randomRecord(&rng, payloadBytesMax: 300)
            // Entities and keys of every length class: empty key, inline (≤ 15 bytes) and heap strings, non-ASCII.
            let entity = ["", "a", "account:\(rng.next())", String(repeating: "é", count: Int(rng.next() % 200))][Int(rng.next() % 4)]
            let key: String? = [nil, "k", "journal:row:~\(rng.next()):\(rng.next())", record.idempotencyKey][Int(rng.next() % 4)]
            let event = LoggedEvent(
                sequence: rng.next(), recordedAt: Int64(bitPattern: rng.next()), kind: record.kind, version: record.version,
                effectiveAt: Int64(bitPattern: rng.next()), entity: entity, cause: rng.next() % 2 == 0 ? nil : rng.next(),
                idempotencyKey: key, payload: record.payload)
            hash = ChainHash.next(after: hash, event)
            reference = Self.reference(after: reference, event)
            #expect(hash == reference, "step \(step), seed \(seed)")
            if hash != reference { return }
        }
    }
}
