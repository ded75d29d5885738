public import TallyEngine
// Events of the automated wealth account (docs/domain.md §1): deposits split between Spend and
// Invest, round-ups, card purchases and withdrawals. The entity is `wealth:<account>`.

/// Where a deposit came from.
public enum DepositSource: String, EventEnumeration {
    /// A bank transfer in a fiat currency (USD, GBP, …).
    case bankTransfer = "bank_transfer"
    /// A stablecoin transfer from a chain (USDC).
    case chain
}

/// Money arrived in the wealth account's wallet, not yet split.
///
/// Version 2 added ``source``; version 1 events read as bank transfers.
public struct DepositReceived: EventPayload {
    public static let eventType = EventType("deposit_received", code: 20, version: 2)
    public static var legacyVersions: [any LegacyEventPayload.Type] { [DepositReceivedV1.self] }
    /// The wealth account whose wallet the money arrived in, e.g. `main`.
    public var account: String
    /// Positive.
    public var amount: Money
    /// How the money arrived: a bank transfer or a transfer on a chain.
    public var source: DepositSource
    /// The bank's or the chain's transaction id.
    public var externalId: String?

    /// Money arriving in the wallet of `account`, not yet split.
    ///
    /// - Parameters:
    ///   - account: the wealth account, e.g. `main`.
    ///   - amount: positive, in the currency it arrived in (USD, GBP, USDC …).
    ///   - source: a bank transfer or a chain.
    ///   - externalId: the bank's or the chain's transaction id; nil when there is none.
    public init(account: String, amount: Money, source: DepositSource, externalId: String? = nil) {
        self.account = account
        self.amount = amount
        self.source = source
        self.externalId = externalId
    }

    public var entity: String { "wealth:\(account)" }
}

extension DepositReceived: ExampleProviding {
    public static var example: DepositReceived {
        get throws {
            try DepositReceived(
                account: "main", amount: Money(parsing: "250.000000", commodity: .usdc), source: .chain,
                externalId: "0x9f2c4be1d7a3e5f60b8c1d2e3f405162738495a6b7c8d9e0f1a2b3c4d5e6f708"
            )
        }
    }
}

/// `deposit_received` version 1, before deposits recorded their source.
public struct DepositReceivedV1: LegacyEventPayload, Hashable {
    public static let version: UInt16 = 1
    /// The wealth account whose wallet the money arrived in.
    public var account: String
    /// Positive.
    public var amount: Money
    /// The bank's transaction id.
    public var externalId: String?

    /// A version 1 deposit, as an old log holds it; ``upcastBody()`` reads it as a bank transfer.
    public init(account: String, amount: Money, externalId: String? = nil) {
        self.account = account
        self.amount = amount
        self.externalId = externalId
    }

    /// Version 1 knew only bank transfers.
    public func upcastBody() -> EventBody {
        EventBody(DepositReceived(account: account, amount: amount, source: .bankTransfer, externalId: externalId))
    }
}

extension DepositReceivedV1: ExampleProviding {
    public static var example: DepositReceivedV1 {
        get throws {
            try DepositReceivedV1(
                account: "main", amount: Money(parsing: "100.00", commodity: .usd), externalId: "bank:tx-88"
            )
        }
    }
}

/// A deposit was split between Spend and Invest by the rule in force when it arrived.
/// Its cause is the deposit; `spend + invest` equals the deposit to the last minor unit.
public struct DepositSplit: EventPayload {
    public static let eventType = EventType("deposit_split", code: 21)
    /// The wealth account whose wallet held the deposit.
    public var account: String
    /// The part moved from the wallet to Spend: zero or positive, in the deposit's currency.
    public var spend: Money
    /// The part moved from the wallet to Invest: zero or positive, in the deposit's currency.
    public var invest: Money
    /// Spend's weight in the rule applied (70 by default).
    public var spendWeight: Int64
    /// Invest's weight in the rule applied (30 by default).
    public var investWeight: Int64

    /// The split of one deposit; record it with the deposit as its cause.
    ///
    /// - Parameters:
    ///   - account: the wealth account.
    ///   - spend: Spend's part; with `invest`, the whole deposit.
    ///   - invest: Invest's part.
    ///   - spendWeight: Spend's weight in the rule applied.
    ///   - investWeight: Invest's weight in the rule applied.
    public init(account: String, spend: Money, invest: Money, spendWeight: Int64, investWeight: Int64) {
        self.account = account
        self.spend = spend
        self.invest = invest
        self.spendWeight = spendWeight
        self.investWeight = investWeight
    }

    public var entity: String { "wealth:\(account)" }
}

extension DepositSplit: ExampleProviding {
    public static var example: DepositSplit {
        get throws {
            try DepositSplit(
                account: "main", spend: Money(parsing: "70.00", commodity: .usd),
                invest: Money(parsing: "30.00", commodity: .usd), spendWeight: 70, investWeight: 30
            )
        }
    }
}

/// The split rule changed; deposits from now on use it, earlier ones keep theirs.
public struct SplitRuleSet: EventPayload {
    public static let eventType = EventType("split_rule_set", code: 22)
    /// The wealth account whose rule changed.
    public var account: String
    /// Spend's weight in the new rule, relative to Invest's: 0 to 1,000,000.
    public var spendWeight: Int64
    /// Invest's weight in the new rule, relative to Spend's: 0 to 1,000,000; not both zero.
    public var investWeight: Int64

    /// A new split rule for `account`, for deposits that arrive from the event's effective time.
    public init(account: String, spendWeight: Int64, investWeight: Int64) {
        self.account = account
        self.spendWeight = spendWeight
        self.investWeight = investWeight
    }

    public var entity: String { "wealth:\(account)" }
}

extension SplitRuleSet: ExampleProviding {
    public static var example: SplitRuleSet {
        SplitRuleSet(account: "main", spendWeight: 60, investWeight: 40)
    }
}

/// Round-ups were switched on or off.
public struct RoundUpsSwitched: EventPayload {
    public static let eventType = EventType("round_ups_switched", code: 23)
    /// The wealth account.
    public var account: String
    /// True: purchases from now on round up into Invest; false: they do not.
    public var enabled: Bool

    /// Round-ups of `account` switched on (`enabled` true) or off.
    public init(account: String, enabled: Bool) {
        self.account = account
        self.enabled = enabled
    }

    public var entity: String { "wealth:\(account)" }
}

extension RoundUpsSwitched: ExampleProviding {
    public static var example: RoundUpsSwitched {
        RoundUpsSwitched(account: "main", enabled: true)
    }
}

/// The user paused automation: deposits stay unsplit in the wallet until resumed.
public struct AutomationPaused: EventPayload {
    public static let eventType = EventType("automation_paused", code: 24)
    /// The wealth account whose automation paused.
    public var account: String

    /// Automation of `account` paused.
    public init(account: String) { self.account = account }

    public var entity: String { "wealth:\(account)" }
}

extension AutomationPaused: ExampleProviding {
    public static var example: AutomationPaused {
        AutomationPaused(account: "main")
    }
}

/// The user resumed automation.
public struct AutomationResumed: EventPayload {
    public static let eventType = EventType("automation_resumed", code: 25)
    /// The wealth account whose automation resumed.
    public var account: String

    /// Automation of `account` resumed.
    public init(account: String) { self.account = account }

    public var entity: String { "wealth:\(account)" }
}

extension AutomationResumed: ExampleProviding {
    public static var example: AutomationResumed {
        AutomationResumed(account: "main")
    }
}

/// The card was frozen: purchases are refused until it is unfrozen.
public struct CardFrozen: EventPayload {
    public static let eventType = EventType("card_frozen", code: 26)
    /// The wealth account whose card was frozen.
    public var account: String

    /// The card of `account` frozen.
    public init(account: String) { self.account = account }

    public var entity: String { "wealth:\(account)" }
}

extension CardFrozen: ExampleProviding {
    public static var example: CardFrozen {
        CardFrozen(account: "main")
    }
}

/// The card was unfrozen.
public struct CardUnfrozen: EventPayload {
    public static let eventType = EventType("card_unfrozen", code: 27)
    /// The wealth account whose card was unfrozen.
    public var account: String

    /// The card of `account` unfrozen.
    public init(account: String) { self.account = account }

    public var entity: String { "wealth:\(account)" }
}

extension CardUnfrozen: ExampleProviding {
    public static var example: CardUnfrozen {
        CardUnfrozen(account: "main")
    }
}

/// A card purchase, paid from Spend.
public struct PurchaseMade: SealsPersonalText {
    public static let eventType = EventType("purchase_made", code: 28, version: 2)
    /// Version 1 stored personal text as plain strings.
    public static var legacyVersions: [any LegacyEventPayload.Type] { [PlainTextVersion<PurchaseMade>.self] }
    /// The fields sealed per subject in the log.
    public static let personalTextFields: [String: PersonalTextSealing] = ["merchant": .payee]
    /// The wealth account whose Spend paid.
    public var account: String
    /// Positive.
    public var amount: Money
    /// Who was paid; not empty.
    public var merchant: String
    /// The card network's transaction id; nil when there is none.
    public var externalId: String?

    /// A card purchase of `amount` from the Spend of `account`.
    ///
    /// - Parameters:
    ///   - account: the wealth account.
    ///   - amount: positive, in the currency of the Spend balance that pays it.
    ///   - merchant: who was paid.
    ///   - externalId: the card network's transaction id; nil when there is none.
    public init(account: String, amount: Money, merchant: String, externalId: String? = nil) {
        self.account = account
        self.amount = amount
        self.merchant = merchant
        self.externalId = externalId
    }

    public var entity: String { "wealth:\(account)" }
}

extension PurchaseMade: ExampleProviding {
    public static var example: PurchaseMade {
        get throws {
            try PurchaseMade(
                account: "main", amount: Money(parsing: "3.40", commodity: .usd),
                merchant: "Blue Bottle Coffee, Oakland", externalId: "card-auth-55102"
            )
        }
    }
}

/// A purchase's round-up moved from Spend to Invest. Its cause is the purchase.
public struct RoundUpApplied: EventPayload {
    public static let eventType = EventType("round_up_applied", code: 29)
    /// The wealth account.
    public var account: String
    /// Positive, in the purchase's currency: the next whole unit minus the purchase amount (0.60 for 3.40).
    public var amount: Money

    /// A round-up of `amount` moved from Spend to Invest of `account`; record it with the purchase as its cause.
    public init(account: String, amount: Money) {
        self.account = account
        self.amount = amount
    }

    public var entity: String { "wealth:\(account)" }
}

extension RoundUpApplied: ExampleProviding {
    public static var example: RoundUpApplied {
        get throws {
            try RoundUpApplied(account: "main", amount: Money(parsing: "0.60", commodity: .usd))
        }
    }
}

/// A round-up was skipped whole because Spend could not cover it. Its cause is the purchase.
public struct RoundUpSkipped: EventPayload {
    public static let eventType = EventType("round_up_skipped", code: 30)
    /// The wealth account.
    public var account: String
    /// What the round-up would have been.
    public var amount: Money

    /// A round-up of `amount` skipped; record it with the purchase as its cause.
    public init(account: String, amount: Money) {
        self.account = account
        self.amount = amount
    }

    public var entity: String { "wealth:\(account)" }
}

extension RoundUpSkipped: ExampleProviding {
    public static var example: RoundUpSkipped {
        get throws {
            try RoundUpSkipped(account: "main", amount: Money(parsing: "0.25", commodity: .gbp))
        }
    }
}

/// The round-up increment of one currency, for every wealth account, from the event's
/// effective time until the next change by date (docs/domain.md §1, "Round-ups"): a purchase
/// rounds up to the next multiple of it. Without one, the default of
/// ``WealthRules/defaultRoundUpIncrement(for:)`` holds.
public struct RoundUpIncrementSet: EventPayload {
    public static let eventType = EventType("round_up_increment_set", code: 135)
    /// The currency the increment is for.
    public var currency: Commodity
    /// Positive, in ``currency`` (1.00 USD, 100 JPY, 0.001 BTC); absent: purchases in this
    /// currency round up by nothing, and each such round-up is recorded as not defined.
    public var increment: Money?

    /// Purchases in `currency` round up to multiples of `increment` (nil: not at all).
    public init(currency: Commodity, increment: Money?) {
        self.currency = currency
        self.increment = increment
    }

    public var entity: String { "round_up_increment:\(currency.code)" }
}

extension RoundUpIncrementSet: ExampleProviding {
    public static var example: RoundUpIncrementSet {
        get throws {
            try RoundUpIncrementSet(currency: .jpy, increment: Money(parsing: "100", commodity: .jpy))
        }
    }
}

/// A purchase's round-up was not made because its currency has no round-up increment
/// (a crypto token, a currency without minor units, or one set to none). Its cause is the purchase.
public struct RoundUpNotDefined: EventPayload {
    public static let eventType = EventType("round_up_not_defined", code: 136)
    /// The wealth account.
    public var account: String
    /// The purchase's currency, which had no round-up increment on the purchase's day.
    public var currency: Commodity

    /// The round-up of a purchase in `currency` of `account` not made; record it with the purchase as its cause.
    public init(account: String, currency: Commodity) {
        self.account = account
        self.currency = currency
    }

    public var entity: String { "wealth:\(account)" }
}

extension RoundUpNotDefined: ExampleProviding {
    public static var example: RoundUpNotDefined {
        RoundUpNotDefined(account: "main", currency: .btc)
    }
}

/// Money withdrawn from Spend.
public struct WithdrawalMade: SealsPersonalText {
    public static let eventType = EventType("withdrawal_made", code: 31, version: 2)
    /// Version 1 stored personal text as plain strings.
    public static var legacyVersions: [any LegacyEventPayload.Type] { [PlainTextVersion<WithdrawalMade>.self] }
    /// The fields sealed per subject in the log.
    public static let personalTextFields: [String: PersonalTextSealing] = ["destination": .owner]
    /// The wealth account whose Spend the money left.
    public var account: String
    /// Positive.
    public var amount: Money
    /// Where the money went (a bank account, a wallet address …); nil when not given.
    public var destination: String?

    /// A withdrawal of `amount` from the Spend of `account`.
    ///
    /// - Parameters:
    ///   - account: the wealth account.
    ///   - amount: positive, in the currency of the Spend balance that pays it.
    ///   - destination: where the money went; nil when not given.
    public init(account: String, amount: Money, destination: String? = nil) {
        self.account = account
        self.amount = amount
        self.destination = destination
    }

    public var entity: String { "wealth:\(account)" }
}

extension WithdrawalMade: ExampleProviding {
    public static var example: WithdrawalMade {
        get throws {
            try WithdrawalMade(
                account: "main", amount: Money(parsing: "120.00", commodity: .gbp),
                destination: "GB29 NWBK 6016 1331 9268 19"
            )
        }
    }
}
