import AsyncHTTPClient
import Foundation
import Testing
@testable import TallyService

/// `GET /ledgers/{id}/events`: Server-Sent Events from the ledger's committed events,
/// resuming from `Last-Event-ID`, with heartbeats, ending on shutdown and when the client
/// goes away.
@Suite struct EventStreamTests {
    @Test func aClientThatDisconnectsResumesFromLastEventIdLosingNothing() async throws {
        let service = try await ServiceHarness.start { $0.heartbeatMilliseconds = 50 }
        try await service.createLedger("live")
        for amount in ["1.00", "2.00", "3.00"] {
            #expect(try await service.command("/ledgers/live/wealth/main/deposits", #"{"amount":"\#(amount)"}"#).status == 201)
        }
        // The first connection reads four events and goes away.
        let firstRead = Task { () throws -> [UInt64] in
            let response = try await service.openEvents("live")
            #expect(response.headers.first(name: "Content-Type") == "text/event-stream")
            var reader = EventStreamReader(response)
            var ids: [UInt64] = []
            while ids.count < 4, let message = try await reader.nextEvent() {
                ids.append(UInt64(message.id ?? "") ?? 0)
            }
            return ids
        }
        let seen = try await firstRead.value
        firstRead.cancel()
        #expect(seen == [1, 2, 3, 4])
        // The server notices at its next heartbeat and gives the ledger's lease back.
        #expect(try await service.eventually { await service.server.pool.leaseCount("live") == 0 }, "the stream of a client that left ended")

        for amount in ["4.00", "5.00"] {
            #expect(try await service.command("/ledgers/live/wealth/main/deposits", #"{"amount":"\#(amount)"}"#).status == 201)
        }
        let response = try await service.openEvents("live", lastEventId: 4)
        var reader = EventStreamReader(response)
        var resumed: [(UInt64, String)] = []
        while resumed.count < 7, let message = try await reader.nextEvent() {
            resumed.append((UInt64(message.id ?? "") ?? 0, message.event ?? ""))
            #expect(message.data?.contains("\"seq\":\(message.id ?? "")") == true, "data is the event's JSON")
        }
        #expect(resumed.map(\.0) == Array(5...11), "every event after 4, each once, in order")
        #expect(resumed.filter { $0.1 == "deposit_received" }.count == 3)
        try await service.stopAndRemove()
    }

    @Test func liveCommitsArriveAndHeartbeatsKeepAQuietStreamOpen() async throws {
        let service = try await ServiceHarness.start { $0.heartbeatMilliseconds = 50 }
        try await service.createLedger("quiet")
        let response = try await service.openEvents("quiet", lastEventId: 1)
        var reader = EventStreamReader(response)
        var heartbeats = 0
        while heartbeats < 2, let message = try await reader.next() {
            if message.comments.contains("heartbeat") { heartbeats += 1 }
        }
        #expect(heartbeats == 2)
        #expect(try await service.command("/ledgers/quiet/wealth/main/deposits", #"{"amount":"9.00"}"#).status == 201)
        let event = try await reader.nextEvent()
        #expect(event?.id == "2")
        #expect(event?.event == "deposit_received")
        try await service.stopAndRemove()
    }

    @Test func shutdownEndsEveryStreamAndTheServerStops() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("ending")
        let response = try await service.openEvents("ending")
        var reader = EventStreamReader(response)
        #expect(try await reader.nextEvent()?.event == "ledger_created")
        let stopping = Task { try await service.stop() }
        var last: EventStreamReader.Message?
        while let message = try await reader.next() { last = message }
        #expect(last?.event == "shutdown", "the stream says why it ends")
        try await stopping.value
        try? FileManager.default.removeItem(atPath: service.directory)
    }

    @Test func aBadLastEventIdIsRefused() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("bad")
        let reply = try await service.send(.GET, "/ledgers/bad/events", headers: [("Last-Event-ID", "twelve")])
        #expect(reply.status == 400)
        #expect(reply.json["field"] as? String == "Last-Event-ID")
        try await service.stopAndRemove()
    }
}
