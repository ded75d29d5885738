import AsyncHTTPClient
import Foundation
import Synchronization
import Tally
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
            _ = try await service.eventually(attempts: 1500) { outcomes.acknowledged.withLock { $0.count } >= 20 }
            try await service.stop()
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<300 {
                group.addTask {
                    let ledger = ledgers[index % ledgers.count]
                    let key = "inflight-\(index)"
                    do {
                        let reply = try await service.command("/ledgers/\(ledger)/wealth/main/deposits", #"{"amount":"1.00"}"#, idempotencyKey: key, timeout: .seconds(5))
                        if reply.status == 201 {
                            let sequences = reply.json.objects("events").compactMap { $0["seq"] as? Int }
                            outcomes.acknowledged.withLock { $0.append((ledger, key, sequences)) }
                        } else {
                            #expect(reply.status == 503, "a command the server could not take says so: \(reply.text)")
                            outcomes.refused.withLock { $0 += 1 }
                        }
                    } catch {
                        // The connection was refused or closed before an answer: not acknowledged.
                        // (The client keeps trying to connect until the deadline, hence a short one.)
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

/// What the in-flight commands got back.
private final class Outcomes: Sendable {
    let acknowledged = Mutex<[(ledger: String, key: String, sequences: [Int])]>([])
    let refused = Mutex(0)
}
