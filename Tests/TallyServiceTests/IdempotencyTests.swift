import Foundation
import Testing
@testable import TallyService

/// `Idempotency-Key` on commands is the engine's idempotency key: a retry gets the first
/// response and appends nothing, another body under the same key is a conflict.
@Suite struct IdempotencyTests {
    @Test func aRetriedCommandReturnsTheFirstResponseAndAppendsNothing() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("retry")
        let body = #"{"amount":"42.00","external_id":"bank-7"}"#
        let first = try await service.command("/ledgers/retry/wealth/main/deposits", body, idempotencyKey: "dep-7")
        let second = try await service.command("/ledgers/retry/wealth/main/deposits", body, idempotencyKey: "dep-7")
        #expect(first.status == 201)
        #expect(second.status == 201)
        #expect(second.text == first.text, "the same events, the same sequence numbers")
        #expect(first.headers.first(name: "Idempotent-Replayed") == nil)
        #expect(second.headers.first(name: "Idempotent-Replayed") == "true")
        let wealth = try await service.send(.GET, "/ledgers/retry/wealth/main")
        #expect(wealth.json.objects("balances").first?["total"] as? String == "42.00", "counted once")
        try await service.stopAndRemove()
    }

    @Test func anotherBodyUnderTheSameKeyIsAConflict() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("conflict")
        #expect(try await service.command("/ledgers/conflict/wealth/main/deposits", #"{"amount":"10.00"}"#, idempotencyKey: "k-1").status == 201)
        let other = try await service.command("/ledgers/conflict/wealth/main/deposits", #"{"amount":"11.00"}"#, idempotencyKey: "k-1")
        #expect(other.status == 409)
        #expect(other.code == "idempotency_conflict")
        #expect(other.headers.first(name: "Content-Type") == "application/problem+json")
        let elsewhere = try await service.command("/ledgers/conflict/pots", #"{"id":"p","target":"5.00"}"#, idempotencyKey: "k-1")
        #expect(elsewhere.status == 409, "a key names one change, whatever the route")
        let head = try await service.send(.GET, "/ledgers/conflict").json["head"] as? [String: Any]
        #expect(head?["sequence"] as? Int == 3, "ledger_created, the deposit and its split: nothing more")
        try await service.stopAndRemove()
    }

    @Test func concurrentRetriesOfOneKeyAppendOnce() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("race")
        let replies = try await withThrowingTaskGroup(of: ServiceHarness.Reply.self) { group in
            for _ in 0..<16 {
                group.addTask { try await service.command("/ledgers/race/wealth/main/deposits", #"{"amount":"5.00"}"#, idempotencyKey: "same") }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(replies.allSatisfy { $0.status == 201 }, "\(replies.map(\.status))")
        #expect(Set(replies.map(\.text)).count == 1, "every retry sees the first response")
        #expect(replies.filter { $0.headers.first(name: "Idempotent-Replayed") == nil }.count == 1)
        let wealth = try await service.send(.GET, "/ledgers/race/wealth/main")
        #expect(wealth.json.objects("balances").first?["total"] as? String == "5.00")
        try await service.stopAndRemove()
    }

    @Test func aRefusedKeyIsRefusedTheSameForeverEvenAfterARestart() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("refused")
        #expect(try await service.command("/ledgers/refused/wealth/main/deposits", #"{"amount":"10.00"}"#).status == 201)
        let withdrawal = #"{"amount":"500.00"}"#
        let first = try await service.command("/ledgers/refused/wealth/main/withdrawals", withdrawal, idempotencyKey: "w-1")
        #expect(first.status == 422, "\(first.text)")
        #expect(first.code == "insufficient_funds")
        // The money arrives; the client retries the refused request under its key.
        #expect(try await service.command("/ledgers/refused/wealth/main/deposits", #"{"amount":"1000.00"}"#).status == 201)
        let retry = try await service.command("/ledgers/refused/wealth/main/withdrawals", withdrawal, idempotencyKey: "w-1")
        #expect(retry.status == 422)
        #expect(retry.text == first.text, "the first answer, word for word")
        #expect(retry.headers.first(name: "Idempotent-Replayed") == "true")
        let other = try await service.command("/ledgers/refused/wealth/main/withdrawals", #"{"amount":"5.00"}"#, idempotencyKey: "w-1")
        #expect(other.status == 409, "another request under a refused key")
        #expect(other.code == "idempotency_conflict")
        // A malformed body is a refusal too.
        let malformed = try await service.command("/ledgers/refused/pots", #"{"id":"p","target":12}"#, idempotencyKey: "p-1")
        #expect(malformed.status == 422)
        #expect(try await service.command("/ledgers/refused/pots", #"{"id":"p","target":"12.00"}"#, idempotencyKey: "p-1").status == 409)

        try await service.stop()
        let again = try await ServiceHarness.start(directory: service.directory)
        let afterRestart = try await again.command("/ledgers/refused/wealth/main/withdrawals", withdrawal, idempotencyKey: "w-1")
        #expect(afterRestart.status == 422, "kept on disk")
        #expect(afterRestart.text == first.text)
        let wealth = try await again.send(.GET, "/ledgers/refused/wealth/main")
        #expect(wealth.json.objects("balances").first?["total"] as? String == "1010.00", "nothing was withdrawn")
        // A new key is a new request.
        #expect(try await again.command("/ledgers/refused/wealth/main/withdrawals", withdrawal, idempotencyKey: "w-2").status == 201)
        try await again.stopAndRemove()
    }

    @Test func aCommandWithoutAKeyIsRefused() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("nokey")
        let reply = try await service.send(.POST, "/ledgers/nokey/wealth/main/deposits", body: #"{"amount":"1.00"}"#)
        #expect(reply.status == 400)
        #expect(reply.code == "idempotency_key_required")
        #expect(reply.json["field"] as? String == "Idempotency-Key")
        try await service.stopAndRemove()
    }
}
