internal import Foundation
internal import TallyLog

/// Two stages of work on the machine's two cores: a producer on a thread of its own
/// (reading and parsing a file, building events; reading and decoding the log) hands items
/// through a bounded queue to the calling thread, which consumes them in order (checking
/// or committing them; folding them into the read models). It is the engine's one bounded
/// channel between threads: an import's two passes and every fold of the log
/// (``EventBatches``) use it.
///
/// Memory: at most `queuedItemsMax` items wait, besides the one each side holds and those
/// consumed since the producer last put or woke (the producer's thread frees them: it made them).
/// Order: the consumer sees every item the producer put, in order, and then the producer's
/// error, if it threw one: an error is met exactly where a single thread would meet it.
/// The producer's thread has always ended when ``run(produce:consume:)`` returns or throws.
///
/// ```swift
/// try Handoff<[NewEvent]>.run(queuedItemsMax: 1, produce: { put in while let batch = try next() { try put(batch) } },
///                              consume: { batch in try commit(batch) })
/// ```
enum Handoff<Item: Sendable> {
    /// Runs `produce` on a second thread and `consume` on this one for each item it puts,
    /// with at most `queuedItemsMax` items waiting between them. An error from either side
    /// stops both and is rethrown (the producer's after every item put before it was
    /// consumed; `put` throws `CancellationError` in the producer once the consumer has failed).
    ///
    /// `stackSize` is the producer thread's stack, in bytes.
    static func run(
        queuedItemsMax: Int,
        stackSize: Int = 4 << 20,
        produce: @escaping @Sendable (_ put: (Item) throws -> Void) throws -> Void,
        consume consumeItem: (Item) throws -> Void
    ) throws {
        precondition(queuedItemsMax > 0, "at least one item can wait")
        let channel = Channel(queuedItemsMax: queuedItemsMax)
        DedicatedThread.start("Tally.handoff", stackSize: stackSize) {
            do {
                try produce { item in
                    guard channel.put(item) else { throw CancellationError() }
                }
                channel.finish(nil)
            } catch {
                channel.finish(error)
            }
        }
        defer {
            channel.waitUntilFinished()
            channel.freeSpent()  // the last few, consumed after the producer's last `put`
        }
        do {
            while let item = try channel.take() {
                try consumeItem(item)
                // Moved, not copied: no reference stays on this thread to be released last.
                channel.giveBack(consume item)
            }
        } catch {
            channel.cancel()
            throw error
        }
    }

    /// The bounded queue between the two threads.
    private final class Channel: @unchecked Sendable {
        private let queuedItemsMax: Int
        private let condition = NSCondition()
        private var queue: [Item] = []
        /// Items consumed and handed back, freed by the producer's thread on its next `put`:
        /// the producer allocated every string and array in them, and freeing them there
        /// takes that work (and the allocator's cross-thread frees) off the consumer, which is
        /// the import's busier side.
        private var spent: [Item] = []
        private var isFinished = false
        private var isCancelled = false
        private var failure: (any Error)?

        init(queuedItemsMax: Int) { self.queuedItemsMax = queuedItemsMax }

        /// Waits for room; false when the consumer gave up.
        func put(_ item: Item) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            while true {
                if !spent.isEmpty {
                    condition.unlock()
                    freeSpent()  // outside the lock
                    condition.lock()
                    continue
                }
                guard queue.count >= queuedItemsMax && !isCancelled else { break }
                condition.wait()
            }
            guard !isCancelled else { return false }
            queue.append(item)
            condition.broadcast()
            return true
        }

        /// The producer has ended, with `error` when it threw.
        func finish(_ error: (any Error)?) {
            condition.lock()
            defer { condition.unlock() }
            isFinished = true
            failure = error
            condition.broadcast()
        }

        /// Frees the items handed back and not yet freed (on the calling thread).
        func freeSpent() {
            condition.lock()
            var consumed: [Item] = []
            swap(&consumed, &spent)
            condition.unlock()
            consumed.removeAll()
        }

        /// The consumer is done with `item`: the producer frees it.
        func giveBack(_ item: consuming Item) {
            condition.lock()
            defer { condition.unlock() }
            spent.append(item)
            condition.broadcast()
        }

        /// The consumer gives up: the producer's next `put` fails.
        func cancel() {
            condition.lock()
            defer { condition.unlock() }
            isCancelled = true
            queue.removeAll()
            condition.broadcast()
        }

        /// Returns once the producer has ended.
        func waitUntilFinished() {
            condition.lock()
            defer { condition.unlock() }
            while !isFinished { condition.wait() }
        }

        /// The next item; nil after the last; throws the producer's error after the items
        /// it put before failing.
        func take() throws -> Item? {
            condition.lock()
            defer { condition.unlock() }
            while queue.isEmpty && !isFinished { condition.wait() }
            if !queue.isEmpty {
                let item = queue.removeFirst()
                condition.broadcast()
                return item
            }
            if let failure, !(failure is CancellationError) { throw failure }
            return nil
        }
    }
}
