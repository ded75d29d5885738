public import TallyEngine
// The double-entry meaning of the monthly budget's events (docs/domain.md §2): a transaction
// moves Current (or its account) against its category's income or expense account; an
// amendment, re-categorisation or deletion reverses the version in force; the reference
// balance adjusts Current against Untracked; pot moves go between Current and the pot.

extension TransactionRecorded: ChangesTransactionVersion {
    public func versionChange(at effectiveAt: Instant, context: some PostingContext) throws -> TransactionVersionChange? {
        .set(.budget(
            transactionId: transactionId, account: account ?? LedgerAccounts.current,
            category: category, amount: amount, effectiveAt: effectiveAt, source: source))
    }

    public func postings(at effectiveAt: Instant, context: some PostingContext) throws -> [Posting] {
        guard case .set(let version)? = try versionChange(at: effectiveAt, context: context) else { return [] }
        return try version.postings()
    }
}

extension RecurringOccurrenceGenerated: ChangesTransactionVersion {
    public func versionChange(at effectiveAt: Instant, context: some PostingContext) throws -> TransactionVersionChange? {
        .set(.budget(
            transactionId: transactionId, account: LedgerAccounts.current,
            category: category, amount: amount, effectiveAt: effectiveAt, source: .manual))
    }

    public func postings(at effectiveAt: Instant, context: some PostingContext) throws -> [Posting] {
        guard case .set(let version)? = try versionChange(at: effectiveAt, context: context) else { return [] }
        return try version.postings()
    }
}

extension TransactionAmended: ChangesTransactionVersion {
    /// The amendment moves the transaction to its own date with the new amount.
    public func versionChange(at effectiveAt: Instant, context: some PostingContext) throws -> TransactionVersionChange? {
        guard let previous = try context.currentVersion(of: transactionId) else { return nil }
        return .set(.budget(
            transactionId: previous.transactionId, account: previous.account, category: category,
            amount: amount, effectiveAt: effectiveAt, source: try previous.transactionSource()))
    }

    public func postings(at effectiveAt: Instant, context: some PostingContext) throws -> [Posting] {
        guard let previous = try context.currentVersion(of: transactionId),
              case .set(let next)? = try versionChange(at: effectiveAt, context: context) else { return [] }
        return try PostingRules.reversal(of: previous) + next.postings()
    }
}

extension TransactionRecategorised: ChangesTransactionVersion {
    /// A re-categorisation keeps the transaction's date and amount.
    public func versionChange(at effectiveAt: Instant, context: some PostingContext) throws -> TransactionVersionChange? {
        guard let previous = try context.currentVersion(of: transactionId) else { return nil }
        return .set(.budget(
            transactionId: previous.transactionId, account: previous.account, category: category,
            amount: previous.amount, effectiveAt: previous.effectiveAt, source: try previous.transactionSource()))
    }

    public func postings(at effectiveAt: Instant, context: some PostingContext) throws -> [Posting] {
        guard let previous = try context.currentVersion(of: transactionId), previous.category != category.rawValue,
              case .set(let next)? = try versionChange(at: effectiveAt, context: context) else { return [] }
        return try PostingRules.reversal(of: previous) + next.postings()
    }
}

extension TransactionDeleted: ChangesTransactionVersion {
    public func versionChange(at effectiveAt: Instant, context: some PostingContext) throws -> TransactionVersionChange? {
        .delete(transactionId)
    }

    public func postings(at effectiveAt: Instant, context: some PostingContext) throws -> [Posting] {
        guard let previous = try context.currentVersion(of: transactionId) else { return [] }
        return try PostingRules.reversal(of: previous)
    }
}

extension ReferenceBalanceSet: MovesMoney {
    /// The reference is the bank balance, pots included: Current moves against Untracked so
    /// that Current + pots equals it. Version 2 events carry the difference the command
    /// measured as of their effective time.
    public func postings(at effectiveAt: Instant, context: some PostingContext) throws -> [Posting] {
        if let adjustment {
            guard !adjustment.isZero else { return [] }
            return try PostingRules.move(adjustment, from: LedgerAccounts.untracked, to: LedgerAccounts.current, at: effectiveAt)
        }
        var held = try context.balance(of: LedgerAccounts.current, in: amount.commodity)
        for pot in try context.balances(withPrefix: "Budget:Pots:") where pot.amount.commodity == amount.commodity {
            held = try PostingRules.add(held, pot.amount.minorUnits)
        }
        let (delta, overflow) = amount.minorUnits.subtractingReportingOverflow(held)
        guard !overflow else { throw MoneyError.overflowing("the reference balance adjustment") }
        guard delta != 0 else { return [] }
        return try PostingRules.move(
            Money(minorUnits: delta, commodity: amount.commodity), from: LedgerAccounts.untracked, to: LedgerAccounts.current, at: effectiveAt)
    }
}

extension ReferenceBalanceReconciled: MovesMoney {
    /// The reference's untracked transfer into Current changes by the adjustment.
    public func postings(at effectiveAt: Instant, context: some PostingContext) throws -> [Posting] {
        try PostingRules.move(adjustment, from: LedgerAccounts.untracked, to: LedgerAccounts.current, at: effectiveAt)
    }
}

extension PotFunded: MovesMoney {
    public func postings(at effectiveAt: Instant, context: some PostingContext) throws -> [Posting] {
        try PostingRules.move(amount, from: LedgerAccounts.current, to: LedgerAccounts.pot(potId), at: effectiveAt)
    }
}

extension PotWithdrawn: MovesMoney {
    public func postings(at effectiveAt: Instant, context: some PostingContext) throws -> [Posting] {
        try PostingRules.move(amount, from: LedgerAccounts.pot(potId), to: LedgerAccounts.current, at: effectiveAt)
    }
}

extension PotDeleted: MovesMoney {
    /// What the pot still held returns to Current.
    public func postings(at effectiveAt: Instant, context: some PostingContext) throws -> [Posting] {
        guard !returned.isZero else { return [] }
        return try PostingRules.move(returned, from: LedgerAccounts.pot(potId), to: LedgerAccounts.current, at: effectiveAt)
    }
}

extension BankConnected: MovesNoMoney {}
extension BankConsentGranted: MovesNoMoney {}
extension BankDisconnected: MovesNoMoney {}
extension BudgetSet: MovesNoMoney {}
extension BudgetDeleted: MovesNoMoney {}
extension PotCreated: MovesNoMoney {}
extension RecurringDefined: MovesNoMoney {}
extension RecurringRemoved: MovesNoMoney {}

extension TransactionVersion {
    /// A budget transaction's version: counted against its category's income or expense
    /// account, labelled with the category and source as the events write them.
    static func budget(
        transactionId: String, account: String, category: BudgetCategory, amount: Money, effectiveAt: Instant,
        source: TransactionSource
    ) -> TransactionVersion {
        TransactionVersion(
            transactionId: transactionId, account: account, counterAccount: LedgerAccounts.counter(of: category, for: amount),
            category: category.rawValue, amount: amount, effectiveAt: effectiveAt, source: source.rawValue)
    }

    /// The version's category as the budget's.
    ///
    /// - Throws: ``LedgerError`` (`inconsistentLog`) when the label is no budget category.
    func budgetCategory() throws -> BudgetCategory {
        guard let category = BudgetCategory(rawValue: category) else {
            throw LedgerError(.inconsistentLog, "transaction '\(transactionId)' has the category '\(category)', which is no budget category")
        }
        return category
    }

    /// The version's source as the budget's.
    ///
    /// - Throws: ``LedgerError`` (`inconsistentLog`) when the label is no transaction source.
    func transactionSource() throws -> TransactionSource {
        guard let source = TransactionSource(rawValue: source) else {
            throw LedgerError(.inconsistentLog, "transaction '\(transactionId)' has the source '\(source)', which is no transaction source")
        }
        return source
    }
}
