import Foundation
import NIOCore
import Synchronization
import Tally
import TallyTestSupport
import Testing
@testable import TallyService

/// Graceful shutdown with commands in flight: every command the server acknowledged is in
/// its ledger's log afterwards, and every ledger was closed (each opens again at once).
@Suite struct ShutdownTests {
    @Test func shutdownWithCommandsInFlightLosesNothingAcknowledged() async throws {
        let service = try await ServiceHarness.start()
        let ledgers = ["a", "b", "c", "d"]
        for ledger in ledgers { try await service.createLedger(ledger) }
        let outcomes = Outcomes()

        let stopping = Task {
            // Shut down once some commands are acknowledged and the rest still running.
            _ = try await eventually { outcomes.acknowledged.withLock { $0.count } >= 20 }
            try await service.stop()
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<300 {
                group.addTask {
                    let ledger = ledgers[index % ledgers.count]
                    let key = "inflight-\(index)"
                    do {
                        let reply = try await service.command("/ledgers/\(ledger)/wealth/main/deposits", #"{"amount":"1.00"}"#, idempotencyKey: key, timeout: .seconds(15))
                        if reply.status == 201 {
                            let sequences = reply.json.objects("events").compactMap { $0["seq"] as? Int }
                            outcomes.acknowledged.withLock { $0.append((ledger, key, sequences)) }
                        } else {
                            #expect(reply.status == 503, "a command the server could not take says so: \(reply.text)")
                            outcomes.refused.withLock { $0 += 1 }
                        }
                    } catch {
                        // The connection was refused or closed before an answer: not acknowledged.
                        // (The client keeps trying to connect until the deadline, hence not a long one; 15 s
                        // still lets 300 requests at once be answered on a loaded machine.)
                        outcomes.refused.withLock { $0 += 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        try await stopping.value
        let answers = outcomes.acknowledged.withLock { $0 }
        #expect(answers.count >= 20)
        #expect(answers.count + outcomes.refused.withLock { $0 } == 300)

        // Every ledger was closed: each opens for writing at once, and holds every
        // acknowledged deposit at the sequence numbers its response gave.
        for ledger in ledgers {
            let store = try Ledger.open(at: service.directory + "/ledgers/" + ledger, options: .standard)
            defer { try? store.close() }
            for answer in answers where answer.ledger == ledger {
                for sequence in answer.sequences {
                    let event = try #require(try store.loggedEvent(at: UInt64(sequence)), "\(ledger) seq \(sequence) acknowledged, missing")
                    if event.type.name == "deposit_received" { #expect(event.idempotencyKey == answer.key) }
                }
            }
        }
        try? FileManager.default.removeItem(atPath: service.directory)
    }
}

extension ShutdownTests {
    /// When shutdown begins, a command whose body is still arriving and a request already
    /// sent on a kept-alive connection are both answered in full (with `Connection: close`),
    /// while a new connection is refused.
    @Test func requestsInFlightWhenShutdownBeginsGetWholeAnswersWhileNewConnectionsAreRefused() async throws {
        // A grace long enough for a loaded machine: the test waits for the refusal before sending.
        // So is the time a kept-alive connection has to send its next request's head (10 s by
        // default, then the server closes it): under load the wait for the refusal and the
        // first answer took longer, and the second request met a closed connection.
        let service = try await ServiceHarness.start {
            $0.shutdownGraceMilliseconds = 30_000
            $0.headerReadTimeoutMilliseconds = 120_000
        }
        // On a connection of the test's own, closed after its answer: URLSession kept its
        // connection in its pool despite the request's `Connection: close`, and that idle
        // connection held the stop for the whole grace (the test took 30 s; now 0.1 s).
        let ledgerBody = #"{"id":"drain","name":"Drain","base_currency":"USD"}"#
        let ledger = try await RawConnection.with(port: service.port) { creating in
            try await creating.send("POST /ledgers HTTP/1.1\r\nHost: tally\r\nAuthorization: Bearer \(ServiceHarness.adminKey)\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(ledgerBody.utf8.count)\r\nConnection: close\r\n\r\n" + ledgerBody)
            return try await creating.response()
        }
        #expect(ledger.status == 201, "\(ledger.text)")
        let (stopping, created) = try await RawConnection.with(port: service.port) { reading in
            try await RawConnection.with(port: service.port) { kept in
                try await Self.drain(service, reading: reading, kept: kept)
            }
        }
        try await stopping.value
        let store = try Ledger.open(at: service.directory + "/ledgers/drain", options: .standard)
        defer { try? store.close() }
        let answer = (try JSONSerialization.jsonObject(with: Data(created.body.utf8)) as? [String: Any]) ?? [:]
        let sequences = answer.objects("events").compactMap { $0["seq"] as? Int }
        #expect(!sequences.isEmpty, "\(created.body)")
        for sequence in sequences {
            #expect(try store.loggedEvent(at: UInt64(sequence)) != nil, "seq \(sequence) was acknowledged during the shutdown")
        }
        try? FileManager.default.removeItem(atPath: service.directory)
    }

    /// The drain of `requestsInFlightWhenShutdownBeginsGetWholeAnswersWhileNewConnectionsAreRefused`
    /// on its two connections: one kept alive and idle when shutdown begins, one whose command
    /// is being read. Returns the stop, still running, and the command's answer.
    private static func drain(
        _ service: ServiceHarness, reading: RawConnection, kept: RawConnection
    ) async throws -> (stopping: Task<Void, any Error>, created: RawConnection.Answer) {
        let body = #"{"amount":"12.34","external_id":"drain-1"}"#
        let split = body.index(body.startIndex, offsetBy: 10)
        let head = "POST /ledgers/drain/wealth/main/deposits HTTP/1.1\r\nHost: tally\r\nAuthorization: Bearer \(ServiceHarness.adminKey)\r\n"
            + "Idempotency-Key: drain-1\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
        let balances = "GET /ledgers/drain/balances HTTP/1.1\r\nHost: tally\r\nAuthorization: Bearer \(ServiceHarness.adminKey)\r\n\r\n"
        // One exchange, so the second connection is kept alive and idle when shutdown begins.
        try await kept.send(balances)
        let first = try await kept.response()
        #expect(first.status == 200, "\(first.text)")
        // The command's head and part of its body: the server is reading it.
        try await reading.send(head + String(body[..<split]))

        let stopping = Task { try await service.stop() }
        let refused = try await eventually { await !RawConnection.canConnect(port: service.port) }
        #expect(refused, "a new connection is refused once shutdown began")

        try await reading.send(String(body[split...]))
        let created = try await reading.response()
        #expect(created.status == 201, "the command being read is answered: \(created.text)")
        #expect(created.headers["connection"] == "close")
        #expect(created.body.contains("\"events\""), "a whole answer: \(created.text)")

        try await kept.send(balances)
        let second = try await kept.response()
        #expect(second.status == 200, "the request sent on the kept-alive connection is answered: \(second.text)")
        #expect(second.headers["connection"] == "close")
        #expect(second.body.contains("\"balances\""), "\(second.text)")
        #expect(try await kept.closedByServer(), "the connection closes after its answer")
        return (stopping, created)
    }
}

/// What the in-flight commands got back.
private final class Outcomes: Sendable {
    let acknowledged = Mutex<[(ledger: String, key: String, sequences: [Int])]>([])
    let refused = Mutex(0)
}
