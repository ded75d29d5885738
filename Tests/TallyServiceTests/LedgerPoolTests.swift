import Foundation
import TallyTestSupport
import Testing
@testable import TallyService

/// Ledgers open on first use and close when idle, at most the configured number at once;
/// a closed ledger opens again on its next request.
@Suite struct LedgerPoolTests {
    @Test func atMostTheLimitOfLedgersStaysOpenAndAClosedOneReopens() async throws {
        let service = try await ServiceHarness.start { $0.openLedgersLimit = 2 }
        for ledger in ["one", "two", "three"] {
            try await service.createLedger(ledger)
            #expect(try await service.command("/ledgers/\(ledger)/wealth/main/deposits", #"{"amount":"5.00"}"#).status == 201)
            #expect(await service.server.pool.openCount <= 2)
        }
        #expect(await service.server.pool.isOpen("one") == false, "the least recently used was closed")
        let reopened = try await service.send(.GET, "/ledgers/one/wealth/main")
        #expect(reopened.json.objects("balances").first?["total"] as? String == "5.00")
        #expect(await service.server.pool.isOpen("one"))
        #expect(await service.server.pool.openCount <= 2)
        try await service.stopAndRemove()
    }

    @Test func aLedgerUnusedPastTheIdleLimitIsClosed() async throws {
        let service = try await ServiceHarness.start { $0.idleSeconds = 1 }
        try await service.createLedger("sleepy")
        // A request opens it. Asked right after a request, again if need be: the server's own
        // sweep runs every second, and on a loaded machine more than a second can pass between
        // the answer and the question (the single question failed so once).
        let opened = try await eventually {
            _ = try await service.send(.GET, "/ledgers/sleepy")
            return await service.server.pool.isOpen("sleepy")
        }
        #expect(opened)
        // The sweep closes what has been idle for a second; it runs here on demand too.
        let closed = try await eventually {
            await service.server.pool.sweep()
            return await !service.server.pool.isOpen("sleepy")
        }
        #expect(closed)
        #expect(try await service.send(.GET, "/ledgers/sleepy").status == 200, "and opens again when asked")
        try await service.stopAndRemove()
    }
}
