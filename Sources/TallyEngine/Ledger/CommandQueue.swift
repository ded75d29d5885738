internal import Foundation
internal import TallyLog

/// The queue in front of the write pipeline: commands that arrive while a group is being
/// committed wait, and the next leader takes them all as one group (one frame, one
/// `fdatasync`: group commit at the ledger level).
///
/// A blocking caller that finds no leader leads itself; asynchronous callers are led by a
/// thread of the queue's own, so no task of the cooperative pool ever waits on a sync.
final class CommandQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var pending: [PendingCommand] = []
    private var leaderActive = false
    private var closed = false
    private var helperStarted = false
    /// Runs one group and returns each command's outcome, in order. Called by the leader
    /// only, outside the lock.
    private let runGroup: ([PendingCommand]) -> [Result<Ledger.CommandResult, any Error>]
    /// The most commands taken as one group.
    let groupCommandsMax: Int

    init(groupCommandsMax: Int = 10_000, runGroup: @escaping ([PendingCommand]) -> [Result<Ledger.CommandResult, any Error>]) {
        self.groupCommandsMax = groupCommandsMax
        self.runGroup = runGroup
    }

    /// Queues `commands` (in order, kept together when they fit one group) and waits for
    /// their outcomes, leading groups while nobody else does.
    func submitAndWait(_ commands: [PendingCommand]) throws {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { throw closedError }
        pending.append(contentsOf: commands)
        while commands.contains(where: { $0.outcome == nil }) {
            if !leaderActive {
                lead()
            } else {
                condition.wait()
            }
        }
    }

    /// Queues commands for asynchronous callers; the queue's thread leads them.
    func enqueue(_ commands: [PendingCommand]) {
        condition.lock()
        guard !closed else {
            condition.unlock()
            for command in commands { finish(command, with: .failure(closedError)) }
            return
        }
        pending.append(contentsOf: commands)
        if !helperStarted {
            helperStarted = true
            DedicatedThread.start("Tally.commands") { [self] in helperLoop() }
        }
        condition.broadcast()
        condition.unlock()
    }

    /// Waits for every queued and in-flight command, then refuses new ones.
    func close() {
        condition.lock()
        while !pending.isEmpty || leaderActive {
            if !leaderActive { lead() } else { condition.wait() }
        }
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Runs `body` while no group is in flight and none starts (a rebuild).
    func exclusively<T>(_ body: () throws -> T) throws -> T {
        condition.lock()
        while leaderActive { condition.wait() }
        leaderActive = true
        condition.unlock()
        defer {
            condition.lock()
            leaderActive = false
            condition.broadcast()
            condition.unlock()
        }
        return try body()
    }

    private var closedError: StoreError { StoreError(.readOnly, "the ledger is closed; open it again to run commands") }

    private func helperLoop() {
        condition.lock()
        while true {
            while !closed && (pending.isEmpty || leaderActive) { condition.wait() }
            if closed { break }
            lead()
        }
        condition.unlock()
    }

    /// Takes a group and runs it outside the lock. Called with the lock held; returns with it held.
    private func lead() {
        leaderActive = true
        let group = Array(pending.prefix(groupCommandsMax))
        pending.removeFirst(group.count)
        condition.unlock()
        let outcomes = runGroup(group)
        assert(outcomes.count == group.count, "a group's runner returns one outcome per command")
        for command in group { command.releaseCommand() }
        condition.lock()
        for (command, outcome) in zip(group, outcomes) { command.outcome = outcome }
        leaderActive = false
        condition.broadcast()
        condition.unlock()
        for command in group { resume(command) }
        condition.lock()
    }

    private func finish(_ command: PendingCommand, with outcome: Result<Ledger.CommandResult, any Error>) {
        condition.lock()
        command.outcome = outcome
        condition.unlock()
        resume(command)
    }

    /// Tells an asynchronous caller its outcome (outside the lock).
    private func resume(_ command: PendingCommand) {
        guard let outcome = command.outcome else { return }
        command.deliver(outcome)
        if let batch = command.batch {
            condition.lock()
            batch.remaining -= 1
            let done = batch.remaining == 0
            condition.unlock()
            if done { batch.continuation.resume() }
        }
    }
}
