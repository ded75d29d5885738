import Foundation
import Tally

/// How a command that would change nothing says so. The library records no event for it (its
/// result has none and is no repeat of an idempotency key); the command prints
/// `nothing to do: …` and exits 0.
enum NothingToDo {
    /// Whether `result` ran and recorded nothing.
    static func applies(to result: Ledger.CommandResult) -> Bool { !result.wasAlreadyApplied && result.events.isEmpty }

    /// Prints `nothing to do: reason` (with `json`, one object with `"nothing_to_do"`) and
    /// returns true when `result` recorded nothing; returns false, printing nothing, otherwise.
    ///
    /// ```swift
    /// if NothingToDo.report(result, "the base currency is already GBP") { return }
    /// ```
    static func report(_ result: Ledger.CommandResult, json: Bool = false, _ reason: @autoclosure () -> String) -> Bool {
        guard applies(to: result) else { return false }
        if json {
            print(Output.jsonObject([("already_applied", "false"), ("nothing_to_do", EventJSON.quoted(reason())), ("events", "[]")]))
        } else {
            print("nothing to do: \(Output.visible(reason()))")
        }
        return true
    }
}
