public import TallyEngine
public import GRDB
import Synchronization

/// The wealth accounts' read model (docs/domain.md §1): per account the settings in force, the
/// deposits waiting to be split, a history row per money event, the changes of each
/// setting (for answers as of a past date) and the round-ups per month.
///
/// Balances are not kept here: Wallet, Spend and Invest are sums of postings
/// (``BalancesProjector``). The fold never validates and never applies a rule; the commands
/// read the settings in force at their effective time from `wealth_setting_changes`.
///
/// Tables:
/// - `wealth_accounts`: the settings in force now: of each setting, the change latest in
///   effective time (a backdated change recorded later does not replace a later one).
/// - `wealth_unsplit_deposits`: deposits received and not yet split.
/// - `wealth_history`: deposit, split, purchase, round_up, round_up_skipped, withdrawal and
///   reversal rows with the amount, the change to Spend and to Invest, and the cause; a
///   reversal row names the entry it reverses (`reverses`) and that entry's kind (`detail`).
/// - `wealth_setting_changes`: every pause, resume, switch, freeze and rule change.
/// - `wealth_round_up_totals`: round-ups applied per account, month (ledger time zone) and currency.
/// - `wealth_calendar`: the ledger's time zone, from `ledger_created`.
public struct WealthProjector: Projector {
    /// A projector with empty caches; ``Ledger/projectors`` lists one.
    public init() {}

    private let calendars = CalendarCache()

    /// The checkpoint key, `wealth`.
    public let name = "wealth"
    /// The version of the tables and the fold; a change rebuilds them from the log.
    public let version = 4
    /// The tables listed above, dropped and recreated on rebuild.
    public let tables = [
        "wealth_accounts", "wealth_unsplit_deposits", "wealth_history", "wealth_setting_changes",
        "wealth_round_up_totals", "wealth_calendar", "wealth_round_up_increments",
    ]
    /// The event types this read model folds; every other passes it by.
    public var eventTypes: [any EventPayload.Type]? {
        [LedgerCreated.self, DepositReceived.self, DepositSplit.self, PurchaseMade.self, RoundUpApplied.self, RoundUpSkipped.self, WithdrawalMade.self, SplitRuleSet.self, RoundUpsSwitched.self, AutomationPaused.self, AutomationResumed.self, CardFrozen.self, CardUnfrozen.self, WealthEntryReversed.self, DepositSplitReversed.self, RoundUpIncrementSet.self, RoundUpNotDefined.self]
    }

    /// Creates the tables and the indexes the queries use (history by account and time, by cause).
    public func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE wealth_accounts (
                account TEXT PRIMARY KEY NOT NULL,
                spend_weight INTEGER NOT NULL,
                invest_weight INTEGER NOT NULL,
                round_ups INTEGER NOT NULL,
                paused INTEGER NOT NULL,
                card_frozen INTEGER NOT NULL,
                opened_sequence INTEGER NOT NULL
            ) STRICT;
            CREATE TABLE wealth_unsplit_deposits (
                account TEXT NOT NULL,
                sequence INTEGER NOT NULL,
                commodity TEXT NOT NULL,
                amount INTEGER NOT NULL,
                effective_at INTEGER NOT NULL,
                PRIMARY KEY (account, sequence)
            ) STRICT, WITHOUT ROWID;
            CREATE TABLE wealth_history (
                sequence INTEGER PRIMARY KEY NOT NULL,
                account TEXT NOT NULL,
                effective_at INTEGER NOT NULL,
                recorded_at INTEGER NOT NULL,
                kind TEXT NOT NULL,
                commodity TEXT NOT NULL,
                amount INTEGER NOT NULL,
                spend_delta INTEGER NOT NULL,
                invest_delta INTEGER NOT NULL,
                cause INTEGER,
                detail TEXT,
                reverses INTEGER
            ) STRICT;
            CREATE INDEX wealth_history_by_account ON wealth_history (account, effective_at, sequence);
            CREATE INDEX wealth_history_by_cause ON wealth_history (cause) WHERE cause IS NOT NULL;
            CREATE INDEX wealth_history_by_reversed ON wealth_history (reverses) WHERE reverses IS NOT NULL;
            CREATE TABLE wealth_setting_changes (
                sequence INTEGER PRIMARY KEY NOT NULL,
                account TEXT NOT NULL,
                setting TEXT NOT NULL,
                effective_at INTEGER NOT NULL,
                recorded_at INTEGER NOT NULL,
                enabled INTEGER,
                spend_weight INTEGER,
                invest_weight INTEGER
            ) STRICT;
            CREATE INDEX wealth_setting_changes_by_account ON wealth_setting_changes (account, setting, effective_at, sequence);
            CREATE TABLE wealth_round_up_totals (
                account TEXT NOT NULL,
                month TEXT NOT NULL,
                commodity TEXT NOT NULL,
                amount INTEGER NOT NULL,
                PRIMARY KEY (account, month, commodity)
            ) STRICT, WITHOUT ROWID;
            CREATE TABLE wealth_calendar (
                time_zone TEXT NOT NULL
            ) STRICT;
            CREATE TABLE wealth_round_up_increments (
                sequence INTEGER PRIMARY KEY NOT NULL,
                commodity TEXT NOT NULL,
                effective_at INTEGER NOT NULL,
                recorded_at INTEGER NOT NULL,
                increment INTEGER
            ) STRICT;
            CREATE INDEX wealth_round_up_increments_by_commodity ON wealth_round_up_increments (commodity, effective_at, sequence);
            """)
    }

    /// Folds one event: wealth events update their account's rows; `ledger_created` records
    /// the time zone that round-up months are counted in; every other event is ignored.
    public func apply(_ event: Event, _ db: Database) throws {
        var state = RunState()
        try apply(event, at: 0, db, &state)
    }

    /// Folds a run of events into exactly the rows the one-by-one fold gives, with fewer
    /// writes: a deposit whose waiting row a later event of the run removes (its split, or its
    /// reversal: a deposit command's own split) is never written as waiting, and each
    /// account's row is made once per run. A deposit command folds its two events as one run.
    public func apply(_ events: ArraySlice<Event>, _ db: Database) throws {
        var state = RunState(removals: Self.waitingRemovals(in: events))
        try EventCodeSet.forEach(of: Self.codes, in: events) { event, index in try apply(event, at: index, db, &state) }
    }

    /// The codes of ``eventTypes``, for the run fold's test of each event.
    private static let codes = EventCodeSet(types: WealthProjector().eventTypes ?? [])
    /// The codes of the events that can remove a waiting row, for the run's look ahead.
    private static let removing = EventCodeSet(types: [DepositSplit.self, WealthEntryReversed.self])

    /// Of each waiting row a run's events remove (a split names its deposit as its cause; a
    /// deposit's reversal names it as its entry), the place in the run of the last removal.
    private static func waitingRemovals(in events: ArraySlice<Event>) -> [WaitingRow: Int] {
        var removals: [WaitingRow: Int] = [:]
        EventCodeSet.forEach(of: Self.removing, in: events) { event, index in
            if let split = event.body.as(DepositSplit.self), let cause = event.cause {
                removals[WaitingRow(account: split.account, sequence: Int64(cause))] = index
            } else if let reversal = event.body.as(WealthEntryReversed.self), reversal.kind == .deposit {
                removals[WaitingRow(account: reversal.account, sequence: reversal.entry)] = index
            }
        }
        return removals
    }

    /// Folds one event, the `index`th of its run.
    private func apply(_ event: Event, at index: Int, _ db: Database, _ state: inout RunState) throws {
        switch event.body.payload {
        case let created as LedgerCreated:
            try Self.run(db, sql: "DELETE FROM wealth_calendar", arguments: [])
            try Self.run(db, sql: "INSERT INTO wealth_calendar (time_zone) VALUES (?)", arguments: [created.timeZone])

        case let deposit as DepositReceived:
            try received(deposit, event, at: index, db, &state)
        case let split as DepositSplit:
            try openAccount(split.account, event, db, &state)
            if let cause = event.cause { try Self.noLongerWaiting(split.account, deposit: Int64(cause), db, &state) }
            // The split's amount is the deposit's; parts in two commodities (an import) show Spend's.
            try history(split.account, .split, (try? split.spend.adding(split.invest)) ?? split.spend,
                        spend: split.spend.minorUnits, invest: split.invest.minorUnits,
                        detail: SplitRule(spendWeight: split.spendWeight, investWeight: split.investWeight).description, event, db)
        case let purchase as PurchaseMade:
            try openAccount(purchase.account, event, db, &state)
            try history(purchase.account, .purchase, purchase.amount, spend: try purchase.amount.negated().minorUnits,
                        detail: purchase.merchant, event, db)
        case let roundUp as RoundUpApplied:
            try applied(roundUp, event, db, &state)
        case let skipped as RoundUpSkipped:
            try openAccount(skipped.account, event, db, &state)
            try history(skipped.account, .roundUpSkipped, skipped.amount, event, db)
        case let withdrawal as WithdrawalMade:
            try openAccount(withdrawal.account, event, db, &state)
            try history(withdrawal.account, .withdrawal, withdrawal.amount, spend: try withdrawal.amount.negated().minorUnits,
                        detail: withdrawal.destination, event, db)

        case let reversal as WealthEntryReversed:
            try reverse(reversal, event, db, &state)
        case let reversal as DepositSplitReversed:
            try openAccount(reversal.account, event, db, &state)
            try history(reversal.account, .reversal, (try? reversal.spend.adding(reversal.invest)) ?? reversal.spend,
                        spend: try reversal.spend.negated().minorUnits, invest: try reversal.invest.negated().minorUnits,
                        detail: WealthHistoryEntry.Kind.split.rawValue, reverses: UInt64(clamping: reversal.split), event, db)

        case let change as SplitRuleSet:
            try splitRuleSet(change, event, db, &state)
        case let change as RoundUpsSwitched:
            try flag(change.account, .roundUps, change.enabled, event, db, &state)
        case let change as RoundUpIncrementSet:
            try incrementSet(change, event, db)
        case let notDefined as RoundUpNotDefined:
            try openAccount(notDefined.account, event, db, &state)
            try history(notDefined.account, .roundUpNotDefined, .zero(notDefined.currency), event, db)
        case let change as AutomationPaused:
            try flag(change.account, .paused, true, event, db, &state)
        case let change as AutomationResumed:
            try flag(change.account, .paused, false, event, db, &state)
        case let change as CardFrozen:
            try flag(change.account, .cardFrozen, true, event, db, &state)
        case let change as CardUnfrozen:
            try flag(change.account, .cardFrozen, false, event, db, &state)
        default:
            throw eventNotFolded(event)
        }
    }

    /// A deposit: it waits to be split (unless a later event of the run removes its waiting
    /// row), and shows in the account's history.
    private func received(_ deposit: DepositReceived, _ event: Event, at index: Int, _ db: Database, _ state: inout RunState) throws {
        try openAccount(deposit.account, event, db, &state)
        let row = WaitingRow(account: deposit.account, sequence: event.rowSequence)
        if let removal = state.removals[row], removal > index {
            state.neverWritten.insert(row)
        } else {
            try waiting(deposit, event, db)
        }
        try history(deposit.account, .deposit, deposit.amount, detail: deposit.source.rawValue, event, db)
    }

    /// The deposit's waiting row (a plain INSERT, as for `history`).
    private func waiting(_ deposit: DepositReceived, _ event: Event, _ db: Database) throws {
        let waiting = RawStatement(try db.cachedStatement(sql: """
            INSERT INTO wealth_unsplit_deposits (account, sequence, commodity, amount, effective_at)
            VALUES (?, ?, ?, ?, ?)
            """))
        waiting.bind(1, deposit.account)
        waiting.bind(2, event.rowSequence)
        waiting.bind(3, deposit.amount.commodity.code)
        waiting.bind(4, deposit.amount.minorUnits)
        waiting.bind(5, event.rowEffectiveAt)
        try waiting.step(db)
    }

    /// A round-up: it moves Spend to Invest and adds to its month's total.
    private func applied(_ roundUp: RoundUpApplied, _ event: Event, _ db: Database, _ state: inout RunState) throws {
        try openAccount(roundUp.account, event, db, &state)
        try history(roundUp.account, .roundUp, roundUp.amount, spend: try roundUp.amount.negated().minorUnits,
                    invest: roundUp.amount.minorUnits, event, db)
        let month = try calendar(db).month(of: event.effectiveAt)
        try Self.run(
            db,
            sql: """
                INSERT INTO wealth_round_up_totals (account, month, commodity, amount) VALUES (?, ?, ?, ?)
                ON CONFLICT (account, month, commodity) DO UPDATE SET amount = amount + excluded.amount
                """,
            arguments: [roundUp.account, month.description, roundUp.amount.commodity.code, roundUp.amount.minorUnits]
        )
    }

    /// A new split rule: its history row, and the account's current rule when it is the
    /// latest by effective time (a backdated change leaves a later one in force).
    private func splitRuleSet(_ change: SplitRuleSet, _ event: Event, _ db: Database, _ state: inout RunState) throws {
        try openAccount(change.account, event, db, &state)
        try settingChanged(change.account, .splitRule, rule: SplitRule(spendWeight: change.spendWeight, investWeight: change.investWeight), event, db)
        guard try isLatest(change.account, .splitRule, event, db) else { return }
        try Self.run(db, sql: "UPDATE wealth_accounts SET spend_weight = ?, invest_weight = ? WHERE account = ?",
                     arguments: [change.spendWeight, change.investWeight, change.account])
    }

    /// A round-up increment for one currency (nil: the currency's default) from the event's
    /// effective time on.
    private func incrementSet(_ change: RoundUpIncrementSet, _ event: Event, _ db: Database) throws {
        try Self.run(
            db, sql: "INSERT INTO wealth_round_up_increments (sequence, commodity, effective_at, recorded_at, increment) VALUES (?, ?, ?, ?, ?)",
            arguments: [event.rowSequence, change.currency.code, event.rowEffectiveAt,
                        event.rowRecordedAt, change.increment?.minorUnits])
    }

    /// The settings a wealth account folds; the raw value names the setting's column.
    enum Setting: String, CaseIterable {
        case splitRule = "split_rule"
        case roundUps = "round_ups"
        case paused = "paused"
        case cardFrozen = "card_frozen"
    }

    /// A deposit, purchase, withdrawal or round-up reversed: a reversal row with the opposite
    /// changes; a reversed deposit no longer waits to be split, a reversed round-up leaves its month's total.
    private func reverse(_ reversal: WealthEntryReversed, _ event: Event, _ db: Database, _ state: inout RunState) throws {
        try openAccount(reversal.account, event, db, &state)
        let amount = reversal.amount.minorUnits
        let kind: WealthHistoryEntry.Kind
        var spend: Int64 = 0
        var invest: Int64 = 0
        switch reversal.kind {
        case .deposit:
            kind = .deposit
            try Self.noLongerWaiting(reversal.account, deposit: reversal.entry, db, &state)
        case .purchase:
            kind = .purchase
            spend = amount
        case .withdrawal:
            kind = .withdrawal
            spend = amount
        case .roundUp:
            kind = .roundUp
            spend = amount
            invest = try reversal.amount.negated().minorUnits
            let month = try calendar(db).month(of: event.effectiveAt)
            try Self.run(
                db,
                sql: """
                    INSERT INTO wealth_round_up_totals (account, month, commodity, amount) VALUES (?, ?, ?, ?)
                    ON CONFLICT (account, month, commodity) DO UPDATE SET amount = amount + excluded.amount
                    """,
                arguments: [reversal.account, month.description, reversal.amount.commodity.code, invest]
            )
        }
        try history(reversal.account, .reversal, reversal.amount, spend: spend, invest: invest,
                    detail: kind.rawValue, reverses: UInt64(clamping: reversal.entry), event, db)
    }

    /// The deposit recorded at `sequence` waits no longer (it was split, or reversed); nothing
    /// to remove when its run never wrote it as waiting.
    private static func noLongerWaiting(_ account: String, deposit sequence: Int64, _ db: Database, _ state: inout RunState) throws {
        guard !state.neverWritten.contains(WaitingRow(account: account, sequence: sequence)) else { return }
        let delete = RawStatement(try db.cachedStatement(sql: "DELETE FROM wealth_unsplit_deposits WHERE account = ? AND sequence = ?"))
        delete.bind(1, account)
        delete.bind(2, sequence)
        try delete.step(db)
    }

    /// Creates the account's row with the defaults if it has none: once per run, and once per
    /// write group (a row once made is never removed, so a second insert would do nothing).
    private func openAccount(_ account: String, _ event: Event, _ db: Database, _ state: inout RunState) throws {
        guard state.opened.insert(account).inserted else { return }
        // A write group folds each command apart: the accounts its folds opened or found are kept for it.
        let group = GroupMemo.of(db)?.entry(OpenedAccounts.self, make: OpenedAccounts.init)
        if let group, group.accounts.contains(account) { return }
        let rule = WealthRules.defaultSplitRule
        // Bound through the C API: a row per money event, the fold's hottest statement with `history`.
        let insert = RawStatement(try db.cachedStatement(sql: """
            INSERT INTO wealth_accounts (account, spend_weight, invest_weight, round_ups, paused, card_frozen, opened_sequence)
            VALUES (?, ?, ?, ?, 0, 0, ?) ON CONFLICT (account) DO NOTHING
            """))
        insert.bind(1, account)
        insert.bind(2, rule.spendWeight)
        insert.bind(3, rule.investWeight)
        insert.bind(4, WealthRules.defaultRoundUpsEnabled ? 1 : 0)
        insert.bind(5, event.rowSequence)
        try insert.step(db)
        group?.accounts.insert(account)
    }

    private func flag(_ account: String, _ setting: Setting, _ enabled: Bool, _ event: Event, _ db: Database, _ state: inout RunState) throws {
        try openAccount(account, event, db, &state)
        try settingChanged(account, setting, enabled: enabled, event, db)
        guard try isLatest(account, setting, event, db) else { return }
        // The column name comes from the closed set above, never from input.
        try Self.run(db, sql: "UPDATE wealth_accounts SET \(setting.rawValue) = ? WHERE account = ?", arguments: [enabled, account])
    }

    /// Whether no change of `setting` is effective after `event`: a backdated change does not
    /// replace one in force from a later time.
    private func isLatest(_ account: String, _ setting: Setting, _ event: Event, _ db: Database) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT 1 FROM wealth_setting_changes WHERE account = ? AND setting = ? AND effective_at > ? LIMIT 1"),
            arguments: [account, setting.rawValue, event.rowEffectiveAt]
        ) == nil
    }

    private func settingChanged(
        _ account: String, _ setting: Setting, enabled: Bool? = nil, rule: SplitRule? = nil, _ event: Event, _ db: Database
    ) throws {
        WealthSettingChanges.forget(in: db)
        try Self.run(
                db,
            sql: """
                INSERT INTO wealth_setting_changes
                    (sequence, account, setting, effective_at, recorded_at, enabled, spend_weight, invest_weight)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [event.rowSequence, account, setting.rawValue, event.rowEffectiveAt,
                        event.rowRecordedAt, enabled, rule?.spendWeight, rule?.investWeight]
        )
    }

    private func history(
        _ account: String, _ kind: WealthHistoryEntry.Kind, _ amount: Money, spend: Int64 = 0, invest: Int64 = 0,
        detail: String? = nil, reverses: UInt64? = nil, _ event: Event, _ db: Database
    ) throws {
        // A plain INSERT: a row per event never meets its key twice (a fold that did would fail
        // loudly), and `OR REPLACE` made SQLite keep a statement journal for every row, copying
        // each page the statement touched: a ninth of a deposit command's time.
        let insert = RawStatement(try db.cachedStatement(sql: """
            INSERT INTO wealth_history
                (sequence, account, effective_at, recorded_at, kind, commodity, amount, spend_delta, invest_delta, cause, detail, reverses)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """))
        insert.bind(1, event.rowSequence)
        insert.bind(2, account)
        insert.bind(3, event.rowEffectiveAt)
        insert.bind(4, event.rowRecordedAt)
        insert.bind(5, kind.rawValue)
        insert.bind(6, amount.commodity.code)
        insert.bind(7, amount.minorUnits)
        insert.bind(8, spend)
        insert.bind(9, invest)
        insert.bind(10, event.cause.map(Int64.init))
        insert.bind(11, detail)
        insert.bind(12, reverses.map { Int64($0) })
        try insert.step(db)
    }

    /// The ledger's calendar, from the time zone `ledger_created` recorded (UTC before it).
    private func calendar(_ db: Database) throws -> LedgerCalendar {
        guard let zone = try String.fetchOne(db.cachedStatement(sql: "SELECT time_zone FROM wealth_calendar")) else { return .utc }
        return try calendars.calendar(for: zone)
    }

    /// Runs one of the fold's statements, compiled once per connection.
    private static func run(_ db: Database, sql: String, arguments: StatementArguments) throws {
        try db.cachedStatement(sql: sql).execute(arguments: arguments)
    }
}

/// A deposit's row in `wealth_unsplit_deposits`, by its key.
private struct WaitingRow: Hashable {
    let account: String
    let sequence: Int64
}

/// The accounts a write group's folds have opened or found open (``GroupMemo``): a row once
/// made is removed only by a rollback, which empties the memo.
private final class OpenedAccounts {
    var accounts: Set<String> = []
}

/// What the fold of one run of events knows of the run: the waiting rows its later events
/// remove, those it therefore never wrote, and the accounts whose row it has made or found.
private struct RunState {
    var removals: [WaitingRow: Int] = [:]
    var neverWritten: Set<WaitingRow> = []
    var opened: Set<String> = []
}

/// The last calendar the wealth fold built, so a rebuild does not look the time zone up
/// for every round-up.
final class CalendarCache: Sendable {
    private let last = Mutex<LedgerCalendar?>(nil)

    /// - Throws: ``EventCodingError`` when this machine does not know the zone `ledger_created`
    ///   recorded: the fold stops rather than count days in UTC.
    func calendar(for zone: String) throws -> LedgerCalendar {
        try last.withLock { cached in
            if let cached, cached.timeZoneIdentifier == zone { return cached }
            let calendar = try LedgerCalendar(timeZoneIdentifier: zone)
            cached = calendar
            return calendar
        }
    }
}

/// The columns of this read model's tables and query results, by name: the one place a
/// column's name is spelled outside the statements that create, write and select it.
enum WealthColumns {
    static let account = Column("account")
    static let amount = Column("amount")
    static let cardFrozen = Column("card_frozen")
    static let cause = Column("cause")
    static let commodity = Column("commodity")
    static let detail = Column("detail")
    static let effectiveAt = Column("effective_at")
    static let investDelta = Column("invest_delta")
    static let investWeight = Column("invest_weight")
    static let kind = Column("kind")
    static let paused = Column("paused")
    static let recordedAt = Column("recorded_at")
    static let reversedBy = Column("reversed_by")
    static let reverses = Column("reverses")
    static let roundUps = Column("round_ups")
    static let sequence = Column("sequence")
    static let spendDelta = Column("spend_delta")
    static let spendWeight = Column("spend_weight")
}
