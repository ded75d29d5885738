internal import Foundation

/// The size of a randomized test's run: its short form by default, the long form when an
/// environment variable asks for it (docs/testing.md lists each variable).
public enum TestScale {
    /// The count `variable` holds when it is set to a number, else `count`.
    public static func count(_ variable: String, default count: Int) -> Int {
        ProcessInfo.processInfo.environment[variable].flatMap(Int.init) ?? count
    }
}
