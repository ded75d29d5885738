internal import Foundation
import TallyLog

/// Why a stream of committed events ended before the ledger closed.
public struct SubscriptionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Why the stream ended; new codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable { case consumerTooSlow, logUnreadable }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The consumer left more events unread than the ledger buffers for it
        /// (``Ledger/Options/subscriptionBufferEvents``): subscribe again after
        /// ``SubscriptionError/lastDelivered`` to go on, reading the gap from the log.
        public static let consumerTooSlow = Code(.consumerTooSlow)
        /// The log could not be read while catching up (the underlying error is in the message).
        public static let logUnreadable = Code(.logUnreadable)

        public var description: String {
            switch value {
            case .consumerTooSlow: "consumer too slow"
            case .logUnreadable: "log unreadable"
            }
        }
    }

    /// Why the stream ended.
    public let code: Code
    /// The sequence number of the last event the stream delivered (resume after it).
    public let lastDelivered: UInt64
    /// What happened and how to go on.
    public let message: String

    public var description: String { message }
}

/// Committed events in log order: first those already in the log after the sequence number
/// asked for, then live ones as they commit, each exactly once.
///
/// ```swift
/// for try await event in ledger.committedEvents(after: lastSeen) {
///     print(event.sequence, event.type.name)
///     lastSeen = event.sequence
/// }
/// ```
///
/// Flow control: while catching up from the log, the stream reads as much as the consumer
/// has room for and goes on once it has read half of that, so the buffer never holds more
/// than ``Ledger/Options/subscriptionBufferEvents`` events and a consumer that stops
/// reading holds no thread. Live
/// commits cannot wait for a consumer: one that leaves the buffer full when a commit
/// arrives gets ``SubscriptionError`` (`consumerTooSlow`, with the last sequence number
/// delivered) after the events buffered before it, and subscribes again from there. The
/// sequence ends (without error) when the ledger closes or the task is cancelled.
public struct CommittedEvents: AsyncSequence, Sendable {
    public typealias Element = Event
    let stream: AsyncThrowingStream<Event, any Error>
    let subscriber: Subscriptions.Subscriber

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Event, any Error>.AsyncIterator
        let subscriber: Subscriptions.Subscriber

        public mutating func next() async throws -> Event? {
            let event = try await base.next()
            if event != nil { subscriber.consumed() }
            return event
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: stream.makeAsyncIterator(), subscriber: subscriber)
    }
}

/// The ledger's subscribers, told of each group after it commits.
final class Subscriptions: @unchecked Sendable {
    /// One stream's state. `next`, `buffered`, `live`, `reading` and `ended` are guarded by
    /// the condition.
    final class Subscriber: @unchecked Sendable {
        let continuation: AsyncThrowingStream<Event, any Error>.Continuation
        let condition = NSCondition()
        let capacity: Int
        var next: UInt64
        var buffered = 0
        var live = false
        var ended = false
        /// A read of the log for it is queued or running (while catching up).
        var reading = false
        /// Queues the next read of the log (set while catching up).
        var readMore: (@Sendable () -> Void)?

        init(continuation: AsyncThrowingStream<Event, any Error>.Continuation, next: UInt64, capacity: Int) {
            self.continuation = continuation
            self.next = next
            self.capacity = capacity
        }

        /// The consumer took an event: while catching up, once half the buffer is free and
        /// no read is under way, the next read of the log is queued.
        func consumed() {
            condition.lock()
            buffered -= 1
            let resume = !live && !ended && !reading && hasRoomToRead
            if resume { reading = true }
            let readMore = resume ? readMore : nil
            condition.unlock()
            readMore?()
        }

        /// At least half the buffer is free (condition held): a read is worth its opening of the log.
        var hasRoomToRead: Bool { buffered <= capacity / 2 }

        /// Hands over an event (condition held); false when the stream has ended.
        func deliver(_ event: Event) -> Bool {
            guard !ended else { return false }
            if case .terminated = continuation.yield(event) {
                ended = true
                return false
            }
            buffered += 1
            next = event.sequence + 1
            return true
        }

        func end(_ error: (any Error)?) {
            condition.lock()
            let wasEnded = ended
            ended = true
            condition.broadcast()
            condition.unlock()
            if !wasEnded { continuation.finish(throwing: error) }
        }
    }

    private let lock = NSLock()
    private var subscribers: [ObjectIdentifier: Subscriber] = [:]
    /// The last sequence number live subscribers have been told of.
    private var published: UInt64
    /// Set when the ledger closes: streams still catching up end once they reach the head.
    private var closing = false
    private let root: String
    private let catalog: EventCatalog
    private let fileSystem: any LogFileSystem
    private let keys: LogKeys?
    private let bufferEvents: Int

    init(root: String, catalog: EventCatalog, fileSystem: any LogFileSystem, keys: LogKeys?, bufferEvents: Int, head: UInt64) {
        self.catalog = catalog
        self.root = root
        self.fileSystem = fileSystem
        self.keys = keys
        self.bufferEvents = max(1, bufferEvents)
        self.published = head
    }

    /// Tells live subscribers of a committed group (its events in order).
    func publish(_ events: [Event]) {
        guard let last = events.last?.sequence else { return }
        lock.lock()
        published = max(published, last)
        let current = Array(subscribers.values)
        lock.unlock()
        for subscriber in current {
            subscriber.condition.lock()
            guard subscriber.live, !subscriber.ended else {
                subscriber.condition.unlock()
                continue
            }
            if subscriber.buffered + events.count > subscriber.capacity {
                let delivered = subscriber.next - 1
                subscriber.condition.unlock()
                subscriber.end(SubscriptionError(
                    code: .consumerTooSlow, lastDelivered: delivered,
                    message: "the consumer left \(subscriber.buffered) events unread when events up to \(last) committed; subscribe again after \(delivered)"))
                remove(subscriber)
                continue
            }
            for event in events where event.sequence >= subscriber.next {
                guard subscriber.deliver(event) else { break }
            }
            subscriber.condition.unlock()
        }
    }

    /// A stream of events after `sequence` (nil: from the next commit on).
    func subscribe(after sequence: UInt64?) -> CommittedEvents {
        let (stream, continuation) = AsyncThrowingStream<Event, any Error>.makeStream(bufferingPolicy: .unbounded)
        lock.lock()
        let subscriber = Subscriber(continuation: continuation, next: (sequence ?? published) + 1, capacity: bufferEvents)
        // Nothing to read from the log: live at once.
        subscriber.live = subscriber.next > published
        subscribers[ObjectIdentifier(subscriber)] = subscriber
        lock.unlock()
        continuation.onTermination = { [weak self, weak subscriber] _ in
            guard let subscriber else { return }
            subscriber.end(nil)
            self?.remove(subscriber)
        }
        if !subscriber.live {
            // Background reads of the log, each as much as the consumer has room for: a
            // consumer that does not read holds no thread (docs/concurrency.md).
            let readMore: @Sendable () -> Void = { [self, weak subscriber] in
                guard let subscriber else { return }
                BlockingPool.startBackground { [self] in catchUp(subscriber) }
            }
            subscriber.condition.lock()
            subscriber.readMore = readMore
            subscriber.reading = true
            subscriber.condition.unlock()
            readMore()
        }
        return CommittedEvents(stream: stream, subscriber: subscriber)
    }

    /// Reads the log from the subscriber's next event towards what has been published, as
    /// much as its buffer has room for, until nothing is left (then it goes live) or the
    /// buffer is more than half full (then the consumer's reading queues the next read).
    private func catchUp(_ subscriber: Subscriber) {
        while true {
            lock.lock()
            let target = published
            subscriber.condition.lock()
            if subscriber.ended || !subscriber.hasRoomToRead {
                subscriber.reading = false
                subscriber.condition.unlock()
                lock.unlock()
                return
            }
            if subscriber.next > target {
                subscriber.live = true
                subscriber.reading = false
                subscriber.readMore = nil
                subscriber.condition.unlock()
                let closing = self.closing
                if closing { subscribers[ObjectIdentifier(subscriber)] = nil }
                lock.unlock()
                if closing { subscriber.end(nil) }
                return
            }
            let from = subscriber.next
            let through = min(target, from + UInt64(subscriber.capacity - subscriber.buffered) - 1)
            subscriber.condition.unlock()
            lock.unlock()
            do {
                try EventStoreReader.open(at: root, catalog: catalog, fileSystem: fileSystem, keys: keys).forEach(from: from, through: through) { event in
                    subscriber.condition.lock()
                    defer { subscriber.condition.unlock() }
                    guard subscriber.deliver(event) else { throw CancellationError() }
                }
            } catch is CancellationError {
                return
            } catch {
                subscriber.condition.lock()
                let delivered = subscriber.next - 1
                subscriber.condition.unlock()
                subscriber.end(SubscriptionError(code: .logUnreadable, lastDelivered: delivered, message: "reading the log after event \(delivered) failed: \(error)"))
                remove(subscriber)
                return
            }
        }
    }

    private func remove(_ subscriber: Subscriber) {
        lock.lock()
        subscribers[ObjectIdentifier(subscriber)] = nil
        lock.unlock()
    }

    /// Ends every live stream (the ledger is closing); a stream still catching up ends when
    /// it has delivered everything committed.
    func finishAll() {
        lock.lock()
        closing = true
        var live: [Subscriber] = []
        for (id, subscriber) in subscribers {
            subscriber.condition.lock()
            let isLive = subscriber.live
            subscriber.condition.unlock()
            if isLive {
                live.append(subscriber)
                subscribers[id] = nil
            }
        }
        lock.unlock()
        for subscriber in live { subscriber.end(nil) }
    }
}

extension Ledger {
    /// Committed events from the next commit on. The sequence ends when the ledger closes.
    ///
    /// ```swift
    /// for try await event in ledger.committedEvents() { print(event.sequence, event.type.name) }
    /// ```
    public func committedEvents() -> CommittedEvents {
        observers.subscribe(after: nil)
    }

    /// Committed events after `sequence`: those already in the log, then live ones as they
    /// commit, each once, in order (``CommittedEvents`` describes the flow control).
    ///
    /// - Parameter sequence: the last sequence number the consumer has (0: from the first event).
    public func committedEvents(after sequence: UInt64) -> CommittedEvents {
        observers.subscribe(after: sequence)
    }
}
