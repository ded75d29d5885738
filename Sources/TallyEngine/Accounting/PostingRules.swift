/// One leg of a double-entry movement: an amount into (positive) or out of (negative) an
/// account, effective at an instant. The legs of one event sum to zero per commodity.
public struct Posting: Hashable, Sendable {
    /// The account the leg moves.
    public let account: String
    /// The signed amount: positive into the account, negative out of it.
    public let amount: Money
    /// When the leg takes effect: the event's effective time, or for the reversal of an
    /// amended transaction, the effective time of the version it reverses.
    public let effectiveAt: Instant

    /// Creates a leg.
    public init(account: String, amount: Money, effectiveAt: Instant) {
        self.account = account
        self.amount = amount
        self.effectiveAt = effectiveAt
    }
}

/// The version in force of a transaction that can be amended, re-categorised or deleted:
/// what a later change reverses before it posts its own version.
///
/// The engine keeps one current version per transaction id (``ChangesTransactionVersion``);
/// `category` and `source` are the labels the feature that records the transaction gives
/// (the budget's category and `manual`/`bank`), kept as they were written.
///
/// ```swift
/// let version = TransactionVersion(transactionId: "t1", account: "Budget:Current",
///     counterAccount: "Expenses:Groceries", category: "groceries", amount: try Money(parsing: "-12.50", .usd),
///     effectiveAt: now, source: "manual")
/// ```
public struct TransactionVersion: Hashable, Sendable {
    /// The transaction's id, which every later amendment or deletion names.
    public let transactionId: String
    /// The account the transaction moves.
    public let account: String
    /// Where the other leg goes: an income or expense account.
    public let counterAccount: String
    /// The feature's category label.
    public let category: String
    /// The signed amount the account moves by.
    public let amount: Money
    /// When this version takes effect; its reversal is effective at the same instant.
    public let effectiveAt: Instant
    /// The feature's label for where the transaction came from.
    public let source: String

    /// Creates a version; each parameter is the property of the same name.
    public init(
        transactionId: String, account: String, counterAccount: String, category: String, amount: Money,
        effectiveAt: Instant, source: String
    ) {
        self.transactionId = transactionId
        self.account = account
        self.counterAccount = counterAccount
        self.category = category
        self.amount = amount
        self.effectiveAt = effectiveAt
        self.source = source
    }

    /// The two legs of this version: the account moves by the signed amount, the counter
    /// account by its opposite.
    public func postings() throws -> [Posting] {
        [
            Posting(account: account, amount: amount, effectiveAt: effectiveAt),
            Posting(account: counterAccount, amount: try amount.negated(), effectiveAt: effectiveAt),
        ]
    }
}

/// How an event changes a transaction's current version (``ChangesTransactionVersion``).
public enum TransactionVersionChange: Hashable, Sendable {
    /// The transaction's version from this event on.
    case set(TransactionVersion)
    /// The transaction is deleted.
    case delete(String)
}

/// What the posting rules may look up: state built by earlier events.
public protocol PostingContext {
    /// The version of a transaction in force before this event, if it exists and is not deleted.
    func currentVersion(of transactionId: String) throws -> TransactionVersion?
    /// An account's balance in a commodity, after every earlier event.
    func balance(of account: String, in commodity: Commodity) throws -> Int64
    /// Every account whose name starts with `prefix`, with its balances.
    func balances(withPrefix prefix: String) throws -> [(account: String, amount: Money)]
}

/// An event type whose events move money: it gives each event's double-entry legs.
///
/// Every registered event type conforms to this or to ``MovesNoMoney`` (``EventCatalog``
/// refuses a type that says neither), so where money goes is always declared. The legs of
/// one event sum to zero per commodity.
///
/// ```swift
/// extension Refunded: MovesMoney {
///     public func postings(at effectiveAt: Instant, context: some PostingContext) throws -> [Posting] {
///         try PostingRules.move(amount, from: "Income:Refunds", to: account, at: effectiveAt)
///     }
/// }
/// ```
public protocol MovesMoney: EventPayload {
    /// The legs of this event (empty when this one moves nothing, such as a zero opening
    /// balance). Pure given its context: replay, rebuild and live projection all call it.
    ///
    /// - Throws: `MoneyError` on overflow.
    func postings(at effectiveAt: Instant, context: some PostingContext) throws -> [Posting]
}

/// An event type whose events never move money: settings, names, plans, valuations.
///
/// ```swift
/// extension MerchantTagged: MovesNoMoney {}
/// ```
public protocol MovesNoMoney: EventPayload {}

extension MovesMoney {
    /// ``PostingDeclaration/movesMoney``.
    public static var postingDeclaration: PostingDeclaration { .movesMoney }
    /// ``postings(at:context:)``.
    public func declaredPostings(at effectiveAt: Instant, context: some PostingContext) throws -> [Posting] {
        try postings(at: effectiveAt, context: context)
    }
}

extension MovesNoMoney {
    /// ``PostingDeclaration/movesNoMoney``.
    public static var postingDeclaration: PostingDeclaration { .movesNoMoney }
}

/// A money event that starts, moves or ends a transaction's current version: the version a
/// later amendment or deletion reverses (``TransactionVersion``).
public protocol ChangesTransactionVersion: MovesMoney {
    /// How this event changes its transaction's version; nil when it changes none (a change
    /// to a transaction with no current version).
    func versionChange(at effectiveAt: Instant, context: some PostingContext) throws -> TransactionVersionChange?
}

extension ChangesTransactionVersion {
    /// ``versionChange(at:context:)``.
    public func declaredVersionChange(at effectiveAt: Instant, context: some PostingContext) throws -> TransactionVersionChange? {
        try versionChange(at: effectiveAt, context: context)
    }
}

/// The double-entry meaning of events, as each event type declares it (``MovesMoney``): the
/// one entry point that folds use, and the helpers declarations share.
public enum PostingRules {
    /// The legs of an event (empty for events that move no money).
    ///
    /// - Throws: `MoneyError` on overflow — the log holds an amount no sum can carry.
    public static func postings(for event: Event, context: some PostingContext) throws -> [Posting] {
        try event.body.payload.declaredPostings(at: event.effectiveAt, context: context)
    }

    /// How an event changes a transaction's current version, the one a later amendment or
    /// deletion reverses; nil for every event that changes none (``ChangesTransactionVersion``).
    public static func versionChange(for event: Event, context: some PostingContext) throws -> TransactionVersionChange? {
        try event.body.payload.declaredVersionChange(at: event.effectiveAt, context: context)
    }

    /// Two legs: `amount` into `target`, out of `source`.
    public static func move(_ amount: Money, from source: String, to target: String, at effectiveAt: Instant) throws -> [Posting] {
        [
            Posting(account: target, amount: amount, effectiveAt: effectiveAt),
            Posting(account: source, amount: try amount.negated(), effectiveAt: effectiveAt),
        ]
    }

    /// Legs that undo a transaction version, at that version's effective time.
    public static func reversal(of version: TransactionVersion) throws -> [Posting] {
        try version.postings().map { Posting(account: $0.account, amount: try $0.amount.negated(), effectiveAt: $0.effectiveAt) }
    }

    /// `lhs + rhs`, or `MoneyError` naming a balance on overflow.
    public static func add(_ lhs: Int64, _ rhs: Int64) throws -> Int64 {
        let (sum, overflow) = lhs.addingReportingOverflow(rhs)
        guard !overflow else { throw MoneyError.overflowing("a balance") }
        return sum
    }
}

extension MoneyError {
    /// An overflow while summing, naming what was summed.
    public static func overflowing(_ what: String) -> MoneyError {
        MoneyError(.overflow, "\(what) exceeds the largest amount an account can hold")
    }
}
