import ArgumentParser
import Foundation
import Tally

struct ChallengeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "challenge",
        abstract: "Savings challenges from templates: start one, complete its steps, see its progress.",
        subcommands: [ChallengeTemplatesCommand.self, ChallengeStartCommand.self, ChallengeStepCommand.self, ChallengeProgressCommand.self, ChallengeListCommand.self]
    )
}

struct ChallengeTemplatesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "templates", abstract: "The challenge templates: step n saves first + (n - 1) × increment units.")
    @Flag(help: "Print one JSON object: the templates as its items.") var json = false

    func run() throws {
        if json {
            return print(JSONText.list(ChallengeTemplate.all.map { template in
                Output.jsonObject([
                    ("template", EnvelopeCLI.json(template.id)), ("name", EnvelopeCLI.json(template.name)), ("cadence", EnvelopeCLI.json(template.cadence)),
                    ("steps", String(template.stepCount)), ("first_multiple", String(template.firstMultiple)), ("increment", String(template.increment)),
                    ("total_units", String((1...template.stepCount).reduce(Int64(0)) { $0 + template.multiple(ofStep: $1) })),
                ])
            }))
        }
        let rows = ChallengeTemplate.all.map { template in
            [template.id, template.name, "\(template.stepCount) \(template.cadence)s",
             String((1...template.stepCount).reduce(Int64(0)) { $0 + template.multiple(ofStep: $1) })]
        }
        print(Output.table(["TEMPLATE", "NAME", "STEPS", "UNITS SAVED"], rows, rightAligned: [3]))
    }
}

struct ChallengeStartCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "start", abstract: "Start a challenge from a template.")
    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The challenge's id.") var id: String
    @Option(help: "The template (see `tally challenge templates`).") var template = "52_week"
    @Option(help: "What one unit is worth, above zero, e.g. 1.00.") var unit: String
    @Option(help: "The unit's currency (default: the account's, else the base currency in force on its start day).") var currency: String?
    @Option(help: "Where the savings go; each step then moves money there.") var account: String?
    @Option(help: "Its display name (default: the template's).") var name: String?
    @Option(help: CLITime.writeOption("The day it starts")) var date: String?
    @OptionGroup var idempotency: IdempotencyOptions

    func run() throws {
        try storeOptions.withLedger { ledger in
            let effectiveAt = try CLITime.effective(date, ledger: ledger)
            let commodity = try currency.map { try EnvelopeCLI.commodity($0, ledger) }
                ?? account.map { try EnvelopeCLI.currency(of: $0, ledger) } ?? ledger.baseCurrency(asOf: effectiveAt)
            let money = try EnvelopeCLI.money(unit, commodity, "--unit")
            CLIParse.noteName(name, "the challenge name")
            let result = try ledger.startChallenge(id, template: template, name: name, unit: money, account: account, effectiveAt: effectiveAt,
                                                 idempotencyKey: idempotency.idempotencyKey)
            EnvelopeCLI.report(result, "Started challenge \(id) (\(template), unit \(EnvelopeCLI.text(money)))")
        }
    }
}

struct ChallengeStepCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "step", abstract: "Complete a step of a challenge: save its amount.")
    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The challenge's id.") var id: String
    @Option(help: "The step (default: the lowest not done).") var step: Int?
    @Option(help: "The account the saving comes from (for a challenge with an account).") var from: String?
    @Option(help: CLITime.writeOption("The day")) var date: String?
    @OptionGroup var idempotency: IdempotencyOptions

    func run() throws {
        try storeOptions.withLedger { ledger in
            let result = try ledger.completeChallengeStep(id, step: step, from: from, effectiveAt: try CLITime.effective(date, ledger: ledger), idempotencyKey: idempotency.idempotencyKey)
            if let completed = result.events.first?.body.as(ChallengeStepCompleted.self) {
                EnvelopeCLI.report(result, "Completed step \(completed.step) of \(id): saved \(EnvelopeCLI.text(completed.amount))")
            }
        }
    }
}

struct ChallengeProgressCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "progress", abstract: "Each challenge's steps done and amount saved at a date.")
    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "One challenge's id (default: every challenge).") var id: String?
    @OptionGroup var time: TimeTravelOptions
    @Flag(help: "Print one JSON object: the challenges as its items.") var json = false

    func run() throws {
        try storeOptions.withReadingLedger { ledger in
            let date = try time.asOfDate(calendar: ledger.calendar)
            let progresses = try id.map { [try ledger.challengeProgress($0, asOf: date.map(ledger.calendar.endOfDay), knownAt: try time.knownAtInstant(ledger))] } ?? ledger.challengeProgresses(asOf: date.map(ledger.calendar.endOfDay), knownAt: try time.knownAtInstant(ledger))
            if json {
                return print(JSONText.list(progresses.map { progress in
                    Output.jsonObject([
                        ("challenge", EnvelopeCLI.json(progress.challengeId)), ("name", EnvelopeCLI.json(progress.name)),
                        ("template", EnvelopeCLI.json(progress.template)), ("unit", EnvelopeCLI.json(progress.unit)),
                        ("steps", String(progress.stepCount)), ("completed", "[" + progress.completedSteps.map(String.init).joined(separator: ",") + "]"),
                        ("saved", EnvelopeCLI.json(progress.saved)), ("target", EnvelopeCLI.json(progress.target)),
                        ("remaining", EnvelopeCLI.json(progress.remaining)), ("complete", String(progress.isComplete)),
                        ("next_step", progress.nextStep.map(String.init) ?? "null"),
                    ])
                }))
            }
            let rows = progresses.map { progress in
                [progress.challengeId, progress.template, "\(progress.completedSteps.count)/\(progress.stepCount)",
                 EnvelopeCLI.text(progress.saved), EnvelopeCLI.text(progress.target), progress.isComplete ? "complete" : "next: \(progress.nextStep.map(String.init) ?? "-")"]
            }
            print(Output.table(["CHALLENGE", "TEMPLATE", "STEPS", "SAVED", "TARGET", "STATE"], rows, rightAligned: [2, 3, 4]))
        }
    }
}
