internal import Crypto
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
/// - `payee`, `category`, `external_id`: optional text.
///
/// Every field is text without control characters (no NUL, ESC, tab or line break, even
/// inside quotes; ``EventText``), and every limit of the event it becomes holds (a payee of
/// at most ``eventStringBytesLimit`` bytes …): the validating pass runs each row's event
/// through the record check the log applies, so a file is refused whole, naming file, line
/// and column, before anything is appended.
///
/// ## Which rows count as already imported
///
/// Each row carries an idempotency key, and a row whose key was used before (in an earlier
/// import, or earlier in the file) is skipped:
/// - with an `external_id`: `journal:<external_id>`;
/// - without one: `journal:row:~:<YYYYMMDD><digest>:<n>`, the row's date, then `<digest>`,
///   the first 96 bits of the SHA-256 of the row's content (`RowKeys.contentDigest(of:)`:
///   date, account, counter_account, amount and currency in canonical form, then payee and
///   category *as the log seals them*: the subject's sealed bytes, whose nonce is an HMAC
///   under the subject's key) in base64url (16 characters), and `<n>` counts the rows of the
///   file with that same key, from 1. The key is no function of personal text in clear: once
///   a payee is erased its key is gone, and no list of candidate names can be hashed to match
///   (issue 34, item 9). Two identical coffees on one day in one file are two rows (`:1` and
///   `:2`).
///
/// Why the date leads (`RowKeys.Form.dated`): a file's rows run in date order, so their keys
/// do too, and the idempotency read model, which keeps keys in order, takes each batch's keys
/// at its end instead of scattering them over every block it holds; the log's compressor
/// finds each key's date in the key before it. Two different rows match only on one day with
/// 96 equal bits: for a billion rows over thirty years (90,000 a day) about one chance in
/// 10^15, for a million rows over twenty years one in 10^21. (The digest without the date, 128 bits in 22 characters, landed in every block of
/// the read model: a million such rows kept 32 MB of keys and made each packing of them
/// rewrite all of it.)
///
/// A store keeps keying rows the way it did before, so that its files are still recognised:
/// one that holds content keys of the undated form, `journal:row:~<128-bit digest>:<n>`
/// (`RowKeys.Form.undated`), keeps making those, and one that holds keys of the oldest form,
/// `journal:row:<digest>:<n>` with the payee and category in clear in the digest
/// (`RowKeys.Scheme.legacy`), keeps making those.
///
/// So a row is recognised by what it says, not by where it stands: re-running a file after
/// a crash resumes exactly; a corrected file after a refused import, a longer export that
/// starts with rows already imported, or the same rows reordered, add only the rows not yet
/// there. The consequence: the same content in two *different* files is the same row (the
/// second file's first such row is skipped), as it is for two files sharing an external id.
/// Give rows an `external_id` when two files may hold distinct but identical-looking rows.
public enum JournalCSV {
    /// The header every journal CSV starts with, exactly.
    public static let header = "date,account,counter_account,amount,currency,payee,category,external_id"
    /// The header's field names, in order.
    public static let fieldNames = header.split(separator: ",").map(String.init)

    /// The account kinds a journal row may name.
    static let journalKinds: Set<AccountKind> = [.asset, .liability, .income, .expense, .equity]

    /// The idempotency key prefix of journal rows.
    static let keyPrefix = "journal:"
    /// The idempotency key prefix of journal rows without an external id.
    static let contentKeyPrefix = "journal:row:"
    /// The prefix of content keys whose digest holds personal text sealed, not in clear:
    /// `~` sorts after every base64url character, so the older keys are a range of their own.
    static let sealedContentKeyPrefix = "journal:row:~"
    /// The prefix of content keys of the dated form (``RowKeys/Form/dated``): `:` is no
    /// base64url character, so no undated key begins so.
    static let datedContentKeyPrefix = "journal:row:~:"
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
            throw ImportError(.header, file: file, line: record.line, "the first line must be exactly the header \(header)\(hint) (or, for a prices CSV, \(PricesCSV.header))")
        }
    }

    /// One row, validated: what it will append.
    struct Row {
        let line: Int
        let date: LocalDate
        let entry: JournalEntryPosted
    }

    /// The idempotency keys of a file's rows, handed out in file order (see "Which rows
    /// count as already imported" above). Both passes of an import hand out the same keys.
    ///
    /// Memory: one entry (a 16-byte digest and a count) per distinct key of a row without
    /// an external id, for as long as the file is read.
    struct RowKeys {
        /// How a row's payee and category enter its digest.
        enum Scheme: Sendable {
            /// In clear, keys `journal:row:<digest>:<n>`: a store that already holds such keys.
            case legacy
            /// In clear, keys `journal:row:~<digest>:<n>` (the same lengths as
            /// ``sealed(_:)``'s keys): a catalog that seals nothing.
            case plain
            /// Sealed under the subjects' keys as the log holds them.
            case sealed(SubjectKeys)
            /// No digest at all: a content key of the longest form its row's key can take,
            /// `journal:row:~AAAA…A:<m>` with `m` the count of content-keyed rows so far (never
            /// less than the row's count among identical rows). For a pass that checks keys but
            /// appends none (the validating pass's record check: a key's length and characters;
            /// the look-up of a file's earlier external ids, which passes content keys by):
            /// computing each row's SHA-256 there was a tenth of an import's CPU.
            case shapeOnly
        }

        /// What a content key holds after `journal:row:` (see "Which rows count as already
        /// imported" above); ``Scheme/legacy`` has a form of its own.
        enum Form: Sendable {
            /// `~:<YYYYMMDD><digest>:<n>`: the row's date, then 96 bits of the digest.
            case dated
            /// `~<digest>:<n>`: 128 bits of the digest, what stores made before the dated form.
            case undated
        }

        let scheme: Scheme
        let form: Form
        /// How many rows so far had each key (undated and legacy forms: by digest, for the file).
        private var occurrences: [Digest: UInt32] = [:]
        /// The same for the dated form, by day: the counts of the day of the last row, and
        /// those of the days met before it. A key names its day, so rows of different days
        /// never share one; a file in date order then counts in a small table of one day's
        /// rows instead of one of the whole file (a million rows: peak RSS 264 → 251 MB, the
        /// same time), and a file out of order still counts each day's rows exactly.
        private var day: Int?
        private var dayOccurrences: [Digest: UInt32] = [:]
        private var earlierDays: [Int: [Digest: UInt32]] = [:]
        /// How many rows ``Scheme/shapeOnly`` has keyed by their content.
        private var contentRows = 0
        /// The count of the last key handed out when it was a dated content key, else 0.
        private(set) var lastDatedCount: UInt32 = 0
        /// ``Scheme/shapeOnly``'s keys before their count: the longest content key's prefix, a
        /// dated one's (its date and 16 characters; an undated key's 22 are shorter).
        private static let shapeOnlyPrefix = JournalCSV.datedContentKeyPrefix + "00000000" + String(repeating: "A", count: 16) + ":"
        private var buffer: [UInt8] = []
        /// Sealed bytes of payees and categories, by text (``contentDigest(of:)``), and the
        /// subject keys' erasure count they were sealed under.
        private var sealedPayees: [String: [UInt8]] = [:]
        private var sealedCategories: [String: [UInt8]] = [:]
        private var sealsErasures: UInt64 = 0
        private static let sealsMax = 4096

        init(scheme: Scheme = .plain, form: Form = .dated) {
            self.scheme = scheme
            self.form = form
        }

        /// The first 128 bits of a row's SHA-256: what its key names.
        struct Digest: Hashable {
            var high, low: UInt64

            init(high: UInt64, low: UInt64) {
                self.high = high
                self.low = low
            }

            init(_ digest: SHA256.Digest) {
                (high, low) = digest.withUnsafeBytes { raw in
                    (UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                     UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
                }
            }

            /// The 16 bytes in base64url without padding: 22 characters.
            var base64URL: String {
                var text: [UInt8] = []
                text.reserveCapacity(22)
                appendBase64URL(to: &text)
                return String(decoding: text, as: UTF8.self)
            }

            /// The first 96 bits alone (the rest zero): what a dated key names.
            var first96Bits: Digest { Digest(high: high, low: low & 0xFFFF_FFFF_0000_0000) }

            private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

            /// Appends ``base64URL``'s 22 characters, or its first `characters` (16: the first
            /// 96 bits, which they hold exactly).
            func appendBase64URL(to text: inout [UInt8], characters: Int = 22) {
                // 128 bits as 21 groups of six bits, then the last two bits padded with zeros.
                for index in 0..<characters {
                    let bit = index * 6
                    var sextet: UInt64
                    if bit + 6 <= 64 {
                        sextet = high >> (58 - bit)
                    } else if bit < 64 {
                        sextet = (high << (bit - 58)) | (low >> (122 - bit))
                    } else if bit + 6 <= 128 {
                        sextet = low >> (122 - bit)
                    } else {
                        sextet = low << (bit - 122)
                    }
                    text.append(Self.alphabet[Int(sextet & 0x3F)])
                }
            }
        }

        /// The next row's key: `journal:<external_id>`, or a content key (`journal:row:…:<n>`,
        /// of ``form``, or of the legacy form under ``Scheme/legacy``).
        mutating func key(for row: Row) -> String {
            lastDatedCount = 0
            if let externalId = row.entry.externalId { return JournalCSV.keyPrefix + externalId }
            if case .shapeOnly = scheme {
                contentRows += 1
                return Self.shapeOnlyPrefix + String(contentRows)
            }
            var dated = form == .dated
            if case .legacy = scheme { dated = false }
            // Rows are counted by what their key names: a dated key, 96 bits and the date (in
            // the digest too), so that two rows whose keys would be equal are numbered apart.
            let full = Digest(contentDigest(of: row))
            let digest = dated ? full.first96Bits : full
            let occurrence = dated ? countOnDay(row.date.daysSinceEpoch, digest) : Self.increment(&occurrences[digest, default: 0])
            // The key's bytes, then one string: a journal without external ids keys every row so.
            buffer.removeAll(keepingCapacity: true)
            if case .legacy = scheme {
                buffer.append(contentsOf: JournalCSV.contentKeyPrefix.utf8)
                digest.appendBase64URL(to: &buffer)
            } else if dated {
                lastDatedCount = occurrence
                buffer.append(contentsOf: JournalCSV.datedContentKeyPrefix.utf8)
                let date = row.date.components
                Self.appendDigits(date.year, width: 4, to: &buffer)
                Self.appendDigits(date.month, width: 2, to: &buffer)
                Self.appendDigits(date.day, width: 2, to: &buffer)
                digest.appendBase64URL(to: &buffer, characters: 16)
            } else {
                buffer.append(contentsOf: JournalCSV.sealedContentKeyPrefix.utf8)
                digest.appendBase64URL(to: &buffer)
            }
            buffer.append(UInt8(ascii: ":"))
            Self.appendDecimal(UInt64(occurrence), to: &buffer)
            return String(decoding: buffer, as: UTF8.self)
        }

        /// Makes room for `count` rows keyed by their content (the validating pass counted them),
        /// at most ``JournalImport/ExternalIdRows/expectedIdsMax``: growing the table of a
        /// million digests step by step rehashed each about twice.
        mutating func expect(contentRows count: Int) {
            // The dated form counts by day (``countOnDay(_:_:)``): no table of the whole file.
            if case .legacy = scheme {} else if form == .dated { return }
            occurrences.reserveCapacity(min(count, JournalImport.ExternalIdRows.expectedIdsMax))
        }

        /// Counts one more row with the dated key `digest` on day `day`; returns its count.
        private mutating func countOnDay(_ day: Int, _ digest: Digest) -> UInt32 {
            if day != self.day {
                if let last = self.day, !dayOccurrences.isEmpty { earlierDays[last] = dayOccurrences }
                dayOccurrences = earlierDays.removeValue(forKey: day) ?? [:]
                self.day = day
            }
            return Self.increment(&dayOccurrences[digest, default: 0])
        }

        /// Adds one to `count` in place (one look-up of its table) and returns it.
        private static func increment(_ count: inout UInt32) -> UInt32 {
            count += 1
            return count
        }

        /// How many rows ``Scheme/shapeOnly`` keyed by their content so far.
        var contentRowsKeyed: Int { contentRows }

        /// `value` (not negative) in decimal, in `width` digits with leading zeros.
        static func appendDigits(_ value: Int, width: Int, to bytes: inout [UInt8]) {
            // A date's parts, by constant divisors (which the compiler turns into multiplications):
            // a rebuild writes a million dates into content keys.
            let zero = UInt8(ascii: "0")
            if width == 2, (0..<100).contains(value) {
                bytes.append(zero + UInt8(value / 10))
                bytes.append(zero + UInt8(value % 10))
                return
            }
            if width == 4, (0..<10_000).contains(value) {
                bytes.append(zero + UInt8(value / 1000))
                bytes.append(zero + UInt8(value / 100 % 10))
                bytes.append(zero + UInt8(value / 10 % 10))
                bytes.append(zero + UInt8(value % 10))
                return
            }
            var divisor = 1
            for _ in 1..<width { divisor *= 10 }
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }

        /// `value` in decimal, as `String(value)` spells it.
        static func appendDecimal(_ value: UInt64, to bytes: inout [UInt8]) {
            guard value >= 10 else { return bytes.append(UInt8(ascii: "0") + UInt8(value)) }
            appendDecimal(value / 10, to: &bytes)
            bytes.append(UInt8(ascii: "0") + UInt8(value % 10))
        }

        /// The SHA-256 of a row's content: for each of date (`YYYY-MM-DD`), account,
        /// counter_account, amount (a plain decimal at the commodity's scale, so `5`, `5.0`
        /// and `5.00` USD are the same), currency (its code), payee and category (empty when
        /// absent), in that order, its UTF-8 byte count in decimal, a colon, its bytes and a
        /// comma (a netstring), so that no two different rows can run together alike. Under
        /// ``Scheme/sealed(_:)`` a non-empty payee or category enters as its sealed bytes
        /// (the payee's subject, the owner's), never in clear.
        ///
        /// The fields are written into one buffer where they lie (no string is made for the
        /// date), and the sealed bytes of the payees and categories met are kept for the
        /// batch (``forgetSeals()``) or until this process erases a subject.
        mutating func contentDigest(of row: Row) -> SHA256.Digest {
            let entry = row.entry
            if case .sealed(let keys) = scheme {
                if keys.erasures != sealsErasures {
                    forgetSeals()
                    sealsErasures = keys.erasures
                }
                let payee = sealed(entry.payee, payee: true, keys: keys)
                let category = sealed(entry.category, payee: false, keys: keys)
                return Self.contentDigest(
                    date: row.date, account: entry.account.utf8, counterAccount: entry.counterAccount.utf8, amount: entry.amount,
                    payee: payee[...], category: category[...], buffer: &buffer)
            }
            return Self.contentDigest(
                date: row.date, account: entry.account.utf8, counterAccount: entry.counterAccount.utf8, amount: entry.amount,
                payee: Array((entry.payee ?? "").utf8)[...], category: Array((entry.category ?? "").utf8)[...], buffer: &buffer)
        }

        /// ``contentDigest(of:)`` from the fields themselves, the payee and category as the
        /// bytes that enter the digest (sealed, or in clear): what a row's key names, and what
        /// the log's short form of that key is expanded from (``LoggedContentKey``).
        static func contentDigest<Account: Collection<UInt8>>(
            date: LocalDate, account: Account, counterAccount: Account, amount: Money,
            payee: ArraySlice<UInt8>, category: ArraySlice<UInt8>, buffer: inout [UInt8]
        ) -> SHA256.Digest {
            buffer.removeAll(keepingCapacity: true)
            func append<Bytes: Collection<UInt8>>(_ field: Bytes) {
                appendDecimal(UInt64(field.count), to: &buffer)
                buffer.append(UInt8(ascii: ":"))
                buffer.append(contentsOf: field)
                buffer.append(UInt8(ascii: ","))
            }
            let day = date.components
            buffer.append(contentsOf: "10:".utf8)
            appendDigits(day.year, width: 4, to: &buffer)
            buffer.append(UInt8(ascii: "-"))
            appendDigits(day.month, width: 2, to: &buffer)
            buffer.append(UInt8(ascii: "-"))
            appendDigits(day.day, width: 2, to: &buffer)
            buffer.append(UInt8(ascii: ","))
            append(account)
            append(counterAccount)
            DecimalFormatting.withBytes(amount.minorUnits, scale: amount.commodity.scale) { append($0) }
            append(amount.commodity.code.utf8)
            append(payee)
            append(category)
            // Through the buffer's bytes: `hash(data:)` walks a `DataProtocol`'s regions generically (half
            // of a rebuild's cost of expanding a key).
            var hasher = SHA256()
            buffer.withUnsafeBytes { hasher.update(bufferPointer: $0) }
            return hasher.finalize()
        }

        /// A payee's (under its own subject) or a category's (the owner's) sealed bytes; none
        /// for an absent or empty text.
        private mutating func sealed(_ text: String?, payee: Bool, keys: SubjectKeys) -> [UInt8] {
            guard let text, !text.isEmpty else { return [] }
            if let known = payee ? sealedPayees[text] : sealedCategories[text] { return known }
            let sealed = keys.seal(text, subject: (payee ? PersonalSubject.payee(text) : .owner).name)
            if sealedPayees.count + sealedCategories.count >= Self.sealsMax { forgetSeals() }
            if payee { sealedPayees[text] = sealed } else { sealedCategories[text] = sealed }
            return sealed
        }

        /// Forgets the sealed bytes kept (``contentDigest(of:)``): the appending pass does so at
        /// each batch, so that a subject erased by another process meanwhile is sealed anew by
        /// the next batch at the latest, as the batch's records are.
        mutating func forgetSeals() {
            sealedPayees.removeAll(keepingCapacity: true)
            sealedCategories.removeAll(keepingCapacity: true)
        }
    }

    /// Runs a row's event through the record check every event passes before the log
    /// (``EventCatalog/record(for:)``), naming the column at fault: every limit and text
    /// rule the appending pass would meet is met here, in the validating pass.
    ///
    /// - Throws: ``ImportError`` (`invalidRow`) naming file, line and column.
    package static func checkRecord(_ event: NewEvent, line: Int, file: String) throws {
        try namingColumn(line: line, file: file) { _ = try EventCatalog.engine.record(for: event) }
    }

    /// ``checkRecord(_:line:file:)`` through `catalog`, keeping the record in the event
    /// (``EventCatalog/prepare(_:)``) for the write pipeline.
    ///
    /// - Throws: ``ImportError`` (`invalidRow`) naming file, line and column.
    static func prepare(_ event: inout NewEvent, catalog: EventCatalog, line: Int, file: String, readingBack: Bool = true) throws {
        try namingColumn(line: line, file: file) { try catalog.prepare(&event, readingBack: readingBack) }
    }

    /// Runs a record check, turning its ``EventCodingError`` into an ``ImportError`` that
    /// names the column at fault.
    private static func namingColumn(line: Int, file: String, _ check: () throws -> Void) throws {
        do {
            try check()
        } catch let error as EventCodingError {
            guard let field = error.field, let reason = error.reason, let column = column(forField: field) else {
                throw ImportError(.invalidRow, file: file, line: line, "\(error)")
            }
            let message = field == "idempotency_key"
                ? "makes the row's idempotency key (journal:<external_id>) too long: it \(reason)"
                : reason
            throw ImportError(.invalidRow, file: file, line: line, field: column, message)
        }
    }

    /// The CSV column a field of `journal_entry_posted` (its path in the JSON form) comes
    /// from; nil for a field no column holds.
    static func column(forField field: String) -> String? {
        switch field {
        case "data.account", "entity": "account"
        case "data.counter_account": "counter_account"
        case "data.amount", "data.amount.amount": "amount"
        case "data.amount.currency": "currency"
        case "data.payee": "payee"
        case "data.category": "category"
        case "data.external_id", "idempotency_key": "external_id"
        case "effective_at": "date"
        default: nil
        }
    }

    /// Account names and currency codes already found valid in a file (they repeat on
    /// almost every row), so each is checked once; bounded, emptied when full.
    struct Cache {
        static let entriesMax = 4096
        var accounts: Set<String> = []
        var commodities: [String: Commodity] = [:]
        /// Account names met lately, by a mix of their length and last byte, compared before
        /// ``accounts`` hashes them (each row names two accounts of a household's few dozen).
        private var recentAccounts: [String?] = Array(repeating: nil, count: recentSlots)
        private static let recentSlots = 64
        /// The commodity met last (a journal's rows are almost all in one currency).
        var lastCommodity: (code: String, commodity: Commodity)?

        private static func slot(_ name: String) -> Int {
            let utf8 = name.utf8
            return (utf8.count &* 31 &+ Int(utf8.last ?? 0)) & (recentSlots - 1)
        }

        /// `name` when it was found valid lately (the string kept, equal to it).
        func recentAccount(_ name: String) -> String? {
            guard let recent = recentAccounts[Self.slot(name)], recent == name else { return nil }
            return recent
        }

        mutating func noteAccount(_ name: String) {
            recentAccounts[Self.slot(name)] = name
        }
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
        let date = try CSVFields.date(fields[0], fail: fail)
        func checkedAccount(_ name: String, field: String) throws -> String {
            if let recent = cache.recentAccount(name) { return recent }
            if cache.accounts.contains(name) {
                cache.noteAccount(name)
                return name
            }
            let valid = try accountName(name, field: field, fail: fail)
            if cache.accounts.count >= Cache.entriesMax { cache.accounts.removeAll(keepingCapacity: true) }
            cache.accounts.insert(valid)
            cache.noteAccount(valid)
            return valid
        }
        let account = try checkedAccount(fields[1], field: "account")
        let counterAccount = try checkedAccount(fields[2], field: "counter_account")
        guard account != counterAccount else {
            throw fail("counter_account", "is the same account as 'account'; a row moves money between two accounts")
        }
        let commodity: Commodity
        if let last = cache.lastCommodity, last.code == fields[4] {
            commodity = last.commodity
        } else if let known = cache.commodities[fields[4]] {
            commodity = known
            cache.lastCommodity = (fields[4], known)
        } else {
            commodity = try CSVFields.commodity(fields[4], field: "currency", fail: fail)
            if cache.commodities.count >= Cache.entriesMax { cache.commodities.removeAll(keepingCapacity: true) }
            cache.commodities[fields[4]] = commodity
            cache.lastCommodity = (fields[4], commodity)
        }
        let amount = try CSVFields.money(fields[3], commodity, field: "amount", signed: true, fail: fail)
        let externalId = fields[7].isEmpty ? nil : fields[7]
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
