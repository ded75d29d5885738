import ArgumentParser
import Foundation
import Tally

struct WhatIfCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "what-if",
        abstract: "Project savings forward month by month and give the date a goal is reached. Records nothing.",
        discussion: """
            Starts from the balance at --as-of (an account's, or every account's) in the base currency \
            in force that day; amounts are in that currency. \
            The monthly saving is the average monthly change over the three full months before, \
            unless --monthly gives it; --extra-monthly adds to it and --one-time is added at the start. \
            A balance with no rate into the base currency is left out and listed as not converted.
            """
    )
    @OptionGroup var storeOptions: StoreOptions
    @Option(help: "The balance to reach, in the base currency.") var goal: String
    @Option(help: "The savings account (default: every account).") var account: String?
    @Option(name: .customLong("extra-monthly"), help: "Saved each month on top.") var extraMonthly: String?
    @Option(name: .customLong("one-time"), help: "A contribution at the start.") var oneTime: String?
    @Option(help: "The monthly saving (default: from history).") var monthly: String?
    @Option(help: "Months to look ahead, 1 to 1200.") var horizon = 120
    @OptionGroup var time: TimeTravelOptions
    @Flag(help: "Print one JSON object.") var json = false

    func run() throws {
        try storeOptions.withReadingLedger { ledger in
            // The base currency in force on the start day (the one rule every product asks).
            let base = try ledger.baseCurrency(asOf: ledger.calendar.endOfDay(try time.asOfDateOrToday(ledger)), knownAt: try time.knownAtInstant(ledger))
            let projection = try ledger.whatIf(
                goal: try EnvelopeCLI.money(goal, base, "--goal"), account: account,
                extraMonthly: try extraMonthly.map { try EnvelopeCLI.money($0, base, "--extra-monthly") },
                oneTime: try oneTime.map { try EnvelopeCLI.money($0, base, "--one-time") },
                monthlySaving: try monthly.map { try EnvelopeCLI.money($0, base, "--monthly") },
                horizonMonths: horizon, on: try time.asOfDate(calendar: ledger.calendar), knownAt: try time.knownAtInstant(ledger)
            )
            let plan = projection.plan
            if json {
                let series = projection.series.map { point in
                    Output.jsonObject([("month", String(point.month)), ("date", EnvelopeCLI.json(point.date)), ("balance", EnvelopeCLI.json(point.balance))])
                }
                print(Output.jsonObject([
                    ("start_date", EnvelopeCLI.json(plan.startDate)), ("start_balance", EnvelopeCLI.json(plan.startBalance)),
                    ("monthly_saving", EnvelopeCLI.json(plan.monthlySaving)), ("extra_monthly", EnvelopeCLI.json(plan.extraMonthly)),
                    ("one_time", EnvelopeCLI.json(plan.oneTime)), ("goal", EnvelopeCLI.json(plan.goal)), ("horizon_months", String(plan.horizonMonths)),
                    ("reached_month", projection.reachedMonth.map(String.init) ?? "null"), ("reached_date", EnvelopeCLI.json(projection.reachedDate)),
                    ("series", "[" + series.joined(separator: ",") + "]"), ("complete", String(projection.isComplete)),
                    ("not_converted", "[" + projection.notConverted.map { line in
                        Output.jsonObject([("account", EnvelopeCLI.json(line.account)), ("balance", EnvelopeCLI.json(line.balance)),
                                           ("date", EnvelopeCLI.json(line.date))])
                    }.joined(separator: ",") + "]"),
                ]))
                return
            }
            print("From \(EnvelopeCLI.text(plan.startBalance)) on \(plan.startDate), saving \(EnvelopeCLI.text(plan.monthlySaving)) + \(EnvelopeCLI.text(plan.extraMonthly)) a month, one-time \(EnvelopeCLI.text(plan.oneTime))\(projection.isComplete ? "" : " (incomplete: \(projection.notConverted.count) balance(s) not converted)"):")
            if let month = projection.reachedMonth, let date = projection.reachedDate {
                print("goal \(EnvelopeCLI.text(plan.goal)) reached in month \(month), on \(date)")
            } else {
                print("goal \(EnvelopeCLI.text(plan.goal)) not reached within \(plan.horizonMonths) months")
            }
            print(Output.table(["MONTH", "DATE", "BALANCE"], projection.series.map { [String($0.month), $0.date.description, EnvelopeCLI.text($0.balance)] }, rightAligned: [0, 2]))
            for line in projection.notConverted {
                print("not converted (no rate into \(plan.goal.commodity.code)): \(Output.visible(line.account)) \(EnvelopeCLI.text(line.balance)) on \(line.date)")
            }
        }
    }
}
