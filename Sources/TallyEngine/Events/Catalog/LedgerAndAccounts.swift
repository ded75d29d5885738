// Events about the ledger as a whole and its general double-entry accounts.

/// The kind of an account: the five of double-entry bookkeeping, plus the accounts the
/// products keep (wallet, spend and invest of the wealth account, pots, envelopes, and
/// `external` for money that leaves or enters the ledger's view).
public enum AccountKind: String, EventEnumeration {
    case asset, liability, income, expense, equity
    case wallet, spend, invest, pot, envelope, external
}

/// The ledger was set up: its display name, base currency and the time zone whose days
/// "as of a date" queries use.
public struct LedgerCreated: EventPayload {
    public static let eventType = EventType("ledger_created", code: 1)
    public var name: String
    public var baseCurrency: Commodity
    /// An IANA time zone identifier, e.g. `Europe/London`.
    public var timeZone: String

    public init(name: String, baseCurrency: Commodity, timeZone: String) {
        self.name = name
        self.baseCurrency = baseCurrency
        self.timeZone = timeZone
    }

    public var entity: String { "ledger" }
    public func encode(to writer: inout BinaryWriter) {
        writer.write(name); writer.write(baseCurrency); writer.write(timeZone)
    }
    public init(from reader: inout BinaryReader) throws {
        name = try reader.read(); baseCurrency = try reader.read(); timeZone = try reader.read()
    }
}

/// The base currency changed. Original amounts are kept; answers convert at the rate of
/// the date asked about, so switching back and forth never compounds rounding.
public struct BaseCurrencySet: EventPayload {
    public static let eventType = EventType("base_currency_set", code: 2)
    public var currency: Commodity

    public init(currency: Commodity) { self.currency = currency }

    public var entity: String { "ledger" }
    public func encode(to writer: inout BinaryWriter) { writer.write(currency) }
    public init(from reader: inout BinaryReader) throws { currency = try reader.read() }
}

/// An account was opened, optionally with an opening balance (booked against equity).
public struct AccountOpened: EventPayload {
    public static let eventType = EventType("account_opened", code: 3)
    /// The account's name, e.g. `Assets:Bank:Checking` or `Envelope accounts:Cash`.
    public var account: String
    public var kind: AccountKind
    public var commodity: Commodity
    public var openingBalance: Money?

    public init(account: String, kind: AccountKind, commodity: Commodity, openingBalance: Money? = nil) {
        self.account = account
        self.kind = kind
        self.commodity = commodity
        self.openingBalance = openingBalance
    }

    public var entity: String { "account:\(account)" }
    public func encode(to writer: inout BinaryWriter) {
        writer.write(account); writer.write(kind); writer.write(commodity); writer.write(openingBalance)
    }
    public init(from reader: inout BinaryReader) throws {
        account = try reader.read(); kind = try reader.read(); commodity = try reader.read()
        openingBalance = try reader.read()
    }
}

/// An account was closed; its history stays.
public struct AccountClosed: EventPayload {
    public static let eventType = EventType("account_closed", code: 4)
    public var account: String

    public init(account: String) { self.account = account }

    public var entity: String { "account:\(account)" }
    public func encode(to writer: inout BinaryWriter) { writer.write(account) }
    public init(from reader: inout BinaryReader) throws { account = try reader.read() }
}

/// A journal entry moved a signed amount into `account` out of `counterAccount`, as one
/// row of a journal CSV does.
public struct JournalEntryPosted: EventPayload {
    public static let eventType = EventType("journal_entry_posted", code: 5)
    public var account: String
    public var counterAccount: String
    /// Signed: positive moves money into `account`.
    public var amount: Money
    public var payee: String?
    /// Free text from the source journal (not the budget categories).
    public var category: String?
    /// The source's transaction id; a second entry with the same id is not recorded.
    public var externalId: String?

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
    public func encode(to writer: inout BinaryWriter) {
        writer.write(account); writer.write(counterAccount); writer.write(amount)
        writer.write(payee); writer.write(category); writer.write(externalId)
    }
    public init(from reader: inout BinaryReader) throws {
        account = try reader.read(); counterAccount = try reader.read(); amount = try reader.read()
        payee = try reader.read(); category = try reader.read(); externalId = try reader.read()
    }
}

/// Money moved between two of the user's accounts; across currencies, `received` is what
/// arrived in the target's currency.
public struct TransferMade: EventPayload {
    public static let eventType = EventType("transfer_made", code: 6)
    public var transferId: String
    public var source: String
    public var target: String
    /// Positive, in the source account's currency.
    public var amount: Money
    /// Positive, in the target account's currency, when it differs from the source's.
    public var received: Money?
    public var envelope: String?

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
    public func encode(to writer: inout BinaryWriter) {
        writer.write(transferId); writer.write(source); writer.write(target); writer.write(amount)
        writer.write(received); writer.write(envelope)
    }
    public init(from reader: inout BinaryReader) throws {
        transferId = try reader.read(); source = try reader.read(); target = try reader.read()
        amount = try reader.read(); received = try reader.read(); envelope = try reader.read()
    }
}

/// The user asserted an account's balance at the end of the effective day (as beancount's
/// `balance`); `verify` reports a failing assertion with the expected and actual amounts.
public struct BalanceAsserted: EventPayload {
    public static let eventType = EventType("balance_asserted", code: 7)
    public var account: String
    public var amount: Money

    public init(account: String, amount: Money) {
        self.account = account
        self.amount = amount
    }

    public var entity: String { "account:\(account)" }
    public func encode(to writer: inout BinaryWriter) { writer.write(account); writer.write(amount) }
    public init(from reader: inout BinaryReader) throws { account = try reader.read(); amount = try reader.read() }
}
