import Foundation
import Synchronization
import Testing
import TallyEngine
import TallyTestSupport

/// The async reads (`ledger.async`) answer what the blocking reads answer, off the cooperative
/// pool, and `run { ledger in … }` reuses the threads of one shared pool instead of starting a
/// thread per call.
@Suite struct AsyncReadsTests {
    static let start = "2026-03-30T12:00:00Z"

    private func entry(_ amount: String, _ account: String, at clock: ManualClock) -> NewEvent {
        NewEvent(effectiveAt: clock.now, body: EventBody(JournalEntryPosted(account: account, counterAccount: "Income:Sales", amount: usd(amount))))
    }

    @Test func asyncReadsAnswerAsTheBlockingReadsDo() async throws {
        try await withTemporaryStore(on: .files) { store in
            let clock = ManualClock(Self.start)
            let ledger = try Ledger.create(at: store.root, name: "Shop", baseCurrency: .usd, timeZone: "UTC", options: Ledger.Options(clock: clock.function))
            defer { try? ledger.close() }
            try ledger.appendEvents([entry("12.00", "Assets:Till", at: clock)])
            let endOfMarch = ledger.calendar.endOfDay(day("2026-03-31"))
            clock.advance(seconds: 3 * 86_400)
            try ledger.appendEvents([entry("5.00", "Assets:Till", at: clock)])

            #expect(try await ledger.async.balances() == ledger.balances())
            #expect(try await ledger.async.balances(asOf: endOfMarch).map(\.amount) == [usd("12.00"), usd("-12.00")])
            #expect(try await ledger.async.balances(asOf: Instant(endOfMarch.date)) == ledger.balances(asOf: endOfMarch))
            #expect(try await ledger.async.trialBalance() == ledger.trialBalance())
            #expect(try await ledger.async.audit(account: "Assets:Till") == ledger.audit(account: "Assets:Till"))
            #expect(try await ledger.async.audit(account: "Assets:Till").count == 2)
            #expect(try await ledger.async.loggedEvent(at: 2) == ledger.loggedEvent(at: 2))
            #expect(try await ledger.async.loggedEvents(at: [1, 2, 3]).count == 3)
            #expect(try await ledger.async.settings() == ledger.settings())

            // The errors are the blocking reads' own: LedgerError with its code.
            await #expect { try await ledger.async.audit(account: "Assets:Nowhere") } throws: { ($0 as? LedgerError)?.code == .notFound }
            await #expect { try await ledger.async.loggedEvent(at: 0) } throws: { ($0 as? LedgerError)?.code == .invalidArgument }
        }
    }

    /// The Linux thread id of the calling thread (`/proc/thread-self` links to `<pid>/task/<tid>`):
    /// ids are handed out in increasing order, so a new thread has a new one.
    private static func threadId() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? "\(Thread.current.hash)"
    }

    @Test func runReusesThreadsInsteadOfStartingOnePerCall() async throws {
        try await withTemporaryStore(on: .files) { store in
            let ledger = try Ledger.create(at: store.root, name: "Shop", baseCurrency: .usd, timeZone: "UTC")
            defer { try? ledger.close() }
            var threads: Set<String> = []
            for _ in 0..<40 {
                threads.insert(try await ledger.run { _ in Self.threadId() })
                _ = try await ledger.async.balances()
            }
            // One call after another: a pool of reused threads, not 40 threads started. The
            // pool is the process's, shared with the suites running beside this one, so a
            // few more threads than one may serve the 40 calls.
            #expect(threads.count <= 10, "\(threads.count) threads for 40 calls")
        }
    }
}
