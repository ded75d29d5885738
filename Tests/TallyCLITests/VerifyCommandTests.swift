import Foundation
import Testing

@Suite struct VerifyCommandTests {
    private func store(in directory: TemporaryDirectory, named name: String, potName: String) throws -> String {
        let store = directory.path + "/" + name
        try #require(try TallyProcess.run(["init", "--store", store]).status == 0)
        let events = [
            #"{"type":"pot_created","version":1,"effective_at":"2026-05-01T09:00:00Z","data":{"pot_id":"holiday","name":"\#(potName)","target":{"amount":"1500.00","currency":"USD"}}}"#,
            #"{"type":"pot_funded","version":1,"effective_at":"2026-05-02T09:00:00Z","data":{"pot_id":"holiday","amount":{"amount":"200.00","currency":"USD"}}}"#,
        ]
        let file = try directory.file(name + ".ndjson", events.joined(separator: "\n"))
        try #require(try TallyProcess.run(["append", file, "--store", store]).status == 0)
        return store
    }

    private func head(of run: TallyRun) -> String? {
        run.standardOutput.split(separator: "\n").first { $0.hasPrefix("head ") }.map { String($0.dropFirst(5)) }
    }

    @Test func anIntactStorePrintsItsHeadDigestAndMatchesIt() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory, named: "a", potName: "Holiday")
        let verified = try TallyProcess.run(["verify", "--store", store])
        #expect(verified.status == 0, "\(verified.standardError)")
        #expect(verified.standardOutput.contains("ok: 3 events"))
        let digest = try #require(head(of: verified))
        #expect(digest.hasPrefix("3:") && digest.count == 2 + 64)
        let again = try TallyProcess.run(["verify", "--store", store, "--expect", digest])
        #expect(again.status == 0, "\(again.standardError)")
        let json = try TallyProcess.run(["verify", "--store", store, "--json"])
        #expect(json.standardOutput.contains("\"ok\":true"))
    }

    @Test func aDigestFromALedgerWithAnAlteredEventFails() throws {
        let directory = try TemporaryDirectory()
        let original = try store(in: directory, named: "original", potName: "Holiday")
        let altered = try store(in: directory, named: "altered", potName: "Holidays")
        let digest = try #require(head(of: try TallyProcess.run(["verify", "--store", original])))
        let result = try TallyProcess.run(["verify", "--store", altered, "--expect", digest])
        #expect(result.status != 0)
        #expect(result.standardError.contains("3"), "\(result.standardError)")
    }

    @Test func aDigestOfALongerLogFails() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory, named: "a", potName: "Holiday")
        let digest = "9:" + String(repeating: "ab", count: 32)
        let result = try TallyProcess.run(["verify", "--store", store, "--expect", digest])
        #expect(result.status != 0)
    }

    @Test func aMalformedDigestIsAUsageError() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory, named: "a", potName: "Holiday")
        let result = try TallyProcess.run(["verify", "--store", store, "--expect", "3:xyz"])
        #expect(result.status != 0)
        #expect(result.standardError.contains("--expect"))
    }

    @Test func aFlippedByteIsReportedWithItsSegmentAndOffset() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory, named: "a", potName: "Holiday")
        let segments = try FileManager.default.contentsOfDirectory(atPath: store + "/log").filter { $0.hasSuffix(".tlog") }
        let segment = try #require(segments.first)
        let path = store + "/log/" + segment
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[bytes.count - 3] ^= 0x40
        try bytes.write(to: URL(fileURLWithPath: path))
        let result = try TallyProcess.run(["verify", "--store", store])
        #expect(result.status != 0)
        #expect(result.standardError.contains(segment), "\(result.standardError)")
        #expect(result.standardError.contains("at byte"), "\(result.standardError)")
    }
}
