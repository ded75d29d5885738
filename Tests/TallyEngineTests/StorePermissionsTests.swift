import Foundation
import Glibc
import Testing
import TallyEngine
import TallyTestSupport

/// A store holds a household's finances: its directory is its owner's alone (0700) and every
/// file in it, made at creation or later (segments, the lock, the published head, the read
/// models and SQLite's companions), is 0600, whatever the process's umask; `verify` warns
/// when a store is open to other accounts.
@Suite(.serialized) struct StorePermissionsTests {
    static let start = "2026-05-01T09:00:00Z"

    private func mode(_ path: String) throws -> mode_t {
        var status = stat()
        try #require(stat(path, &status) == 0, "stat \(path)")
        return status.st_mode & 0o777
    }

    private func everyPath(under root: String) -> [String] {
        var paths = [root]
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let name = enumerator?.nextObject() as? String { paths.append(root + "/" + name) }
        return paths
    }

    @Test(arguments: [mode_t(0o022), 0o002, 0o000])
    func aStoreIsItsOwnersAloneWhateverTheUmask(umaskValue: mode_t) throws {
        let previous = umask(umaskValue)
        defer { umask(previous) }
        try withTemporaryStore { root in
            let clock = ManualClock(Self.start)
            var options = Ledger.Options(clock: clock.function, syncMode: .none)
            options.segmentBytesLimit = 4_096
            let ledger = try Ledger.create(at: root, name: "Home", baseCurrency: .usd, timeZone: "UTC", options: options)
            // Enough entries to roll segments after creation: files made later keep the rule.
            for index in 0..<60 {
                try ledger.appendEvents([NewEvent(effectiveAt: clock.now, body: EventBody(JournalEntryPosted(
                    account: "Assets:Cash", counterAccount: "Income:Gift", amount: usd("\(index + 1).00"))))])
            }
            let segments = try FileManager.default.contentsOfDirectory(atPath: root + "/log").filter { $0.hasSuffix(".tlog") }
            #expect(segments.count > 1, "segments rolled")
            for path in everyPath(under: root) {
                var isDirectory: ObjCBool = false
                _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
                #expect(try mode(path) == (isDirectory.boolValue ? 0o700 : 0o600), "\(path) under umask \(String(umaskValue, radix: 8))")
            }
            try ledger.close()
            #expect(try StoreVerifier.verify(at: root).openToOthers.isEmpty)
        }
    }

    @Test func verifyWarnsWhenOthersCanReadTheStore() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.create(at: root, name: "Home", baseCurrency: .usd, timeZone: "UTC",
                                           options: Ledger.Options(clock: ManualClock(Self.start).function, syncMode: .none))
            try ledger.close()
            #expect(chmod(root, 0o755) == 0 && chmod(root + "/readmodels.sqlite", 0o644) == 0)
            let verification = try StoreVerifier.verify(at: root)
            #expect(verification.isIntact, "a warning, not damage")
            #expect(verification.openToOthers == [root, root + "/readmodels.sqlite"])
            #expect(verification.notes.contains { $0.contains("other accounts on this machine can read") })
            // The next writer narrows the read models again.
            try Ledger.open(at: root, options: Ledger.Options(syncMode: .none)).close()
            #expect(try mode(root + "/readmodels.sqlite") == 0o600)
        }
    }
}
