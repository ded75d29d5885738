public import TallyEngine
import GRDB

/// One currency of a wealth account: what waits in the wallet, Spend, Invest and their total.
public struct WealthBalance: Hashable, Sendable {
    /// The currency or token these amounts count.
    public let commodity: Commodity
    /// Deposits received and not yet split (while paused or allocating).
    public let wallet: Money
    /// What purchases and withdrawals can use.
    public let spend: Money
    /// What splits and round-ups invested.
    public let invest: Money
    /// Wallet + Spend + Invest: the account's whole balance in this currency.
    public let total: Money
    /// The round-up increment in force for this currency at the time asked about; nil when it
    /// has none (a crypto token, a currency without minor units, or one set to none): round-ups
    /// of purchases in it are then not made, and each is recorded as not defined.
    public let roundUpIncrement: Money?
}

/// The round-up increment of one currency at a moment (docs/domain.md §1, "Round-ups").
///
/// ```swift
/// try ledger.roundUpIncrement(currency: .usd).increment                          // 1.00 USD, the default
/// try ledger.roundUpIncrement(currency: try Commodity.named("BTC")).increment    // nil: round-ups skipped
/// ```
public struct RoundUpIncrement: Hashable, Sendable {
    /// The currency.
    public let currency: Commodity
    /// Positive, in ``currency``; nil: purchases in it round up by nothing, recorded as not defined.
    public let increment: Money?
    /// When the `round_up_increment_set` in force took effect; nil for the default
    /// (``WealthRules/defaultRoundUpIncrement(for:)``).
    public let since: Instant?

    /// Whether no `round_up_increment_set` is in force: the default holds.
    public var isDefault: Bool { since == nil }
}

/// A wealth account at a moment: balances per currency and the settings in force.
///
/// ```swift
/// let summary = try ledger.wealthSummary(account: "main")
/// summary.balances.first?.spend   // 70.00 USD
/// summary.status                  // .active
/// ```
public struct WealthSummary: Hashable, Sendable {
    /// The wealth account.
    public let account: String
    /// One entry per currency the account has held, by currency code; zero balances included.
    public let balances: [WealthBalance]
    /// `paused`, `allocating` or `active` (``WealthRules/status(isPaused:hasUnsplitDeposits:)``).
    public let status: WealthStatus
    /// The rule the next deposit will be split by.
    public let splitRule: SplitRule
    /// Whether purchases round up into Invest.
    public let roundUpsEnabled: Bool
    /// Whether the card refuses purchases.
    public let cardFrozen: Bool
    /// How many deposits wait to be split.
    public let unsplitDepositCount: Int

    /// The balance in one currency, zero if the account never held it.
    public func balance(in commodity: Commodity) -> WealthBalance {
        balances.first { $0.commodity == commodity } ?? WealthBalance(
            commodity: commodity, wallet: .zero(commodity), spend: .zero(commodity), invest: .zero(commodity), total: .zero(commodity),
            roundUpIncrement: WealthRules.defaultRoundUpIncrement(for: commodity))
    }
}

/// One money event of a wealth account, as its history lists it.
public struct WealthHistoryEntry: Hashable, Sendable {
    /// What happened.
    public enum Kind: String, Sendable, CaseIterable {
        /// Money arrived in the wallet (`deposit_received`).
        case deposit
        /// A deposit was divided between Spend and Invest (`deposit_split`).
        case split
        /// A card purchase paid from Spend (`purchase_made`).
        case purchase
        /// A purchase's round-up moved from Spend to Invest (`round_up_applied`).
        case roundUp = "round_up"
        /// A round-up Spend could not cover; nothing moved (`round_up_skipped`).
        case roundUpSkipped = "round_up_skipped"
        /// A round-up not made: the purchase's currency had no round-up increment; nothing
        /// moved, the amount is zero (`round_up_not_defined`).
        case roundUpNotDefined = "round_up_not_defined"
        /// Money withdrawn from Spend (`withdrawal_made`).
        case withdrawal
        /// A correction: the entry ``WealthHistoryEntry/reverses`` (of the kind in
        /// ``WealthHistoryEntry/detail``) no longer counts; its money moved back
        /// (`wealth_entry_reversed`, `deposit_split_reversed`).
        case reversal
    }

    /// The event's sequence number.
    public let sequence: UInt64
    /// When it happened.
    public let effectiveAt: Instant
    /// When the ledger learned it.
    public let recordedAt: Instant
    /// What happened.
    public let kind: Kind
    /// The amount: deposited, split, paid, rounded up (or that would have been), withdrawn.
    public let amount: Money
    /// The change to Spend (negative for purchases, withdrawals and round-ups).
    public let spendChange: Money
    /// The change to Invest.
    public let investChange: Money
    /// The event that caused it: a split's deposit, a round-up's purchase.
    public let cause: UInt64?
    /// The merchant of a purchase, the source of a deposit, the destination of a
    /// withdrawal, the rule of a split (`70/30`), the kind a reversal reverses (`deposit`).
    public let detail: String?
    /// For a reversal: the sequence number of the entry it reverses.
    public let reverses: UInt64?
    /// The reversal of this entry, when one is known at the time asked about (the history's
    /// `knownAt`; nil in answers that do not look).
    public let reversedBy: UInt64?
}

/// Which history rows a query lists.
public enum WealthHistoryFilter: String, Sendable, CaseIterable {
    /// Every row.
    case all
    /// Rows that changed Spend: splits, purchases, round-ups, withdrawals.
    case spend
    /// Rows that changed Invest: splits and round-ups.
    case invest
    /// Deposits received, and their reversals.
    case deposits
}

/// One page of a wealth account's history, newest first.
public struct WealthHistoryPage: Hashable, Sendable {
    /// The rows on this page.
    public let entries: [WealthHistoryEntry]
    /// The page number, from 1.
    public let page: Int
    /// Rows per page.
    public let pageSize: Int
    /// Rows matching the filter on all pages.
    public let totalCount: Int

    /// How many pages the rows fill (at least 1), by the one paging rule (``ListPage``).
    public var pageCount: Int { (try? ListPage(page: page, pageSize: pageSize, totalCount: totalCount).pageCount) ?? 1 }
}

extension Ledger {
    /// The most rows one history page holds.
    public static let wealthHistoryPageSizeLimit = ListPage.pageSizeLimit

    /// A wealth account's balances per currency, status and settings, now or at a past date.
    ///
    /// ```swift
    /// let now = try ledger.wealthSummary(account: "main")
    /// let endOfMarch = try ledger.wealthSummary(account: "main", asOf: ledger.calendar.endOfDay(march31))
    /// ```
    ///
    /// - Parameters:
    ///   - account: the wealth account, e.g. `main`.
    ///   - asOf: count only events effective at or before this instant (default: all).
    ///   - knownAt: count only events the ledger had recorded by this instant (default: all).
    /// - Throws: ``LedgerError`` (`notFound`) for an account with no events.
    public func wealthSummary(account: String, asOf: Instant? = nil, knownAt: Instant? = nil) throws -> WealthSummary {
        try read { db in
            try WealthQueries.requireAccount(account, db)
            if knownAt == nil, try asOf.map({ try WealthQueries.isCurrent(account, at: $0, db) }) ?? true {
                return try WealthQueries.currentSummary(account, incrementsAt: asOf ?? now, db)
            }
            return try WealthQueries.summary(account, asOf: asOf ?? .latest, knownAt: knownAt ?? .latest, db)
        }
    }

    /// The round-up increment of a currency at a moment: the one set for it
    /// (``setRoundUpIncrement(currency:increment:effectiveAt:idempotencyKey:)``) in force then,
    /// else the default (``WealthRules/defaultRoundUpIncrement(for:)``).
    ///
    /// ```swift
    /// try ledger.roundUpIncrement(currency: .gbp).increment   // 1.00 GBP
    /// ```
    ///
    /// - Parameters:
    ///   - currency: any currency or token.
    ///   - asOf: the moment (default: now).
    ///   - knownAt: count only settings recorded by this instant (default: all).
    public func roundUpIncrement(currency: Commodity, asOf: Instant? = nil, knownAt: Instant? = nil) throws -> RoundUpIncrement {
        try read { db in try WealthQueries.roundUpIncrement(currency, asOf: asOf ?? now, knownAt: knownAt ?? .latest, db) }
    }

    /// The round-ups applied in a month (the ledger's time zone), per currency, now or as of
    /// a moment and as the ledger knew it then.
    ///
    /// ```swift
    /// try ledger.roundUpTotal(account: "main", month: try Month(parsing: "2026-05"))   // [0.60 USD]
    /// // What the ledger said on 5 June about May, before a backdated purchase was recorded:
    /// try ledger.roundUpTotal(account: "main", month: may, knownAt: fifthOfJune)
    /// ```
    ///
    /// - Parameters:
    ///   - account: the wealth account.
    ///   - month: any month.
    ///   - asOf: count only round-ups effective at or before this instant (default: all).
    ///   - knownAt: count only round-ups the ledger had recorded by this instant (default: all).
    /// - Returns: one amount per currency with round-ups that month, by currency code; empty if none.
    /// - Throws: ``LedgerError`` (`notFound`) for an account with no events.
    public func roundUpTotal(account: String, month: Month, asOf: Instant? = nil, knownAt: Instant? = nil) throws -> [Money] {
        let calendar = self.calendar
        return try read { db in
            try WealthQueries.requireAccount(account, db)
            guard asOf != nil || knownAt != nil else {
                return try Row.fetchAll(
                    db.cachedStatement(sql: "SELECT commodity, amount FROM wealth_round_up_totals WHERE account = ? AND month = ? ORDER BY commodity"),
                    arguments: [account, month.description]
                ).map { row in try row.money(WealthColumns.amount, WealthColumns.commodity) }
            }
            // The month's round-up rows, read by the (account, effective_at) index.
            let first = calendar.startOfDay(month.firstDay).microsecondsSinceEpoch
            let last = min(calendar.endOfDay(month.lastDay), asOf ?? .latest).microsecondsSinceEpoch
            return try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT commodity, SUM(CASE kind WHEN 'round_up' THEN amount ELSE -amount END) AS amount FROM wealth_history
                    WHERE account = ? AND effective_at BETWEEN ? AND ? AND recorded_at <= ?
                      AND (kind = 'round_up' OR (kind = 'reversal' AND detail = 'round_up'))
                    GROUP BY commodity ORDER BY commodity
                    """),
                arguments: [account, first, last, (knownAt ?? .latest).microsecondsSinceEpoch]
            ).map { row in try row.money(WealthColumns.amount, WealthColumns.commodity) }
        }
    }

    /// One entry of a wealth account's history, by its sequence number, with the reversal
    /// that undid it (if any).
    ///
    /// ```swift
    /// let coffee = try ledger.wealthEntry(account: "main", sequence: 17)
    /// coffee.kind        // .purchase
    /// coffee.reversedBy  // nil, or the reversal's sequence number
    /// ```
    ///
    /// - Throws: ``LedgerError`` (`notFound`) for an account with no events or no such entry.
    public func wealthEntry(account: String, sequence: UInt64) throws -> WealthHistoryEntry {
        try read { db in
            try WealthQueries.requireAccount(account, db)
            guard let entry = try WealthQueries.entry(account, at: sequence, db) else {
                throw LedgerError(.notFound, "wealth account '\(account)' has no entry \(sequence); `tally wealth history --account \(account)` lists them")
            }
            return entry
        }
    }

    /// A page of a wealth account's history, newest first (by effective time, then sequence),
    /// now or as of a moment and as the ledger knew it then.
    ///
    /// ```swift
    /// let page = try ledger.wealthHistory(account: "main", filter: .spend, page: 1, pageSize: 20)
    /// for entry in page.entries { print(entry.kind, entry.amount, entry.spendChange) }
    /// let march = try ledger.wealthHistory(account: "main", asOf: ledger.calendar.endOfDay(march31))
    /// ```
    ///
    /// - Parameters:
    ///   - account: the wealth account.
    ///   - filter: all rows, those that changed Spend, those that changed Invest, or deposits.
    ///   - page: the page, from 1.
    ///   - pageSize: rows per page, 1 to ``wealthHistoryPageSizeLimit``; nil: the `page_size`
    ///     setting in force (``pageSize(_:asOf:knownAt:)``).
    ///   - asOf: list only events effective at or before this instant (default: all).
    ///   - knownAt: list only events the ledger had recorded by this instant (default: all).
    /// - Throws: ``LedgerError`` (`invalidArgument`) for a bad page or size, (`notFound`) for
    ///   an account with no events.
    public func wealthHistory(
        account: String, filter: WealthHistoryFilter = .all, page: Int = 1, pageSize requested: Int? = nil,
        asOf: Instant? = nil, knownAt: Instant? = nil
    ) throws -> WealthHistoryPage {
        try ListPage.check(page: page, pageSize: requested)
        let now = self.now
        return try read { db in
            try WealthQueries.requireAccount(account, db)
            let pageSize = try LedgerSettings.pageSize(requested, at: PointInTime(asOf: asOf ?? now, knownAt: knownAt), db)
            let condition = WealthQueries.condition(filter)
            let bounds = "effective_at <= ? AND recorded_at <= ?"
            let effective = (asOf ?? .latest).microsecondsSinceEpoch
            let recorded = (knownAt ?? .latest).microsecondsSinceEpoch
            let total = try Int.fetchOne(
                db.cachedStatement(sql: "SELECT COUNT(*) FROM wealth_history WHERE account = ? AND \(bounds) AND \(condition)"),
                arguments: [account, effective, recorded]) ?? 0
            let (offset, overflow) = (page - 1).multipliedReportingOverflow(by: pageSize)
            guard !overflow, offset < total else {
                return WealthHistoryPage(entries: [], page: page, pageSize: pageSize, totalCount: total)
            }
            let rows = try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT *, (SELECT MIN(r.sequence) FROM wealth_history r WHERE r.reverses = wealth_history.sequence AND r.recorded_at <= ?) AS reversed_by
                    FROM wealth_history WHERE account = ? AND \(bounds) AND \(condition)
                    ORDER BY effective_at DESC, sequence DESC LIMIT ? OFFSET ?
                    """),
                arguments: [recorded, account, effective, recorded, pageSize, offset]
            )
            return WealthHistoryPage(entries: try rows.map(WealthQueries.entry), page: page, pageSize: pageSize, totalCount: total)
        }
    }
}

/// The state a wealth command validates against, and the queries behind the public answers.
enum WealthQueries {
    /// A deposit received and not yet split.
    struct UnsplitDeposit {
        let sequence: UInt64
        let amount: Money
        let effectiveAt: Instant
    }

    /// A wealth account's settings at a moment; the defaults for an account with no events.
    struct Settings {
        var splitRule = WealthRules.defaultSplitRule
        var roundUpsEnabled = WealthRules.defaultRoundUpsEnabled
        var isPaused = false
        var cardFrozen = false

        /// Takes a change of `setting` (a row of `wealth_setting_changes`, from the statement
        /// or the group's memo) as the one in force.
        /// - Throws: ``StoreError`` (`readModelsDisagree`) when the row lacks its setting's value.
        mutating func apply(_ setting: WealthProjector.Setting, enabled: Int64?, spendWeight: Int64?, investWeight: Int64?) throws {
            switch setting {
            case .splitRule: splitRule = SplitRule(spendWeight: try required(spendWeight), investWeight: try required(investWeight))
            case .roundUps: roundUpsEnabled = try required(enabled) != 0
            case .paused: isPaused = try required(enabled) != 0
            case .cardFrozen: cardFrozen = try required(enabled) != 0
            }
        }
    }

    /// The settings in force now: each setting's change latest in effective time.
    static func settings(_ account: String, _ db: Database) throws -> Settings {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM wealth_accounts WHERE account = ?"), arguments: [account]) else {
            return Settings()
        }
        return Settings(
            splitRule: SplitRule(spendWeight: row[WealthColumns.spendWeight], investWeight: row[WealthColumns.investWeight]),
            roundUpsEnabled: row[WealthColumns.roundUps], isPaused: row[WealthColumns.paused], cardFrozen: row[WealthColumns.cardFrozen]
        )
    }

    /// The settings in force at `asOf` as the ledger knew them at `knownAt`: each setting's
    /// latest change effective by then (the defaults before the first). With `sequence`, the
    /// settings an event of that sequence number met: a change effective at the same instant
    /// counts only when recorded before it.
    static func settings(
        _ account: String, asOf: Instant, knownAt: Instant = .latest, before sequence: UInt64? = nil, _ db: Database
    ) throws -> Settings {
        var settings = Settings()
        let before = sequence.map { Int64($0) } ?? Int64.max
        if let changes = try WealthSettingChanges.changes(of: account, db) {
            // The latest change of each setting, by effective time then sequence, as the statement below picks it.
            var latest: [WealthProjector.Setting: WealthSettingChanges.Change] = [:]
            for change in changes
            where change.effectiveAt <= asOf.microsecondsSinceEpoch && change.recordedAt <= knownAt.microsecondsSinceEpoch
                && (change.effectiveAt < asOf.microsecondsSinceEpoch || change.sequence < before) {
                if let found = latest[change.setting], (found.effectiveAt, found.sequence) > (change.effectiveAt, change.sequence) { continue }
                latest[change.setting] = change
            }
            for change in latest.values {
                try settings.apply(change.setting, enabled: change.enabled, spendWeight: change.spendWeight, investWeight: change.investWeight)
            }
            return settings
        }
        // Asked for every deposit and purchase a command plans outside a write group: through the C API.
        let statement = RawStatement(try db.cachedStatement(sql: settingsInForceSQL))
        statement.bind(1, account)
        statement.bind(2, asOf.microsecondsSinceEpoch)
        statement.bind(3, knownAt.microsecondsSinceEpoch)
        statement.bind(4, before)
        try statement.forEachRow(db) { row in
            // The statement selects no other setting.
            guard let setting = WealthProjector.Setting(rawValue: String(decoding: row.text(0), as: UTF8.self)) else { return }
            try settings.apply(setting, enabled: row.integer(1), spendWeight: row.integer(2), investWeight: row.integer(3))
        }
        return settings
    }

    /// A value a setting change's row must hold.
    /// - Throws: ``StoreError`` (`readModelsDisagree`) when it is NULL: a damaged read model.
    fileprivate static func required(_ value: Int64?) throws -> Int64 {
        guard let value else {
            throw StoreError(.readModelsDisagree, "a row of wealth_setting_changes lacks the value of its setting; run `tally rebuild`")
        }
        return value
    }

    /// Each setting's latest change by a point in time, in one statement for all of them (a
    /// command reads them for every deposit and purchase it plans), spelled once: a search of
    /// the index per setting, each taking its row at once (half the time of picking the four
    /// sequence numbers first and then their rows).
    private static let settingsInForceSQL = WealthProjector.Setting.allCases.map { setting in
        """
        SELECT * FROM (SELECT setting, enabled, spend_weight, invest_weight FROM wealth_setting_changes
            WHERE account = ?1 AND setting = '\(setting.rawValue)' AND effective_at <= ?2 AND recorded_at <= ?3
              AND (effective_at < ?2 OR sequence < ?4)
            ORDER BY effective_at DESC, sequence DESC LIMIT 1)
        """
    }.joined(separator: " UNION ALL ")

    /// When `setting` next changes after `instant` (effective time), if it does: the end of
    /// the span a change at `instant` would govern.
    /// With `to`: the next change that switches the setting to that value.
    static func nextChange(
        _ account: String, _ setting: WealthProjector.Setting, after instant: Instant, to value: Bool? = nil, _ db: Database
    ) throws -> Instant? {
        try Int64.fetchOne(
            db.cachedStatement(sql: """
                SELECT effective_at FROM wealth_setting_changes
                WHERE account = ? AND setting = ? AND effective_at > ? AND (? IS NULL OR enabled = ?)
                ORDER BY effective_at, sequence LIMIT 1
                """),
            arguments: [account, setting.rawValue, instant.microsecondsSinceEpoch, value, value]
        ).map(Instant.init(microsecondsSinceEpoch:))
    }

    /// The history rows of `kinds` effective after `start` to `end` (exclusive; nil: no end),
    /// earliest first, leaving out those reversed (they no longer count): the decisions already recorded that a backdated change of a setting
    /// at `start` would govern (those at `start` itself were recorded before it, so precede it).
    static func entries(
        _ account: String, _ kinds: [WealthHistoryEntry.Kind], after start: Instant, before end: Instant?, _ db: Database
    ) throws -> [WealthHistoryEntry] {
        let placeholders = Array(repeating: "?", count: kinds.count).joined(separator: ", ")
        var arguments: StatementArguments = [account, start.microsecondsSinceEpoch, (end ?? .latest).microsecondsSinceEpoch]
        arguments += StatementArguments(kinds.map(\.rawValue))
        return try Row.fetchAll(
            db.cachedStatement(sql: """
                SELECT * FROM wealth_history
                WHERE account = ? AND effective_at > ? AND effective_at < ? AND kind IN (\(placeholders))
                  AND NOT EXISTS (SELECT 1 FROM wealth_history r WHERE r.reverses = wealth_history.sequence)
                ORDER BY effective_at, sequence
                """),
            arguments: arguments
        ).map(entry)
    }

    /// The round-up increment of `currency` in force at `asOf` as known at `knownAt`: the
    /// `round_up_increment_set` latest in effective time by then (the later recorded on a tie;
    /// with `sequence`, one effective at `asOf` itself counts only when recorded before it),
    /// else the default of ``WealthRules/defaultRoundUpIncrement(for:)``.
    static func roundUpIncrement(
        _ currency: Commodity, asOf: Instant, knownAt: Instant = .latest, before sequence: UInt64? = nil, _ db: Database
    ) throws -> RoundUpIncrement {
        let row = try Row.fetchOne(
            db.cachedStatement(sql: """
                SELECT effective_at, increment FROM wealth_round_up_increments
                WHERE commodity = ?1 AND effective_at <= ?2 AND recorded_at <= ?3 AND (effective_at < ?2 OR sequence < ?4)
                ORDER BY effective_at DESC, sequence DESC LIMIT 1
                """),
            arguments: [currency.code, asOf.microsecondsSinceEpoch, knownAt.microsecondsSinceEpoch, sequence.map { Int64($0) } ?? Int64.max]
        )
        guard let row else {
            return RoundUpIncrement(currency: currency, increment: WealthRules.defaultRoundUpIncrement(for: currency), since: nil)
        }
        let increment = (row[WealthIncrementColumns.increment] as Int64?).map { Money(minorUnits: $0, commodity: currency) }
        return RoundUpIncrement(currency: currency, increment: increment, since: row.instant(WealthColumns.effectiveAt))
    }

    /// When the round-up increment of `currency` next changes after `instant`, if it does.
    static func nextIncrementChange(_ currency: Commodity, after instant: Instant, _ db: Database) throws -> Instant? {
        try Int64.fetchOne(
            db.cachedStatement(sql: """
                SELECT effective_at FROM wealth_round_up_increments WHERE commodity = ? AND effective_at > ?
                ORDER BY effective_at, sequence LIMIT 1
                """),
            arguments: [currency.code, instant.microsecondsSinceEpoch]
        ).map(Instant.init(microsecondsSinceEpoch:))
    }

    /// The purchases in `currency` of every wealth account effective after `start` to `end`
    /// (exclusive; nil: no end), earliest first, leaving out those reversed.
    static func purchases(in currency: Commodity, after start: Instant, before end: Instant?, _ db: Database) throws -> [WealthHistoryEntry] {
        try Row.fetchAll(
            db.cachedStatement(sql: """
                SELECT * FROM wealth_history
                WHERE kind = 'purchase' AND commodity = ? AND effective_at > ? AND effective_at < ?
                  AND NOT EXISTS (SELECT 1 FROM wealth_history r WHERE r.reverses = wealth_history.sequence)
                ORDER BY effective_at, sequence
                """),
            arguments: [currency.code, start.microsecondsSinceEpoch, (end ?? .latest).microsecondsSinceEpoch]
        ).map(entry)
    }

    /// The wealth account of the history row at `sequence`.
    static func account(of sequence: UInt64, _ db: Database) throws -> String {
        guard let account = try String.fetchOne(
            db.cachedStatement(sql: "SELECT account FROM wealth_history WHERE sequence = ?"), arguments: [Int64(sequence)]
        ) else {
            throw LedgerError(.inconsistentLog, "the wealth history has no row \(sequence)")
        }
        return account
    }

    /// The history rows caused by the event at `sequence` (a deposit's split, a purchase's round-up).
    static func consequences(of sequence: UInt64, _ db: Database) throws -> [WealthHistoryEntry] {
        try Row.fetchAll(
            db.cachedStatement(sql: "SELECT * FROM wealth_history WHERE cause = ? ORDER BY sequence"),
            arguments: [Int64(sequence)]
        ).map(entry)
    }

    /// The history row of the event at `sequence`, if it is one of `account`'s.
    static func entry(_ account: String, at sequence: UInt64, _ db: Database) throws -> WealthHistoryEntry? {
        try Row.fetchOne(
            db.cachedStatement(sql: """
                SELECT *, (SELECT MIN(r.sequence) FROM wealth_history r WHERE r.reverses = wealth_history.sequence) AS reversed_by
                FROM wealth_history WHERE account = ? AND sequence = ?
                """),
            arguments: [account, Int64(sequence)]
        ).map(entry)
    }

    /// The reversal of the entry at `sequence`, if it was reversed.
    static func reversal(of sequence: UInt64, _ db: Database) throws -> WealthHistoryEntry? {
        try Row.fetchOne(
            db.cachedStatement(sql: "SELECT * FROM wealth_history WHERE reverses = ? ORDER BY sequence LIMIT 1"),
            arguments: [Int64(sequence)]
        ).map(entry)
    }

    /// The deposits waiting to be split, in the order they were recorded.
    static func unsplitDeposits(_ account: String, _ db: Database) throws -> [UnsplitDeposit] {
        try Row.fetchAll(
            db.cachedStatement(sql: "SELECT * FROM wealth_unsplit_deposits WHERE account = ? ORDER BY sequence"), arguments: [account]
        ).map { row in
            UnsplitDeposit(
                sequence: row.sequence(WealthColumns.sequence),
                amount: try row.money(WealthColumns.amount, WealthColumns.commodity),
                effectiveAt: row.instant(WealthColumns.effectiveAt)
            )
        }
    }

    static func requireAccount(_ account: String, _ db: Database) throws {
        guard try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM wealth_accounts WHERE account = ?"), arguments: [account]) != nil else {
            throw LedgerError(.notFound, "there is no wealth account '\(account)'; its first deposit creates it")
        }
    }

    static func currentSummary(_ account: String, incrementsAt: Instant, _ db: Database) throws -> WealthSummary {
        let settings = try settings(account, db)
        let unsplit = try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM wealth_unsplit_deposits WHERE account = ?"), arguments: [account]) ?? 0
        try BalanceQueries.writeHeld(db)  // a plan's summary sees the balances its group holds
        let rows = try Row.fetchAll(
            db.cachedStatement(sql: "SELECT account, commodity, amount FROM balances WHERE account IN (?, ?, ?)"),
            arguments: [LedgerAccounts.wallet(account), LedgerAccounts.spend(account), LedgerAccounts.invest(account)]
        )
        return WealthSummary(
            account: account, balances: try balances(
                account, rows.map { ($0[WealthColumns.account], $0[WealthColumns.commodity], $0[WealthColumns.amount]) },
                incrementsAt: incrementsAt, knownAt: .latest, db),
            status: WealthRules.status(isPaused: settings.isPaused, hasUnsplitDeposits: unsplit > 0),
            splitRule: settings.splitRule, roundUpsEnabled: settings.roundUpsEnabled, cardFrozen: settings.cardFrozen,
            unsplitDepositCount: unsplit
        )
    }

    /// Whether the account's state at `asOf` (knowing everything) is its current state: nothing
    /// of it (an entry or a setting change) is effective after `asOf`. Two index look-ups;
    /// the usual read ("as of the end of today") then costs what the current summary costs,
    /// not a scan of every deposit.
    static func isCurrent(_ account: String, at asOf: Instant, _ db: Database) throws -> Bool {
        let latestEntry = try Int64.fetchOne(db.cachedStatement(sql: "SELECT MAX(effective_at) FROM wealth_history WHERE account = ?"), arguments: [account])
        let latestSetting = try Int64.fetchOne(db.cachedStatement(sql: "SELECT MAX(effective_at) FROM wealth_setting_changes WHERE account = ?"), arguments: [account])
        return max(latestEntry ?? Int64.min, latestSetting ?? Int64.min) <= asOf.microsecondsSinceEpoch
    }

    /// The summary from postings and setting changes effective by `asOf` and recorded by `knownAt`.
    static func summary(_ account: String, asOf: Instant, knownAt: Instant, _ db: Database) throws -> WealthSummary {
        let effective = asOf.microsecondsSinceEpoch
        let recorded = knownAt.microsecondsSinceEpoch
        let sums = try PostingSums.sums(
            of: .named([LedgerAccounts.wallet(account), LedgerAccounts.spend(account), LedgerAccounts.invest(account)]),
            effectiveThrough: effective, recordedThrough: recorded, db)
        let settings = try settings(account, asOf: asOf, knownAt: knownAt, db)
        let unsplit = try unsplitDepositCount(account, asOf: asOf, knownAt: knownAt, db)
        return WealthSummary(
            account: account, balances: try balances(account, sums, incrementsAt: asOf, knownAt: knownAt, db),
            status: WealthRules.status(isPaused: settings.isPaused, hasUnsplitDeposits: unsplit > 0),
            splitRule: settings.splitRule, roundUpsEnabled: settings.roundUpsEnabled, cardFrozen: settings.cardFrozen,
            unsplitDepositCount: unsplit
        )
    }

    /// Rows of (account, commodity, amount) for the wallet, Spend and Invest, per currency.
    private static func balances(
        _ account: String, _ rows: [(account: String, commodity: String, amount: Int64)], incrementsAt: Instant, knownAt: Instant, _ db: Database
    ) throws -> [WealthBalance] {
        var amounts: [String: (wallet: Int64, spend: Int64, invest: Int64)] = [:]
        for row in rows {
            let code = row.commodity
            let amount = row.amount
            var entry = amounts[code] ?? (0, 0, 0)
            switch row.account {
            case LedgerAccounts.spend(account): entry.spend = amount
            case LedgerAccounts.invest(account): entry.invest = amount
            default: entry.wallet = amount
            }
            amounts[code] = entry
        }
        return try amounts.keys.sorted().map { code in
            let commodity = try Commodity.named(code)
            let entry = amounts[code]!
            let wallet = Money(minorUnits: entry.wallet, commodity: commodity)
            let spend = Money(minorUnits: entry.spend, commodity: commodity)
            let invest = Money(minorUnits: entry.invest, commodity: commodity)
            return WealthBalance(
                commodity: commodity, wallet: wallet, spend: spend, invest: invest,
                total: try wallet.adding(spend).adding(invest),
                roundUpIncrement: try roundUpIncrement(commodity, asOf: incrementsAt, knownAt: knownAt, db).increment
            )
        }
    }

    /// The SQL condition of a history filter (a closed set: never built from input).
    static func condition(_ filter: WealthHistoryFilter) -> String {
        switch filter {
        case .all: "1"
        case .spend: "spend_delta != 0"
        case .invest: "invest_delta != 0"
        case .deposits: "(kind = 'deposit' OR (kind = 'reversal' AND detail = 'deposit'))"
        }
    }

    static func entry(_ row: Row) throws -> WealthHistoryEntry {
        let commodity = try Commodity.named(row[WealthColumns.commodity])
        let kindName: String = row[WealthColumns.kind]
        guard let kind = WealthHistoryEntry.Kind(rawValue: kindName) else {
            throw LedgerError(.inconsistentLog, "the wealth history holds a row of kind '\(kindName)', which no event writes")
        }
        return WealthHistoryEntry(
            sequence: row.sequence(WealthColumns.sequence),
            effectiveAt: row.instant(WealthColumns.effectiveAt),
            recordedAt: row.instant(WealthColumns.recordedAt),
            kind: kind,
            amount: Money(minorUnits: row[WealthColumns.amount], commodity: commodity),
            spendChange: Money(minorUnits: row[WealthColumns.spendDelta], commodity: commodity),
            investChange: Money(minorUnits: row[WealthColumns.investDelta], commodity: commodity),
            cause: (row[WealthColumns.cause] as Int64?).map { UInt64($0) },
            detail: row[WealthColumns.detail],
            reverses: (row[WealthColumns.reverses] as Int64?).map { UInt64($0) },
            reversedBy: row.hasColumn("reversed_by") ? (row[WealthColumns.reversedBy] as Int64?).map { UInt64($0) } : nil
        )
    }
}

/// The columns of `wealth_round_up_increments` not shared with the other wealth tables.
enum WealthIncrementColumns {
    static let increment = Column("increment")
}
