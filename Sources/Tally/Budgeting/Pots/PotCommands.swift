import GRDB

// The rules of savings pots (DOMAIN.md §2): adding money needs that much in the current
// balance, withdrawing needs that much in the pot, deleting returns the pot's total to
// the current balance. Each is an event; PostingRules moves the money.

extension Ledger {
    /// Creates a savings pot with a target.
    ///
    /// ```swift
    /// try ledger.createPot(id: "holiday", name: "Holiday", target: usd("500.00"))
    /// ```
    ///
    /// - Parameters:
    ///   - id: letters, digits, `-`, `_`; names the pot in later commands.
    ///   - name: what the user calls it; defaults to the id.
    ///   - target: positive, in the budget currency.
    /// - Throws: ``LedgerError`` `alreadyExists` (a pot with that id exists),
    ///   `invalidArgument`, `currencyMismatch`.
    @discardableResult
    public func createPot(id: String, name: String? = nil, target: Money) throws -> CommandResult {
        try perform { db in
            let id = try BudgetSettings.validIdentifier(id, "the pot id")
            let name = try BudgetSettings.validName(name ?? id, "the pot name")
            try BudgetSettings.requireBudgetCurrency(target, "the target", db)
            guard target.isPositive else { throw LedgerError(.invalidArgument, "the pot's target must be more than zero") }
            guard try PotRules.existing(id, db) == nil else {
                throw LedgerError(.alreadyExists, "a pot with id '\(id)' exists already; choose another id")
            }
            return [NewEvent(effectiveAt: now, body: .potCreated(PotCreated(potId: id, name: name, target: target)))]
        }
    }

    /// Moves money from the current balance into a pot.
    ///
    /// ```swift
    /// try ledger.addToPot(id: "holiday", amount: usd("50.00"))
    /// ```
    ///
    /// - Throws: ``LedgerError`` `insufficientFunds` (the current balance cannot cover it),
    ///   `notFound`, `invalidArgument` (not positive), `currencyMismatch`.
    @discardableResult
    public func addToPot(id: String, amount: Money) throws -> CommandResult {
        try perform { db in
            _ = try PotRules.requireExisting(id, db)
            try PotRules.requirePositive(amount, db)
            let current = try BudgetQueries.currentBalance(db, asOf: now)
            guard try !current.isLess(than: amount) else {
                throw LedgerError(.insufficientFunds, "the current balance cannot cover this amount; add less to pot '\(id)'")
            }
            return [NewEvent(effectiveAt: now, body: .potFunded(PotFunded(potId: id, amount: amount)))]
        }
    }

    /// Moves money from a pot back to the current balance.
    ///
    /// ```swift
    /// try ledger.withdrawFromPot(id: "holiday", amount: usd("20.00"))
    /// ```
    ///
    /// - Throws: ``LedgerError`` `insufficientFunds` (the pot holds less), `notFound`,
    ///   `invalidArgument` (not positive), `currencyMismatch`.
    @discardableResult
    public func withdrawFromPot(id: String, amount: Money) throws -> CommandResult {
        try perform { db in
            let pot = try PotRules.requireExisting(id, db)
            try PotRules.requirePositive(amount, db)
            guard try !pot.total.isLess(than: amount) else {
                throw LedgerError(.insufficientFunds, "pot '\(id)' holds less than this amount; withdraw at most its total")
            }
            return [NewEvent(effectiveAt: now, body: .potWithdrawn(PotWithdrawn(potId: id, amount: amount)))]
        }
    }

    /// Deletes a pot; its whole total returns to the current balance.
    ///
    /// ```swift
    /// try ledger.deletePot(id: "holiday")
    /// ```
    ///
    /// - Throws: ``LedgerError`` `notFound`.
    @discardableResult
    public func deletePot(id: String) throws -> CommandResult {
        try perform { db in
            let pot = try PotRules.requireExisting(id, db)
            return [NewEvent(effectiveAt: now, body: .potDeleted(PotDeleted(potId: id, returned: pot.total)))]
        }
    }
}

/// The checks pot commands share, and the pot reads.
enum PotRules {
    /// The pots alive as of `asOf`, as known at `knownAt` (both nil: now), by id; only the
    /// pot `id` when given. Totals from the balances table now, from the roll-ups otherwise.
    static func pots(_ db: Database, id: String? = nil, asOf: Instant?, knownAt: Instant?) throws -> [Pot] {
        var sql = "SELECT * FROM budget_pots WHERE \(BudgetTime.lifecycleInForce)"
        var arguments = BudgetTime.lifecycleArguments(asOf: asOf, knownAt: knownAt)
        if let id {
            sql += " AND pot_id = ?"
            _ = arguments.append(contentsOf: [id])
        }
        let rows = try Row.fetchAll(db.cachedStatement(sql: sql + " ORDER BY pot_id"), arguments: arguments)
        guard !rows.isEmpty else { return [] }
        let total: (String, Commodity) throws -> Money
        if asOf == nil && knownAt == nil {
            total = { account, commodity in try BalanceQueries.balance(db, account: account, commodity: commodity) }
        } else {
            let balances = try BalanceQueries.balances(db, asOf: asOf, knownAt: knownAt)
            total = { account, commodity in
                balances.first { $0.account == account && $0.amount.commodity == commodity }?.amount ?? Money.zero(commodity)
            }
        }
        return try rows.map { row in
            let commodity = try Commodity.named(row["commodity"])
            let id: String = row["pot_id"]
            return Pot(
                id: id, name: row["name"], target: Money(minorUnits: row["target"], commodity: commodity),
                total: try total(LedgerAccounts.pot(id), commodity)
            )
        }
    }

    static func existing(_ id: String, _ db: Database) throws -> Pot? {
        try pots(db, id: id, asOf: nil, knownAt: nil).first
    }

    static func requireExisting(_ id: String, _ db: Database) throws -> Pot {
        guard let pot = try existing(id, db) else {
            throw LedgerError(.notFound, "there is no pot '\(id)'; list them with `tally pot list`")
        }
        return pot
    }

    static func requirePositive(_ amount: Money, _ db: Database) throws {
        try BudgetSettings.requireBudgetCurrency(amount, "the amount", db)
        guard amount.isPositive else { throw LedgerError(.invalidArgument, "the amount must be more than zero") }
    }
}
