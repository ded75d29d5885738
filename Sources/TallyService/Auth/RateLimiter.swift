import Synchronization

/// A token bucket per API key: `burst` requests at once, refilled at `perSecond`; a request
/// past it gets 429 with `Retry-After`. Integer arithmetic on a monotonic clock.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokensMicro: Int64
        var updated: ContinuousClock.Instant
    }

    private let perSecond: Int64
    private let burst: Int64
    private let buckets = Mutex<[String: Bucket]>([:])

    init(perSecond: Int, burst: Int) {
        self.perSecond = Int64(max(perSecond, 1))
        self.burst = Int64(max(burst, 1))
    }

    /// Takes one token for `key`, or throws the 429 problem.
    func take(_ key: String) throws {
        let now = ContinuousClock.now
        let wait: Int64? = buckets.withLock { buckets in
            let full = burst * 1_000_000
            var bucket = buckets[key] ?? Bucket(tokensMicro: full, updated: now)
            let elapsed = now - bucket.updated
            let elapsedMicro = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
            bucket.tokensMicro = min(full, bucket.tokensMicro + elapsedMicro * perSecond)
            bucket.updated = now
            defer { buckets[key] = bucket }
            if bucket.tokensMicro >= 1_000_000 {
                bucket.tokensMicro -= 1_000_000
                return nil
            }
            return (1_000_000 - bucket.tokensMicro) / perSecond / 1_000_000 + 1
        }
        if let wait {
            var problem = Problem(.tooManyRequests, "rate_limited", "this API key sent more than \(perSecond) requests a second; retry after \(wait) s")
            problem.headers[.retryAfter] = String(wait)
            throw problem
        }
    }
}
