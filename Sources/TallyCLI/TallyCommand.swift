import ArgumentParser
import Tally

@main
struct TallyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tally",
        abstract: "An event-sourced ledger engine: record money facts, ask what was true when.",
        discussion: """
            Every command works on one store directory: --store DIR, else $TALLY_STORE, \
            else ./.tally. --store goes before or after the command's name: \
            `tally --store DIR balances` is `tally balances --store DIR`. \
            A day D typed for a command that records (--date D) means the start of that day \
            in the ledger's time zone; for a question (--as-of D, --known-at D) the end of it. \
            A negative amount needs no `--`: `tally reference set -50.00`. \
            Run `tally demo` for a tour.
            """,
        version: TallyVersion.string,
        subcommands: [
            InitCommand.self, AppendCommand.self, LogCommand.self, VerifyCommand.self, RepairCommand.self,
            StatsCommand.self, DemoCommand.self,
            ImportCommand.self, ExportCommand.self, RestoreCommand.self,
            BalancesCommand.self, AccountCommand.self, RatesCommand.self,
            RebuildCommand.self,
            ReplayCommand.self,
            AuditCommand.self,
            AssertCommand.self,
            AssetCommand.self, LiabilityCommand.self, PriceCommand.self, FXCommand.self, BaseCurrencyCommand.self,
            ReminderCommand.self, NetWorthCommand.self, XRayCommand.self,
            TransactionCommand.self,
            BankCommand.self,
            ReferenceCommand.self,
            PotCommand.self,
            BudgetCommand.self,
            RecurringCommand.self,
            OverviewCommand.self,
            EnvelopeCommand.self,
            ChallengeCommand.self,
            WhatIfCommand.self,
            SuggestCommand.self,
            WealthCommand.self,
            NotificationsCommand.self, ChartCommand.self,
            SettingsCommand.self, CommodityCommand.self,
            KeyCommand.self, EraseCommand.self,
            ServeCommand.self, FollowCommand.self,
        ]
    )
}
