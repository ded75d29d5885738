internal import Foundation

/// Reads and decodes the log in batches on a second thread while the caller folds the
/// previous batch: decoding (CPU) and folding (SQLite) overlap. At most two batches are in
/// memory besides the one being folded. A folded batch goes back to the reading thread to
/// be freed there, off the folding thread (a batch is thousands of strings).
enum EventBatches {
    /// Batches waiting to be folded, at most.
    static let queuedBatchesMax = 2

    /// Hands `body` the events from `first` to the reader's head in order, in batches that
    /// end at a frame's end once they hold at least `batchSize` events (a batch holds at most
    /// `batchSize` plus one frame's events), each with the chain hash after its last event as
    /// the frame's header stores it. Each batch is contiguous: events a repair set aside as
    /// lost to damage (the only numbers a read passes over) end the batch before them, and
    /// the batch after them says so (`afterLostEvents`: its first event follows lost ones,
    /// so the fold moves its checkpoints past them). An error from the reader or from `body`
    /// stops both threads and is rethrown.
    static func read(
        from reader: EventStoreReader, first: UInt64, batchSize: Int,
        _ body: (_ batch: [Event], _ hash: [UInt8], _ afterLostEvents: Bool) throws -> Void
    ) throws {
        precondition(batchSize > 0, "batchSize must be positive")
        let channel = Channel()
        let producer = Thread {
            do {
                var batch: [Event] = []
                batch.reserveCapacity(batchSize)
                var previous = first - 1
                var afterLost = false
                var frameEndHash: [UInt8]? = nil
                try reader.forEach(from: first, withFrameEndHashes: { event, frameEnd in
                    if event.sequence != previous + 1 {
                        // Lost events lie between: the batch so far ends at the frame before them.
                        if !batch.isEmpty {
                            guard let hash = frameEndHash else {
                                throw StoreError(.readModelsDisagree, "the log passed over events \(previous + 1)…\(event.sequence - 1) inside a frame")
                            }
                            guard channel.put(Batch(events: batch, hash: hash, afterLostEvents: afterLost)) else { throw CancellationError() }
                            batch = []
                            batch.reserveCapacity(batchSize)
                        }
                        afterLost = true
                    }
                    previous = event.sequence
                    frameEndHash = frameEnd
                    batch.append(event)
                    if let hash = frameEnd, batch.count >= batchSize || event.sequence == reader.head.sequence {
                        guard channel.put(Batch(events: batch, hash: hash, afterLostEvents: afterLost)) else { throw CancellationError() }
                        batch = []
                        batch.reserveCapacity(batchSize)
                        afterLost = false
                    }
                })
                // The reader's head ends a frame: a batch left over was handed on with its frame's end.
                guard batch.isEmpty else {
                    throw StoreError(.readModelsDisagree, "the log's view ended inside a frame, after event \(batch.last!.sequence)")
                }
                channel.finish(nil)
            } catch {
                channel.finish(error)
            }
        }
        producer.stackSize = 1 << 20
        producer.start()
        do {
            while let batch = try channel.take() {
                try body(batch.events, batch.hash, batch.afterLostEvents)
                channel.giveBack(batch.events)
            }
        } catch {
            channel.cancel()
            throw error
        }
    }

    /// Events to fold, and the chain hash after the last of them.
    private struct Batch {
        var events: [Event]
        var hash: [UInt8]
        /// The first event follows events set aside as lost.
        var afterLostEvents: Bool
    }

    /// A bounded queue between the reading thread and the folding one.
    private final class Channel: @unchecked Sendable {
        private let condition = NSCondition()
        private var queue: [Batch] = []
        private var isFinished = false
        private var isCancelled = false
        private var failure: (any Error)?
        /// Folded batches, to be freed by the reading thread.
        private var spent: [[Event]] = []

        /// Waits for room; false when the consumer gave up. Frees the batches folded so far.
        func put(_ batch: Batch) -> Bool {
            var freed: [[Event]] = []
            defer { freed.removeAll() }  // outside the lock
            condition.lock()
            defer { condition.unlock() }
            while queue.count >= EventBatches.queuedBatchesMax && !isCancelled { condition.wait() }
            guard !isCancelled else { return false }
            queue.append(batch)
            swap(&freed, &spent)
            condition.broadcast()
            return true
        }

        /// Hands a folded batch back to be freed by the reading thread.
        func giveBack(_ batch: [Event]) {
            condition.lock()
            defer { condition.unlock() }
            spent.append(batch)
        }

        func finish(_ error: (any Error)?) {
            condition.lock()
            defer { condition.unlock() }
            isFinished = true
            failure = error
            condition.broadcast()
        }

        func cancel() {
            condition.lock()
            defer { condition.unlock() }
            isCancelled = true
            condition.broadcast()
        }

        /// The next batch; nil after the last; throws the producer's error.
        func take() throws -> Batch? {
            condition.lock()
            defer { condition.unlock() }
            while queue.isEmpty && !isFinished { condition.wait() }
            if !queue.isEmpty {
                let batch = queue.removeFirst()
                condition.broadcast()
                return batch
            }
            if let failure, !(failure is CancellationError) { throw failure }
            return nil
        }
    }
}
