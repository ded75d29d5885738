public import TallyEngine
/// An envelope's history: its creation and every change, with their times.
public struct EnvelopeRecord: Hashable, Sendable {
    /// A budgeted amount and interval in force from an instant on.
    public struct Setting: Hashable, Sendable {
        /// When it takes effect.
        public let effectiveAt: Instant
        /// The sequence number of the event that set it.
        public let sequence: UInt64
        /// When that event was recorded.
        public let recordedAt: Instant
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
        /// When that event was recorded.
        public let recordedAt: Instant
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

    init(_ created: EnvelopeCreated, effectiveAt: Instant, sequence: UInt64, recordedAt: Instant) {
        envelopeId = created.envelopeId
        name = created.name
        startDate = created.startDate
        createdAt = effectiveAt
        settings = [Setting(effectiveAt: effectiveAt, sequence: sequence, recordedAt: recordedAt, interval: created.interval, budgeted: created.budgeted)]
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
/// transfer (its amount leaves the budget, so it counts negative). An amendment or a
/// deletion of a transaction takes its version out with a reversal (the negated version,
/// on its date) and, for an amendment, adds the new version on the amendment's date, as the
/// postings do.
public struct EnvelopeActivity: Hashable, Sendable {
    /// The envelope it is assigned to.
    public let envelopeId: String
    /// The sequence number of its event.
    public let sequence: UInt64
    /// The type of that event (`transaction_recorded`, `transfer_made`, `transaction_amended`, `transaction_deleted`).
    public let eventType: String
    /// When it happened.
    public let effectiveAt: Instant
    /// When its event was recorded.
    public let recordedAt: Instant
    /// Signed, in the transaction's own currency.
    public let amount: Money
    /// The transaction's own rate: 1 unit of `amount`'s currency in `base`.
    public let rateToBase: ExactDecimal?
    /// The ledger's base currency when the transaction was recorded.
    public let base: Commodity
    /// For a cross-currency transfer, what the target received (signed like `amount`).
    public let received: Money?
    /// Whether this takes an earlier version out (an amendment's or a deletion's reversal).
    public let isReversal: Bool

    init(envelopeId: String, sequence: UInt64, eventType: String, effectiveAt: Instant, recordedAt: Instant, amount: Money,
         rateToBase: ExactDecimal?, base: Commodity, received: Money?, isReversal: Bool = false) {
        self.envelopeId = envelopeId
        self.sequence = sequence
        self.eventType = eventType
        self.effectiveAt = effectiveAt
        self.recordedAt = recordedAt
        self.amount = amount
        self.rateToBase = rateToBase
        self.base = base
        self.received = received
        self.isReversal = isReversal
    }

    /// The row that takes this version out, by `event` (an amendment or a deletion): the
    /// same money negated, on the same date, converted the same way.
    func reversal(by event: Event) throws -> EnvelopeActivity {
        EnvelopeActivity(envelopeId: envelopeId, sequence: event.sequence, eventType: event.type.name, effectiveAt: effectiveAt,
                         recordedAt: event.recordedAt, amount: try amount.negated(), rateToBase: rateToBase, base: base,
                         received: try received?.negated(), isReversal: true)
    }

    /// The version an amendment puts in its place: the new amount on the amendment's date,
    /// in the same envelope, at the transaction's own rate.
    func amended(amount: Money, by event: Event) -> EnvelopeActivity {
        EnvelopeActivity(envelopeId: envelopeId, sequence: event.sequence, eventType: event.type.name, effectiveAt: event.effectiveAt,
                         recordedAt: event.recordedAt, amount: amount, rateToBase: rateToBase, base: base, received: nil)
    }
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
    /// The base currency the ledger was created with: in force before any change.
    public internal(set) var createdBaseCurrency: Commodity?
    /// The changes of base currency (`base_currency_set`) with the instant each came into
    /// force, in log order.
    public internal(set) var baseCurrencies: [EnvelopeRecord.Dated<Commodity>] = []
    /// User accounts by name.
    public internal(set) var accounts: [String: EnvelopeAccount] = [:]
    /// Balances of the user accounts, per commodity (computed by ``through(_:)``).
    public internal(set) var balances: [String: [Commodity: Int64]] = [:]
    /// The current version of each transaction assigned to an envelope (kept by ``apply(_:)`` only).
    var currentVersions: [String: EnvelopeActivity] = [:]
    /// Every transaction's current version, for the posting rules (kept by ``apply(_:)`` only).
    var transactionVersions: [String: TransactionVersion] = [:]
    /// The user accounts' postings with their dates (kept by ``apply(_:)`` only).
    var postings: [String: [(effectiveAt: Instant, amount: Money)]] = [:]

    /// An empty book.
    public init() {}

    /// The base currency a command dated `instant` decided by: the one in force then among
    /// those recorded so far (``baseCurrency(at:)``).
    func decisionBase(at instant: Instant) -> Commodity { baseCurrency(at: instant) }

    /// The base currency in force at an instant among the changes folded: the latest by
    /// effective time at or before it (of two at one instant, the later in the log), else the
    /// one the ledger was created with. The replay of ``LedgerSettings/baseCurrency(at:_:)``,
    /// the one rule, over the envelope fold's own events (the randomised tests hold both equal).
    public func baseCurrency(at instant: Instant) -> Commodity {
        baseCurrencies.filter { $0.effectiveAt <= instant }
            .max { ($0.effectiveAt, $0.sequence) < ($1.effectiveAt, $1.sequence) }?.value ?? createdBaseCurrency ?? .usd
    }

    // MARK: Fold

    /// Folds one event: the replay of the envelope product's state. Never validates. Every
    /// event is folded with its dated rows; ``through(_:)`` then keeps those effective by a
    /// date (an amendment or a deletion reverses a transaction on the transaction's date,
    /// which may be before the amendment's).
    ///
    /// - Throws: ``MoneyError`` on overflow.
    public mutating func apply(_ event: Event) throws {
        let at = event.effectiveAt
        let sequence = event.sequence
        switch event.body.payload {
        case let created as LedgerCreated:
            createdBaseCurrency = created.baseCurrency
        case let change as BaseCurrencySet:
            baseCurrencies.append(.init(effectiveAt: at, sequence: sequence, recordedAt: event.recordedAt, value: change.currency))
        case let opened as AccountOpened:
            if opened.kind == .asset || opened.kind == .liability {
                accounts[opened.account] = EnvelopeAccount(account: opened.account, kind: opened.kind, commodity: opened.commodity, openedAt: at)
            }
        case let created as EnvelopeCreated:
            envelopes[created.envelopeId] = EnvelopeRecord(created, effectiveAt: at, sequence: sequence, recordedAt: event.recordedAt)
        case let change as EnvelopeBudgetChanged:
            envelopes[change.envelopeId]?.settings.append(.init(effectiveAt: at, sequence: sequence, recordedAt: event.recordedAt, interval: change.interval, budgeted: change.budgeted))
        case let change as EnvelopeRolloverSet:
            envelopes[change.envelopeId]?.policies.append(.init(effectiveAt: at, sequence: sequence, recordedAt: event.recordedAt, value: change.policy))
        case let funded as EnvelopeFunded:
            envelopes[funded.envelopeId]?.fundings.append(.init(effectiveAt: at, sequence: sequence, recordedAt: event.recordedAt, value: funded.amount))
        case let deleted as EnvelopeDeleted:
            envelopes[deleted.envelopeId]?.deletedAt = at
        case let transaction as TransactionRecorded:
            if let rate = transaction.rateToBase, transaction.amount.commodity != decisionBase(at: at) {
                quotes.append(ExchangeQuote(base: transaction.amount.commodity, quote: decisionBase(at: at), rate: rate,
                                            effectiveAt: at, sequence: sequence, source: .transaction))
            }
            if let envelope = transaction.envelope {
                let entry = EnvelopeActivity(envelopeId: envelope, sequence: sequence, eventType: event.type.name, effectiveAt: at,
                                             recordedAt: event.recordedAt, amount: transaction.amount,
                                             rateToBase: transaction.rateToBase, base: decisionBase(at: at), received: nil)
                activity.append(entry)
                currentVersions[transaction.transactionId] = entry
            }
        case let amended as TransactionAmended:
            if let previous = currentVersions[amended.transactionId] {
                let next = previous.amended(amount: amended.amount, by: event)
                activity += [try previous.reversal(by: event), next]
                currentVersions[amended.transactionId] = next
            }
        case let deleted as TransactionDeleted:
            if let previous = currentVersions.removeValue(forKey: deleted.transactionId) {
                activity.append(try previous.reversal(by: event))
            }
        case let transfer as TransferMade:
            if let envelope = transfer.envelope {
                activity.append(EnvelopeActivity(envelopeId: envelope, sequence: sequence, eventType: event.type.name, effectiveAt: at,
                                                 recordedAt: event.recordedAt, amount: try transfer.amount.negated(),
                                                 rateToBase: nil, base: decisionBase(at: at), received: try transfer.received?.negated()))
            }
        case let rate as FXRateSet:
            quotes.append(ExchangeQuote(base: rate.base, quote: rate.quote, rate: rate.rate, effectiveAt: at, sequence: sequence, source: .fxRate))
        default:
            break
        }
        let context = FoldPostingContext(versions: transactionVersions)
        for posting in try PostingRules.postings(for: event, context: context) where accounts[posting.account] != nil {
            postings[posting.account, default: []].append((posting.effectiveAt, posting.amount))
        }
        switch try PostingRules.versionChange(for: event, context: context) {
        case .set(let version)?: transactionVersions[version.transactionId] = version
        case .delete(let transactionId)?: transactionVersions[transactionId] = nil
        case nil: break
        }
    }

    /// The book as of `bound`: only what is effective at or before it, with the user
    /// accounts' balances then (``balances``).
    ///
    /// - Throws: ``MoneyError`` on overflow of a balance.
    public func through(_ bound: Instant) throws -> EnvelopeBook {
        var book = EnvelopeBook()
        book.createdBaseCurrency = createdBaseCurrency
        book.baseCurrencies = baseCurrencies.filter { $0.effectiveAt <= bound }
        book.accounts = accounts.filter { $0.value.openedAt <= bound }
        book.quotes = quotes.filter { $0.effectiveAt <= bound }
        book.activity = activity.filter { $0.effectiveAt <= bound }
        for (id, envelope) in envelopes where envelope.createdAt <= bound {
            var record = envelope
            record.settings = envelope.settings.filter { $0.effectiveAt <= bound }
            record.policies = envelope.policies.filter { $0.effectiveAt <= bound }
            record.fundings = envelope.fundings.filter { $0.effectiveAt <= bound }
            record.deletedAt = envelope.deletedAt.flatMap { $0 <= bound ? $0 : nil }
            book.envelopes[id] = record
        }
        for (account, dated) in postings where book.accounts[account] != nil {
            for (effectiveAt, amount) in dated where effectiveAt <= bound {
                let (sum, overflow) = (book.balances[account]?[amount.commodity] ?? 0).addingReportingOverflow(amount.minorUnits)
                guard !overflow else { throw MoneyError.overflowing("a balance") }
                book.balances[account, default: [:]][amount.commodity] = sum
            }
        }
        return book
    }

    /// Folds every event, in log order, recorded at or before `knownAt` (every event when
    /// nil), and keeps what is effective at or before `bound`: the reference answer for a date.
    public static func folding(_ events: [Event], effectiveThrough bound: Instant, knownAt: Instant? = nil) throws -> EnvelopeBook {
        var book = EnvelopeBook()
        for event in events where knownAt.map({ event.recordedAt <= $0 }) ?? true {
            try book.apply(event)
        }
        return try book.through(bound)
    }
}

/// The posting context of the envelope fold: the transactions' current versions (for
/// amendments and deletions) as the fold kept them. Balances are not looked up: the events
/// the envelope product folds never read one (a reference balance moves only the budget
/// product's accounts).
struct FoldPostingContext: PostingContext {
    let versions: [String: TransactionVersion]

    func currentVersion(of transactionId: String) throws -> TransactionVersion? { versions[transactionId] }
    func balance(of account: String, in commodity: Commodity) throws -> Int64 { 0 }
    func balances(withPrefix prefix: String) throws -> [(account: String, amount: Money)] { [] }
}
