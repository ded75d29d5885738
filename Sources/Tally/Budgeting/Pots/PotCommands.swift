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

/// The checks pot commands share.
enum PotRules {
    static func pot(from row: Row, _ db: Database) throws -> Pot {
        let commodity = try Commodity.named(row["commodity"])
        let id: String = row["pot_id"]
        return Pot(
            id: id, name: row["name"], target: Money(minorUnits: row["target"], commodity: commodity),
            total: try BalanceQueries.balance(db, account: LedgerAccounts.pot(id), commodity: commodity)
        )
    }

    static func existing(_ id: String, _ db: Database) throws -> Pot? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM budget_pots WHERE pot_id = ? AND deleted = 0"), arguments: [id])
            .map { try pot(from: $0, db) }
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
