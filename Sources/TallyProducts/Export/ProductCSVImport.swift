public import TallyEngine
import GRDB

// The way back of the export's product CSVs (docs/cli.md, "Export and restore"): `budgets.csv`,
// `pots.csv`, `recurring-items.csv` and `budget-transactions.csv`, read by `tally import` (``Ledger/importProductCSV(at:)``)
// into a ledger through the products' own commands, so every rule of a budget, a pot or a
// recurring item holds for an imported row as for a typed one. Each file is read whole and
// checked (every field), then every row's command is rehearsed in order (the ledger's rules,
// against the state the earlier rows leave), and only then appended, in one commit: a file is
// imported all or nothing, and a refused row names its file, line and column.

/// The product CSVs of an export that `tally import` reads back, known by their header.
public enum ProductCSVKind: String, Hashable, Sendable, CaseIterable {
    /// `budgets.csv` (``BudgetsCSV``): a budget per category and month.
    case budgets
    /// `pots.csv` (``PotsCSV``): a pot with its target and what it holds.
    case pots
    /// `recurring-items.csv` (``RecurringItemsCSV``): a recurring income or bill.
    case recurringItems = "recurring_items"
    /// `budget-transactions.csv` (``BudgetTransactionsCSV``): a budget transaction in its
    /// current version.
    case budgetTransactions = "budget_transactions"

    /// The header the file starts with, exactly as the export writes it.
    public var header: String {
        switch self {
        case .budgets: BudgetsCSV.header
        case .pots: PotsCSV.header
        case .recurringItems: RecurringItemsCSV.header
        case .budgetTransactions: BudgetTransactionsCSV.header
        }
    }

    /// The kind whose header is `fields` (or, for `budget-transactions.csv`, the header of an
    /// export written before its `bank_category` column), or nil.
    public static func of(header fields: [String]) -> ProductCSVKind? {
        guard !fields.contains(where: { $0.contains(",") }) else { return nil }
        let header = fields.joined(separator: ",")
        if header == BudgetTransactionsCSV.headerBeforeBankCategory { return .budgetTransactions }
        return allCases.first { $0.header == header }
    }

    /// The kind of the CSV file at `path`, read from its first line; nil for any other CSV.
    /// - Throws: ``ImportError`` (`unreadable`, `syntax`).
    public static func of(csvAt path: String) throws -> ProductCSVKind? {
        try CSVReader(path: path).next().flatMap { of(header: $0.fields) }
    }
}

extension Ledger {
    /// The most rows a product CSV may hold: the file is read whole and appended in one commit.
    public static let productCSVRowsMax = 50_000

    /// Imports one of the export's product CSVs (``ProductCSVKind``) through the products'
    /// commands: a budget row sets that category's budget for its month (as `budget set`);
    /// a pot row creates the pot with its name and target and adds its total (as `pot create`
    /// and `pot add`: the budget's balance must cover it); a recurring row defines the item
    /// (as `recurring define`). A transaction row records the transaction as it stands, under
    /// the id the export gives it: a manual one as `tx add` with that id (`manual:<seq>`, an id
    /// the ledger numbers, becomes the chosen id `manual-<seq>`), a bank one as the bank's
    /// import (the bank must be connected), a recurring item's occurrence `recurring:<id>:<month>`
    /// as the occurrence that month's generation records (so generating the month again
    /// skips it). The columns an export derives (`spent`, `remaining`, `over_budget`, the
    /// base-currency columns, `progress_basis_points`) are answers, not input: they are
    /// checked for form and otherwise ignored.
    ///
    /// A row that the ledger holds already (the same budget maximum, the same pot with the
    /// same total, the same recurring item, the same transaction under its id) is skipped and
    /// counted, so importing a file twice changes nothing; a pot, recurring item or
    /// transaction that exists with something else refuses the file, naming its line and column.
    ///
    /// ```swift
    /// let summary = try ledger.importProductCSV(at: "backup/recurring-items.csv")
    /// print(summary.imported, summary.duplicatesSkipped)
    /// ```
    ///
    /// - Throws: ``LedgerError`` `invalidInput` with an ``ImportError`` naming file, line,
    ///   column and field (a malformed row, or one the ledger's rules refuse); nothing is
    ///   appended.
    @discardableResult
    public func importProductCSV(at path: String) throws -> ImportSummary {
        try LedgerError.boundary {
            let reader = try CSVReader(path: path)
            guard let headerRecord = try reader.next() else {
                throw ImportError(.header, file: path, line: 1, "the file is empty; an export's product CSV starts with its header")
            }
            guard let kind = ProductCSVKind.of(header: headerRecord.fields) else {
                throw ImportError(.header, file: path, line: headerRecord.line,
                                  "the first line is not the header of an export's product CSV (\(ProductCSVKind.allCases.map(\.header).joined(separator: " | ")))")
            }
            let currency = try read { try BudgetSettings.currency($0) }
            var rows: [ProductCSVRow] = []
            while let record = try reader.next() {
                guard rows.count < Self.productCSVRowsMax else {
                    throw ImportError(.invalidRow, file: path, line: record.line, "the file has more than \(Self.productCSVRowsMax) rows; split it")
                }
                rows.append(try ProductCSVRow(record, kind: kind, columns: headerRecord.fields, file: path, currency: currency))
            }
            let planned = try rows.compactMap { row in try row.commands(self).map { (row, $0) } }
            try rehearse { plan in
                for (row, commands) in planned {
                    for (field, command) in commands {
                        do { try plan(command) } catch let error as LedgerError { throw row.fail(field, error.message) }
                    }
                }
            }
            var summary = ImportSummary()
            summary.rows = rows.count
            summary.duplicatesSkipped = rows.count - planned.count
            let commands = planned.flatMap { planned in planned.1.map { (row: planned.0, command: $0.command) } }
            let results = commands.isEmpty ? [] : try run(batch: commands.map(\.command))
            for (row, outcome) in zip(commands.map(\.row), results) {
                switch outcome {
                case .success(let result):
                    guard let first = result.events.first?.sequence, let last = result.events.last?.sequence else { continue }
                    summary.eventsAppended += result.events.count
                    summary.sequences = (summary.sequences?.lowerBound ?? first)...last
                case .failure(let error):
                    throw ImportError(.changedDuringImport, file: path, line: row.line,
                                      "the row was refused after the rehearsal (\(error)); the rows before it were appended, re-run the import to finish")
                }
            }
            summary.imported = planned.count
            summary.commits = summary.sequences == nil ? 0 : 1
            return summary
        }
    }
}

/// One row of a product CSV, checked: what the product's command would be given.
struct ProductCSVRow {
    enum Content {
        case budget(category: BudgetCategory, month: Month, maximum: Money)
        case pot(id: String, name: String, total: Money, target: Money)
        case recurring(RecurringItem)
        case transaction(ExportedTransaction)
    }

    let file: String
    let line: Int
    let kind: ProductCSVKind
    let content: Content

    /// Reads a record under the file's header `names`; `currency` is the budget's, the only
    /// one its amounts may be in.
    /// - Throws: ``ImportError`` (`invalidRow`) naming file, line, column and field.
    init(_ record: CSVRecord, kind: ProductCSVKind, columns names: [String], file: String, currency: Commodity) throws {
        func fail(_ field: String?, _ message: String) -> ImportError {
            ImportError(.invalidRow, file: file, line: record.line, column: field.flatMap { names.firstIndex(of: $0) }.map { $0 + 1 }, field: field, message)
        }
        guard record.fields.count == names.count else {
            throw fail(nil, "the row has \(record.fields.count) field\(record.fields.count == 1 ? "" : "s"); the header has \(names.count) (\(names.joined(separator: ",")))")
        }
        var fields: [String: String] = [:]
        for (name, value) in zip(names, record.fields) { fields[name] = value }
        let reader = ProductCSVFields(fields: fields, currency: currency, fail: fail)
        guard fields["currency"] == currency.code else {
            throw fail("currency", "is '\(fields["currency"] ?? "")'; the budget's amounts are in \(currency.code)")
        }
        self.file = file
        self.line = record.line
        self.kind = kind
        switch kind {
        case .budgets:
            try reader.checkDerived(money: ["spent", "remaining"], flags: ["over_budget"], optionalMoney: ["maximum_in_base", "spent_in_base", "remaining_in_base"])
            content = .budget(category: try reader.category("category"), month: try reader.month("month"), maximum: try reader.money("maximum", positive: true))
        case .pots:
            try reader.checkDerived(integers: ["progress_basis_points"])
            content = .pot(id: try reader.identifier("id", "the pot id"), name: try reader.name("name", "the pot's name"),
                           total: try reader.money("total", positive: false), target: try reader.money("target", positive: true))
        case .recurringItems:
            content = .recurring(RecurringItem(
                id: try reader.identifier("id", "the recurring item id"), payee: try reader.name("payee", "the payee"),
                category: try reader.category("category"), amount: try reader.money("amount", signed: true),
                frequency: try reader.frequency("frequency"), dayOfMonth: try reader.dayOfMonth("day_of_month"),
                startMonth: try reader.month("start_month"), endMonth: try reader.optionalMonth("end_month")))
        case .budgetTransactions:
            content = .transaction(try reader.transaction())
        }
    }

    /// The commands that make the ledger hold this row, each with the column a refusal of it
    /// is about; nil when the ledger holds the row already.
    /// - Throws: ``ImportError`` when the ledger holds something else under the row's id.
    func commands(_ ledger: Ledger) throws -> [(field: String, command: LedgerCommand)]? {
        switch content {
        case .budget(let category, let month, let maximum):
            let current = try ledger.budgets(month: month).first { $0.category == category }
            return current?.maximum == maximum ? nil : [("maximum", try ledger.setBudgetCommand(category: category, month: month, maximum: maximum))]
        case .pot(let id, let name, let total, let target):
            if let pot = try ledger.pot(id: id) {
                guard pot.name == name, pot.target == target else {
                    throw fail("id", "the pot '\(id)' exists with another name or target (\(pot.name), \(pot.target.decimalString)); delete it first or choose another id")
                }
                guard pot.total == total else {
                    throw fail("total", "the pot '\(id)' holds \(pot.total.decimalString), not \(total.decimalString); an import sets a pot's total only when it creates it")
                }
                return nil
            }
            return [("id", try ledger.createPotCommand(id: id, name: name, target: target))]
                + (total.isZero ? [] : [("total", try ledger.addToPotCommand(id: id, amount: total))])
        case .recurring(let item):
            if let existing = try ledger.recurringItems().first(where: { $0.id == item.id }) {
                guard existing == item else {
                    throw fail("id", "the recurring item '\(item.id)' exists with another definition; remove it first or choose another id")
                }
                return nil
            }
            return [("id", try ledger.defineRecurringCommand(
                id: item.id, payee: item.payee, category: item.category, amount: item.amount, dayOfMonth: item.dayOfMonth,
                startMonth: item.startMonth, endMonth: item.endMonth, frequency: item.frequency))]
        case .transaction(let row):
            if let existing = try ledger.transaction(id: row.id) {
                guard row.matches(existing) else {
                    throw fail("id", "the transaction '\(row.id)' exists with another payee, category, amount, date, recurring flag or source; delete it first or leave the row out")
                }
                return nil
            }
            switch row.origin {
            case .manual:
                return [("id", try ledger.recordTransactionCommand(
                    payee: row.payee, category: row.category, amount: row.amount, date: row.date, recurring: row.recurring, id: row.id))]
            case .bank(let bankId, let externalId, let bankCategory):
                // Imported with what the bank sent, then moved to the user's category as the user did.
                return [("bank", try ledger.importBankTransactionCommand(
                    bankId: bankId, externalId: externalId, payee: row.payee, category: bankCategory, amount: row.amount, date: row.date))]
                    + (bankCategory == row.category ? [] : [("category", try ledger.recategoriseCommand(id: row.id, category: row.category))])
            case .occurrence(let recurringId, let month):
                // An occurrence is generated flagged recurring; one the user unflagged since is amended back to it.
                return [("id", try ledger.restoreOccurrenceCommand(
                    recurringId: recurringId, month: month, payee: row.payee, category: row.category, amount: row.amount, date: row.date))]
                    + (row.recurring ? [] : [("recurring", try ledger.amendTransactionCommand(id: row.id, recurring: false))])
            }
        }
    }

    /// The row's error about `field`: `FILE:LINE:COLUMN: field 'NAME': message`.
    func fail(_ field: String, _ message: String) -> ImportError {
        let names = kind.header.split(separator: ",").map(String.init)
        return ImportError(.invalidRow, file: file, line: line, column: names.firstIndex(of: field).map { $0 + 1 }, field: field, message)
    }
}

/// A row of `budget-transactions.csv`, checked: the transaction as it stands, and how it came
/// to be (which command records it again).
struct ExportedTransaction {
    enum Origin: Equatable {
        /// Typed by the user: recorded again as `tx add` under ``ExportedTransaction/id``.
        case manual
        /// Imported from a bank: imported again from the same bank under the same bank id, with
        /// the category the bank sent (then re-categorised to the row's when it differs).
        case bank(bankId: String, externalId: String, bankCategory: BudgetCategory)
        /// A recurring item's occurrence in a month (its id `recurring:<item>:<month>`).
        case occurrence(recurringId: String, month: Month)
    }

    /// The id it gets in the ledger: the export's, except that `manual:<seq>` (an id the
    /// source ledger numbered by its sequence, which this ledger numbers again) becomes the
    /// chosen id `manual-<seq>`.
    let id: String
    let date: LocalDate
    let payee: String
    let category: BudgetCategory
    let amount: Money
    let recurring: Bool
    let origin: Origin

    /// The id a `manual:<seq>` transaction gets when read back: a chosen id, which never
    /// collides with an id the ledger numbers.
    static func importedManualId(_ exported: String) -> String? {
        let prefix = "manual:"
        guard exported.hasPrefix(prefix) else { return nil }
        let number = exported.dropFirst(prefix.count)
        guard !number.isEmpty, number.allSatisfy(\.isASCII), number.allSatisfy(\.isNumber) else { return nil }
        return "manual-" + number
    }

    /// Whether the ledger's transaction is this row: the same fields and the same origin.
    func matches(_ transaction: BudgetTransaction) -> Bool {
        let origin: Origin
        if let bankId = transaction.bankId, let externalId = transaction.externalId {
            origin = .bank(bankId: bankId, externalId: externalId, bankCategory: transaction.bankCategory ?? transaction.category)
        } else if let recurringId = transaction.recurringId, case .occurrence(_, let month) = self.origin {
            origin = .occurrence(recurringId: recurringId, month: month)
        } else {
            origin = .manual
        }
        return transaction.date == date && transaction.payee == payee && transaction.category == category
            && transaction.amount == amount && transaction.recurring == recurring && origin == self.origin
    }
}

/// The fields of one product CSV row, each read by the rule of the command it feeds.
private struct ProductCSVFields {
    let fields: [String: String]
    let currency: Commodity
    let fail: (String?, String) -> ImportError

    private func text(_ name: String) -> String { fields[name] ?? "" }

    func money(_ name: String, positive: Bool) throws -> Money {
        let amount = try CSVFields.money(text(name), currency, field: name, signed: false, fail: fail)
        if positive, !amount.isPositive { throw fail(name, "must be more than zero") }
        if amount.isNegative { throw fail(name, "is negative; write zero or more") }
        return amount
    }

    func money(_ name: String, signed: Bool) throws -> Money {
        let amount = try CSVFields.money(text(name), currency, field: name, signed: signed, fail: fail)
        if amount.isZero { throw fail(name, "is zero; a recurring item is positive for income, negative for a bill") }
        return amount
    }

    func category(_ name: String) throws -> BudgetCategory {
        do { return try BudgetCategory(parsing: text(name)) } catch let error as LedgerError { throw fail(name, error.message) }
    }

    func month(_ name: String) throws -> Month {
        do { return try Month(parsing: text(name)) } catch { throw fail(name, "is not a month; write YYYY-MM") }
    }

    func optionalMonth(_ name: String) throws -> Month? { text(name).isEmpty ? nil : try month(name) }

    func identifier(_ name: String, _ what: String) throws -> String {
        do { return try BudgetSettings.validIdentifier(text(name), what) } catch let error as LedgerError { throw fail(name, error.message) }
    }

    func name(_ name: String, _ what: String) throws -> String {
        do { return try BudgetSettings.validName(text(name), what) } catch let error as LedgerError { throw fail(name, error.message) }
    }

    func frequency(_ name: String) throws -> RecurringFrequency {
        // An export written before items recorded as weekly read as monthly says `weekly`.
        guard let frequency = RecurringFrequency(rawValue: text(name)) else {
            throw fail(name, "is not monthly, quarterly or yearly")
        }
        return frequency.schedule
    }

    func flag(_ name: String) throws -> Bool {
        switch text(name) {
        case "true": return true
        case "false": return false
        default: throw fail(name, "is not true or false")
        }
    }

    /// A row of `budget-transactions.csv`: its fields, and its id as its source makes it.
    func transaction() throws -> ExportedTransaction {
        let date = try CSVFields.date(text("date"), fail: fail)
        let payee = try name("payee", "the payee"), category = try category("category")
        let amount = try CSVFields.money(text("amount"), currency, field: "amount", signed: true, fail: fail)
        if amount.isZero { throw fail("amount", "is zero; a transaction is positive for income, negative for an expense") }
        let recurring = try flag("recurring")
        let id = text("id"), bank = text("bank"), externalId = text("external_id"), recurringItem = text("recurring_item")
        guard let source = TransactionSource(rawValue: text("source")) else { throw fail("source", "is not manual or bank") }
        let origin: ExportedTransaction.Origin
        let importedId: String
        switch source {
        case .bank:
            _ = try identifier("bank", "the bank id")
            guard !externalId.isEmpty, externalId.count <= BudgetSettings.identifierLengthLimit else {
                throw fail("external_id", "must have 1 to \(BudgetSettings.identifierLengthLimit) characters: the bank's transaction id")
            }
            guard recurringItem.isEmpty else { throw fail("recurring_item", "is given for a bank transaction; only a generated occurrence has one") }
            guard !recurring else { throw fail("recurring", "is true for a bank transaction; only the user's own transactions are flagged recurring") }
            importedId = TransactionRules.bankTransactionId(bankId: bank, externalId: externalId)
            guard id == importedId else { throw fail("id", "is '\(id)'; a bank transaction's id is bank:<bank>:<external_id>, here '\(importedId)'") }
            // An export written before `bank_category` has no such column: its category stands for the bank's.
            origin = .bank(bankId: bank, externalId: externalId, bankCategory: fields["bank_category"] == nil ? category : try self.category("bank_category"))
        case .manual:
            for column in ["bank", "external_id", "bank_category"] where !text(column).isEmpty {
                throw fail(column, "is given for a manual transaction; only a bank transaction has one")
            }
            if recurringItem.isEmpty {
                importedId = try ExportedTransaction.importedManualId(id) ?? identifier("id", "the transaction id")
                origin = .manual
            } else {
                _ = try identifier("recurring_item", "the recurring item id")
                guard let month = RecurringRules.occurrenceMonth(id, of: recurringItem) else {
                    throw fail("id", "is '\(id)'; an occurrence of recurring item '\(recurringItem)' has the id recurring:\(recurringItem):<YYYY-MM>")
                }
                importedId = id
                origin = .occurrence(recurringId: recurringItem, month: month)
            }
        }
        return ExportedTransaction(id: importedId, date: date, payee: payee, category: category, amount: amount, recurring: recurring, origin: origin)
    }

    func dayOfMonth(_ name: String) throws -> Int {
        guard let day = Int(text(name)), (1...31).contains(day) else { throw fail(name, "is not a day of the month from 1 to 31") }
        return day
    }

    /// The columns an export derives: well formed, else ignored.
    func checkDerived(money: [String] = [], flags: [String] = [], optionalMoney: [String] = [], integers: [String] = []) throws {
        for name in money { _ = try CSVFields.money(text(name), currency, field: name, signed: true, fail: fail) }
        for name in flags where text(name) != "true" && text(name) != "false" { throw fail(name, "is not true or false") }
        for name in optionalMoney where !text(name).isEmpty {
            guard let base = fields["base_currency"], !base.isEmpty else { throw fail(name, "has an amount without a base_currency") }
            _ = try CSVFields.money(text(name), try CSVFields.commodity(base, field: "base_currency", fail: fail), field: name, signed: true, fail: fail)
        }
        for name in integers where Int64(text(name)) == nil { throw fail(name, "is not a whole number") }
    }
}
