import Foundation
import Synchronization
import Testing
@testable import TallyLog

/// `BlockingPool.releaseInBackground`: a large value a pass is done with is freed by a
/// background job, not on the thread that has more to do (a journal import's validating
/// pass hands over its table of external ids before the appending pass starts).
@Suite struct BackgroundReleaseTests {
    /// Whether the tracked value was freed on the caller's thread (nil: not yet).
    private final class Outcome: Sendable {
        let freedOnCaller = Mutex<Bool?>(nil)
    }

    /// Records the thread its last reference was dropped on.
    private final class Tracked: @unchecked Sendable {
        // @unchecked: `caller` is a thread's identity, only compared.
        let outcome: Outcome
        let caller: pthread_t
        init(caller: pthread_t, outcome: Outcome) {
            self.caller = caller
            self.outcome = outcome
        }
        deinit {
            let here = pthread_equal(pthread_self(), caller) != 0
            outcome.freedOnCaller.withLock { $0 = here }
        }
    }

    private struct Holder: Sendable {
        var items: [Tracked]
    }

    @Test func theValueIsFreedByABackgroundJobAndTheCallerKeepsTheEmptyOne() throws {
        let outcome = Outcome()
        var holder = Holder(items: [Tracked(caller: pthread_self(), outcome: outcome)])
        BlockingPool.releaseInBackground(&holder, leaving: Holder(items: []))
        #expect(holder.items.isEmpty, "the caller's variable holds the empty value")
        let deadline = Date().addingTimeInterval(30)
        while outcome.freedOnCaller.withLock({ $0 }) == nil, Date() < deadline { usleep(1_000) }
        let freedOnCaller = outcome.freedOnCaller.withLock { $0 }
        #expect(freedOnCaller == false, "freed: \(String(describing: freedOnCaller)) (nil: never, true: on the caller's thread)")
    }
}
