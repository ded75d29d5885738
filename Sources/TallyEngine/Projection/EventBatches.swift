/// Reads and decodes the log in batches on a second thread while the caller folds the
/// previous batch: decoding (CPU) and folding (SQLite) overlap, through the engine's one
/// bounded channel (``Handoff``). At most two batches wait besides the one being folded;
/// a folded batch goes back to the reading thread to be freed there, off the folding thread
/// (a batch is thousands of strings).
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
    /// stops both threads and is rethrown; the reading thread has ended when this returns.
    static func read(
        from reader: EventStoreReader, first: UInt64, batchSize: Int,
        _ body: (_ batch: [Event], _ hash: [UInt8], _ afterLostEvents: Bool) throws -> Void
    ) throws {
        precondition(batchSize > 0, "batchSize must be positive")
        try Handoff<Batch>.run(queuedItemsMax: queuedBatchesMax, stackSize: 1 << 20, produce: { put in
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
                        try put(Batch(events: batch, hash: hash, afterLostEvents: afterLost))
                        batch = []
                        batch.reserveCapacity(batchSize)
                    }
                    afterLost = true
                }
                previous = event.sequence
                frameEndHash = frameEnd
                batch.append(event)
                if let hash = frameEnd, batch.count >= batchSize || event.sequence == reader.head.sequence {
                    try put(Batch(events: batch, hash: hash, afterLostEvents: afterLost))
                    batch = []
                    batch.reserveCapacity(batchSize)
                    afterLost = false
                }
            })
            // The reader's head ends a frame: a batch left over was handed on with its frame's end.
            guard batch.isEmpty else {
                throw StoreError(.readModelsDisagree, "the log's view ended inside a frame, after event \(batch.last!.sequence)")
            }
        }, consume: { batch in
            try body(batch.events, batch.hash, batch.afterLostEvents)
        })
    }

    /// Events to fold, and the chain hash after the last of them.
    private struct Batch: Sendable {
        var events: [Event]
        var hash: [UInt8]
        /// The first event follows events set aside as lost.
        var afterLostEvents: Bool
    }
}
