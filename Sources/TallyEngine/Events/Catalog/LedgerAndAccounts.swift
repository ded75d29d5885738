// Events about the ledger as a whole and its general double-entry accounts.

/// The kind of an account: the five of double-entry bookkeeping, plus the accounts the
/// products keep (wallet, spend and invest of the wealth account, pots, envelopes, and
/// `external` for money that leaves or enters the ledger's view).
public enum AccountKind: String, EventEnumeration {
    /// The five kinds of double-entry bookkeeping: `Assets:…`, `Liabilities:…`, `Income:…`,
    /// `Expenses:…` and `Equity:…` accounts.
    case asset, liability, income, expense, equity
    /// The accounts the products keep: the wealth account's wallet, Spend and Invest, savings
    /// pots, envelopes, and the outside world that money leaves to or enters from.
    case wallet, spend, invest, pot, envelope, external
}

/// The ledger was set up: its display name, base currency and the time zone whose days
/// "as of a date" queries use.
public struct LedgerCreated: SealsPersonalText {
    public static let eventType = EventType("ledger_created", code: 1, version: 2)
    /// Version 1 stored personal text as plain strings.
    public static var legacyVersions: [any LegacyEventPayload.Type] { [PlainTextVersion<LedgerCreated>.self] }
    /// The fields sealed per subject in the log.
    public static let personalTextFields: [String: PersonalTextSealing] = ["name": .owner]
    /// The ledger's display name.
    public var name: String
    /// The ISO 4217 currency net worth and market values are given in.
    public var baseCurrency: Commodity
    /// An IANA time zone identifier, e.g. `Europe/London`.
    public var timeZone: String

    /// The first event of every store; ``Ledger/create(at:name:baseCurrency:timeZone:options:)`` records it.
    public init(name: String, baseCurrency: Commodity, timeZone: String) {
        self.name = name
        self.baseCurrency = baseCurrency
        self.timeZone = timeZone
    }

    public var entity: String { "ledger" }
}

extension LedgerCreated: ExampleProviding {
    public static var example: LedgerCreated {
        LedgerCreated(name: "Household ledger", baseCurrency: .usd, timeZone: "Europe/London")
    }
}

/// The base currency changed. Original amounts are kept; answers convert at the rate of
/// the date asked about, so switching back and forth never compounds rounding.
public struct BaseCurrencySet: EventPayload {
    public static let eventType = EventType("base_currency_set", code: 2)
    /// The new base currency, an ISO 4217 currency.
    public var currency: Commodity

    /// A change of base currency, in force from the effective time.
    public init(currency: Commodity) { self.currency = currency }

    public var entity: String { "ledger" }
}

extension BaseCurrencySet: ExampleProviding {
    public static var example: BaseCurrencySet {
        BaseCurrencySet(currency: .gbp)
    }
}

/// An account was opened, optionally with an opening balance (booked against equity).
public struct AccountOpened: EventPayload {
    public static let eventType = EventType("account_opened", code: 3)
    /// The account's name, e.g. `Assets:Bank:Checking` or `Envelope accounts:Cash`.
    public var account: String
    /// The account's kind.
    public var kind: AccountKind
    /// The commodity the account is kept in.
    public var commodity: Commodity
    /// The balance the account opens with, posted against `Equity:Opening Balances`; nil for none.
    public var openingBalance: Money?

    /// An account opened, with an optional opening balance.
    public init(account: String, kind: AccountKind, commodity: Commodity, openingBalance: Money? = nil) {
        self.account = account
        self.kind = kind
        self.commodity = commodity
        self.openingBalance = openingBalance
    }

    public var entity: String { "account:\(account)" }
}

extension AccountOpened: ExampleProviding {
    public static var example: AccountOpened {
        get throws {
            try AccountOpened(
                account: "Assets:Bank:Checking", kind: .asset, commodity: .usd,
                openingBalance: Money(parsing: "2500.00", commodity: .usd)
            )
        }
    }
}

/// An account was closed; its history stays.
public struct AccountClosed: EventPayload {
    public static let eventType = EventType("account_closed", code: 4)
    /// The account's name.
    public var account: String

    /// An account closed.
    public init(account: String) { self.account = account }

    public var entity: String { "account:\(account)" }
}

extension AccountClosed: ExampleProviding {
    public static var example: AccountClosed {
        AccountClosed(account: "Assets:Bank:Old Savings")
    }
}

/// A journal entry moved a signed amount into `account` out of `counterAccount`, as one
/// row of a journal CSV does.
public struct JournalEntryPosted: SealsPersonalText {
    public static let eventType = EventType("journal_entry_posted", code: 5, version: 2)
    /// Version 1 stored personal text as plain strings.
    public static var legacyVersions: [any LegacyEventPayload.Type] { [PlainTextVersion<JournalEntryPosted>.self] }
    /// The fields sealed per subject in the log.
    public static let personalTextFields: [String: PersonalTextSealing] = ["payee": .payee, "category": .owner]
    /// The account that moves by ``amount``.
    public var account: String
    /// The account that moves by the opposite of ``amount``.
    public var counterAccount: String
    /// Signed: positive moves money into `account`.
    public var amount: Money
    /// Who was paid, or who paid, as the source journal names them.
    public var payee: String?
    /// Free text from the source journal (not the budget categories).
    public var category: String?
    /// The source's transaction id; a second entry with the same id is not recorded.
    public var externalId: String?

    /// An entry moving `amount` into `account` out of `counterAccount`.
    public init(
        account: String, counterAccount: String, amount: Money,
        payee: String? = nil, category: String? = nil, externalId: String? = nil
    ) {
        self.account = account
        self.counterAccount = counterAccount
        self.amount = amount
        self.payee = payee
        self.category = category
        self.externalId = externalId
    }

    public var entity: String { "account:\(account)" }
}

extension JournalEntryPosted {
    // The log form its `Codable` declaration derives (``BinaryPayloadEncoder`` and
    // ``BinaryPayloadDecoder``: fields in declaration order, optionals behind a 0/1 marker,
    // `payee` and `category` personal text), written and read field by field. A journal
    // import is a log of these: through the derived coders' containers (a box, a key and a
    // type check per field) they were most of the time a rebuild spends reading and 14 % of
    // an import's CPU (`perf record`, a million rows). The sealings below are those of
    // `personalTextFields`; `EventBinaryCodecTests` hold both ways to the derived coders,
    // bytes, record check and refusals alike.

    /// Writes the derived form, taking the record check's measures as the derived encoder does.
    public func encode(to writer: inout BinaryWriter) {
        writer.writeVouched { writer in
            writer.writeStringField(account)
            writer.writeStringField(counterAccount)
            writer.writeLeaf(amount)
            writer.writePersonalField(payee, sealing: .payee)
            writer.writePersonalField(category, sealing: .owner)
            writer.writeStringField(externalId)
        }
    }

    /// Reads the derived form.
    public init(from reader: inout BinaryReader) throws {
        account = try String(from: &reader)
        counterAccount = try String(from: &reader)
        amount = try Money(from: &reader)
        payee = try reader.readPersonalOptional()
        category = try reader.readPersonalOptional()
        externalId = try String?(from: &reader)
    }
}

extension JournalEntryPosted: ExampleProviding {
    public static var example: JournalEntryPosted {
        get throws {
            try JournalEntryPosted(
                account: "Expenses:Groceries", counterAccount: "Assets:Bank:Checking",
                amount: Money(parsing: "84.17", commodity: .usd), payee: "Trader Joe's #552",
                category: "Food:Groceries", externalId: "chk-2026-04-0193"
            )
        }
    }
}

/// Money moved between two of the user's accounts; across currencies, `received` is what
/// arrived in the target's currency.
public struct TransferMade: EventPayload {
    public static let eventType = EventType("transfer_made", code: 6)
    /// The transfer's id, unique in the ledger.
    public var transferId: String
    /// The account the money leaves.
    public var source: String
    /// The account the money arrives in.
    public var target: String
    /// Positive, in the source account's currency.
    public var amount: Money
    /// Positive, in the target account's currency, when it differs from the source's.
    public var received: Money?
    /// The envelope the transfer is counted against, if any.
    public var envelope: String?

    /// A transfer of `amount` from `source` to `target`; `received` when the currencies differ.
    public init(
        transferId: String, source: String, target: String, amount: Money,
        received: Money? = nil, envelope: String? = nil
    ) {
        self.transferId = transferId
        self.source = source
        self.target = target
        self.amount = amount
        self.received = received
        self.envelope = envelope
    }

    public var entity: String { "transfer:\(transferId)" }
}

extension TransferMade: ExampleProviding {
    public static var example: TransferMade {
        get throws {
            try TransferMade(
                transferId: "trf_7d1c2a90", source: "Assets:Bank:Checking", target: "Assets:Bank:UK Current",
                amount: Money(parsing: "1000.00", commodity: .usd),
                received: Money(parsing: "787.40", commodity: .gbp), envelope: "env_travel"
            )
        }
    }
}

/// The user asserted an account's balance at the end of the effective day (as beancount's
/// `balance`); `verify` reports a failing assertion with the expected and actual amounts.
public struct BalanceAsserted: EventPayload {
    public static let eventType = EventType("balance_asserted", code: 7)
    /// The account whose balance is asserted.
    public var account: String
    /// The balance it must have at the end of the effective day, in its commodity.
    public var amount: Money

    /// An assertion; ``Ledger/assertBalance(account:amount:on:idempotencyKey:)`` records one.
    public init(account: String, amount: Money) {
        self.account = account
        self.amount = amount
    }

    public var entity: String { "account:\(account)" }
}

extension BalanceAsserted: ExampleProviding {
    public static var example: BalanceAsserted {
        get throws {
            try BalanceAsserted(
                account: "Assets:Bank:Checking", amount: Money(parsing: "1415.83", commodity: .usd)
            )
        }
    }
}
