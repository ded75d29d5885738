import TallyEngine
import GRDB

/// The statements of the pots read model (`budget_pots`), with each pot's total from the
/// balances read model.
enum PotRecords {
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
            let commodity = try Commodity.named(row[PotColumns.commodity])
            let id: String = row[PotColumns.potId]
            return Pot(
                id: id, name: row[PotColumns.name], target: Money(minorUnits: row[PotColumns.target], commodity: commodity),
                total: try total(LedgerAccounts.pot(id), commodity)
            )
        }
    }
}
