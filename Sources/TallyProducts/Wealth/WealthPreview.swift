public import TallyEngine

/// What a deposit or a purchase would record, and records nothing (docs/domain.md §1, the
/// deposit split preview): planned by the command's own plan (``Ledger/preview(_:)``), so the
/// split rule, the round-up rule and every refusal are the real command's, at its effective
/// time.
///
/// ```swift
/// let preview = try ledger.previewDeposit(account: "main", amount: try Money(parsing: "100.00", commodity: .usd))
/// print(preview.split?.spend, preview.split?.invest)   // 70.00 USD, 30.00 USD by the 70/30 rule
/// ```
public struct WealthPreview: Sendable {
    /// The result the command would return: its events with the sequence numbers they
    /// would take; for a repeated idempotency key, those the first run recorded.
    public let result: Ledger.CommandResult

    /// Wraps a rehearsed command's result.
    init(_ result: Ledger.CommandResult) {
        self.result = result
    }

    /// The events the command would record (``result``'s).
    public var events: [Event] { result.events }
    /// True when the idempotency key was used before: the command would record nothing.
    public var wasAlreadyApplied: Bool { result.wasAlreadyApplied }

    /// The deposit that would be received.
    public var deposit: DepositReceived? { payload() }
    /// The split into Spend and Invest by the rule in force; nil when the deposit would wait
    /// unsplit in the wallet (automation paused).
    public var split: DepositSplit? { payload() }
    /// The purchase that would be paid from Spend.
    public var purchase: PurchaseMade? { payload() }
    /// The round-up that would move from Spend to Invest.
    public var roundUp: RoundUpApplied? { payload() }
    /// The round-up that would be skipped because Spend could not cover it whole.
    public var roundUpSkipped: RoundUpSkipped? { payload() }

    private func payload<P: EventPayload>() -> P? {
        events.lazy.compactMap { $0.body.payload as? P }.first
    }
}

extension Ledger {
    /// The deposit ``deposit(account:amount:source:externalId:effectiveAt:idempotencyKey:)``
    /// would record, and its split or its wait in the wallet, without recording anything:
    /// the same command planned and rolled back (`tally wealth deposit --dry-run`).
    ///
    /// - Parameters: as ``deposit(account:amount:source:externalId:effectiveAt:idempotencyKey:)``.
    /// - Throws: what the deposit would throw; nothing is recorded either way.
    public func previewDeposit(
        account: String, amount: Money, source: DepositSource = .bankTransfer, externalId: String? = nil,
        effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> WealthPreview {
        WealthPreview(try preview(depositCommand(account: account, amount: amount, source: source, externalId: externalId,
                                                 effectiveAt: effectiveAt, idempotencyKey: idempotencyKey)))
    }

    /// The purchase ``purchase(account:amount:merchant:externalId:effectiveAt:idempotencyKey:)``
    /// would record, with its round-up (made or skipped) when round-ups are on, without
    /// recording anything (`tally wealth purchase --dry-run`).
    ///
    /// - Parameters: as ``purchase(account:amount:merchant:externalId:effectiveAt:idempotencyKey:)``.
    /// - Throws: what the purchase would throw (a frozen card, Spend short); nothing is
    ///   recorded either way.
    public func previewPurchase(
        account: String, amount: Money, merchant: String, externalId: String? = nil,
        effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> WealthPreview {
        WealthPreview(try preview(purchaseCommand(account: account, amount: amount, merchant: merchant, externalId: externalId,
                                                  effectiveAt: effectiveAt, idempotencyKey: idempotencyKey)))
    }
}
