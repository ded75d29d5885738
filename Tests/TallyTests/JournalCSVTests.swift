import Crypto
import Foundation
import Testing
@testable import Tally
import TallyTestSupport
import TallyLog
@testable import TallyEngine
@testable import TallyProducts

private extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

/// The journal CSV format and the strict RFC 4180 reader under it: what a row means and
/// how every malformed file is refused, naming its line.
@Suite struct JournalCSVTests {
    static let header = "date,account,counter_account,amount,currency,payee,category,external_id"

    /// Writes `text` to a temporary file and hands its path to `body`.
    private func withFile<T>(_ text: String, _ body: (String) throws -> T) throws -> T {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString).csv").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try body(path)
    }

    private func records(_ text: String) throws -> [CSVRecord] {
        try withFile(text) { path in
            let reader = try CSVReader(path: path)
            var result: [CSVRecord] = []
            while let record = try reader.next() { result.append(record) }
            return result
        }
    }

    private func validationError(_ text: String) throws -> ImportError? {
        try withFile(text) { path in
            do {
                _ = try JournalImport.validate(csvAt: path, calendar: .utc)
                return nil
            } catch let error as ImportError {
                return error
            }
        }
    }

    @Test func theHeaderIsExactlyTheContract() {
        #expect(JournalCSV.header == Self.header)
    }

    @Test func quotedFieldsHoldCommasDoubledQuotesAndNewlines() throws {
        let text = "a,\"Joe's \"\"Diner\"\", NYC\",c\r\n\"line one\nline two\",,\"\"\nlast,row,no newline"
        let parsed = try records(text)
        #expect(parsed.map(\.fields) == [
            ["a", "Joe's \"Diner\", NYC", "c"],
            ["line one\nline two", "", ""],
            ["last", "row", "no newline"],
        ])
        // A record that spans lines is reported at the line it starts on.
        #expect(parsed.map(\.line) == [1, 2, 4])
    }

    @Test func aByteOrderMarkAndEmptyLinesAreSkipped() throws {
        let parsed = try records("\u{FEFF}x,y\n\n\r\nz,w\n\n")
        #expect(parsed.map(\.fields) == [["x", "y"], ["z", "w"]])
        #expect(parsed.map(\.line) == [1, 4])
    }

    @Test(arguments: [
        ("x,a\"b,c\n", 1, 4, "double quote inside an unquoted field"),
        ("x,y\n\"ab\"c,d\n", 2, 5, "after a closing quote"),
        ("x,y\nz,\"open\n\nstill open", 2, 3, "never closed"),
        ("x,y\rz\n", 1, 4, "carriage return"),
    ])
    func syntaxErrorsNameLineAndColumn(text: String, line: Int, column: Int, message: String) throws {
        #expect { try records(text) } throws: { error in
            guard let error = error as? ImportError else { return false }
            return error.code == .syntax && error.line == line && error.column == column && error.message.contains(message)
        }
    }

    @Test func bytesThatAreNotUTF8AreASyntaxError() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString).csv").path
        try Data([0x61, 0x2C, 0xFF, 0xFE, 0x0A]).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = try CSVReader(path: path)
        #expect { try reader.next() } throws: { underlying($0, as: ImportError.self)?.message.contains("UTF-8") == true }
    }

    @Test func aRowBecomesOneJournalEntryAtTheStartOfItsDay() throws {
        let text = Self.header + "\n2026-05-01,Assets:Checking,Income:Salary,-12.5,USD,\"ACME, \"\"Inc.\"\"\",Salary,bank-1\n"
        try withFile(text) { path in
            let reader = try CSVReader(path: path)
            try JournalCSV.checkHeader(try reader.next(), file: path)
            let row = try JournalCSV.row(try #require(try reader.next()), file: path)
            #expect(row.line == 2)
            #expect(row.date == (try LocalDate(parsing: "2026-05-01")))
            #expect(row.entry == JournalEntryPosted(
                account: "Assets:Checking", counterAccount: "Income:Salary", amount: usd("-12.50"),
                payee: "ACME, \"Inc.\"", category: "Salary", externalId: "bank-1"))
            var keys = JournalCSV.RowKeys()
            #expect(keys.key(for: row) == "journal:bank-1")
            #expect(keys.key(for: row) == "journal:bank-1", "a repeated external id is the same row")
        }
    }

    /// The key of a row without an external id is the SHA-256 of its canonical content
    /// (netstrings of date, account, counter_account, amount at scale, currency, payee,
    /// category), its first 128 bits in base64url, and its occurrence in the file: pinned
    /// here, since stores hold these keys.
    @Test func aRowWithoutExternalIdIsKeyedByItsContentAndOccurrence() throws {
        let text = Self.header + "\n2026-05-01,Assets:Cash,Equity:Opening,1,IRAUSD,,,\n"
        try withFile(text) { path in
            let reader = try CSVReader(path: path)
            _ = try reader.next()
            let row = try JournalCSV.row(try #require(try reader.next()), file: path)
            #expect(row.entry.amount == Money(minorUnits: 100_000_000, commodity: try Commodity.named("IRAUSD")))
            #expect(row.entry.payee == nil && row.entry.category == nil && row.entry.externalId == nil)
            // printf '10:2026-05-01,11:Assets:Cash,14:Equity:Opening,10:1.00000000,6:IRAUSD,0:,0:,' | sha256sum
            // → e505d8dd8ecfeb6ef7b467291efbc3d6…, whose first 16 bytes in base64url are:
            let digest = "5QXY3Y7P6273tGcpHvvD1g"
            // The older form, which a store that holds such keys keeps making.
            var keys = JournalCSV.RowKeys(scheme: .legacy)
            #expect(keys.key(for: row) == "journal:row:\(digest):1")
            #expect(keys.key(for: row) == "journal:row:\(digest):2", "the second identical row of a file is another row")
            // Without payee or category nothing is sealed: the same digest, in the undated form
            // (a store that holds such keys keeps making them) and in the dated form (the
            // date, then the digest's first 96 bits: its first 16 characters).
            var undated = JournalCSV.RowKeys(scheme: .plain, form: .undated)
            #expect(undated.key(for: row) == "journal:row:~\(digest):1")
            var dated = JournalCSV.RowKeys(scheme: .plain)
            #expect(dated.key(for: row) == "journal:row:~:20260501\(digest.prefix(16)):1")
            #expect(dated.key(for: row) == "journal:row:~:20260501\(digest.prefix(16)):2")
        }
    }

    /// Dated keys are counted by day: identical rows on a day the file comes back to after
    /// other days go on counting from where that day stopped, and the same row on another day
    /// is another key, from 1. Checked against a count over the whole file, over seeded files
    /// whose days come in any order.
    @Test func identicalRowsAreCountedOnTheirDayWhateverTheOrderOfTheDays() throws {
        let seed = TestSeed.value(default: 20_261_202)
        var random = SplitMix64(seed: seed)
        let days = ["2026-05-01", "2026-05-02", "2026-04-30", "2025-12-31"]
        let amounts = ["3.00", "4.50"]
        var keys = JournalCSV.RowKeys(scheme: .plain)
        var counts: [String: Int] = [:]
        var seen: Set<String> = []
        for line in 2..<3_000 {
            let fields = [days[Int(random.next() % 4)], "Expenses:Food", "Assets:Cash", amounts[Int(random.next() % 2)], "USD", "Cafe", "", ""]
            let row = try JournalCSV.row(CSVRecord(fields: fields, line: line), file: "x.csv")
            let content = fields.joined(separator: ",")
            counts[content, default: 0] += 1
            let key = keys.key(for: row)
            let date = fields[0].replacingOccurrences(of: "-", with: "")
            #expect(key.hasPrefix(JournalCSV.datedContentKeyPrefix + date) && key.hasSuffix(":\(counts[content]!)"),
                    "seed \(seed), line \(line): \(key) for the \(counts[content]!)th row '\(content)'")
            #expect(seen.insert(key).inserted, "seed \(seed), line \(line): \(key) given twice")
        }
    }

    /// The validating pass's keys (``JournalCSV/RowKeys/Scheme/shapeOnly``) have the form of
    /// a sealed content key and are never shorter than the key the appending pass gives the
    /// same row, so a key that passes the record check there passes it here: checked over
    /// seeded rows where up to a dozen in a row are identical (counts of one and two digits).
    @Test func theValidatingPassKeysARowNoShorterThanTheAppendingPass() throws {
        let seed: UInt64 = 3_131
        var random = SplitMix64(seed: seed)
        var shape = JournalCSV.RowKeys(scheme: .shapeOnly)
        var plain = JournalCSV.RowKeys(scheme: .plain)
        var fields = ["2026-05-01", "Assets:Cash", "Income:Gift", "5.00", "USD", "Aunt", "Gift", ""]
        for line in 2..<2_000 {
            if random.next() % 12 == 0 { fields[3] = "\(random.next() % 1_000).\(10 + random.next() % 90)" }
            if line % 97 == 0 { fields[7] = "bank-\(line)" } else { fields[7] = "" }
            let row = try JournalCSV.row(CSVRecord(fields: fields, line: line), file: "x.csv")
            let checked = shape.key(for: row)
            let appended = plain.key(for: row)
            if row.entry.externalId != nil {
                #expect(checked == appended, "seed \(seed), line \(line)")
            } else {
                #expect(checked.hasPrefix(JournalCSV.sealedContentKeyPrefix), "seed \(seed), line \(line)")
                #expect(checked.utf8.count >= appended.utf8.count, "seed \(seed), line \(line): \(checked) against \(appended)")
            }
        }
    }

    /// Every scheme's content key, in each form, is the documented digest (netstrings of the row's fields as
    /// text; under `.sealed` a non-empty payee or category as its sealed bytes) and the row's
    /// count among identical rows, computed here the plain way, over seeded rows: dates across
    /// the calendar, amounts of each sign and scale, payees and categories absent, short, long
    /// and not ASCII; a payee erased midway is sealed anew from then on.
    @Test func aContentKeyIsTheDigestOfItsFieldsAsTheFormatSpellsThem() throws {
        let seed = TestSeed.value(default: 20_261_201)
        var random = SplitMix64(seed: seed)
        let payees = ["", "Aunt", "Whole Foods Market #1234", "Café Zoë", String(repeating: "p", count: 40)]
        let categories = ["", "Gift", "Groceries and household", "Épicerie"]
        let currencies = ["USD", "EUR", "JPY", "IRAUSD"]
        let subjects = SubjectKeys.inMemory(seed: seed)
        let schemes: [(String, JournalCSV.RowKeys.Scheme, JournalCSV.RowKeys.Form)] = [
            ("legacy", .legacy, .undated), ("plain", .plain, .undated), ("sealed", .sealed(subjects), .undated),
            ("plain dated", .plain, .dated), ("sealed dated", .sealed(subjects), .dated),
        ]
        for (name, scheme, form) in schemes {
            var keys = JournalCSV.RowKeys(scheme: scheme, form: form)
            var counts: [String: Int] = [:]
            for line in 2..<1_200 {
                if name.hasPrefix("sealed"), line == 600 { _ = try subjects.erase("payee:Aunt") }
                let pick = { (count: Int) in Int(random.next() % UInt64(count)) }
                let date = "\(String(1 + pick(9_999)).leftPadded(4))-\(String(1 + pick(12)).leftPadded(2))-\(String(1 + pick(28)).leftPadded(2))"
                let currency = currencies[pick(currencies.count)]
                // Yen has no minor unit: its amounts are whole, written with or without zeros.
                let cents = currency == "JPY" ? ["", ".0", ".00"][pick(3)] : ".\(String(pick(100)).leftPadded(2))"
                let amount = "\(pick(2) == 0 ? "-" : "")\(pick(100_000))\(cents)"
                let fields = [date, ["Assets:Cash", "Expenses:Groceries:Organic"][pick(2)], "Income:Gift", amount,
                              currency, payees[pick(payees.count)], categories[pick(categories.count)], ""]
                let row = try JournalCSV.row(CSVRecord(fields: fields, line: line), file: "x.csv")
                var content: [UInt8] = []
                func netstring(_ bytes: [UInt8]) { content += Array("\(bytes.count):".utf8) + bytes + [UInt8(ascii: ",")] }
                for text in [row.date.description, row.entry.account, row.entry.counterAccount, row.entry.amount.decimalString, row.entry.amount.commodity.code] {
                    netstring(Array(text.utf8))
                }
                for (text, subject) in [(row.entry.payee ?? "", "payee:\(row.entry.payee ?? "")"), (row.entry.category ?? "", "owner")] {
                    netstring(name.hasPrefix("sealed") && !text.isEmpty ? subjects.seal(text, subject: subject) : Array(text.utf8))
                }
                // The dated form: the date's digits, then the first 12 bytes (96 bits) alone.
                let bytes = Array(SHA256.hash(data: content)).prefix(form == .dated ? 12 : 16)
                let digest = Data(bytes).base64EncodedString()
                    .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
                let named = form == .dated ? ":" + row.date.description.replacingOccurrences(of: "-", with: "") + digest : digest
                counts[named, default: 0] += 1
                let expected = "journal:row:\(name == "legacy" ? "" : "~")\(named):\(counts[named]!)"
                let key = keys.key(for: row)
                #expect(key == expected, "seed \(seed), \(name), line \(line)")
                if key != expected { return }
            }
        }
    }

    /// The digest's base64url form agrees with Foundation's base64 (with `-_` and no padding)
    /// for digests whose bits sit across every six-bit boundary.
    @Test func theDigestIsWrittenInBase64URL() throws {
        var random = SplitMix64(seed: 128)
        let edges: [(UInt64, UInt64)] = [(0, 0), (.max, .max), (1, 0), (0, 1), (1 << 63, 1 << 63), (0xF, 0xC000_0000_0000_0000)]
        for index in 0..<500 {
            let (high, low) = index < edges.count ? edges[index] : (random.next(), random.next())
            let bytes = withUnsafeBytes(of: high.bigEndian, Array.init) + withUnsafeBytes(of: low.bigEndian, Array.init)
            let expected = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(JournalCSV.RowKeys.Digest(high: high, low: low).base64URL == expected, "seed 128, digest \(index)")
        }
    }

    /// Rows that differ in any one field, or only in how the amount is written, get keys
    /// accordingly: different content, different digest; the same amount written `5`, `5.0`
    /// or `5.00`, the same digest.
    @Test func theContentDigestCoversEveryFieldAndOnlyTheAmountsValue() throws {
        let base = ["2026-05-01", "Assets:Cash", "Income:Gift", "5.00", "USD", "Aunt", "Gift", ""]
        func digest(_ fields: [String]) throws -> String {
            var keys = JournalCSV.RowKeys()
            let row = try JournalCSV.row(CSVRecord(fields: fields, line: 2), file: "x.csv")
            return String(keys.key(for: row).dropLast(2))
        }
        let original = try digest(base)
        for (index, other) in ["2026-05-02", "Assets:Bank", "Income:Prize", "5.01", "EUR", "Uncle", "Gifts"].enumerated() {
            var changed = base
            changed[index] = other
            #expect(try digest(changed) != original, "changing field \(JournalCSV.fieldNames[index])")
        }
        for amount in ["5", "5.0", "5.000"] {
            var same = base
            same[3] = amount
            #expect(try digest(same) == original, "amount written \(amount)")
        }
        // Netstrings keep fields from running together: "Aunt" + "Gift" is not "AuntG" + "ift".
        var shifted = base
        shifted[5] = "AuntG"
        shifted[6] = "ift"
        #expect(try digest(shifted) != original)
    }

    @Test func extraZeroDecimalsAreAcceptedAndEightDecimalsFitCommodities() throws {
        let text = Self.header + "\n2026-05-01,Assets:Cash,Income:Gift,10.2500,USD,,,\n2026-05-01,Assets:Funds,Assets:Cash,0.12345678,VEA,,,\n"
        let journal = try withFile(text) { try JournalImport.validate(csvAt: $0, calendar: .utc) }
        #expect(journal.rows == 2)
        #expect(journal.sha256.count == 64)
    }

    /// Every kind of malformed row, on line 3 of an otherwise good file.
    @Test(arguments: [
        ("2026-02-30,Assets:Cash,Income:Gift,1.00,USD,,,", "date", "calendar date"),
        ("01/05/2026,Assets:Cash,Income:Gift,1.00,USD,,,", "date", "YYYY-MM-DD"),
        ("2026-05-01,Assets:Cash,Income:Gift,1.0.0,USD,,,", "amount", "not a decimal"),
        ("2026-05-01,Assets:Cash,Income:Gift,\"1,000.00\",USD,,,", "amount", "not a decimal"),
        ("2026-05-01,Assets:Cash,Income:Gift,,USD,,,", "amount", "empty"),
        ("2026-05-01,Assets:Cash,Income:Gift,1.001,USD,,,", "amount", "decimal places"),
        ("2026-05-01,Assets:Cash,Income:Gift,0.123456789,VEA,,,", "amount", "decimal places"),
        ("2026-05-01,Assets:Cash,Income:Gift,1.00,usd,,,", "currency", "not a currency"),
        ("2026-05-01,Assets:Cash,Income:Gift,1.00,$,,,", "currency", "not a currency"),
        ("2026-05-01,Cash,Income:Gift,1.00,USD,,,", "account", "account kind"),
        ("2026-05-01,Assets:Cash,Wealth:main:Spend,1.00,USD,,,", "counter_account", "account kind"),
        ("2026-05-01,Assets::Cash,Income:Gift,1.00,USD,,,", "account", "empty segment"),
        ("2026-05-01,Assets:Cash,Assets:Cash,1.00,USD,,,", "counter_account", "same account"),
    ])
    func aMalformedFieldNamesItsLineAndField(row: String, field: String, message: String) throws {
        let text = Self.header + "\n2026-05-01,Assets:Cash,Income:Gift,1.00,USD,,,\n" + row + "\n"
        let error = try #require(try validationError(text))
        #expect(error.code == .invalidRow)
        #expect(error.line == 3)
        #expect(error.field == field, "\(error)")
        #expect(error.message.contains(message), "\(error)")
        #expect(error.description.hasPrefix(error.file + ":3: field '\(field)': "))
    }

    @Test(arguments: [
        "2026-05-01,Assets:Cash,Income:Gift,1.00,USD,,",
        "2026-05-01,Assets:Cash,Income:Gift,1.00,USD,Shop, Inc.,,",
    ])
    func aWrongNumberOfFieldsNamesItsLine(row: String) throws {
        let error = try #require(try validationError(Self.header + "\n" + row + "\n"))
        #expect(error.code == .invalidRow && error.line == 2 && error.message.contains("a journal row has 8"), "\(error)")
    }

    @Test(arguments: [
        ("", "empty"),
        ("2026-05-01,Assets:Cash,Income:Gift,1.00,USD,,,\n", "exactly the header"),
        ("date,account,counter_account,amount,currency,payee,category\n", "exactly the header"),
        ("Date,Account,Counter_Account,Amount,Currency,Payee,Category,External_Id\n", "exactly the header"),
        ("date,counter_account,account,amount,currency,payee,category,external_id\n", "exactly the header"),
    ])
    func aMissingOrWrongHeaderIsRefused(text: String, message: String) throws {
        let error = try #require(try validationError(text))
        #expect(error.code == .header && error.line == 1 && error.message.contains(message), "\(error)")
    }
}
