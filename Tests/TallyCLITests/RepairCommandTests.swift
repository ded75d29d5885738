import Foundation
import Testing

/// Issue 10, finding 8 (the log's half): a damaged last frame blocked every command, and the CLI
/// had no way to repair it.
@Suite struct RepairCommandTests {
    private func pot(_ type: String, _ data: String) -> String {
        #"{"type":"\#(type)","version":1,"effective_at":"2026-05-01T09:00:00Z","data":\#(data)}"#
    }

    /// A store of three events, each its own commit (frame), with read models at its head.
    private func store(in directory: TemporaryDirectory) throws -> String {
        let store = directory.path + "/home"
        try #require(try TallyProcess.run(["init", "--store", store]).status == 0)
        let created = try directory.file("created.ndjson", pot("pot_created", #"{"pot_id":"holiday","name":"Holiday","target":{"amount":"1500.00","currency":"USD"}}"#))
        let funded = try directory.file("funded.ndjson", pot("pot_funded", #"{"pot_id":"holiday","amount":{"amount":"200.00","currency":"USD"}}"#))
        try #require(try TallyProcess.run(["append", created, "--store", store]).status == 0)
        try #require(try TallyProcess.run(["append", funded, "--store", store]).status == 0)
        try #require(try TallyProcess.run(["balances", "--store", store]).status == 0)
        return store
    }

    @Test func aDamagedLastFrameIsCutOnlyWithYesAndTheDryRunSaysExactlyWhat() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory)
        var log = try LogFileBytes(store: store)
        let last = try #require(log.frames.last)
        try #require(log.frames.count == 3)
        log.bytes[last.end - 3] ^= 0x40
        try log.write()
        let size = last.end - last.start
        let more = try directory.file("more.ndjson", pot("pot_funded", #"{"pot_id":"holiday","amount":{"amount":"5.00","currency":"USD"}}"#))

        let blocked = try TallyProcess.run(["append", more, "--store", store])
        #expect(blocked.status != 0 && blocked.standardError.contains("checksum"), "\(blocked.standardError)")
        let damaged = try directory.snapshot("home")

        let dryRun = try TallyProcess.run(["repair", "--dry-run", "--store", store])
        #expect(dryRun.status == 0, "\(dryRun.standardError)")
        #expect(dryRun.standardOutput.contains("would cut \(log.path) at byte \(last.start): events 3…3 (1 event), \(size) bytes"), "\(dryRun.standardOutput)")
        #expect(dryRun.standardOutput.contains("would keep events 1…2"), "\(dryRun.standardOutput)")
        #expect(dryRun.standardOutput.contains("nothing was changed"), "\(dryRun.standardOutput)")
        #expect(try directory.snapshot("home") == damaged)

        let unconfirmed = try TallyProcess.run(["repair", "--store", store])
        #expect(unconfirmed.status == 1)
        #expect(unconfirmed.standardError.contains("--yes") && unconfirmed.standardError.contains("Nothing was changed"), "\(unconfirmed.standardError)")
        #expect(try directory.snapshot("home") == damaged)

        let repaired = try TallyProcess.run(["repair", "--yes", "--store", store])
        #expect(repaired.status == 0, "\(repaired.standardError)")
        #expect(repaired.standardOutput.contains("cut \(log.path) at byte \(last.start): events 3…3 (1 event), \(size) bytes"), "\(repaired.standardOutput)")
        #expect(repaired.standardOutput.contains("quarantined \(store)/log/quarantine/"), "\(repaired.standardOutput)")
        // Issue 34, item 3: the repair rebuilds the read models it made stale and ends with verify's verdict.
        #expect(repaired.standardOutput.contains("rebuilt the read models from the log, through event 2"), "\(repaired.standardOutput)")
        #expect(repaired.standardOutput.contains("verify:\nok: 2 events"), "\(repaired.standardOutput)")
        let quarantined = try FileManager.default.contentsOfDirectory(atPath: store + "/log/quarantine")
        #expect(quarantined.count == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: store + "/log/quarantine/" + quarantined[0])) == Data(log.bytes[last.start...]))

        // The read models saw event 3, which the log no longer holds: the repair made them again.
        let verified = try TallyProcess.run(["verify", "--store", store])
        #expect(verified.status == 0 && verified.standardOutput.contains("ok: 2 events"), "\(verified.standardOutput)\(verified.standardError)")
        let appended = try TallyProcess.run(["append", more, "--store", store])
        #expect(appended.status == 0 && appended.standardOutput.contains("seq 3-3"), "\(appended.standardOutput)\(appended.standardError)")
    }

    /// Issue 34, item 1: a byte flipped in the middle of a bulk write's frames. The next command is
    /// refused before anything is acknowledged; repair sets aside only the damaged frame's event
    /// and keeps every later one; verify then names exactly that event as lost, every other intact.
    @Test func aDamagedFrameInTheMiddleCostsOnlyItsOwnEvents() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory)
        let lines = ["5.00", "6.00", "7.00"].map { pot("pot_funded", #"{"pot_id":"holiday","amount":{"amount":"\#($0)","currency":"USD"}}"#) }
        let bulk = try directory.file("bulk.ndjson", lines.joined(separator: "\n"))
        try #require(try TallyProcess.run(["append", bulk, "--batch-size", "1", "--store", store]).status == 0)
        var log = try LogFileBytes(store: store)
        try #require(log.frames.count == 6)
        let damaged = log.frames[3]
        log.bytes[damaged.end - 2] ^= 0x08
        try log.write()
        let more = try directory.file("more.ndjson", pot("pot_funded", #"{"pot_id":"holiday","amount":{"amount":"9.00","currency":"USD"}}"#))

        let blocked = try TallyProcess.run(["append", more, "--store", store])
        #expect(blocked.status != 0 && blocked.standardError.contains("checksum") && blocked.standardError.contains("nothing is written"), "\(blocked.standardError)")
        let dryRun = try TallyProcess.run(["repair", "--dry-run", "--store", store])
        #expect(dryRun.status == 0 && dryRun.standardOutput.contains("would set aside events 4…4 (1 event) of the damaged frame at byte \(damaged.start) of \(log.path)"), "\(dryRun.standardOutput)\(dryRun.standardError)")
        let repaired = try TallyProcess.run(["repair", "--yes", "--store", store])
        #expect(repaired.status == 0 && repaired.standardOutput.contains("set aside events 4…4 (1 event)"), "\(repaired.standardOutput)\(repaired.standardError)")
        let quarantined = try FileManager.default.contentsOfDirectory(atPath: store + "/log/quarantine")
        #expect(quarantined.count == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: store + "/log/quarantine/" + quarantined[0])) == Data(log.bytes[damaged.start..<damaged.end]))
        #expect(try LogFileBytes(store: store).bytes.count == log.bytes.count, "the frames after the damaged one are kept in place")

        let verified = try TallyProcess.run(["verify", "--store", store])
        #expect(verified.status == 0 && verified.standardOutput.contains("ok: 5 events"), "\(verified.standardOutput)\(verified.standardError)")
        #expect(verified.standardOutput.contains("events 4…4 (1 event) were lost to damage"), "\(verified.standardOutput)")
        // The read models had folded the lost 5.00: the repair made them again without it.
        let beforeMore = try TallyProcess.run(["pot", "list", "--json", "--store", store])
        #expect(beforeMore.standardOutput.contains("\"total\":{\"amount\":\"213.00\",\"currency\":\"USD\"}"), "\(beforeMore.standardOutput)\(beforeMore.standardError)")
        let appended = try TallyProcess.run(["append", more, "--store", store])
        #expect(appended.status == 0 && appended.standardOutput.contains("seq 7-7"), "\(appended.standardOutput)\(appended.standardError)")
        let pots = try TallyProcess.run(["pot", "list", "--json", "--store", store])
        #expect(pots.standardOutput.contains("\"total\":{\"amount\":\"222.00\",\"currency\":\"USD\"}"), "200 + 6 + 7 + 9, the 5.00 lost: \(pots.standardOutput)\(pots.standardError)")
        #expect(try TallyProcess.run(["verify", "--store", store]).status == 0)
    }

    /// Issue 34, item 7: with no read models to compare, a log cut short at a frame boundary
    /// looked whole. Readers and writers refuse it, verify names the lost event, and only
    /// `repair --yes` accepts the shorter log; writing then goes on from its end.
    @Test func aLogCutShortIsRefusedReportedAndAcceptedOnlyWithYes() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory)
        try FileManager.default.removeItem(atPath: store + "/readmodels.sqlite")
        var log = try LogFileBytes(store: store)
        let last = try #require(log.frames.last)
        try #require(log.frames.count == 3)
        log.bytes = Array(log.bytes[..<last.start])
        try log.write()
        let cutShort = try directory.snapshot("home")
        let more = try directory.file("more.ndjson", pot("pot_funded", #"{"pot_id":"holiday","amount":{"amount":"5.00","currency":"USD"}}"#))

        let read = try TallyProcess.run(["balances", "--store", store])
        #expect(read.status != 0 && read.standardError.contains("events 3…3 (1 event) were cut off"), "\(read.standardError)")
        let write = try TallyProcess.run(["append", more, "--store", store])
        #expect(write.status != 0 && write.standardError.contains("events 3…3 (1 event) were cut off"), "\(write.standardError)")
        let verify = try TallyProcess.run(["verify", "--store", store])
        #expect(verify.status == 1 && verify.standardError.contains("truncated: the log ends at event 2 but had acknowledged events through 3"), "\(verify.standardError)")
        #expect(try directory.snapshot("home") == cutShort)

        let unconfirmed = try TallyProcess.run(["repair", "--store", store])
        #expect(unconfirmed.status == 1, "\(unconfirmed.standardError)")
        #expect(unconfirmed.standardOutput.contains("would accept the log as it ends: events 3…3 (1 event) were acknowledged and are no longer in the log"), "\(unconfirmed.standardOutput)")
        #expect(try directory.snapshot("home") == cutShort)

        let repaired = try TallyProcess.run(["repair", "--yes", "--store", store])
        #expect(repaired.status == 0 && repaired.standardOutput.contains("accepted the log as it ends: events 3…3"), "\(repaired.standardOutput)\(repaired.standardError)")
        let appended = try TallyProcess.run(["append", more, "--store", store])
        #expect(appended.status == 0 && appended.standardOutput.contains("seq 3-3"), "\(appended.standardOutput)\(appended.standardError)")
        let verified = try TallyProcess.run(["verify", "--store", store])
        #expect(verified.status == 0 && verified.standardOutput.contains("ok: 3 events"), "\(verified.standardOutput)\(verified.standardError)")
    }

    @Test func anIntactLogHasNothingToRepairWhicheverFlag() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory)
        let before = try directory.snapshot("home")
        for flags in [[], ["--dry-run"], ["--yes"]] {
            let result = try TallyProcess.run(["repair", "--store", store] + flags)
            #expect(result.status == 0, "\(flags): \(result.standardError)")
            #expect(result.standardOutput.hasPrefix("nothing to repair: the log is intact (head 3:"), "\(flags): \(result.standardOutput)")
        }
        #expect(try directory.snapshot("home") == before)
    }

    @Test func dryRunWithYesIsAUsageErrorAndAMissingStoreCannotBeRepaired() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory)
        let before = try directory.snapshot("home")
        let both = try TallyProcess.run(["repair", "--dry-run", "--yes", "--store", store])
        #expect(both.status == 64 && both.standardError.contains("--dry-run and --yes"), "\(both.standardError)")
        #expect(try directory.snapshot("home") == before)
        let missing = try TallyProcess.run(["repair", "--yes", "--store", directory.path + "/missing"])
        #expect(missing.status == 3 && missing.standardError.contains("no store at"), "\(missing.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/missing"))
    }
}
