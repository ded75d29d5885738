import ArgumentParser
import Foundation
import Tally

/// What the budget product's commands share: opening the ledger, reading arguments in the
/// budget's terms, printing results as tables or JSON.
enum BudgetCLI {
    static func amount(_ text: String, _ option: String, _ ledger: Ledger) throws -> Money {
        do {
            return try Money(parsing: text, commodity: try ledger.budgetCurrency())
        } catch {
            throw ValidationError("\(option): \(error)")
        }
    }

    static func category(_ text: String, _ option: String) throws -> BudgetCategory {
        do { return try BudgetCategory(parsing: text) } catch { throw ValidationError("\(option): \(error)") }
    }

    /// Prints what a command appended: one line, or with `json` the events' JSON form; a
    /// repeat of an idempotency key says so and names what the first run recorded.
    static func report(_ result: Ledger.CommandResult, json: Bool, _ summary: @autoclosure () -> String) throws {
        if json {
            print(try CommandOutput.json(result))
            return
        }
        let appended = result.wasAlreadyApplied ? RepeatReport.alreadyApplied(result) : CommandOutput.sequenceRange(result) ?? "nothing appended"
        print("\(Output.visible(summary())) (\(appended))")
    }

    /// A money amount as JSON: `{"amount":"-12.40","currency":"USD"}` (``JSONText/money(_:)``,
    /// the one shape of money in every JSON answer).
    static func json(_ money: Money) -> String { JSONText.money(money) }

    /// A money amount as JSON, or `null` when there is none (no rate to convert it).
    static func json(_ money: Money?) -> String { money.map(JSONText.money) ?? "null" }

    static func json(_ transaction: BudgetTransaction) -> String {
        var fields: [(String, String)] = [
            ("id", EventJSON.quoted(transaction.id)),
            ("date", EventJSON.quoted(transaction.date.description)),
            ("payee", EventJSON.quoted(transaction.payee)),
            ("category", EventJSON.quoted(transaction.category.rawValue)),
            ("amount", json(transaction.amount)),
            ("currency", EventJSON.quoted(transaction.amount.commodity.code)),
            ("source", EventJSON.quoted(transaction.source.rawValue)),
            ("recurring", String(transaction.recurring)),
            ("changed", String(transaction.isChanged)),
        ]
        if let bankId = transaction.bankId { fields.append(("bank_id", EventJSON.quoted(bankId))) }
        if let externalId = transaction.externalId { fields.append(("external_id", EventJSON.quoted(externalId))) }
        if let bankCategory = transaction.bankCategory { fields.append(("bank_category", EventJSON.quoted(bankCategory.rawValue))) }
        if let recurringId = transaction.recurringId { fields.append(("recurring_id", EventJSON.quoted(recurringId))) }
        return Output.jsonObject(fields)
    }

    static func row(_ transaction: BudgetTransaction) -> [String] {
        [transaction.date.description, transaction.id, transaction.payee, transaction.category.displayName,
         MoneyDisplay.amount(transaction.amount), transaction.source.rawValue + (transaction.isChanged ? " (changed)" : "")]
    }

    static let transactionHeader = ["DATE", "ID", "PAYEE", "CATEGORY", "AMOUNT", "SOURCE"]
}
