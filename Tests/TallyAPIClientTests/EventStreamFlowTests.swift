import Foundation
import OpenAPIRuntime
import Tally
import TallyTestSupport
import Testing
import TallyLog

/// The live-events flow through the generated client: a ledger of more than 50,000 events
/// (a journal CSV imported over HTTP) caught up from the start as Server-Sent Events, the
/// client gone after 30,000, and the rest resumed with `Last-Event-ID`: every event once, in
/// order, with the ledger buffering far fewer events than the catch-up holds.
@Suite struct EventStreamFlowTests {
    /// Reads the stream's events until `last` (nil) or an event without an id (the ending
    /// event: `too_slow`, `shutdown`, `error`), collecting the sequence numbers.
    static func read(
        _ response: Operations.StreamEvents.Output, through last: Int, into ids: inout [Int]
    ) async throws -> ServerSentEvent? {
        let events = try response.ok.body.textEventStream.asDecodedServerSentEvents()
        for try await event in events {
            guard let id = event.id.flatMap({ Int($0) }) else {
                if event.event == nil { continue }  // a heartbeat
                return event
            }
            #expect(event.event != nil, "every event names its type")
            ids.append(id)
            if id == last { return nil }
        }
        return ServerSentEvent(event: "the end of the body")
    }

    @Test func aCatchUpOfMoreThanFiftyThousandEventsAndItsResume() async throws {
        let seed = TestSeed.value(default: 0x36_0003)
        var random = SplitMix64(seed: seed)
        let harness = try await APIHarness.start { $0.ledgerOptions.subscriptionBufferEvents = 1_000 }
        let app = try await harness.ledger("big", baseCurrency: "USD", timeZone: "UTC")

        // 50,000 journal rows, one event each, in one all-or-nothing import.
        var csv = "date,account,counter_account,amount,currency,payee,category,external_id\n"
        var total = 0
        for row in 0..<50_000 {
            let cents = Int.random(in: 1...100_000, using: &random)
            total += cents
            csv += "2026-0\(1 + row % 9)-\(10 + row % 18),Assets:Checking,Income:Salary,\(WealthFlowTests.decimal(cents)),USD,Employer,salary,row-\(row)\n"
        }
        let imported = try await app.importJournal(path: .init(ledger: "big"), body: .csv(HTTPBody(csv))).ok.body.json
        #expect(imported.imported == 50_000, "seed \(seed)")
        let head = try await app.getLedger(path: .init(ledger: "big")).ok.body.json.head.sequence
        #expect(head > 50_000)
        let balances = try await app.getBalances(path: .init(ledger: "big")).ok.body.json.balances
        #expect(balances.first { $0.account == "Assets:Checking" }?.balance == WealthFlowTests.decimal(total), "seed \(seed)")

        // From the start to event 30,000; then the client goes away.
        let sse = harness.client(timeout: .seconds(600))
        var firstPart: [Int] = []
        let firstEnding = try await Self.read(try await sse.streamEvents(path: .init(ledger: "big")), through: 30_000, into: &firstPart)
        #expect(firstEnding == nil, "the stream ended early: \(String(describing: firstEnding))")
        #expect(firstPart == Array(1...30_000), "every event, once, in order")

        // Resumed after the last one seen, to the head.
        var rest: [Int] = []
        let resumed = try await sse.streamEvents(path: .init(ledger: "big"), headers: .init(lastEventID: "30000"))
        let restEnding = try await Self.read(resumed, through: head, into: &rest)
        #expect(restEnding == nil, "the stream ended early: \(String(describing: restEnding))")
        #expect(rest == Array(30_001...head), "every event after the last one seen, once, in order")

        // A live commit arrives on a stream that caught up to the head.
        let live = try await sse.streamEvents(path: .init(ledger: "big"), query: .init(after: String(head)))
        _ = try await app.depositWealth(path: .init(ledger: "big", account: "main"), headers: .init(idempotencyKey: idempotencyKey()), body: .json(.init(amount: "5.00"))).created
        var next: [Int] = []
        let liveEnding = try await Self.read(live, through: head + 1, into: &next)
        #expect(liveEnding == nil)
        #expect(next == [head + 1], "the deposit, live")
        try await harness.stop()
    }
}
