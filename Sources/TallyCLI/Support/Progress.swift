import ArgumentParser
import Foundation
import Tally
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
        self.isEnabled = enabled && Console.current.errorIsTerminal
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

extension Ledger.Options {
    /// The products' options with a progress bar on standard error (a terminal only) while
    /// an open folds the log into read models that are behind it (deleted, or of an older
    /// version after an upgrade): the bulk fold of a million events takes seconds.
    static var commandLine: Ledger.Options {
        var options = Ledger.Options.standard
        let bar = OpenProgressBar()
        options.openProgress = { folded, head in bar.update(folded: folded, head: head) }
        return options
    }
}

/// The bar of ``Ledger/Options/commandLine``: drawn from the folding thread, one update at a time.
private final class OpenProgressBar: @unchecked Sendable {
    private let lock = NSLock()
    private let bar = ProgressBar(label: "folding the log into the read models")

    func update(folded: UInt64, head: UInt64) {
        lock.withLock {
            bar.update(completed: Int64(folded), total: Int64(head), detail: "\(folded) of \(head) events")
            if folded >= head { bar.finish() }
        }
    }
}
