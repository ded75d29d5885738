import Foundation
import Synchronization
import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts
import TallyLog

/// What racing threads report, collected under a lock.
private final class Outcomes: Sendable {
    private let results = Mutex<[Result<Void, StoreError>]>([])
    func append(_ outcome: Result<Void, StoreError>) { results.withLock { $0.append(outcome) } }
    var all: [Result<Void, StoreError>] { results.withLock { $0 } }
}

/// Issue 10, finding 6: `init` creates a whole store or nothing, exactly one of several racing
/// creations wins, and a killed creation leaves nothing that passes for a store.
@Suite struct StoreCreationTests {
    private static let created = LedgerCreated(name: "Home", baseCurrency: .usd, timeZone: "UTC")
    private static let at = try! Instant(parsing: "2026-05-01T09:00:00Z")

    private func entries(_ path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }

    /// A complete store: marker, log with `ledger_created` as its one event, verified.
    private func expectComplete(_ root: String, _ context: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let verification = try StoreVerifier.verify(at: root, options: .standard)
        #expect(verification.isIntact, "\(context): \(verification.problems)", sourceLocation: sourceLocation)
        #expect(verification.log.head.sequence == 1, "\(context)", sourceLocation: sourceLocation)
        var first: Event?
        try EventStoreReader.open(at: root, catalog: .standard).forEach { first = $0 }
        if let ledger = first?.body.as(LedgerCreated.self) {
            #expect(ledger == Self.created, "\(context)", sourceLocation: sourceLocation)
        } else {
            Issue.record("\(context): the first event is \(String(describing: first)), not ledger_created", sourceLocation: sourceLocation)
        }
    }

    /// Before: two inits on one directory could both print "Created store", and the loser's
    /// clean-up deleted the winner's store.
    @Test func concurrentCreationsOfOnePathHaveExactlyOneWinner() throws {
        let seed = TestSeed.value(default: 0x1A17)
        var random = SplitMix64(seed: seed)
        for round in 0..<12 {
            let parent = FileManager.default.temporaryDirectory.appendingPathComponent("tally-race-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: parent) }
            let root = parent + "/store"
            let emptyTarget = Bool.random(using: &random)
            if emptyTarget { try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true) }
            let delays = (0..<8).map { _ in UInt32.random(in: 0..<300, using: &random) }
            let outcomes = Outcomes()
            let start = DispatchSemaphore(value: 0)
            let group = DispatchGroup()
            for delay in delays {
                group.enter()
                Thread.detachNewThread {
                    start.wait()
                    usleep(delay)
                    let outcome: Result<Void, StoreError>
                    do {
                        try EventStore.create(at: root, ledger: Self.created, effectiveAt: Self.at).close()
                        outcome = .success(())
                    } catch let error as StoreError {
                        outcome = .failure(error)
                    } catch {
                        outcome = .failure(StoreError(.io, "unexpected: \(error)"))
                    }
                    outcomes.append(outcome)
                    group.leave()
                }
            }
            for _ in delays { start.signal() }
            group.wait()
            let results = outcomes.all
            let context = "seed \(seed), round \(round), empty target \(emptyTarget)"
            let failures = results.compactMap { if case .failure(let error) = $0 { error } else { nil } }
            #expect(results.count - failures.count == 1, "\(context): \(failures)")
            #expect(failures.allSatisfy { $0.code == .alreadyExists && $0.message.contains("already exists") }, "\(context): \(failures)")
            try expectComplete(root, context)
            #expect(entries(parent) == ["store"], "\(context): the losers left \(entries(parent))")
        }
    }

    /// Before: SIGKILL during init left stores that could be neither opened nor created again, or an
    /// empty log without `ledger_created` that verify called ok. Now a creation stopped after any step
    /// leaves only its hidden staging directory, which is not a store, does not stop the next
    /// creation, and is removed once stale.
    @Test(arguments: StoreCreation.Step.allCases)
    func aCreationKilledAfterAnyStepLeavesNoStore(step: StoreCreation.Step) throws {
        try withTemporaryStore { root in
            let parent = (root as NSString).deletingLastPathComponent
            #expect(throws: StoreCreation.Abandoned.self) {
                try StoreCreation.create(at: root, ledger: Self.created, effectiveAt: Self.at, options: LogOptions(), abandoningAfter: step)
            }
            let leftovers = entries(parent)
            #expect(leftovers.count == 1 && leftovers[0].hasPrefix(".store.tally-init."), "\(step): \(leftovers)")
            #expect(!FileManager.default.fileExists(atPath: root), "\(step)")
            #expect(throws: StoreError.self) { try EventStoreReader.open(at: root, catalog: .standard) }

            // The next creation ignores the fresh leftover (it might be a live init's) and succeeds.
            try EventStore.create(at: root, ledger: Self.created, effectiveAt: Self.at).close()
            try expectComplete(root, "\(step)")
            #expect(entries(parent) == (leftovers + ["store"]).sorted(), "\(step)")

            // Once stale (unlocked, a minute old), a later init of the same store removes it, even one
            // that is refused because the store exists; the store is untouched.
            let before = try directoryContents(root)
            let target = try StoreCreation.target(for: root)
            #expect(StoreCreation.removeStaleStagings(of: target, now: Int64(time(nil))).isEmpty, "\(step): removed a fresh leftover")
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -120)], ofItemAtPath: parent + "/" + leftovers[0])
            #expect(throws: StoreError.self) { try EventStore.create(at: root, ledger: Self.created, effectiveAt: Self.at) }
            #expect(entries(parent) == ["store"], "\(step)")
            #expect(try directoryContents(root) == before, "\(step)")
        }
    }

    /// Stale-looking directories that are locked, or hold anything init does not write, are left alone.
    @Test func onlyUnlockedLeftoversHoldingWhatInitWritesAreRemoved() throws {
        try withTemporaryStore { root in
            let parent = (root as NSString).deletingLastPathComponent
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            let foreign = parent + "/.store.tally-init.00000000000000aa"
            let locked = parent + "/.store.tally-init.00000000000000bb"
            let other = parent + "/.other.tally-init.00000000000000cc"
            for path in [foreign, locked, other] { try FileManager.default.createDirectory(atPath: path + "/log", withIntermediateDirectories: true) }
            #expect(FileManager.default.createFile(atPath: foreign + "/notes.txt", contents: Data("mine".utf8)))
            let lockHolder = open(locked, O_RDONLY | O_DIRECTORY)
            #expect(lockHolder >= 0 && flock(lockHolder, LOCK_EX | LOCK_NB) == 0)
            defer { close(lockHolder) }
            let target = try StoreCreation.target(for: root)
            let removed = StoreCreation.removeStaleStagings(of: target, now: Int64(time(nil)) + 3600)
            #expect(removed.isEmpty, "\(removed)")
            #expect(entries(parent) == [".other.tally-init.00000000000000cc", ".store.tally-init.00000000000000aa", ".store.tally-init.00000000000000bb"])
        }
    }

    @Test func anEmptyDirectoryIsReplacedKeepingItsMode() throws {
        try withTemporaryStore { root in
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o750])
            try EventStore.create(at: root, ledger: Self.created, effectiveAt: Self.at).close()
            try expectComplete(root, "empty directory")
            let mode = try FileManager.default.attributesOfItem(atPath: root)[.posixPermissions] as? Int
            #expect(mode == 0o750)
        }
    }

    @Test func whatCannotBecomeAStoreIsRefusedAndLeftAsItWas() throws {
        try withTemporaryStore { root in
            let parent = (root as NSString).deletingLastPathComponent
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: root + "/keep.txt", contents: Data("keep".utf8)))
            #expect(FileManager.default.createFile(atPath: parent + "/file", contents: Data("file".utf8)))
            let cases: [(String, String)] = [
                (root, "is not an empty directory"), (parent + "/file", "is not a directory"), ("/", "cannot hold a store"),
            ]
            for (path, message) in cases {
                #expect { try EventStore.create(at: path, ledger: Self.created, effectiveAt: Self.at) } throws: { error in
                    underlying(error, as: StoreError.self)?.message.contains(message) == true
                }
            }
            #expect(entries(parent) == ["file", "store"])
            #expect(entries(root) == ["keep.txt"])
        }
    }

    /// Stores an older, non-atomic init left half made are named as such, never opened as empty ledgers.
    @Test func halfMadeStoresOfAnOlderInitAreIncomplete() throws {
        try withTemporaryStore { root in
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: root + "/STORE", contents: Data(StoreLayout.markerText.utf8)))
            #expect { try EventStore.open(at: root, catalog: .standard) } throws: { underlying($0, as: StoreError.self)?.code == .incomplete }
            try LogWriter.create(directory: root + "/log").close()
            #expect { try EventStore.open(at: root, catalog: .standard) } throws: { underlying($0, as: StoreError.self)?.code == .incomplete }
            #expect { try EventStoreReader.open(at: root, catalog: .standard) } throws: { underlying($0, as: StoreError.self)?.code == .incomplete }
            let verification = try StoreVerifier.verify(at: root, options: .standard)
            #expect(verification.outcome == .logDamaged)
            #expect(verification.contentProblems.first?.contains("no events") == true, "\(verification.contentProblems)")
            #expect { try EventStore.create(at: root, ledger: Self.created, effectiveAt: Self.at) } throws: {
                underlying($0, as: StoreError.self)?.code == .alreadyExists
            }
        }
    }

    /// Every regular file under `root` with its bytes.
    private func directoryContents(_ root: String) throws -> [String: Data] {
        var result: [String: Data] = [:]
        for relative in FileManager.default.subpaths(atPath: root) ?? [] {
            var isDirectory: ObjCBool = false
            let path = root + "/" + relative
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                result[relative] = try Data(contentsOf: URL(fileURLWithPath: path))
            }
        }
        return result
    }
}
