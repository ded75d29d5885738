import TallyEngine

/// The bank CSV format of the budget product's bulk import: what a row means and every rule
/// a row must meet, in one place.
///
/// ```text
/// date,amount,payee,external_id,category
/// 2026-05-01,2500.00,"ACME, Inc.",T-1001,
/// 2026-05-02,-15.49,Netflix,T-1002,Entertainment
/// ```
///
/// Each row is one bank transaction of the bank named on the command line, recorded as
/// ``Ledger/importBankTransaction(bankId:externalId:payee:category:amount:date:idempotencyKey:)``
/// records it: id and idempotency key `bank:<bank id>:<external_id>`, effective at the start of
/// `date` in the ledger's time zone. The header is exactly ``header``, or the same without
/// `,category` (``headerWithoutCategory``).
///
/// - `date`: `YYYY-MM-DD`.
/// - `amount`: signed decimal in the budget currency (positive income, negative expense),
///   not zero, no more decimals than the currency has.
/// - `payee`: not empty after trimming spaces, at most ``BudgetSettings/nameLengthLimit`` characters.
/// - `external_id`: the bank's transaction id, 1 to ``BudgetSettings/identifierLengthLimit`` characters.
/// - `category`: one of the fixed categories, by name (`Dining Out`, `dining_out`, any case);
///   empty or absent: ``defaultCategory`` (General).
///
/// Every field is text without control characters, and every limit of the event it becomes
/// holds: the validating pass runs each row's event through the record check the log applies.
public enum BankCSV {
    /// The full header.
    public static let header = "date,amount,payee,external_id,category"
    /// The header of a file without categories.
    public static let headerWithoutCategory = "date,amount,payee,external_id"
    /// The category of a row that gives none.
    public static let defaultCategory = BudgetCategory.general

    static let fieldNames = header.split(separator: ",").map(String.init)
    static let fieldNamesWithoutCategory = headerWithoutCategory.split(separator: ",").map(String.init)

    /// One row, checked: what the single import would be given.
    struct Row {
        let line: Int
        let date: LocalDate
        let amount: Money
        let payee: String
        let externalId: String
        let category: BudgetCategory
    }

    /// The number of fields a file's rows have, from its header record.
    /// - Throws: ``ImportError`` (`header`) for an empty file or another header.
    static func fieldCount(ofHeader record: CSVRecord?, file: String) throws -> Int {
        guard let record else {
            throw ImportError(.header, file: file, line: 1, "the file is empty; a bank CSV starts with the header \(header)")
        }
        if record.fields == fieldNames { return fieldNames.count }
        if record.fields == fieldNamesWithoutCategory { return fieldNamesWithoutCategory.count }
        throw ImportError(.header, file: file, line: record.line, "the first line must be exactly the header \(header) (or \(headerWithoutCategory))")
    }

    /// Reads one record as a row.
    /// - Throws: ``ImportError`` (`invalidRow`) naming file, line and field.
    static func row(_ record: CSVRecord, fieldCount: Int, currency: Commodity, file: String) throws -> Row {
        let line = record.line
        func fail(_ field: String?, _ message: String) -> ImportError {
            ImportError(.invalidRow, file: file, line: line, field: field, message)
        }
        let fields = record.fields
        guard fields.count == fieldCount else {
            throw fail(nil, "the row has \(fields.count) field\(fields.count == 1 ? "" : "s"); the header has \(fieldCount)")
        }
        let date = try CSVFields.date(fields[0], fail: fail)
        let amount = try CSVFields.money(fields[1], currency, field: "amount", signed: true, fail: fail)
        guard !amount.isZero else {
            throw fail("amount", "is zero; a bank transaction is positive for income, negative for an expense")
        }
        let payee: String
        do { payee = try BudgetSettings.validName(fields[2], "the payee") } catch let error as LedgerError {
            throw fail("payee", error.message)
        }
        let externalId = fields[3]
        guard !externalId.isEmpty, externalId.count <= BudgetSettings.identifierLengthLimit else {
            throw fail("external_id", "must have 1 to \(BudgetSettings.identifierLengthLimit) characters: the bank's transaction id")
        }
        var category = defaultCategory
        if fieldCount > 4, !fields[4].isEmpty {
            do { category = try BudgetCategory(parsing: fields[4]) } catch let error as LedgerError {
                throw fail("category", error.message)
            }
        }
        return Row(line: line, date: date, amount: amount, payee: payee, externalId: externalId, category: category)
    }

    /// Runs a row's event (with its idempotency key) through the record check every event
    /// passes before the log, naming the column at fault.
    /// - Throws: ``ImportError`` (`invalidRow`) naming file, line and field.
    static func checkRecord(_ command: LedgerCommand, catalog: EventCatalog, line: Int, file: String) throws {
        guard var event = command.request else { return }
        event.idempotencyKey = command.idempotencyKey
        do {
            _ = try catalog.record(for: event)
        } catch let error as EventCodingError {
            let column = error.field.flatMap(column(forField:))
            throw ImportError(.invalidRow, file: file, line: line, field: column, column == nil ? "\(error)" : error.reason ?? "\(error)")
        }
    }

    /// The CSV column a field of `transaction_recorded` (its path in the JSON form) comes
    /// from; nil for a field no column holds.
    static func column(forField field: String) -> String? {
        switch field {
        case "data.payee": "payee"
        case "data.amount", "data.amount.amount", "data.amount.currency": "amount"
        case "data.category": "category"
        case "data.external_id", "data.transaction_id", "idempotency_key", "entity": "external_id"
        case "effective_at": "date"
        default: nil
        }
    }
}

/// A bank CSV's rows in file order, each with the command the single import runs for it:
/// the one path every pass of a bulk import takes.
struct BankRows {
    private let reader: CSVReader
    private let fieldCount: Int
    private let currency: Commodity
    private let ledger: Ledger
    private let bankId: String
    private var days: DayStarts

    /// Opens a file and reads its header.
    /// - Throws: ``ImportError`` (`unreadable`, `header`, `syntax`).
    init(path: String, bankId: String, currency: Commodity, ledger: Ledger) throws {
        reader = try CSVReader(path: path)
        fieldCount = try BankCSV.fieldCount(ofHeader: try reader.next(), file: path)
        self.currency = currency
        self.ledger = ledger
        self.bankId = bankId
        days = DayStarts(calendar: ledger.calendar)
    }

    var path: String { reader.path }
    var bytesRead: Int64 { reader.bytesRead }
    var fileBytes: Int64 { reader.fileBytes }
    /// The SHA-256 of the file in hex; valid once ``next()`` returned nil.
    func hexDigest() -> String { reader.hexDigest() }

    /// The next row's line and command, or nil at the end of the file.
    /// - Throws: ``ImportError`` naming the line and field of a bad row.
    mutating func next() throws -> (line: Int, command: LedgerCommand)? {
        guard let record = try reader.next() else { return nil }
        let row = try BankCSV.row(record, fieldCount: fieldCount, currency: currency, file: reader.path)
        guard days.start(of: row.date).isInCalendarRange else {
            throw ImportError(.invalidRow, file: reader.path, line: row.line, field: "date", "lies outside years 0001-9999 in the ledger's time zone")
        }
        do {
            let command = try ledger.importBankTransactionCommand(
                bankId: bankId, externalId: row.externalId, payee: row.payee, category: row.category, amount: row.amount, date: row.date)
            return (row.line, command)
        } catch let error as LedgerError {
            throw ImportError(.invalidRow, file: reader.path, line: row.line, error.message)
        }
    }
}
