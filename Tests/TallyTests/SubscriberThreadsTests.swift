import Foundation
import Synchronization
import Testing
import TallyLog
@testable import Tally
import TallyTestSupport
@testable import TallyEngine

/// Streams of committed events catching up from the log share the process's blocking pool
/// with `Ledger.run` (docs/concurrency.md): a consumer that stops reading must not hold a
/// thread, or enough of them (libdispatch gives the pool 255 threads on Linux) would leave
/// none for the commands of async callers.
@Suite(.serialized) struct SubscriberThreadsTests {
    static let start = "2026-05-01T09:00:00Z"
    /// More streams than libdispatch has threads for the pool.
    static let streams = 300

    private func entry(_ ledger: Ledger, _ amount: String) -> NewEvent {
        NewEvent(effectiveAt: ledger.now, body: EventBody(JournalEntryPosted(account: "Assets:Cash", counterAccount: "Income:Salary", amount: usd(amount))))
    }

    @Test func streamsWhoseConsumersStopReadingLeaveThreadsForCommands() async throws {
        try await withTemporaryStore(on: .files) { store in
            let clock = ManualClock(Self.start)
            let ledger = try Ledger.create(at: store.root, name: "Home", baseCurrency: .usd, timeZone: "UTC",
                                           options: store.options(.init(clock: clock.function, syncMode: .none, subscriptionBufferEvents: 2, features: standardFeatures)))
            for amount in ["1.00", "2.00", "3.00", "4.00", "5.00"] { try ledger.appendEvents([entry(ledger, amount)]) }
            // Each stream fills its buffer of two from the log, and its consumer reads nothing yet.
            let streams = (0..<Self.streams).map { _ in ledger.committedEvents(after: 1) }
            let idle = try await eventually(within: 60) { BlockingPool.backgroundJobs == (running: 0, waiting: 0) }
            #expect(idle, "the streams' reads of the log ended once their buffers were full: \(BlockingPool.backgroundJobs)")

            // An async caller's command runs on the same pool, and completes.
            let done = Atomic<Bool>(false)
            let command = Task {
                defer { done.store(true, ordering: .releasing) }
                return try await ledger.run { ledger in try ledger.appendEvents([entry(ledger, "6.00")]) }
            }
            let ran = try await eventually(within: 60) { done.load(ordering: .acquiring) }
            #expect(ran, "a command waited for a thread of the pool behind \(Self.streams) streams that nobody reads")
            guard ran else { return }
            #expect(try await command.value.events.map(\.sequence) == [7])

            // Read now, every stream delivers every event once, in order, then ends with the ledger.
            try ledger.close()
            for stream in streams {
                var seen: [UInt64] = []
                for try await event in stream { seen.append(event.sequence) }
                #expect(seen == Array(2...7))
            }
        }
    }

    /// More streams than background turns: those past the limit wait for a turn without a
    /// thread, in order, and all of them catch up.
    @Test func streamsPastTheBackgroundLimitWaitTheirTurn() async throws {
        try await withTemporaryStore(on: .files) { store in
            let clock = ManualClock(Self.start)
            let ledger = try Ledger.create(at: store.root, name: "Home", baseCurrency: .usd, timeZone: "UTC",
                                           options: store.options(.init(clock: clock.function, syncMode: .none, subscriptionBufferEvents: 1_000, features: standardFeatures)))
            try ledger.appendEvents((1...200).map { entry(ledger, "\($0).00") })
            let count = BlockingPool.backgroundJobsMax * 4
            let streams = (0..<count).map { _ in ledger.committedEvents(after: 0) }
            try ledger.close()
            try await withThrowingTaskGroup(of: [UInt64].self) { group in
                for stream in streams {
                    group.addTask {
                        var seen: [UInt64] = []
                        for try await event in stream { seen.append(event.sequence) }
                        return seen
                    }
                }
                for try await seen in group { #expect(seen == Array(1...201)) }
            }
        }
    }
}
