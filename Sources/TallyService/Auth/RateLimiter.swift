import Synchronization

/// A token bucket per name (an API key, a client address): `burst` at once, refilled at
/// `perMinute` (or `perSecond`). Integer arithmetic on a monotonic clock.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokensMicro: Int64
        var updated: ContinuousClock.Instant
    }

    private let perMinute: Int64
    private let burst: Int64
    private let buckets = Mutex<[String: Bucket]>([:])

    convenience init(perSecond: Int, burst: Int) {
        self.init(perMinute: max(perSecond, 1) * 60, burst: burst)
    }

    init(perMinute: Int, burst: Int) {
        self.perMinute = Int64(max(perMinute, 1))
        self.burst = Int64(max(burst, 1))
    }

    /// Takes one token for `key`, or throws the 429 problem (per API key).
    func take(_ key: String) throws {
        if let wait = spend(key, taking: true) {
            var problem = Problem(.tooManyRequests, "rate_limited", "this API key sent more than \(max(perMinute / 60, 1)) requests a second; retry after \(wait) s")
            problem.headers[.retryAfter] = String(wait)
            throw problem
        }
    }

    /// The seconds until `key` has a token again, nil when it has one now (none taken).
    func wait(_ key: String) -> Int64? {
        spend(key, taking: false)
    }

    /// Takes a token for `key` when one is left (a failure counted; none left is no error).
    func record(_ key: String) {
        _ = spend(key, taking: true)
    }

    /// Refills `key`'s bucket to now; with a token, takes it when `taking` and answers nil;
    /// without one answers the whole seconds until the next.
    private func spend(_ key: String, taking: Bool) -> Int64? {
        let now = ContinuousClock.now
        return buckets.withLock { buckets in
            let full = burst * 1_000_000
            var bucket = buckets[key] ?? Bucket(tokensMicro: full, updated: now)
            let elapsed = now - bucket.updated
            let elapsedMicro = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
            // A day of refill fills any bucket this server configures, and cannot overflow.
            let refill = min(elapsedMicro, 86_400_000_000) * perMinute / 60
            bucket.tokensMicro = min(full, bucket.tokensMicro + refill)
            bucket.updated = now
            if bucket.tokensMicro >= 1_000_000 {
                if taking { bucket.tokensMicro -= 1_000_000 }
                // A full bucket is the default: kept only while it differs.
                if bucket.tokensMicro >= full { buckets[key] = nil } else { buckets[key] = bucket }
                return nil
            }
            buckets[key] = bucket
            return (1_000_000 - bucket.tokensMicro) * 60 / perMinute / 1_000_000 + 1
        }
    }
}
