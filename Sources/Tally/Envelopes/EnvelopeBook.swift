/// An envelope's history: its creation and every change, with their times.
public struct EnvelopeRecord: Hashable, Sendable {
    /// A budgeted amount and interval in force from an instant on.
    public struct Setting: Hashable, Sendable {
        /// When it takes effect.
        public let effectiveAt: Instant
        /// The sequence number of the event that set it.
        public let sequence: UInt64
        /// The interval from then on.
        public let interval: EnvelopeInterval
        /// The budgeted amount per interval from then on.
        public let budgeted: Money
    }

    /// A dated change: a rollover policy or a funding.
    public struct Dated<Value: Hashable & Sendable>: Hashable, Sendable {
        /// When it takes effect.
        public let effectiveAt: Instant
        /// The sequence number of the event that set it.
        public let sequence: UInt64
        /// What was set.
        public let value: Value
    }

    /// The envelope's id.
    public let envelopeId: String
    /// Its display name.
    public let name: String
    /// The first day of its first interval.
    public let startDate: LocalDate
    /// When it was created (effective time).
    public let createdAt: Instant
    /// The creation's interval and budget first, then every change.
    public internal(set) var settings: [Setting]
    /// Rollover policies set, each from its effective time on.
    public internal(set) var policies: [Dated<RolloverPolicy>] = []
    /// Extra amounts assigned (`envelope_funded`).
    public internal(set) var fundings: [Dated<Money>] = []
    /// When it was deleted, if it was.
    public internal(set) var deletedAt: Instant?

    init(_ created: EnvelopeCreated, effectiveAt: Instant, sequence: UInt64) {
        envelopeId = created.envelopeId
        name = created.name
        startDate = created.startDate
        createdAt = effectiveAt
        settings = [Setting(effectiveAt: effectiveAt, sequence: sequence, interval: created.interval, budgeted: created.budgeted)]
    }

    init(envelopeId: String, name: String, startDate: LocalDate, createdAt: Instant, settings: [Setting]) {
        self.envelopeId = envelopeId
        self.name = name
        self.startDate = startDate
        self.createdAt = createdAt
        self.settings = settings
    }

    /// The currency the envelope's amounts are kept in: its budget's.
    public var commodity: Commodity { settings[0].budgeted.commodity }
}

/// Money that moved through an envelope: a transaction (signed, income positive) or a
/// transfer (its amount leaves the budget, so it counts negative).
public struct EnvelopeActivity: Hashable, Sendable {
    /// The envelope it is assigned to.
    public let envelopeId: String
    /// The sequence number of its event.
    public let sequence: UInt64
    /// When it happened.
    public let effectiveAt: Instant
    /// Signed, in the transaction's own currency.
    public let amount: Money
    /// The transaction's own rate: 1 unit of `amount`'s currency in `base`.
    public let rateToBase: ExactDecimal?
    /// The ledger's base currency when the transaction was recorded.
    public let base: Commodity
    /// For a cross-currency transfer, what the target received (signed like `amount`).
    public let received: Money?
}

/// A user account of the envelope product: one `account_opened` of kind asset or liability.
public struct EnvelopeAccount: Hashable, Sendable {
    /// The account's name.
    public let account: String
    /// Asset or liability.
    public let kind: AccountKind
    /// The account's currency.
    public let commodity: Commodity
    /// When it opened (effective time).
    public let openedAt: Instant
}

/// The state the envelope answers are computed from: envelopes, the money assigned to
/// them, exchange rates, base currencies and user accounts, each with its times.
///
/// The ledger loads it from the envelopes read model for events effective up to a date
/// (``EnvelopesProjector``); ``apply(_:)`` folds it from events, which is how a full replay
/// to a date computes the same answers. Both feed the same calculations
/// (``status(of:on:calendar:)``, ``spending(from:through:calendar:)``, ``total(balances:at:)``).
public struct EnvelopeBook: Sendable {
    /// Envelopes by id.
    public internal(set) var envelopes: [String: EnvelopeRecord] = [:]
    /// Money assigned to envelopes.
    public internal(set) var activity: [EnvelopeActivity] = []
    /// Exchange rates: `fx_rate_set` events and transactions' own rates.
    public internal(set) var quotes: [ExchangeQuote] = []
    /// Base currencies with the instant each came into force, in log order.
    public internal(set) var baseCurrencies: [EnvelopeRecord.Dated<Commodity>] = []
    /// User accounts by name.
    public internal(set) var accounts: [String: EnvelopeAccount] = [:]
    /// Balances of the user accounts, per commodity (kept by ``apply(_:)`` only).
    public internal(set) var balances: [String: [Commodity: Int64]] = [:]

    /// An empty book.
    public init() {}

    /// The base currency most recently set (USD before any event).
    var currentBase: Commodity { baseCurrencies.last?.value ?? .usd }

    /// The base currency in force at an instant.
    public func baseCurrency(at instant: Instant) -> Commodity {
        baseCurrencies.filter { $0.effectiveAt <= instant }
            .max { ($0.effectiveAt, $0.sequence) < ($1.effectiveAt, $1.sequence) }?.value ?? currentBase
    }

    // MARK: Fold

    /// Folds one event: the replay of the envelope product's state. Never validates.
    ///
    /// - Throws: ``MoneyError`` on overflow of an account balance.
    public mutating func apply(_ event: Event) throws {
        let at = event.effectiveAt
        let sequence = event.sequence
        switch event.body {
        case .ledgerCreated(let created):
            baseCurrencies.append(.init(effectiveAt: at, sequence: sequence, value: created.baseCurrency))
        case .baseCurrencySet(let change):
            baseCurrencies.append(.init(effectiveAt: at, sequence: sequence, value: change.currency))
        case .accountOpened(let opened):
            if opened.kind == .asset || opened.kind == .liability {
                accounts[opened.account] = EnvelopeAccount(account: opened.account, kind: opened.kind, commodity: opened.commodity, openedAt: at)
            }
        case .envelopeCreated(let created):
            envelopes[created.envelopeId] = EnvelopeRecord(created, effectiveAt: at, sequence: sequence)
        case .envelopeBudgetChanged(let change):
            envelopes[change.envelopeId]?.settings.append(.init(effectiveAt: at, sequence: sequence, interval: change.interval, budgeted: change.budgeted))
        case .envelopeRolloverSet(let change):
            envelopes[change.envelopeId]?.policies.append(.init(effectiveAt: at, sequence: sequence, value: change.policy))
        case .envelopeFunded(let funded):
            envelopes[funded.envelopeId]?.fundings.append(.init(effectiveAt: at, sequence: sequence, value: funded.amount))
        case .envelopeDeleted(let deleted):
            envelopes[deleted.envelopeId]?.deletedAt = at
        case .transactionRecorded(let transaction):
            if let rate = transaction.rateToBase, transaction.amount.commodity != currentBase {
                quotes.append(ExchangeQuote(base: transaction.amount.commodity, quote: currentBase, rate: rate,
                                            effectiveAt: at, sequence: sequence, source: .transaction))
            }
            if let envelope = transaction.envelope {
                activity.append(EnvelopeActivity(envelopeId: envelope, sequence: sequence, effectiveAt: at, amount: transaction.amount,
                                                 rateToBase: transaction.rateToBase, base: currentBase, received: nil))
            }
        case .transferMade(let transfer):
            if let envelope = transfer.envelope {
                activity.append(EnvelopeActivity(envelopeId: envelope, sequence: sequence, effectiveAt: at, amount: try transfer.amount.negated(),
                                                 rateToBase: nil, base: currentBase, received: try transfer.received?.negated()))
            }
        case .fxRateSet(let rate):
            quotes.append(ExchangeQuote(base: rate.base, quote: rate.quote, rate: rate.rate, effectiveAt: at, sequence: sequence, source: .fxRate))
        default:
            break
        }
        for posting in try PostingRules.postings(for: event, context: NoPostingContext()) where accounts[posting.account] != nil {
            let commodity = posting.amount.commodity
            let (sum, overflow) = (balances[posting.account]?[commodity] ?? 0).addingReportingOverflow(posting.amount.minorUnits)
            guard !overflow else { throw MoneyError.overflowing("a balance") }
            balances[posting.account, default: [:]][commodity] = sum
        }
    }

    /// Folds every event, in log order, that is effective at or before `bound` (and
    /// recorded at or before `knownAt`, when given): the reference answer for a date.
    public static func folding(_ events: [Event], effectiveThrough bound: Instant, knownAt: Instant? = nil) throws -> EnvelopeBook {
        var book = EnvelopeBook()
        for event in events where event.effectiveAt <= bound && knownAt.map({ event.recordedAt <= $0 }) ?? true {
            try book.apply(event)
        }
        return book
    }
}

/// The posting context of a fold that tracks only opened accounts: the events it cares
/// about need no lookups.
struct NoPostingContext: PostingContext {
    func currentVersion(of transactionId: String) throws -> TransactionVersion? { nil }
    func balance(of account: String, in commodity: Commodity) throws -> Int64 { 0 }
    func balances(withPrefix prefix: String) throws -> [(account: String, amount: Money)] { [] }
}
