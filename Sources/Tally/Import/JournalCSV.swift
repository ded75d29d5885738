import TallyLog

/// The journal CSV format: what a row means and every rule a row must meet, in one place.
///
/// ```text
/// date,account,counter_account,amount,currency,payee,category,external_id
/// 2026-05-01,Assets:Checking,Income:Salary,2500.00,USD,"ACME, Inc.",Salary,bank-001
/// 2026-05-02,Expenses:Dining,Assets:Checking,42.10,USD,"Joe's ""Diner""",Dining,
/// ```
///
/// Each row moves the signed `amount` of `currency` into `account` out of
/// `counter_account`, effective at the start of `date` in the ledger's time zone: one
/// `journal_entry_posted` event. The header must be exactly ``header``.
///
/// - `date`: `YYYY-MM-DD`.
/// - `account`, `counter_account`: colon-separated names whose first segment gives the
///   kind, as in ledger-cli: `Assets`, `Liabilities`, `Income`, `Expenses` or `Equity`
///   (and the synonyms ``LedgerAccounts/kind(of:)`` knows); two different accounts.
/// - `amount`: signed decimal (`-12.50`), no grouping or exponent; more decimals than the
///   commodity's scale only if the extra digits are zeros.
/// - `currency`: an ISO currency or a commodity symbol (`USD`, `VEA`, `USDC`, `IRAUSD`):
///   an uppercase letter, then uppercase letters, digits, `.`, `_` or `-`.
/// - `payee`, `category`, `external_id`: optional text. A row whose `external_id` was
///   imported before is skipped.
public enum JournalCSV {
    /// The header every journal CSV starts with, exactly.
    public static let header = "date,account,counter_account,amount,currency,payee,category,external_id"
    /// The header's field names, in order.
    public static let fieldNames = header.split(separator: ",").map(String.init)

    /// The account kinds a journal row may name.
    static let journalKinds: Set<AccountKind> = [.asset, .liability, .income, .expense, .equity]

    /// The idempotency key prefix of journal rows.
    static let keyPrefix = "journal:"
    /// The longest external id: its key must fit the log's key limit.
    static let externalIdBytesMax = LogFormat.idempotencyKeyBytesMax - keyPrefix.utf8.count
    /// The longest account name: its entity (`account:NAME`) must fit the log's entity limit.
    static let accountBytesMax = LogFormat.entityBytesMax - "account:".utf8.count

    /// Checks the header record.
    static func checkHeader(_ record: CSVRecord?, file: String) throws {
        guard let record else {
            throw ImportError(.header, file: file, line: 1, "the file is empty; a journal CSV starts with the header \(header)")
        }
        guard record.fields == fieldNames else {
            let found = CSVWriter.line(record.fields)
            let hint = record.fields.count == fieldNames.count || found.count > 200 ? "" : " (found \(record.fields.count) fields)"
            throw ImportError(.header, file: file, line: record.line, "the first line must be exactly the header \(header)\(hint)")
        }
    }

    /// One row, validated: what it will append.
    struct Row {
        let line: Int
        let date: LocalDate
        let entry: JournalEntryPosted

        /// `journal:<external_id>`, or for a row without one `journal:<file sha256>:<line>`, so
        /// that re-running the same file resumes where it stopped.
        func idempotencyKey(fileDigest: String) -> String {
            if let externalId = entry.externalId { return JournalCSV.keyPrefix + externalId }
            return "\(JournalCSV.keyPrefix)\(fileDigest):\(line)"
        }
    }

    /// Account names and currency codes already found valid in a file (they repeat on
    /// almost every row), so each is checked once; bounded, emptied when full.
    struct Cache {
        static let entriesMax = 4096
        var accounts: Set<String> = []
        var commodities: [String: Commodity] = [:]
    }

    /// Validates one data record.
    /// - Throws: ``ImportError`` (`invalidRow`) naming the line and field.
    static func row(_ record: CSVRecord, file: String) throws -> Row {
        var cache = Cache()
        return try row(record, file: file, cache: &cache)
    }

    /// Validates one data record, remembering valid names in `cache`.
    static func row(_ record: CSVRecord, file: String, cache: inout Cache) throws -> Row {
        let line = record.line
        func fail(_ field: String?, _ message: String) -> ImportError {
            ImportError(.invalidRow, file: file, line: line, field: field, message)
        }
        guard record.fields.count == fieldNames.count else {
            throw fail(nil, "the row has \(record.fields.count) field\(record.fields.count == 1 ? "" : "s"); a journal row has \(fieldNames.count) (\(header)); quote a field that holds a comma")
        }
        let fields = record.fields
        let date: LocalDate
        do {
            date = try LocalDate(parsing: fields[0])
        } catch {
            throw fail("date", fields[0].isEmpty ? "is empty; write the date as YYYY-MM-DD" : "is not a calendar date in the form YYYY-MM-DD")
        }
        func checkedAccount(_ name: String, field: String) throws -> String {
            if cache.accounts.contains(name) { return name }
            let valid = try accountName(name, field: field, fail: fail)
            if cache.accounts.count >= Cache.entriesMax { cache.accounts.removeAll(keepingCapacity: true) }
            cache.accounts.insert(valid)
            return valid
        }
        let account = try checkedAccount(fields[1], field: "account")
        let counterAccount = try checkedAccount(fields[2], field: "counter_account")
        guard account != counterAccount else {
            throw fail("counter_account", "is the same account as 'account'; a row moves money between two accounts")
        }
        let commodity: Commodity
        do {
            if let known = cache.commodities[fields[4]] {
                commodity = known
            } else {
                commodity = try Commodity.named(fields[4])
                if cache.commodities.count >= Cache.entriesMax { cache.commodities.removeAll(keepingCapacity: true) }
                cache.commodities[fields[4]] = commodity
            }
        } catch {
            throw fail("currency", fields[4].isEmpty
                ? "is empty; name an ISO currency (USD) or a commodity symbol (VEA)"
                : "is not a currency or commodity symbol: use 1 to 16 characters, an uppercase letter A-Z first, then A-Z, 0-9, '.', '_' or '-'")
        }
        let amount: Money
        do {
            amount = try Money(parsing: fields[3], commodity: commodity)
        } catch let error as MoneyError {
            let message: String
            switch error.code {
            case .tooManyDecimals:
                message = "has more decimal places than \(commodity.code) allows (\(commodity.scale)); round it first"
            case .overflow:
                message = "is too large for \(commodity.code) amounts (64-bit minor units)"
            default:
                message = fields[3].isEmpty
                    ? "is empty; write a signed decimal such as -12.50"
                    : "is not a decimal number; write an optional '-', digits, and an optional '.' with digits (no grouping, no '+', no spaces)"
            }
            throw fail("amount", message)
        }
        let externalId = fields[7].isEmpty ? nil : fields[7]
        if let externalId, externalId.utf8.count > externalIdBytesMax {
            throw fail("external_id", "is longer than \(externalIdBytesMax) bytes")
        }
        let entry = JournalEntryPosted(
            account: account, counterAccount: counterAccount, amount: amount,
            payee: fields[5].isEmpty ? nil : fields[5],
            category: fields[6].isEmpty ? nil : fields[6],
            externalId: externalId
        )
        return Row(line: line, date: date, entry: entry)
    }

    private static func accountName(_ name: String, field: String, fail: (String?, String) -> ImportError) throws -> String {
        guard !name.isEmpty else {
            throw fail(field, "is empty; name an account such as Assets:Checking")
        }
        guard name.utf8.count <= accountBytesMax else {
            throw fail(field, "is longer than \(accountBytesMax) bytes")
        }
        let segments = name.split(separator: ":", omittingEmptySubsequences: false)
        guard !segments.contains(where: { $0.isEmpty || $0.first == " " || $0.last == " " }) else {
            throw fail(field, "'\(name)' has an empty segment or one with leading or trailing spaces; write Kind:Name:Sub")
        }
        guard let kind = LedgerAccounts.kind(of: name), journalKinds.contains(kind), segments[0] != "Budget" else {
            throw fail(field, "'\(name)' does not start with an account kind: Assets, Liabilities, Income, Expenses or Equity")
        }
        return name
    }
}
