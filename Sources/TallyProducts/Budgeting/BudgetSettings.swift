public import TallyEngine
internal import Foundation
import GRDB

/// The budget product's fixed settings (docs/domain.md §2): the currency it keeps its books in
/// and the limits on what a user may type.
///
/// The budget currency is the base currency the ledger was created with. Later base
/// currency changes (a net-worth concern) do not move it, so no recorded amount ever
/// changes meaning.
public enum BudgetSettings {
    /// A bill is "due soon" when it falls due within this many days of today (docs/domain.md §2),
    /// unless the ledger's due-soon setting says otherwise (``LedgerSettings/dueSoonDays``).
    public static let dueSoonDaysDefault = Int(SettingsProjector.defaultDueSoonDays)
    /// The longest payee, pot or bank name, in characters.
    public static let nameLengthLimit = 200
    /// The longest transaction, pot, bank, recurring or external id, in characters.
    public static let identifierLengthLimit = 100
    /// The largest page a transaction list returns.
    public static let pageSizeLimit = ListPage.pageSizeLimit

    /// The budget currency, as the settings projector recorded it.
    static func currency(_ db: Database) throws -> Commodity {
        try BudgetSettingsProjector.currency(db)
    }

    /// Refuses an amount in another currency than the budget's.
    static func requireBudgetCurrency(_ amount: Money, _ what: String, _ db: Database) throws {
        let currency = try currency(db)
        guard amount.commodity == currency else {
            throw LedgerError(.currencyMismatch, "\(what) must be in the budget currency \(currency.code), not \(amount.commodity.code)")
        }
    }

    /// Refuses an empty or over-long name; returns it trimmed.
    static func validName(_ text: String, _ what: String) throws -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw LedgerError(.invalidArgument, "\(what) must not be empty") }
        guard trimmed.count <= nameLengthLimit else {
            throw LedgerError(.invalidArgument, "\(what) is longer than \(nameLengthLimit) characters; shorten it")
        }
        return trimmed
    }

    /// Refuses an id that is empty, over-long, or holds a colon or whitespace (colons
    /// separate the parts of generated ids, so a chosen id can never collide with one).
    static func validIdentifier(_ text: String, _ what: String) throws -> String {
        guard !text.isEmpty else { throw LedgerError(.invalidArgument, "\(what) must not be empty") }
        guard text.count <= identifierLengthLimit else {
            throw LedgerError(.invalidArgument, "\(what) is longer than \(identifierLengthLimit) characters; shorten it")
        }
        guard !text.contains(where: { $0 == ":" || $0.isWhitespace || $0.isNewline }) else {
            throw LedgerError(.invalidArgument, "\(what) '\(text)' must not contain ':' or spaces; use letters, digits, '-' or '_'")
        }
        return text
    }
}

extension Ledger {
    /// The currency the budget product keeps its books in: the base currency the ledger
    /// was created with.
    ///
    /// ```swift
    /// let amount = try Money(parsing: "-12.50", commodity: try ledger.budgetCurrency())
    /// ```
    public func budgetCurrency() throws -> Commodity { try read(BudgetSettings.currency) }
}

extension BudgetCategory {
    /// Reads a category from its stored name (`dining_out`) or the name a person reads
    /// (`Dining Out`, `dining-out`), ignoring case.
    ///
    /// ```swift
    /// let category = try BudgetCategory(parsing: "Dining Out")   // .diningOut
    /// ```
    /// - Throws: ``LedgerError`` (`invalidArgument`) listing the categories.
    public init(parsing text: String) throws {
        func key(_ value: String) -> String {
            String(value.lowercased().filter { $0.isLetter })
        }
        let wanted = key(text)
        guard let match = BudgetCategory.allCases.first(where: { key($0.rawValue) == wanted }) else {
            let names = BudgetCategory.allCases.map(\.displayName).joined(separator: ", ")
            throw LedgerError(.invalidArgument, "'\(text)' is not a category; use one of: \(names)")
        }
        self = match
    }
}
