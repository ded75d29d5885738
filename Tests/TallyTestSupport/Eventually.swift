/// Waits for state another thread, task or process reaches on its own (a delivery made, a
/// pool gone idle, a port closed): checks `condition` now and then every `interval` until it
/// holds or `seconds` have passed on the monotonic clock. Whether it held; a test asserts
/// on the answer (`#expect(try await eventually { ... }, "what")`) or uses
/// ``waitFor(_:within:polling:_:)`` to fail naming what it waited for.
///
/// The one poll-with-a-deadline of the suites: no test sleeps for a fixed time instead.
public func eventually(
    within seconds: Int = 30, polling interval: Duration = .milliseconds(20),
    _ condition: () async throws -> Bool
) async throws -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while true {
        if try await condition() { return true }
        guard ContinuousClock.now < deadline else { return false }
        try await Task.sleep(for: interval)
    }
}

/// Waits like ``eventually(within:polling:_:)``, and throws ``WaitTimedOut`` naming `what`
/// when `condition` has not held within `seconds`.
public func waitFor(
    _ what: String, within seconds: Int = 30, polling interval: Duration = .milliseconds(20),
    _ condition: () async throws -> Bool
) async throws {
    guard try await eventually(within: seconds, polling: interval, condition) else {
        throw WaitTimedOut(what: what, seconds: seconds)
    }
}

/// A condition a test waited for did not hold in time.
public struct WaitTimedOut: Error, CustomStringConvertible {
    /// What the test waited for, in its words.
    public let what: String
    /// How long it waited.
    public let seconds: Int
    public var description: String { "timed out after \(seconds) s waiting for \(what)" }
}
