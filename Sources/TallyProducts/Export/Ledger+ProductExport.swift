public import TallyEngine
internal import Foundation

/// What ``Ledger/exportProducts(toDirectory:)`` wrote.
public struct ProductExportSummary: Hashable, Sendable {
    /// The events file (`ledger.ndjson`): what a restore reads.
    public let events: ExportSummary
    /// Each CSV written, by file name, with its number of rows (the header not counted).
    public let csvRows: [String: Int]
}

extension Ledger {
    /// Every budget transaction in its current version (deleted ones hidden), or as the
    /// ledger knew them at `knownAt`, oldest first: every page of ``transactions(_:asOf:knownAt:)``.
    ///
    /// ```swift
    /// let all = try ledger.allBudgetTransactions()
    /// ```
    public func allBudgetTransactions(knownAt: Instant? = nil) throws -> [BudgetTransaction] {
        var query = TransactionQuery()
        query.sort = .date
        query.descending = false
        query.pageSize = BudgetSettings.pageSizeLimit
        var transactions: [BudgetTransaction] = []
        while true {
            let page = try self.transactions(query, knownAt: knownAt)
            transactions += page.transactions
            guard query.page < page.pageCount else { return transactions }
            query.page += 1
        }
    }

    /// Every envelope's activity through `through` (today by default), by envelope id:
    /// deleted envelopes included up to their deletion, those not started by then left out.
    ///
    /// ```swift
    /// for envelope in try ledger.envelopeActivity() { print(envelope.name, envelope.entries.last?.balance as Any) }
    /// ```
    public func envelopeActivity(through: LocalDate? = nil, knownAt: Instant? = nil) throws -> [EnvelopeAuditTrail] {
        let envelopes = try read { db in
            try EnvelopeBook.load(db, effectiveThrough: .latest, knownAt: knownAt, after: .latest).envelopes.values.sorted { $0.envelopeId < $1.envelopeId }
        }
        return try envelopes.compactMap { envelope in
            do {
                return EnvelopeAuditTrail(envelopeId: envelope.envelopeId, name: envelope.name,
                                        entries: try envelopeAudit(envelope.envelopeId, through: through, knownAt: knownAt))
            } catch let error as LedgerError where error.code == .notFound {
                return nil  // created after `through`
            }
        }
    }

    /// Every asset's and liability's value history (``auditValue(of:_:from:through:knownAt:)``),
    /// assets then liabilities, by id, removed ones included.
    ///
    /// ```swift
    /// for item in try ledger.netWorthValueHistories() { print(item.itemId, item.entries.count) }
    /// ```
    public func netWorthValueHistories(knownAt: Instant? = nil) throws -> [NetWorthValueHistory] {
        let items = try read { db in try NetWorthHistory.items(db) }
        return try items.map { item in
            NetWorthValueHistory(kind: item.kind, itemId: item.id, name: item.name, entries: try auditValue(of: item.kind, item.id, knownAt: knownAt))
        }
    }

    /// Every month's budgets (``budgetMonths(knownAt:)``, each read by
    /// ``budgets(month:asOf:knownAt:)`` for the whole month), oldest month first.
    ///
    /// ```swift
    /// for budget in try ledger.allBudgets() { print(budget.month, budget.category, budget.remaining) }
    /// ```
    public func allBudgets(knownAt: Instant? = nil) throws -> [BudgetStatus] {
        try budgetMonths(knownAt: knownAt).flatMap { try budgets(month: $0, knownAt: knownAt) }
    }

    /// Every wealth account's history, oldest first, accounts by name.
    ///
    /// ```swift
    /// for account in try ledger.wealthHistories() { print(account.account, account.entries.count) }
    /// ```
    public func wealthHistories(knownAt: Instant? = nil) throws -> [WealthAccountHistory] {
        let prefix = "Wealth:", suffix = ":Wallet"
        let accounts = try read { db in try AccountRecords.names(startingWith: prefix, db) }
            .filter { $0.hasSuffix(suffix) && $0.count > prefix.count + suffix.count }
            .map { String($0.dropFirst(prefix.count).dropLast(suffix.count)) }
        return try accounts.map { account in
            var entries: [WealthHistoryEntry] = []
            var page = 1
            while true {
                let history = try wealthHistory(account: account, page: page, pageSize: Self.wealthHistoryPageSizeLimit, knownAt: knownAt)
                entries += history.entries
                guard page * history.pageSize < history.totalCount else { break }
                page += 1
            }
            return WealthAccountHistory(account: account, entries: entries.reversed())
        }
    }

    /// Writes the whole ledger into `directory` (created when missing): its events as
    /// `ledger.ndjson` (``export(to:)``, what a restore reads) and one CSV per product
    /// answer a spreadsheet opens: ``BudgetTransactionsCSV``, ``EnvelopeActivityCSV``,
    /// ``NetWorthItemsCSV``, ``NetWorthValuationsCSV``, ``WealthHistoryCSV``, ``BudgetsCSV``
    /// (every month's budgets), ``PotsCSV`` and ``RecurringItemsCSV`` (as they stand). Every CSV is
    /// written, with its header, whether or not the ledger uses its product (a script finds
    /// the same files every time). Files of the same names are replaced, each in one step.
    ///
    /// ```swift
    /// let summary = try ledger.exportProducts(toDirectory: "backup")
    /// print(summary.events.head, summary.csvRows)
    /// ```
    ///
    /// - Throws: ``LedgerError`` (`store`) when the directory or a file cannot be written.
    public func exportProducts(toDirectory directory: String) throws -> ProductExportSummary {
        try LedgerError.boundary {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw StoreError(.io, "cannot create the export directory '\(directory)': \((error as NSError).localizedDescription)")
            }
            func path(_ name: String) -> String { directory.hasSuffix("/") ? directory + name : directory + "/" + name }
            let events = try export(to: path(Ledger.exportEventsFileName))
            var rows: [String: Int] = [:]
            func write(_ name: String, _ text: String, _ count: Int) throws {
                try ExportFiles.write(text, to: path(name))
                rows[name] = count
            }
            let transactions = try allBudgetTransactions()
            try write(BudgetTransactionsCSV.fileName, BudgetTransactionsCSV.render(transactions), transactions.count)
            let envelopes = try envelopeActivity()
            try write(EnvelopeActivityCSV.fileName, EnvelopeActivityCSV.render(envelopes), envelopes.reduce(0) { $0 + $1.entries.count })
            let netWorth = try self.netWorth()
            try write(NetWorthItemsCSV.fileName, NetWorthItemsCSV.render(netWorth), netWorth.lines.count + netWorth.excluded.count)
            let valuations = try netWorthValueHistories()
            try write(NetWorthValuationsCSV.fileName, NetWorthValuationsCSV.render(valuations), valuations.reduce(0) { $0 + $1.entries.count })
            let wealth = try wealthHistories()
            try write(WealthHistoryCSV.fileName, WealthHistoryCSV.render(wealth), wealth.reduce(0) { $0 + $1.entries.count })
            let budgets = try allBudgets()
            try write(BudgetsCSV.fileName, try BudgetsCSV.render(budgets, conversion: nil), budgets.count)
            let pots = try self.pots()
            try write(PotsCSV.fileName, PotsCSV.render(pots), pots.count)
            let recurring = try recurringItems()
            try write(RecurringItemsCSV.fileName, RecurringItemsCSV.render(recurring), recurring.count)
            return ProductExportSummary(events: events, csvRows: rows)
        }
    }
}

/// One of the products' CSVs, by the name `tally export --csv NAME` and the service's
/// `GET /ledgers/{id}/exports/{name}` take; ``Ledger/productCSV(_:)`` renders it.
public enum ProductCSVName: String, CaseIterable, Sendable {
    /// ``BudgetTransactionsCSV``.
    case budgetTransactions = "budget-transactions"
    /// ``EnvelopeActivityCSV``.
    case envelopeActivity = "envelope-activity"
    /// ``NetWorthItemsCSV``.
    case netWorthItems = "net-worth-items"
    /// ``NetWorthValuationsCSV``.
    case netWorthValuations = "net-worth-valuations"
    /// ``WealthHistoryCSV``.
    case wealthHistory = "wealth-history"
    /// ``BudgetsCSV``: every month's budgets.
    case budgets
    /// ``PotsCSV``.
    case pots
    /// ``RecurringItemsCSV``.
    case recurringItems = "recurring-items"
}

extension Ledger {
    /// One product's CSV, whole, with its header (also for a product the ledger does not
    /// use), exactly as ``exportProducts(toDirectory:)`` writes its file.
    ///
    /// ```swift
    /// let csv = try ledger.productCSV(.budgetTransactions)   // "id,date,payee,…\n…"
    /// ```
    public func productCSV(_ name: ProductCSVName) throws -> String {
        switch name {
        case .budgetTransactions: BudgetTransactionsCSV.render(try allBudgetTransactions())
        case .envelopeActivity: EnvelopeActivityCSV.render(try envelopeActivity())
        case .netWorthItems: NetWorthItemsCSV.render(try netWorth())
        case .netWorthValuations: NetWorthValuationsCSV.render(try netWorthValueHistories())
        case .wealthHistory: WealthHistoryCSV.render(try wealthHistories())
        case .budgets: try BudgetsCSV.render(try allBudgets(), conversion: nil)
        case .pots: PotsCSV.render(try pots())
        case .recurringItems: RecurringItemsCSV.render(try recurringItems())
        }
    }
}
