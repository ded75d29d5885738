import TallyEngine
import GRDB

/// The transaction list over the read models in `db` (the ledger's, or a replay's).
enum TransactionQueries {
    /// One page of `query` (`pageSize` rows) as of `asOf`, as known at `knownAt`, from indexed
    /// versions; the query is valid already.
    static func page(
        _ db: Database, _ query: TransactionQuery, pageSize: Int, asOf: Instant?, knownAt: Instant?, calendar: LedgerCalendar
    ) throws -> TransactionPage {
        var conditions = [BudgetTransaction.visible, "effective_at >= ?", "effective_at <= ?"]
        let through = query.through.map { calendar.endOfDay($0).microsecondsSinceEpoch } ?? Int64.max
        var arguments = BudgetTime.versionArguments(knownAt: knownAt) + [
            query.from.map { calendar.startOfDay($0).microsecondsSinceEpoch } ?? Int64.min,
            min(through, BudgetTime.effectiveBound(asOf)),
        ]
        if let search = query.search, !search.isEmpty {
            conditions.append("instr(payee_key, ?) > 0")
            _ = arguments.append(contentsOf: [search.lowercased()])
        }
        if let category = query.category {
            conditions.append("category = ?")
            _ = arguments.append(contentsOf: [category.rawValue])
        }
        let direction = query.descending ? "DESC" : "ASC"
        let order = switch query.sort {
        case .date: "effective_at \(direction), recorded_sequence \(direction)"
        case .name: "payee_key \(direction), effective_at \(direction), recorded_sequence \(direction)"
        case .amount: "amount \(direction), effective_at \(direction), recorded_sequence \(direction)"
        }
        let filter = conditions.joined(separator: " AND ")
        let offset = (query.page - 1) * pageSize
        let total = try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM budget_transaction_versions WHERE \(filter)"), arguments: arguments) ?? 0
        let rows = try Row.fetchAll(
            db.cachedStatement(sql: "SELECT * FROM budget_transaction_versions WHERE \(filter) ORDER BY \(order) LIMIT ? OFFSET ?"),
            arguments: arguments + [pageSize, offset]
        )
        return TransactionPage(
            transactions: try rows.map { try BudgetTransaction.from($0, calendar: calendar) },
            page: query.page, pageSize: pageSize, totalCount: total
        )
    }
}
