import ArgumentParser
import Foundation
import Tally

struct WealthSplitRuleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "split-rule",
        abstract: "Set the split rule for later deposits as two weights, e.g. 70 30 (Spend, Invest).",
        discussion: "Earlier deposits, including those waiting while paused, keep the rule in force when they arrived."
    )

    @OptionGroup var options: WealthOptions
    @OptionGroup var recording: WealthRecordingOptions

    @Argument(help: "Spend's weight (0 or more).")
    var spend: Int64

    @Argument(help: "Invest's weight (0 or more; not both zero).")
    var invest: Int64

    func run() throws {
        try options.withLedger { ledger in
            let result = try ledger.setSplitRule(
                account: options.account, spendWeight: spend, investWeight: invest,
                effectiveAt: try recording.effectiveAt(ledger), idempotencyKey: recording.idempotencyKey
            )
            try WealthCLI.report(result, nothingToDo: "the split rule is already \(spend)/\(invest)", json: options.json)
        }
    }
}

struct WealthRoundUpsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "round-ups",
        abstract: "Switch round-ups on or off: each purchase's change to the next multiple of its currency's round-up increment moves to Invest."
    )

    enum Switch: String, ExpressibleByArgument, CaseIterable {
        case on, off
    }

    @OptionGroup var options: WealthOptions
    @OptionGroup var recording: WealthRecordingOptions

    @Argument(help: "on or off.")
    var state: Switch

    func run() throws {
        try options.withLedger { ledger in
            let result = try ledger.setRoundUps(
                account: options.account, enabled: state == .on,
                effectiveAt: try recording.effectiveAt(ledger), idempotencyKey: recording.idempotencyKey
            )
            try WealthCLI.report(result, nothingToDo: "round-ups are already \(state.rawValue)", json: options.json)
        }
    }
}

struct WealthRoundUpIncrementCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "round-up-increment",
        abstract: "Set what purchases in a currency round up to, e.g. GBP 1.00, JPY 100, BTC 0.0001, or none.",
        discussion: """
            For every wealth account, from --date until the next change. Default: one major unit \
            for an ISO currency with minor units (1.00 USD, 1.000 BHD); none for JPY and other \
            currencies without minor units, crypto tokens and declared codes. A purchase in a \
            currency without an increment records its round-up as skipped (round_up_not_defined) \
            and moves nothing.
            """
    )

    @OptionGroup var options: WealthOptions
    @OptionGroup var recording: WealthRecordingOptions

    @Argument(help: "The currency or token, e.g. JPY.")
    var currency: String

    @Argument(help: "The increment, above zero, in that currency (e.g. 100); or `none`.")
    var increment: String

    func run() throws {
        try options.withLedger { ledger in
            let commodity = try CLIParse.currency(currency, ledger)
            let amount = increment.lowercased() == "none" ? nil : try Money(parsing: increment, commodity: commodity)
            let result = try ledger.setRoundUpIncrement(
                currency: commodity, increment: amount, effectiveAt: try recording.effectiveAt(ledger), idempotencyKey: recording.idempotencyKey
            )
            try WealthCLI.report(result, nothingToDo: "the round-up increment for \(commodity.code) is already \(amount?.description ?? "none")", json: options.json)
        }
    }
}

struct WealthPauseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause",
        abstract: "Pause automation: deposits wait unsplit in the wallet until resumed."
    )

    @OptionGroup var options: WealthOptions
    @OptionGroup var recording: WealthRecordingOptions

    func run() throws {
        try options.withLedger { ledger in
            let result = try ledger.pauseAutomation(
                account: options.account, effectiveAt: try recording.effectiveAt(ledger), idempotencyKey: recording.idempotencyKey)
            try WealthCLI.report(result, nothingToDo: "automation is already paused", json: options.json)
        }
    }
}

struct WealthResumeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Resume automation and split every waiting deposit by the rule in force when it arrived."
    )

    @OptionGroup var options: WealthOptions
    @OptionGroup var recording: WealthRecordingOptions

    func run() throws {
        try options.withLedger { ledger in
            let result = try ledger.resumeAutomation(
                account: options.account, effectiveAt: try recording.effectiveAt(ledger), idempotencyKey: recording.idempotencyKey)
            try WealthCLI.report(result, nothingToDo: "automation is running and no deposit waits", json: options.json)
        }
    }
}

struct WealthFreezeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "freeze",
        abstract: "Freeze the card: purchases are refused until it is unfrozen."
    )

    @OptionGroup var options: WealthOptions
    @OptionGroup var recording: WealthRecordingOptions

    func run() throws {
        try options.withLedger { ledger in
            let result = try ledger.freezeCard(
                account: options.account, effectiveAt: try recording.effectiveAt(ledger), idempotencyKey: recording.idempotencyKey)
            try WealthCLI.report(result, nothingToDo: "the card is already frozen", json: options.json)
        }
    }
}

struct WealthUnfreezeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unfreeze",
        abstract: "Unfreeze the card."
    )

    @OptionGroup var options: WealthOptions
    @OptionGroup var recording: WealthRecordingOptions

    func run() throws {
        try options.withLedger { ledger in
            let result = try ledger.unfreezeCard(
                account: options.account, effectiveAt: try recording.effectiveAt(ledger), idempotencyKey: recording.idempotencyKey)
            try WealthCLI.report(result, nothingToDo: "the card is not frozen", json: options.json)
        }
    }
}
