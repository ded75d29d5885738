import ArgumentParser
import Foundation
import Tally

/// `tally suggest budgets|recurring`: proposals that record nothing.
struct SuggestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suggest", abstract: "Suggested budget maxima and recurring items proposed from history (nothing is recorded).",
        subcommands: [Budgets.self, Recurring.self]
    )

    struct Budgets: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Budget maxima from the average spend of the last 3 to 6 complete months plus 10%.")
        @OptionGroup var storeOptions: StoreOptions
        @Option(help: "The month to budget (YYYY-MM, its days in the ledger's time zone; default: the month of --as-of, else this month).") var month: String?
        @OptionGroup var time: TimeTravelOptions
        @Flag(help: "Print JSON.") var json = false

        func run() throws {
            let ledger = try storeOptions.openLedgerForReading()
            defer { try? ledger.close() }
            let target = try time.month(month, ledger)
            let suggestions = try ledger.suggestedBudgets(for: target, knownAt: try time.knownAtInstant(ledger))
            if json {
                print(JSONText.list(suggestions.map {
                    Output.jsonObject([("category", EventJSON.quoted($0.category.rawValue)), ("average_spend", JSONText.money($0.averageSpend)),
                                       ("suggested_maximum", JSONText.money($0.suggestedMaximum)), ("months", String($0.months.count))])
                }, context: [("month", EventJSON.quoted(target.description))]))
            } else if suggestions.isEmpty {
                print("no suggestions for \(target): fewer than 3 complete months of history, or no spending")
            } else {
                print(Output.table(["CATEGORY", "AVERAGE", "SUGGESTED", "MONTHS"],
                                   suggestions.map { [$0.category.displayName, MoneyDisplay.amount($0.averageSpend), MoneyDisplay.amount($0.suggestedMaximum), String($0.months.count)] },
                                   rightAligned: [1, 2, 3]))
            }
        }
    }

    struct Recurring: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Recurring items seen in history (same payee, similar amount, monthly); accept one with `tally recurring define`.")
        @OptionGroup var storeOptions: StoreOptions
        @Option(help: "Look at history up to the end of this day in the ledger's time zone (YYYY-MM-DD; or give --as-of); today when absent.") var through: String?
        @OptionGroup var time: TimeTravelOptions
        @Flag(help: "Print JSON.") var json = false

        func run() throws {
            let ledger = try storeOptions.openLedgerForReading()
            defer { try? ledger.close() }
            let given = try time.day(through, option: "--through", calendar: ledger.calendar, fallback: { nil })
            let date = given ?? ledger.calendar.date(of: ledger.now)
            let proposals = try ledger.proposedRecurringItems(through: date, knownAt: try time.knownAtInstant(ledger))
            if json {
                print(JSONText.list(proposals.map {
                    Output.jsonObject([("payee", EventJSON.quoted($0.payee)), ("category", EventJSON.quoted($0.category.rawValue)),
                                       ("amount", JSONText.money($0.amount)), ("day_of_month", String($0.dayOfMonth)),
                                       ("months", JSONText.array($0.months.map { EventJSON.quoted($0.description) }))])
                }, context: [("through", EventJSON.quoted(date.description))]))
            } else {
                print(Output.table(["PAYEE", "CATEGORY", "AMOUNT", "DAY", "SEEN"],
                                   proposals.map { [$0.payee, $0.category.displayName, MoneyDisplay.amount($0.amount), String($0.dayOfMonth), $0.months.map(\.description).joined(separator: " ")] },
                                   rightAligned: [2, 3]))
            }
        }
    }
}
