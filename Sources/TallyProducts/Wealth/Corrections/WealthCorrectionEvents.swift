public import TallyEngine
// Corrections of the wealth account (issue 15, missing today 3): a deposit, a purchase or a
// withdrawal recorded by mistake is reversed, never rewritten; an amendment is a reversal
// and a new version in one commit. Each reversal is effective when the entry it reverses
// was, so the past reads as corrected from the moment the correction is recorded, and an
// answer as known before it still shows the entry.

/// What a wealth reversal undoes.
public enum WealthReversedKind: String, EventEnumeration {
    /// Money that arrived in the wallet (`deposit_received`).
    case deposit
    /// A card purchase paid from Spend (`purchase_made`).
    case purchase
    /// Money withdrawn from Spend (`withdrawal_made`).
    case withdrawal
    /// A purchase's round-up, moved back from Invest to Spend (`round_up_applied`).
    case roundUp = "round_up"
}

/// A deposit, purchase, withdrawal or round-up of a wealth account no longer counts: its
/// money moves back, effective when it moved. A round-up is reversed with its purchase (the
/// reversal of the purchase is its cause); a deposit's split has ``DepositSplitReversed``.
/// In an amendment the new version follows, caused by the reversal of the entry it replaces.
public struct WealthEntryReversed: EventPayload {
    public static let eventType = EventType("wealth_entry_reversed", code: 120)
    /// The wealth account.
    public var account: String
    /// The sequence number of the event reversed (1 or more).
    public var entry: Int64
    /// What that event was.
    public var kind: WealthReversedKind
    /// Its amount, positive: what moves back.
    public var amount: Money

    /// The reversal of the entry at sequence `entry` of `account`; record it effective at that
    /// entry's effective time.
    ///
    /// - Parameters:
    ///   - account: the wealth account.
    ///   - entry: the reversed event's sequence number.
    ///   - kind: the reversed event's kind.
    ///   - amount: the reversed event's amount.
    public init(account: String, entry: UInt64, kind: WealthReversedKind, amount: Money) {
        self.account = account
        self.entry = Int64(clamping: entry)
        self.kind = kind
        self.amount = amount
    }

    public var entity: String { "wealth:\(account)" }
}

extension WealthEntryReversed: ExampleProviding {
    public static var example: WealthEntryReversed {
        get throws {
            try WealthEntryReversed(
                account: "main", entry: 17, kind: .purchase, amount: Money(parsing: "3.40", commodity: .gbp)
            )
        }
    }
}

/// The split of a reversed deposit no longer counts: its parts move back from Spend and
/// Invest to the wallet (where the deposit's reversal takes them out), effective when the
/// split was. Its cause is the deposit's reversal.
public struct DepositSplitReversed: EventPayload {
    public static let eventType = EventType("deposit_split_reversed", code: 121)
    /// The wealth account.
    public var account: String
    /// The sequence number of the `deposit_split` reversed (1 or more).
    public var split: Int64
    /// Spend's part of that split, zero or positive.
    public var spend: Money
    /// Invest's part of that split, zero or positive.
    public var invest: Money

    /// The reversal of the split at sequence `split`; record it effective at the split's
    /// effective time, caused by the reversal of its deposit.
    public init(account: String, split: UInt64, spend: Money, invest: Money) {
        self.account = account
        self.split = Int64(clamping: split)
        self.spend = spend
        self.invest = invest
    }

    public var entity: String { "wealth:\(account)" }
}

extension DepositSplitReversed: ExampleProviding {
    public static var example: DepositSplitReversed {
        get throws {
            try DepositSplitReversed(
                account: "main", split: 12, spend: Money(parsing: "70.00", commodity: .gbp),
                invest: Money(parsing: "30.00", commodity: .gbp)
            )
        }
    }
}

// The double-entry meaning: each reversal moves its entry's money back the way it came.

extension WealthEntryReversed: MovesMoney {
    public func postings(at effectiveAt: Instant, context: some PostingContext) throws -> [Posting] {
        switch kind {
        case .deposit:
            try PostingRules.move(amount, from: LedgerAccounts.wallet(account), to: LedgerAccounts.deposits, at: effectiveAt)
        case .purchase:
            try PostingRules.move(amount, from: LedgerAccounts.purchases, to: LedgerAccounts.spend(account), at: effectiveAt)
        case .withdrawal:
            try PostingRules.move(amount, from: LedgerAccounts.withdrawals, to: LedgerAccounts.spend(account), at: effectiveAt)
        case .roundUp:
            try PostingRules.move(amount, from: LedgerAccounts.invest(account), to: LedgerAccounts.spend(account), at: effectiveAt)
        }
    }
}

extension DepositSplitReversed: MovesMoney {
    public func postings(at effectiveAt: Instant, context: some PostingContext) throws -> [Posting] {
        let wallet = LedgerAccounts.wallet(account)
        return try PostingRules.move(spend, from: LedgerAccounts.spend(account), to: wallet, at: effectiveAt)
            + PostingRules.move(invest, from: LedgerAccounts.invest(account), to: wallet, at: effectiveAt)
    }
}

// Arriving already decided: amounts as a command records them, and no wallet, Spend or
// Invest balance below zero at the reversal's time or later.

extension WealthEntryReversed: AdmissionChecked {
    public func checkAdmission(_ admission: inout Admission) throws {
        try admission.requirePositive(amount, "amount")
        switch kind {
        case .deposit: admission.protect(LedgerAccounts.wallet(account), in: amount.commodity)
        case .roundUp: admission.protect(LedgerAccounts.invest(account), in: amount.commodity)
        case .purchase, .withdrawal: break
        }
    }
}

extension DepositSplitReversed: AdmissionChecked {
    public func checkAdmission(_ admission: inout Admission) throws {
        try admission.requireNotNegative(spend, "spend")
        try admission.requireNotNegative(invest, "invest")
        admission.protect(LedgerAccounts.spend(account), in: spend.commodity)
        admission.protect(LedgerAccounts.invest(account), in: invest.commodity)
    }
}
