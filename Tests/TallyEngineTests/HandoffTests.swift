import Foundation
import Synchronization
import Testing
@testable import TallyEngine

/// The two-thread pipeline of an import (`Handoff`): the consumer sees every item in order
/// and then the producer's error; a consumer's error stops the producer; and the items the
/// consumer is done with are freed by the producer's thread, which made them.
@Suite struct HandoffTests {
    /// An item that notes which thread freed it.
    final class Item: Sendable {
        let number: Int
        let freedBy: FreeingThreads
        init(_ number: Int, _ freedBy: FreeingThreads) {
            self.number = number
            self.freedBy = freedBy
        }
        deinit { freedBy.note(number) }
    }

    /// Per item, whether the thread that freed it was the producer's.
    final class FreeingThreads: Sendable {
        let producer = Mutex<pthread_t?>(nil)
        let freedByProducer = Mutex<[Int: Bool]>([:])
        func note(_ number: Int) {
            let onProducer = producer.withLock { $0.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
            freedByProducer.withLock { $0[number] = onProducer }
        }
    }

    struct Failure: Error, Equatable { let at: Int }

    @Test func everyItemArrivesInOrderAndThenTheProducersError() throws {
        var seen: [Int] = []
        #expect(throws: Failure(at: 500)) {
            try Handoff<Int>.run(queuedItemsMax: 2, produce: { put in
                for number in 0..<500 { try put(number) }
                throw Failure(at: 500)
            }, consume: { number in seen.append(number) })
        }
        #expect(seen == Array(0..<500))
    }

    @Test func aConsumersErrorStopsTheProducerAndIsRethrown() throws {
        let produced = Mutex(0)
        let producerEnded = Mutex(false)
        var consumed = 0
        #expect(throws: Failure(at: 10)) {
            try Handoff<Int>.run(queuedItemsMax: 1, produce: { put in
                defer { producerEnded.withLock { $0 = true } }
                for number in 0..<1_000_000 {
                    try put(number)
                    produced.withLock { $0 += 1 }
                }
            }, consume: { number in
                consumed += 1
                if number == 10 { throw Failure(at: 10) }
            })
        }
        #expect(consumed == 11)
        // The producer has ended when run throws, having put at most the items that fit
        // the queue besides the one being consumed.
        #expect(producerEnded.withLock { $0 }, "the producer still ran after run threw")
        let finalCount = produced.withLock { $0 }
        #expect(finalCount <= 11 + 2, "produced \(finalCount)")
    }

    /// Items are freed by the producer's thread once consumed, not by the consumer's, except
    /// the last few the producer no longer waits to put after.
    @Test func consumedItemsAreFreedByTheProducersThread() throws {
        let threads = FreeingThreads()
        let count = 200
        var consumed: [Int] = []
        try Handoff<Item>.run(queuedItemsMax: 1, produce: { put in
            threads.producer.withLock { $0 = pthread_self() }
            for number in 0..<count { try put(Item(number, threads)) }
        }, consume: { item in consumed.append(item.number) })
        #expect(consumed == Array(0..<count))
        let freed = threads.freedByProducer.withLock { $0 }
        #expect(freed.count == count, "every item is freed once run returns")
        let onProducer = freed.values.filter { $0 }.count
        #expect(onProducer >= count - 3, "\(onProducer) of \(count) items were freed by the producer's thread")
    }
}
