import Foundation
import Synchronization
import Testing
import TallyLog
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// The seam between the log and the read models (issue: the write pipeline, part 1): a
/// refused command leaves nothing, a failed commit after a durable append is caught up, a
/// log shorter than its read models is refused, readers never take the writer lock, and
/// committed events reach subscribers once, in order.
@Suite struct WritePipelineTests {
    static let start = "2026-05-01T09:00:00Z"

    private func entry(_ amount: String, id: String? = nil, at clock: ManualClock) -> NewEvent {
        NewEvent(effectiveAt: clock.now, body: EventBody(JournalEntryPosted(
            account: "Assets:Cash", counterAccount: "Income:Salary", amount: usd(amount), externalId: id)))
    }

    /// A command that moves `amount` out of Assets:Cash only when its balance covers it.
    private func spend(_ amount: String, at clock: ManualClock) -> LedgerCommand {
        let now = clock.now
        return LedgerCommand { db in
            let cash = try BalanceQueries.balances(db).first { $0.account == "Assets:Cash" }?.amount ?? usd("0.00")
            guard try !cash.isLess(than: usd(amount)) else {
                throw LedgerError(.insufficientFunds, "Assets:Cash cannot cover it")
            }
            return [NewEvent(effectiveAt: now, body: EventBody(JournalEntryPosted(
                account: "Expenses:Food", counterAccount: "Assets:Cash", amount: usd(amount))))]
        }
    }

    private func cash(_ ledger: Ledger) throws -> Money? {
        try ledger.balances().first { $0.account == "Assets:Cash" }?.amount
    }

    // MARK: Refusals leave nothing

    @Test(arguments: LogBackend.allCases) func anOverflowingEntryIsRefusedBeforeTheLogAndTheStoreGoesOn(on backend: LogBackend) throws {
        try withTemporaryStore(on: backend) { store in
            let clock = ManualClock(Self.start)
            let ledger = try Ledger.forTesting(at: store, clock: clock)
            defer { try? ledger.close() }
            try ledger.appendEvents([entry("92233720368547758.07", id: "big1", at: clock)])
            let head = ledger.head
            #expect { try ledger.appendEvents([entry("0.01", id: "big2", at: clock)]) } throws: { error in
                (error as? LedgerError)?.message.contains("event 1 (journal_entry_posted): it would take a balance beyond") == true
            }
            #expect(ledger.head == head, "nothing reached the log")
            // The store is not bricked: reads, commands and a rebuild all work.
            #expect(try cash(ledger) == usd("92233720368547758.07"))
            try ledger.appendEvents([NewEvent(effectiveAt: clock.now, body: EventBody(JournalEntryPosted(
                account: "Expenses:Food", counterAccount: "Assets:Cash", amount: usd("1.00"))))])
            try ledger.expectConsistent()
        }
    }

    @Test(arguments: LogBackend.allCases) func anOverflowingJournalImportAppendsNothing(on backend: LogBackend) throws {
        try withTemporaryStore(on: backend) { store in
            let root = store.root
            let clock = ManualClock(Self.start)
            let ledger = try Ledger.forTesting(at: store, clock: clock)
            defer { try? ledger.close() }
            let csv = root + ".csv"
            defer { try? FileManager.default.removeItem(atPath: csv) }
            try """
                date,account,counter_account,amount,currency,payee,category,external_id
                2026-01-01,Assets:A,Income:B,92233720368547758.07,USD,,,big1
                2026-01-02,Assets:A,Income:B,0.01,USD,,,big2

                """.write(toFile: csv, atomically: true, encoding: .utf8)
            let head = ledger.head
            // Named by file and line, in words, not SQLite's.
            #expect { try ledger.importJournal(csvAt: csv) } throws: { error in
                guard let error = error as? LedgerError else { return false }
                return error.code == .invalidArgument && error.message.hasPrefix("\(csv):3 (journal_entry_posted): it would take a balance beyond")
            }
            #expect(ledger.head == head)
            #expect(try ledger.balances().isEmpty)
            try ledger.expectConsistent()
        }
    }

    @Test(arguments: LogBackend.allCases) func aBatchRefusesOneCommandAndCommitsTheRestInOneFrame(on backend: LogBackend) throws {
        try withTemporaryStore(on: backend) { store in
            let root = store.root
            let clock = ManualClock(Self.start)
            let ledger = try Ledger.forTesting(at: store, clock: clock)
            defer { try? ledger.close() }
            let frames = try EventStoreReader.open(at: root, catalog: .standard).statistics().frames
            let deposit = entry("10.00", at: clock)
            let results = try ledger.run(batch: [
                LedgerCommand { _ in [deposit] },
                spend("25.00", at: clock),   // refused: the earlier command left 10.00
                spend("4.00", at: clock),    // planned against state that includes the first
            ])
            #expect((try? results[0].get()) != nil)
            #expect(throws: LedgerError.self) { try results[1].get() }
            #expect(try results[2].get().events.map(\.sequence) == [3])
            #expect(try cash(ledger) == usd("6.00"))
            #expect(try EventStoreReader.open(at: root, catalog: .standard).statistics().frames == frames + 1, "one commit for the batch")
            try ledger.expectConsistent()
        }
    }

    @Test(arguments: LogBackend.allCases) func aCommandWhoseSecondEventWouldOverflowIsRefusedByNameAndTheBatchGoesOn(on backend: LogBackend) throws {
        try withTemporaryStore(on: backend) { store in
            let clock = ManualClock(Self.start)
            let ledger = try Ledger.forTesting(at: store, clock: clock)
            defer { try? ledger.close() }
            try ledger.appendEvents([entry("92233720368547757.00", id: "big", at: clock)])
            let small = entry("0.50", at: clock), large = entry("1.00", at: clock)
            let results = try ledger.run(batch: [
                LedgerCommand { _ in [small] },
                // 0.50 fits, then 1.00 does not: the whole command is refused, naming its second event.
                LedgerCommand { _ in [small, large] },
                LedgerCommand { _ in [small] },
            ])
            #expect(try results[0].get().events.count == 1)
            #expect { try results[1].get() } throws: { error in
                (error as? LedgerError)?.message.hasPrefix("event 2 of the command (journal_entry_posted): it would take a balance beyond") == true
            }
            #expect(try results[2].get().events.map(\.sequence) == [results[0].get().events[0].sequence + 1], "the refused command left no sequence behind")
            #expect(try cash(ledger) == usd("92233720368547758.00"), "the refused command's first event is not counted either")
            try ledger.expectConsistent()
        }
    }

    // MARK: A failed commit after the append

    @Test(arguments: LogBackend.allCases) func aCommitThatFailsAfterTheAppendIsCaughtUpBeforeTheNextCommand(on backend: LogBackend) throws {
        try withTemporaryStore(on: backend) { store in
            let root = store.root
            let clock = ManualClock(Self.start)
            let failures = Mutex(1)
            var options = Ledger.Options(clock: clock.function, syncMode: .none, features: standardFeatures)
            options.faultAfterAppend = {
                let fail = failures.withLock { remaining in
                    defer { remaining -= 1 }
                    return remaining > 0
                }
                if fail { throw CocoaError(.fileWriteOutOfSpace) }
            }
            let ledger = try Ledger.create(at: root, name: "Home", baseCurrency: .usd, timeZone: "UTC", options: store.options(options))
            defer { try? ledger.close() }
            let first = try ledger.appendEvents([entry("10.00", at: clock)])
            #expect(first.events.map(\.sequence) == [2], "the event is durable, so the command succeeded")
            #expect(try cash(ledger) == nil, "the read models are behind")
            try ledger.appendEvents([entry("5.00", at: clock)])
            #expect(try cash(ledger) == usd("15.00"))
            try ledger.expectConsistent()
        }
    }

    // MARK: The log and the read models agree, or the store says so

    @Test func anOlderLogUnderNewerReadModelsRefusesToOpenUntilRebuilt() throws {
        try withTemporaryStore { root in
            let clock = ManualClock(Self.start)
            let backup = root + "-old-log"
            defer { try? FileManager.default.removeItem(atPath: backup) }
            do {
                let ledger = try Ledger.forTesting(at: root, clock: clock)
                try ledger.appendEvents([entry("10.00", at: clock)])
                try ledger.sync()
                try FileManager.default.copyItem(atPath: root + "/log", toPath: backup)
                try ledger.appendEvents([entry("20.00", at: clock)])
                try ledger.close()
            }
            try FileManager.default.removeItem(atPath: root + "/log")
            try FileManager.default.copyItem(atPath: backup, toPath: root + "/log")

            #expect { try Ledger.open(at: root, options: .standard) } throws: { underlying($0, as: StoreError.self)?.code == .readModelsAhead }
            #expect { try Ledger.openForReading(at: root, options: .standard) } throws: { underlying($0, as: StoreError.self)?.code == .readModelsAhead }
            let head = try Ledger.rebuild(at: root, options: .standard)
            #expect(head.sequence == 2)
            let ledger = try Ledger.open(at: root, options: .init(clock: clock.function, syncMode: .none, features: standardFeatures))
            defer { try? ledger.close() }
            #expect(try cash(ledger) == usd("10.00"))
            #expect(try ledger.appendEvents([entry("1.00", at: clock)]).events.map(\.sequence) == [3])
            try ledger.expectConsistent()
        }
    }

    @Test func aLogRewrittenAtTheSameLengthDisagreesWithTheReadModels() throws {
        try withTemporaryStore { root in
            let other = root + "-other"
            defer { try? FileManager.default.removeItem(atPath: other) }
            for (path, amount) in [(root, "10.00"), (other, "99.00")] {
                let clock = ManualClock(Self.start)
                let ledger = try Ledger.forTesting(at: path, clock: clock)
                try ledger.appendEvents([entry(amount, at: clock)])
                try ledger.close()
            }
            try FileManager.default.removeItem(atPath: root + "/log")
            try FileManager.default.copyItem(atPath: other + "/log", toPath: root + "/log")
            #expect { try Ledger.open(at: root, options: .standard) } throws: { underlying($0, as: StoreError.self)?.code == .readModelsDisagree }
        }
    }

    @Test(arguments: LogBackend.allCases) func aDamagedReadModelFileIsRebuiltWithoutBeingRead(on backend: LogBackend) throws {
        try withTemporaryStore(on: backend) { store in
            let root = store.root
            let clock = ManualClock(Self.start)
            let ledger = try Ledger.forTesting(at: store, clock: clock)
            try ledger.appendEvents([entry("10.00", at: clock)])
            try ledger.close()
            let path = StoreLayout(root: root).readModelPath
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: path))
            #expect { try Ledger.open(at: root, options: .standard) } throws: { underlying($0, as: StoreError.self)?.code == .readModelsUnreadable }
            try Ledger.rebuild(at: root, options: .standard)
            let reopened = try Ledger.openForReading(at: root, options: .standard)
            defer { try? reopened.close() }
            #expect(try cash(reopened) == usd("10.00"))
        }
    }

    // MARK: Readers

    @Test(arguments: LogBackend.allCases) func readersAnswerBesideALiveWriterWithoutItsLock(on backend: LogBackend) throws {
        try withTemporaryStore(on: backend) { store in
            let root = store.root
            let clock = ManualClock(Self.start)
            let writer = try Ledger.forTesting(at: store, clock: clock)
            defer { try? writer.close() }
            try writer.appendEvents([entry("10.00", at: clock)])
            let readers = try (0..<8).map { _ in try Ledger.openForReading(at: root, options: .standard) }
            for reader in readers {
                #expect(reader.isReadOnly)
                #expect(try cash(reader) == usd("10.00"))
                #expect { try reader.appendEvents([entry("1.00", at: clock)]) } throws: { underlying($0, as: StoreError.self)?.code == .readOnly }
            }
            try writer.appendEvents([entry("5.00", at: clock)])
            // A reader's snapshot moves on with the writer's commits.
            #expect(try cash(readers[0]) == usd("15.00"))
            for reader in readers { try reader.close() }
        }
    }

    @Test(arguments: LogBackend.allCases) func aReaderFoldsTheLogWhenNoWriterIsLive(on backend: LogBackend) throws {
        try withTemporaryStore(on: backend) { store in
            let root = store.root
            let clock = ManualClock(Self.start)
            let writer = try Ledger.forTesting(at: store, clock: clock)
            try writer.appendEvents([entry("10.00", at: clock)])
            try writer.close()
            let path = StoreLayout(root: root).readModelPath
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            let reader = try Ledger.openForReading(at: root, options: .standard)
            defer { try? reader.close() }
            #expect(try cash(reader) == usd("10.00"))
            #expect(reader.head.sequence == 2)
        }
    }

    // MARK: Observing

    @Test(arguments: LogBackend.allCases) func aSubscriptionCatchesUpFromTheLogThenFollowsLive(on backend: LogBackend) async throws {
        try await withTemporaryStore(on: backend) { store in
            let clock = ManualClock(Self.start)
            let ledger = try Ledger.forTesting(at: store, clock: clock)
            for amount in ["1.00", "2.00", "3.00", "4.00"] { try ledger.appendEvents([entry(amount, at: clock)]) }
            let stream = ledger.committedEvents(after: 2)
            try ledger.appendEvents([entry("6.00", at: clock), entry("7.00", at: clock)])
            try ledger.close()
            var seen: [UInt64] = []
            for try await event in stream { seen.append(event.sequence) }
            #expect(seen == [3, 4, 5, 6, 7])
        }
    }

    @Test(arguments: LogBackend.allCases) func aConsumerThatFallsBehindIsToldWhereToResume(on backend: LogBackend) async throws {
        try await withTemporaryStore(on: backend) { store in
            let clock = ManualClock(Self.start)
            let ledger = try Ledger.create(at: store.root, name: "Home", baseCurrency: .usd, timeZone: "UTC",
                                           options: store.options(.init(clock: clock.function, syncMode: .none, subscriptionBufferEvents: 4, features: standardFeatures)))
            let stream = ledger.committedEvents()
            for _ in 0..<3 { try ledger.appendEvents([entry("1.00", at: clock), entry("1.00", at: clock)]) }
            var delivered: [UInt64] = []
            var resumeAfter: UInt64? = nil
            do {
                for try await event in stream { delivered.append(event.sequence) }
            } catch let error as SubscriptionError {
                #expect(error.code == .consumerTooSlow)
                resumeAfter = error.lastDelivered
            }
            let after = try #require(resumeAfter)
            #expect(delivered == Array(2...after))
            let rest = ledger.committedEvents(after: after)
            try ledger.close()
            for try await event in rest { delivered.append(event.sequence) }
            #expect(delivered == Array(2...7), "every event once, in order, across the resubscription")
        }
    }

    @Test(arguments: LogBackend.allCases) func sixteenConcurrentTasksShareCommitsAndEveryEventIsDeliveredOnceInOrder(on backend: LogBackend) async throws {
        try await withTemporaryStore(on: backend) { store in
            let ledger = try Ledger.create(at: store.root, name: "Home", baseCurrency: .usd, timeZone: "UTC", options: store.options(.standard))
            let stream = ledger.committedEvents(after: 1)
            let consumer = Task {
                var seen: [UInt64] = []
                for try await event in stream { seen.append(event.sequence) }
                return seen
            }
            let perTask = 20
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<16 {
                    group.addTask {
                        for index in 0..<perTask {
                            let event = NewEvent(effectiveAt: ledger.now, body: EventBody(JournalEntryPosted(
                                account: "Assets:Cash", counterAccount: "Income:Salary", amount: usd("1.00"), externalId: "t\(task)-\(index)")))
                            _ = try await ledger.run(LedgerCommand(idempotencyKey: "t\(task)-\(index)") { _ in [event] })
                        }
                    }
                }
                try await group.waitForAll()
            }
            let frames = try EventStoreReader.open(at: store.root, catalog: .standard).statistics().frames
            #expect(try cash(ledger) == usd("320.00"))
            try ledger.close()
            let seen = try await consumer.value
            #expect(seen == Array(2...UInt64(1 + 16 * perTask)))
            #expect(frames < UInt64(1 + 16 * perTask), "concurrent commands shared commits (\(frames) frames)")
        }
    }

    @Test(arguments: LogBackend.allCases) func closeWaitsForCommandsInFlight(on backend: LogBackend) async throws {
        try await withTemporaryStore(on: backend) { store in
            let ledger = try Ledger.create(at: store.root, name: "Home", baseCurrency: .usd, timeZone: "UTC", options: store.options(.standard))
            let clock = ManualClock(Self.start)
            let entry = entry("1.00", at: clock)
            async let outcomes: [Bool] = withTaskGroup(of: Bool.self) { group in
                for _ in 0..<8 { group.addTask { (try? await ledger.run(LedgerCommand { _ in [entry] })) != nil } }
                return await group.reduce(into: []) { $0.append($1) }
            }
            try ledger.close()
            let succeeded = await outcomes.filter { $0 }.count
            let reopened = try Ledger.openForReading(at: store.root, options: .standard)
            defer { try? reopened.close() }
            #expect(reopened.head.sequence == UInt64(1 + succeeded), "every acknowledged command is in the log, nothing else")
        }
    }

    /// A blocking command's plan may capture the caller's stack: the group's leader lets go
    /// of it before the caller is told, so many threads at once never see it escape.
    @Test func thirtyTwoThreadsRecordingAtOnceEachGetTheirOwnGeneratedId() throws {
        try withBudgetLedger { ledger, _ in
            let threads = 32, perThread = 8
            let failures = Mutex<[String]>([])
            let ids = Mutex<[String]>([])
            let done = DispatchGroup()
            for thread in 0..<threads {
                done.enter()
                Thread {
                    defer { done.leave() }
                    for index in 0..<perThread {
                        do {
                            let result = try ledger.recordTransaction(
                                payee: "Shop \(thread)-\(index)", category: .groceries, amount: usd("-1.00"), date: day("2026-05-03"))
                            guard let recorded = result.events.first?.body.as(TransactionRecorded.self) else { continue }
                            #expect(recorded.transactionId == "manual:\(result.events[0].sequence)", "a generated id names the event's own sequence number")
                            ids.withLock { $0.append(recorded.transactionId) }
                        } catch {
                            failures.withLock { $0.append("\(thread)-\(index): \(error)") }
                        }
                    }
                }.start()
            }
            done.wait()
            #expect(failures.withLock { $0 }.isEmpty)
            let recorded = ids.withLock { $0 }
            #expect(recorded.count == threads * perThread)
            #expect(Set(recorded).count == recorded.count, "no two transactions share a generated id")
            try ledger.expectConsistent()
        }
    }
}
