import Foundation
import Testing
@testable import TallyCLI
@testable import Tally
import TallyTestSupport
import TallyLog

/// The demo household lived twice with one seed and one clock, once in an encrypted store: no
/// name, payee, account or note of it appears in any byte of any file of the encrypted store,
/// and every answer (and the chain's head) is the same as the plain store's.
@Suite struct EncryptedHouseholdTests {
    /// Strings the household writes: its name, payees, accounts, pots, envelopes, assets, notes.
    static let known = [
        "Demo household", "Acme Corp", "Bean There Cafe", "Luigi's Trattoria", "Maple Street Rentals", "Harbor Insurance",
        "Lightwave Mobile", "StreamFlix", "Emergency fund", "Summer holiday", "Groceries", "Dining out", "Vanguard Total Stock Market",
        "Japan growth fund", "Gold coins", "Have the painting appraised", "Anniversary dinner", "Museu do Azulejo", "Fresh Foods",
    ]

    static func live(at root: String, key: LedgerKey?) throws -> (Ledger, DemoActivity) {
        let household = DemoHousehold(seed: 16, firstMonth: try Month(parsing: "2024-01"), monthCount: 4)
        let clock = DemoClock(household.createdAt(try LedgerCalendar(timeZoneIdentifier: DemoHousehold.timeZone)))
        var options = Ledger.Options(clock: clock.function, syncMode: .none, features: standardFeatures)
        options.key = key
        options.encrypt = key != nil
        // One seed for both stores' subject keys: the same household then seals to the same bytes,
        // so the two logs can be compared digest for digest.
        options.subjectKeySeed = 16
        let ledger = try Ledger.create(
            at: root, name: DemoHousehold.ledgerName, baseCurrency: DemoHousehold.baseCurrency, timeZone: DemoHousehold.timeZone,
            options: options)
        let activity = try household.live(in: ledger, clock: clock)
        try ledger.sync()
        return (ledger, activity)
    }

    /// Every regular file under `root`, with its bytes.
    static func files(under root: String) -> [(path: String, bytes: [UInt8])] {
        var result: [(String, [UInt8])] = []
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let relative = enumerator?.nextObject() as? String {
            let path = root + "/" + relative
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                  let data = FileManager.default.contents(atPath: path) else { continue }
            result.append((path, Array(data)))
        }
        return result
    }

    @Test func noStringOfTheHouseholdIsInAnyFileOfTheEncryptedStoreAndEveryAnswerIsUnchanged() throws {
        try withTemporaryStore { root in
            let plainRoot = root + "-plain"
            let keyPath = root + ".key"
            try FileManager.default.createDirectory(atPath: (root as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let key = try LedgerKey.makeKeyFile(at: keyPath)
            let (sealed, activity) = try Self.live(at: root, key: key)
            let (plain, _) = try Self.live(at: plainRoot, key: nil)
            defer {
                try? sealed.close()
                try? plain.close()
                EncryptedStoreSupport.forgetReadModels(of: root)
            }
            #expect(activity.eventCount > 300)
            #expect(sealed.head == plain.head, "sealing changes no event, so no digest")

            // Every answer the same, at 20 random dates (seeded).
            let seed: UInt64 = 1616
            var random = SplitMixRandom(seed: seed)
            let start = try Instant(parsing: "2024-01-01T00:00:00Z").microsecondsSinceEpoch
            let end = try Instant(parsing: "2024-05-01T00:00:00Z").microsecondsSinceEpoch
            for _ in 0..<20 {
                let date = Instant(microsecondsSinceEpoch: start + Int64(random.next() % UInt64(end - start)))
                #expect("\(try sealed.balances(asOf: date))" == "\(try plain.balances(asOf: date))", "balances at \(date), seed \(seed)")
                #expect("\(try sealed.netWorth(asOf: date))" == "\(try plain.netWorth(asOf: date))", "net worth at \(date), seed \(seed)")
                let month = sealed.calendar.date(of: date).month
                #expect("\(try sealed.budgetOverview(month: month, asOf: date))" == "\(try plain.budgetOverview(month: month, asOf: date))", "budget at \(date), seed \(seed)")
                #expect("\(try sealed.wealthSummary(account: DemoHousehold.wealthAccount, asOf: date))"
                        == "\(try plain.wealthSummary(account: DemoHousehold.wealthAccount, asOf: date))", "wealth at \(date), seed \(seed)")
            }
            try sealed.close()
            try plain.close()

            // The plain store shows the strings (the control); the encrypted one shows none of them.
            let plainFiles = Self.files(under: plainRoot)
            for text in ["Demo household", "Acme Corp", "Groceries"] {
                #expect(plainFiles.contains { ByteSearch.contains($0.bytes, text) }, "the control lost '\(text)'")
            }
            let sealedFiles = Self.files(under: root)
            #expect(Set(sealedFiles.map { ($0.path as NSString).lastPathComponent }).isSuperset(of: ["KEYS", "SEALED", "STORE"]))
            #expect(!sealedFiles.contains { $0.path.hasSuffix(".sqlite") }, "read models of an encrypted store stay out of the store")
            for file in sealedFiles {
                for text in Self.known where ByteSearch.contains(file.bytes, text) {
                    Issue.record("'\(text)' is in \(file.path)")
                }
            }
            let verification = try StoreVerifier.verify(at: root, options: { var o = Ledger.Options.standard; o.key = key; return o }())
            #expect(verification.isIntact, "\(verification.outcome)")
            #expect(verification.log.recomputedHead == plain.head)
        }
    }
}

/// A seeded generator for test dates (SplitMix64).
struct SplitMixRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

enum EncryptedStoreSupport {
    /// Removes an encrypted store's read models from memory-backed storage (call while the store exists).
    static func forgetReadModels(of root: String) {
        let path = StoreLayout(root: root).runtimeReadModelPath
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}
