import Foundation
import Testing
@testable import TallyService
import TallyLog

/// Lists a page at a time with opaque cursors that carry their filters.
@Suite struct CursorTests {
    @Test func theLogPagesThroughEveryEventOnceWithItsTypeFilter() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("pages")
        var seed = UInt64.random(in: 1...UInt64.max)
        let printedSeed = seed
        var generator = SplitMix(state: &seed)
        let deposits = Int.random(in: 5...12, using: &generator)
        for index in 0..<deposits {
            #expect(try await service.command("/ledgers/pages/wealth/main/deposits", #"{"amount":"\#(index + 1).00"}"#).status == 201, "seed \(printedSeed)")
        }
        let limit = Int.random(in: 1...4, using: &generator)
        var types: [String] = []
        var sequences: [Int] = []
        var cursor: String?
        var pages = 0
        repeat {
            let query = cursor.map { "?cursor=\($0)&limit=\(limit)" } ?? "?type=deposit_received&limit=\(limit)"
            let page = try await service.send(.GET, "/ledgers/pages/log\(query)")
            #expect(page.status == 200, "seed \(printedSeed): \(page.text)")
            let events = page.json.objects("events")
            #expect(events.count <= limit)
            types += events.compactMap { $0["type"] as? String }
            sequences += events.compactMap { $0["seq"] as? Int }
            cursor = page.json["next_cursor"] as? String
            pages += 1
        } while cursor != nil && pages < 100
        #expect(types == Array(repeating: "deposit_received", count: deposits), "seed \(printedSeed): the filter rode in the cursor")
        #expect(sequences == sequences.sorted() && Set(sequences).count == sequences.count, "seed \(printedSeed): in order, each once")
        try await service.stopAndRemove()
    }

    @Test func theAuditPagesAHistoryPinnedAtItsFirstPage() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("audit")
        for amount in ["10.00", "20.00", "30.00"] {
            #expect(try await service.command("/ledgers/audit/wealth/main/deposits", #"{"amount":"\#(amount)"}"#).status == 201)
        }
        let balances = try await service.send(.GET, "/ledgers/audit/balances").json.objects("balances")
        let account = try #require(balances.compactMap { $0["account"] as? String }.first { $0.hasSuffix(":Spend") })
        let first = try await service.send(.GET, "/ledgers/audit/audit?account=\(account)&limit=2")
        #expect(first.status == 200, "\(first.text)")
        #expect(first.json.objects("entries").count == 2)
        let cursor = try #require(first.json["next_cursor"] as? String)
        // A deposit recorded after the first page does not shift or join the later pages.
        #expect(try await service.command("/ledgers/audit/wealth/main/deposits", #"{"amount":"40.00"}"#).status == 201)
        let second = try await service.send(.GET, "/ledgers/audit/audit?cursor=\(cursor)&limit=2")
        #expect(second.json.objects("entries").count == 1, "\(second.text)")
        #expect(second.json.objects("entries").first?["balance"] as? String == "42.00", "70% of 60.00 by the third deposit: \(second.text)")
        #expect(second.json["next_cursor"] is NSNull)
        try await service.stopAndRemove()
    }

    @Test func aCursorKeepsItsFiltersAndItsLedger() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("one")
        try await service.createLedger("two")
        for _ in 0..<3 { _ = try await service.command("/ledgers/one/wealth/main/deposits", #"{"amount":"1.00"}"#) }
        let page = try await service.send(.GET, "/ledgers/one/log?type=deposit_received&limit=1")
        let cursor = try #require(page.json["next_cursor"] as? String)
        let changed = try await service.send(.GET, "/ledgers/one/log?cursor=\(cursor)&type=deposit_split")
        #expect(changed.status == 400)
        #expect(changed.json["field"] as? String == "type")
        #expect(try await service.send(.GET, "/ledgers/one/log?cursor=\(cursor)&type=deposit_received").status == 200, "the same filter again is fine")
        let elsewhere = try await service.send(.GET, "/ledgers/two/log?cursor=\(cursor)")
        #expect(elsewhere.status == 400)
        #expect(elsewhere.json["field"] as? String == "cursor")
        let tampered = try await service.send(.GET, "/ledgers/one/log?cursor=\(cursor.dropLast(3))xyz")
        #expect(tampered.status == 400)
        #expect(try await service.send(.GET, "/ledgers/one/audit?account=a&cursor=\(cursor)").json["field"] as? String == "cursor", "a log cursor is not an audit cursor")
        try await service.stopAndRemove()
    }
}

/// A small seeded generator (SplitMix64): the seed is printed in every failure.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64

    init(state: inout UInt64) { self.state = state }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
