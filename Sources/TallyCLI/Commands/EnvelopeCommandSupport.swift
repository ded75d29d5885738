import ArgumentParser
import Foundation
import Tally

/// Parsing and printing shared by the envelope, challenge and what-if commands.
enum EnvelopeCLI {
    static func date(_ text: String?, _ option: String) throws -> LocalDate? {
        guard let text else { return nil }
        do { return try LocalDate(parsing: text) } catch {
            throw ValidationError("\(option) '\(text)' is not a date (YYYY-MM-DD)")
        }
    }

    static func money(_ text: String, _ commodity: Commodity, _ option: String) throws -> Money {
        do { return try Money(parsing: text, commodity: commodity) } catch {
            throw ValidationError("\(option) '\(text)' is not an amount in \(commodity.code) (e.g. \(commodity.scale == 0 ? "1500" : "12.50")): \(error)")
        }
    }

    /// A currency by the ledger's one rule (``Ledger/currency(_:)``).
    static func commodity(_ code: String, _ ledger: Ledger) throws -> Commodity { try CLIParse.currency(code, ledger) }

    /// The currency of a user account, for reading amounts given for it.
    static func currency(of account: String, _ ledger: Ledger) throws -> Commodity {
        guard let found = try ledger.envelopeAccounts().first(where: { $0.account == account }) else {
            throw LedgerError(.notFound, "there is no account '\(account)'; open it first (tally envelope account-open)")
        }
        return found.commodity
    }

    static func interval(_ text: String) throws -> EnvelopeInterval {
        guard let interval = EnvelopeInterval(rawValue: text) else {
            throw ValidationError("--interval '\(text)' is not weekly, biweekly, monthly or one_time")
        }
        return interval
    }

    static func policy(_ text: String) throws -> RolloverPolicy {
        guard let policy = RolloverPolicy(rawValue: text) else {
            throw ValidationError("--policy '\(text)' is not reset, carry_forward or take_from_to_assign")
        }
        return policy
    }

    /// `12.50 USD`: the amount with its currency's scale.
    static func text(_ money: Money?) -> String { money.map(MoneyDisplay.money) ?? "-" }

    /// `{"amount":"12.50","currency":"USD"}`, or `null`.
    static func json(_ money: Money?) -> String { money.map(JSONText.money) ?? "null" }

    static func json(_ text: String?) -> String { JSONText.string(text) }

    static func json(_ date: LocalDate?) -> String { date.map { EventJSON.quoted($0.description) } ?? "null" }

    /// What a command appended, for people; a repeat of an idempotency key says so.
    static func report(_ result: Ledger.CommandResult, _ what: String) {
        if result.wasAlreadyApplied { return print("\(Output.visible(what)) (\(RepeatReport.alreadyApplied(result)))") }
        guard let range = CommandOutput.sequenceRange(result) else { return print("\(Output.visible(what)): nothing to record") }
        print("\(Output.visible(what)) (\(range))")
    }
}
