public import TallyEngine

// The products' answers as CSV a spreadsheet opens: RFC 4180 (``CSVWriter``), one header
// line, amounts as plain decimals at their currency's scale with the currency in a column
// of its own, days as YYYY-MM-DD, instants as RFC 3339 in UTC, every line ending with LF.
// Each renders a library answer as it is; ``Ledger/exportProducts(toDirectory:)`` writes them all.

/// Budget transactions (docs/domain.md §2), one row each in its current version, oldest first.
///
/// ```swift
/// print(BudgetTransactionsCSV.render(try ledger.allBudgetTransactions()), terminator: "")
/// ```
public enum BudgetTransactionsCSV {
    /// The file's name in an export directory.
    public static let fileName = "budget-transactions.csv"
    /// Exactly this header, then one row per transaction.
    public static let header = "date,payee,category,amount,currency,recurring,source,bank,external_id,recurring_item,id,bank_category"
    /// The header of an export written before `bank_category`, which `tally import` still
    /// reads (a bank row's category then stands for what the bank sent too).
    static let headerBeforeBankCategory = "date,payee,category,amount,currency,recurring,source,bank,external_id,recurring_item,id"

    /// The header and a row per transaction; the category as a person reads it (`Dining Out`),
    /// `recurring` as `true` or `false`, empty cells for what a transaction does not have.
    /// `category` is the user's (after any re-categorisation), `bank_category` what the bank
    /// sent with an imported one (``BudgetTransaction/bankCategory``).
    public static func render(_ transactions: [BudgetTransaction]) -> String {
        document(header, transactions.map { transaction in
            [
                transaction.date.description, transaction.payee, transaction.category.displayName,
                transaction.amount.decimalString, transaction.amount.commodity.code, String(transaction.recurring),
                transaction.source.rawValue, transaction.bankId ?? "", transaction.externalId ?? "", transaction.recurringId ?? "",
                transaction.id, transaction.bankCategory?.displayName ?? "",
            ]
        })
    }
}

/// One envelope's activity: its audit (``Ledger/envelopeAudit(_:from:through:knownAt:)``).
public struct EnvelopeAuditTrail: Hashable, Sendable {
    /// The envelope's id.
    public let envelopeId: String
    /// Its display name.
    public let name: String
    /// Every change to what it has left, with the running balance.
    public let entries: [AuditEntry]
}

/// Envelope activity (docs/domain.md §3): every change to what each envelope has left, envelope
/// by envelope (by id), each in effective-time order with its running balance.
public enum EnvelopeActivityCSV {
    /// The file's name in an export directory.
    public static let fileName = "envelope-activity.csv"
    /// Exactly this header, then one row per change.
    public static let header = "envelope,name,seq,recorded_at,effective_date,event,amount,currency,balance"

    /// The header and a row per change.
    public static func render(_ activity: [EnvelopeAuditTrail]) -> String {
        document(header, activity.flatMap { envelope in
            envelope.entries.map { entry in
                [envelope.envelopeId, envelope.name] + auditCells(entry)
            }
        })
    }
}

/// Net-worth items (docs/domain.md §4): every asset and liability held at a moment with its
/// value, the household's accounts among them (column `origin`, ``NetWorthOrigin``), counted ones (``NetWorthReport/lines``) then those left out of the total
/// (``NetWorthReport/excluded``, with the reason).
public enum NetWorthItemsCSV {
    /// The file's name in an export directory.
    public static let fileName = "net-worth-items.csv"
    /// Exactly this header, then one row per item.
    public static let header = "kind,id,name,category,value,currency,source,valued_at,value_in_base,base_currency,counted,note,origin"

    /// The header and a row per item of the report.
    public static func render(_ report: NetWorthReport) -> String {
        let counted = report.lines.map { line in
            [
                line.kind.rawValue, line.itemId, line.name, line.category, line.value.value.decimalString, line.value.value.commodity.code,
                line.value.source.rawValue, line.value.valuedAt.description, line.converted.decimalString, line.converted.commodity.code,
                "true", line.isStale ? "stale price" : "", line.origin.rawValue,
            ]
        }
        let excluded = report.excluded.map { item in
            [
                item.kind.rawValue, item.itemId, item.name, "", item.value?.decimalString ?? "", item.value?.commodity.code ?? "",
                "", "", "", report.baseCurrency.code, "false", item.reason, item.origin.rawValue,
            ]
        }
        return document(header, counted + excluded)
    }
}

/// One net-worth item's value history: its value audit (``Ledger/auditValue(of:_:from:through:knownAt:)``).
public struct NetWorthValueHistory: Hashable, Sendable {
    /// Asset or liability.
    public let kind: ItemKind
    /// The item's id.
    public let itemId: String
    /// What the user calls it.
    public let name: String
    /// Every change of its value.
    public let entries: [AuditEntry]
}

/// Net-worth valuations (docs/domain.md §4): every change of each item's value (valuations,
/// overrides, positions, prices of its symbol, its removal) with the value after it, item by
/// item (assets then liabilities, by id), removed items included.
public enum NetWorthValuationsCSV {
    /// The file's name in an export directory.
    public static let fileName = "net-worth-valuations.csv"
    /// Exactly this header, then one row per change.
    public static let header = "kind,id,name,seq,recorded_at,effective_date,event,change,currency,value"

    /// The header and a row per change.
    public static func render(_ histories: [NetWorthValueHistory]) -> String {
        document(header, histories.flatMap { item in
            item.entries.map { entry in
                [item.kind.rawValue, item.itemId, item.name] + auditCells(entry)
            }
        })
    }
}

/// One wealth account's history (``Ledger/wealthHistory(account:filter:page:pageSize:asOf:knownAt:)``), oldest first.
public struct WealthAccountHistory: Hashable, Sendable {
    /// The wealth account.
    public let account: String
    /// Its money events, oldest first.
    public let entries: [WealthHistoryEntry]
}

/// Wealth history (docs/domain.md §1): every money event of each wealth account (deposits,
/// splits, purchases, round-ups, skipped round-ups, withdrawals), oldest first, with what it
/// did to Spend and Invest.
public enum WealthHistoryCSV {
    /// The file's name in an export directory.
    public static let fileName = "wealth-history.csv"
    /// Exactly this header, then one row per event.
    public static let header = "account,seq,effective_at,recorded_at,kind,amount,currency,spend_change,invest_change,cause,detail"

    /// The header and a row per event.
    public static func render(_ histories: [WealthAccountHistory]) -> String {
        document(header, histories.flatMap { history in
            history.entries.map { entry in
                [
                    history.account, String(entry.sequence), entry.effectiveAt.description, entry.recordedAt.description, entry.kind.rawValue,
                    entry.amount.decimalString, entry.amount.commodity.code, entry.spendChange.decimalString, entry.investChange.decimalString,
                    entry.cause.map(String.init) ?? "", entry.detail ?? "",
                ]
            }
        })
    }
}

/// The cells of an audit entry: `seq,recorded_at,effective_date,event,amount,currency,balance`.
private func auditCells(_ entry: AuditEntry) -> [String] {
    [
        String(entry.sequence), entry.recordedAt.description, entry.effectiveDate.description, entry.eventType,
        entry.amount.decimalString, entry.amount.commodity.code, entry.balance.decimalString,
    ]
}

/// A header and rows as a CSV document, every line ending with LF: the one way the products'
/// CSVs are written (``CSVWriter`` quotes each field as RFC 4180 asks).
func document(_ header: String, _ rows: [[String]]) -> String {
    var text = header + "\n"
    for row in rows { text += CSVWriter.line(row) + "\n" }
    return text
}
