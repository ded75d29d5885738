import Glibc

/// A pthread mutex with one condition variable, for the writer's leader/follower hand-off.
/// The storage is heap-allocated once so its address is stable.
final class ConditionLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    init() {
        mutex = .allocate(capacity: 1)
        condition = .allocate(capacity: 1)
        let mutexResult = pthread_mutex_init(mutex, nil)
        let conditionResult = pthread_cond_init(condition, nil)
        precondition(mutexResult == 0 && conditionResult == 0, "pthread initialisation failed")
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func lock() {
        let result = pthread_mutex_lock(mutex)
        precondition(result == 0, "pthread_mutex_lock failed: \(result)")
    }

    func unlock() {
        let result = pthread_mutex_unlock(mutex)
        precondition(result == 0, "pthread_mutex_unlock failed: \(result)")
    }

    /// Waits for a broadcast; the caller holds the lock and re-checks its predicate afterwards.
    func wait() {
        let result = pthread_cond_wait(condition, mutex)
        precondition(result == 0, "pthread_cond_wait failed: \(result)")
    }

    /// Waits for a broadcast or until `seconds` have passed; false when the time ran out.
    /// The caller holds the lock and re-checks its predicate afterwards.
    func wait(seconds: Int) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var deadline = timespec(tv_sec: now.tv_sec + seconds, tv_nsec: now.tv_nsec)
        let result = pthread_cond_timedwait(condition, mutex, &deadline)
        precondition(result == 0 || result == ETIMEDOUT, "pthread_cond_timedwait failed: \(result)")
        return result == 0
    }

    func broadcast() {
        pthread_cond_broadcast(condition)
    }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
