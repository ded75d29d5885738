import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a long command shows its progress.
enum ProgressMode: String, ExpressibleByArgument, CaseIterable {
    /// A bar on standard error, only when standard error is a terminal.
    case bar
    /// One line `{"committed_seq": N}` on standard output per durable commit.
    case json
    /// Nothing.
    case none
}

/// A one-line progress bar redrawn in place on standard error; silent unless standard
/// error is a terminal.
final class ProgressBar {
    private let label: String
    private let isEnabled: Bool
    private var lastDrawn = -1
    private var isVisible = false
    private let width = 30

    init(label: String, enabled: Bool = true) {
        self.label = label
        self.isEnabled = enabled && isatty(STDERR_FILENO) == 1
    }

    /// Redraws when the shown per-mille changes.
    func update(completed: Int64, total: Int64, detail: String = "") {
        guard isEnabled else { return }
        let perMille = total > 0 ? Int(min(1000, max(0, completed * 1000 / total))) : 1000
        guard perMille != lastDrawn else { return }
        lastDrawn = perMille
        let filled = perMille * width / 1000
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let percent = "\(perMille / 10).\(perMille % 10)%"
        Output.note("\r\(label) [\(bar)] \(percent) \(detail)\u{1B}[K")
        isVisible = true
    }

    /// Clears the line.
    func finish() {
        guard isVisible else { return }
        Output.note("\r\u{1B}[K")
        isVisible = false
        lastDrawn = -1
    }
}

/// Elapsed time and rates, with integer math.
struct Stopwatch {
    private let start = ContinuousClock.now

    /// Microseconds since the stopwatch started (at least 1).
    var elapsedMicroseconds: Int64 {
        let duration = ContinuousClock.now - start
        let (seconds, attoseconds) = duration.components
        return max(1, seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
    }

    /// "1.234 s".
    static func seconds(_ microseconds: Int64) -> String {
        let milliseconds = microseconds / 1000
        let fraction = milliseconds % 1000
        return "\(milliseconds / 1000).\(String(repeating: "0", count: fraction < 10 ? 2 : fraction < 100 ? 1 : 0))\(fraction) s"
    }

    /// Items per second, rounded down.
    static func rate(_ count: Int64, _ microseconds: Int64) -> Int64 {
        count * 1_000_000 / max(1, microseconds)
    }
}
