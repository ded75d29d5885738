import ArgumentParser
import Foundation
import Tally

/// `tally wealth …`: the automated wealth account (deposits split between Spend and
/// Invest, purchases with round-ups, withdrawals, pause, freeze).
struct WealthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wealth",
        abstract: "The automated wealth account: deposits split into Spend and Invest, purchases, round-ups.",
        discussion: """
            Every deposit is split at once by the rule in force (70/30 unless set), unless \
            automation is paused. Purchases and withdrawals come out of Spend only; a refused \
            command exits non-zero and records nothing. Amounts are exact decimals in the \
            currency given (--currency, default the ledger's base currency).
            """,
        subcommands: [
            WealthDepositCommand.self, WealthPurchaseCommand.self, WealthWithdrawCommand.self,
            WealthAmendCommand.self, WealthReverseCommand.self,
            WealthSplitRuleCommand.self, WealthRoundUpsCommand.self, WealthRoundUpIncrementCommand.self, WealthPauseCommand.self, WealthResumeCommand.self,
            WealthFreezeCommand.self, WealthUnfreezeCommand.self,
            WealthSummaryCommand.self, WealthHistoryCommand.self, WealthRoundUpsTotalCommand.self,
        ]
    )
}

/// Options every wealth subcommand takes: the store, the account, JSON output.
struct WealthOptions: ParsableArguments {
    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "The wealth account.")
    var account = "main"

    @Flag(help: "Print one JSON object.")
    var json = false

    /// Opens the store's ledger for reading, runs `body`, and closes it.
    func withReadingLedger<T>(_ body: (Ledger) throws -> T) throws -> T {
        let ledger = try Ledger.openForReading(at: storeOptions.path, options: try storeOptions.ledgerOptions())
        defer { try? ledger.close() }
        return try body(ledger)
    }

    /// Opens the store's ledger, runs `body`, and closes it.
    func withLedger<T>(_ body: (Ledger) throws -> T) throws -> T {
        let ledger = CommittedWrites.track(try Ledger.open(at: storeOptions.path, options: try storeOptions.ledgerOptions()))
        defer { try? ledger.close() }
        return try body(ledger)
    }
}

/// Options of the subcommands that record events: when, and the caller's key.
struct WealthRecordingOptions: ParsableArguments {
    @Option(help: CLITime.writeOption("The day it happened"))
    var date: String?

    @OptionGroup var idempotency: IdempotencyOptions

    /// The caller's `--idempotency-key`, if any.
    var idempotencyKey: String? { idempotency.idempotencyKey }

    /// The effective time: now without `--date`, else the start of that day in the ledger's
    /// time zone (or the instant typed); a day after today there is refused.
    func effectiveAt(_ ledger: Ledger) throws -> Instant? {
        try Self.effectiveAt(date, ledger)
    }

    /// The effective time `--date` gives (nil without one); a day after today is refused.
    static func effectiveAt(_ date: String?, _ ledger: Ledger) throws -> Instant? {
        guard let date else { return nil }
        let instant = try CLITime.start(date, option: "--date", calendar: ledger.calendar)
        guard ledger.calendar.date(of: instant) <= ledger.calendar.date(of: ledger.now) else {
            throw ValidationError("--date \(date) is in the future; the ledger records what happened")
        }
        return instant
    }
}

/// Parsing and printing shared by the wealth subcommands.
enum WealthCLI {
    /// An amount typed on the command line in `currency`, or in the base currency in force at
    /// `at` (the command's effective time; now when nil).
    static func money(_ text: String, currency: String?, at: Instant?, _ ledger: Ledger) throws -> Money {
        let commodity: Commodity
        if let currency {
            commodity = try CLIParse.currency(currency, ledger)
        } else {
            commodity = try ledger.baseCurrency(asOf: at)
        }
        return try Money(parsing: text, commodity: commodity)
    }

    /// What a recording command did: each event on a line, or one JSON object.
    static func report(_ result: Ledger.CommandResult, nothingToDo: String, json: Bool) throws {
        if json {
            print(try CommandOutput.json(result))
            return
        }
        if result.wasAlreadyApplied {
            print(RepeatReport.alreadyApplied(result))
        } else if result.events.isEmpty {
            print("Nothing to record: \(nothingToDo)")
        }
        for event in result.events { print("seq \(event.sequence)  \(describe(event))") }
    }

    /// What a `--dry-run` would record: each event on a line after `would record`, then
    /// that nothing was; or one JSON object with `"dry_run":true`.
    static func report(_ preview: WealthPreview, json: Bool) throws {
        let result = preview.result
        if json {
            print("{\"dry_run\":true," + (try CommandOutput.json(result)).dropFirst())
            return
        }
        if preview.wasAlreadyApplied {
            print(RepeatReport.alreadyApplied(result))
        }
        for event in preview.events where !preview.wasAlreadyApplied { print("would record seq \(event.sequence)  \(describe(event))") }
        print("Dry run: nothing recorded.")
    }

    /// One event in words.
    static func describe(_ event: Event) -> String {
        switch event.body.payload {
        case let deposit as DepositReceived:
            return "deposit of \(deposit.amount) received (\(deposit.source.rawValue))"
        case let split as DepositSplit:
            let cause = event.cause.map { " of deposit seq \($0)" } ?? ""
            return "split \(split.spendWeight)/\(split.investWeight)\(cause): Spend +\(split.spend), Invest +\(split.invest)"
        case let purchase as PurchaseMade:
            return "purchase of \(purchase.amount) at \(purchase.merchant)"
        case let roundUp as RoundUpApplied:
            return "round-up of \(roundUp.amount) moved from Spend to Invest"
        case let skipped as RoundUpSkipped:
            return "round-up of \(skipped.amount) skipped: Spend cannot cover it"
        case let notDefined as RoundUpNotDefined:
            return "round-up skipped: \(notDefined.currency.code) has no round-up increment, nothing moved"
        case let change as RoundUpIncrementSet:
            return change.increment.map { "round-up increment for \(change.currency.code) set to \($0)" }
                ?? "round-up increment for \(change.currency.code) set to none: purchases in it round up by nothing"
        case let withdrawal as WithdrawalMade:
            return "withdrawal of \(withdrawal.amount)" + (withdrawal.destination.map { " to \($0)" } ?? "")
        case let rule as SplitRuleSet:
            return "split rule set to \(rule.spendWeight)/\(rule.investWeight) (Spend/Invest) for later deposits"
        case let change as RoundUpsSwitched:
            return "round-ups \(change.enabled ? "on" : "off")"
        case is AutomationPaused:
            return "automation paused: deposits wait unsplit in the wallet"
        case is AutomationResumed:
            return "automation resumed"
        case is CardFrozen:
            return "card frozen"
        case is CardUnfrozen:
            return "card unfrozen"
        case let reversal as WealthEntryReversed:
            let cause = event.cause.map { " (with seq \($0))" } ?? ""
            return "\(reversal.kind.rawValue.replacingOccurrences(of: "_", with: "-")) seq \(reversal.entry) of \(reversal.amount) reversed\(cause)"
        case let reversal as DepositSplitReversed:
            return "split seq \(reversal.split) reversed: Spend -\(reversal.spend), Invest -\(reversal.invest)"
        default:
            return event.type.name
        }
    }

    /// A history row's detail: for a reversal, what it reverses; for a reversed entry, by what.
    static func detail(_ entry: WealthHistoryEntry) -> String {
        if let reverses = entry.reverses { return "reverses \(entry.detail ?? "entry") \(reverses)" }
        let detail = entry.detail ?? ""
        guard let reversedBy = entry.reversedBy else { return detail }
        return (detail.isEmpty ? "" : detail + " ") + "(reversed by \(reversedBy))"
    }

    /// After a money command: Spend and Invest now in the amount's currency.
    /// With round-ups on and no round-up increment for the currency, says so.
    static func printBalance(_ ledger: Ledger, account: String, commodity: Commodity) throws {
        let summary = try ledger.wealthSummary(account: account)
        let balance = summary.balance(in: commodity)
        print("Spend \(balance.spend), Invest \(balance.invest)" + (balance.wallet.isZero ? "" : ", waiting in the wallet \(balance.wallet)"))
        if summary.roundUpsEnabled, balance.roundUpIncrement == nil { print(roundUpsSkippedNote(commodity)) }
    }

    /// The note that round-ups are skipped in a currency without an increment, and how to set one.
    static func roundUpsSkippedNote(_ commodity: Commodity) -> String {
        "round-ups skipped in \(commodity.code): it has no round-up increment (set one with `tally wealth round-up-increment \(commodity.code) AMOUNT`)"
    }
}
