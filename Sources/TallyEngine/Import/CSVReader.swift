internal import TallyLog

/// One CSV record: its fields, and the line it starts on.
package struct CSVRecord {
    package var fields: [String]
    /// The 1-based line of the record's first byte (a quoted field may span lines).
    package var line: Int
}

/// A strict RFC 4180 reader that streams records from a file, one chunk in memory.
///
/// Fields are separated by `,` and records end with CRLF or LF (a last record may end at
/// the end of the file). A field that holds `,`, `"`, CR or LF is enclosed in double quotes,
/// with each `"` inside doubled. Anything else is an error naming line and column: a quote
/// inside an unquoted field, a character after a closing quote, a quoted field still open at
/// the end of the file, a CR not followed by LF, bytes that are not UTF-8.
///
/// Deliberate leniencies, as common CSV tools have: a UTF-8 byte order mark before the
/// first record is skipped, and so are empty lines (a record of no bytes at all).
///
/// Written here rather than taken from CSV.swift 2.5.2, whose reader accepts text after a
/// closing quote and an unterminated quote, does not report line numbers, and decodes one
/// Unicode scalar at a time.
package final class CSVReader {
    /// The longest field, in bytes: a limit so that a stray quote cannot swallow the file.
    package static let fieldBytesLimit = 64 << 10
    /// The most fields in one record.
    package static let fieldsLimit = 256

    private let source: FileBytes
    /// Whether ``next()`` first tries ``simpleRecord()`` (tests turn it off to compare the
    /// two paths).
    private let usesFastPath: Bool
    private var line = 1
    private var column = 1
    private var field: [UInt8] = []
    private var startedFile = false
    /// The fields of the record the fast path read last (``simpleRecord()``).
    private var lastFields: [String] = []
    /// The texts of each of the first columns met lately (``RecentTexts``): a journal names
    /// the same few accounts, payees and categories row after row, and a field longer than
    /// 15 bytes would otherwise be a new string, allocated and checked, every time.
    private var recentTexts = Array(repeating: RecentTexts(slotCount: 64, kept: 16...256), count: 8)

    /// Opens a file.
    /// - Throws: ``ImportError`` (`unreadable`).
    package convenience init(path: String) throws {
        try self.init(path: path, usesFastPath: true)
    }

    /// Opens a file; with `usesFastPath` false every record takes the byte-by-byte path
    /// (the reference the fast path is tested against); `chunkBytes` is the read size.
    package init(path: String, usesFastPath: Bool, chunkBytes: Int = 1 << 20) throws {
        source = try FileBytes(path: path, chunkBytes: chunkBytes)
        self.usesFastPath = usesFastPath
        field.reserveCapacity(256)
    }

    /// The file as given.
    package var path: String { source.path }
    /// Bytes read so far and the file's size, for progress.
    package var bytesRead: Int64 { source.consumed }
    package var fileBytes: Int64 { source.size }
    /// The SHA-256 of the file in hex; valid once ``next()`` returned nil.
    package func hexDigest() -> String { source.hexDigest() }
    /// ``FileBytes/keepReadDigests()``, ``FileBytes/readDigests`` and
    /// ``FileBytes/digestOfBytesRead()`` of the file being read.
    func keepReadDigests() { source.keepReadDigests() }
    var readDigests: [Int64: [UInt8]]? { source.readDigests }
    func digestOfBytesRead() -> (bytes: Int64, digest: [UInt8]) { source.digestOfBytesRead() }

    private static let quote = UInt8(ascii: "\"")
    private static let comma = UInt8(ascii: ",")
    private static let carriageReturn = UInt8(ascii: "\r")
    private static let lineFeed = UInt8(ascii: "\n")

    @inline(__always)
    private func take() throws -> UInt8? {
        guard let byte = try source.next() else { return nil }
        if byte == Self.lineFeed {
            line += 1
            column = 1
        } else if byte & 0xC0 != 0x80 {
            column += 1
        }
        return byte
    }

    private func syntaxError(_ message: String, line: Int? = nil, column: Int? = nil) -> ImportError {
        ImportError(.syntax, file: source.path, line: line ?? self.line, column: column ?? max(1, self.column - 1), message)
    }

    /// The next record, or nil at the end of the file.
    /// - Throws: ``ImportError`` (`syntax`) naming line and column, (`unreadable`) on I/O failure.
    package func next() throws -> CSVRecord? {
        if !startedFile {
            startedFile = true
            try skipByteOrderMark()
        }
        // Skip empty lines.
        while let byte = try source.peek(), byte == Self.lineFeed || byte == Self.carriageReturn {
            _ = try take()
            if byte == Self.carriageReturn { try expectLineFeed() }
        }
        guard try source.peek() != nil else { return nil }
        let recordLine = line
        if usesFastPath, let fields = try simpleRecord() {
            line += 1
            column = 1
            return CSVRecord(fields: fields, line: recordLine)
        }
        var fields: [String] = []
        while true {
            let (text, endsRecord) = try readField()
            guard fields.count < Self.fieldsLimit else {
                throw syntaxError("a record has more than \(Self.fieldsLimit) fields", line: recordLine, column: 1)
            }
            fields.append(text)
            if endsRecord { return CSVRecord(fields: fields, line: recordLine) }
        }
    }

    /// The fast path: the next record's fields when it is simple, consuming it; nil (nothing
    /// consumed) otherwise, and the byte-by-byte path reads it.
    ///
    /// Simple: the record ends with LF or CRLF within the chunk read, holds no CR elsewhere,
    /// each quoted field closes on the same line with no doubled quote inside and is followed
    /// by a comma or the end, no unquoted field holds a quote, every field is valid UTF-8
    /// within ``fieldBytesLimit`` and there are at most ``fieldsLimit`` fields. Whatever
    /// else (every error included) goes the byte-by-byte way, so both paths accept the same
    /// files, read the same records and throw the same errors.
    private func simpleRecord() throws -> [String]? {
        guard let bytes = try source.lineAhead() else { return nil }
        var end = bytes.count - 1
        if end > 0 && bytes[end - 1] == Self.carriageReturn { end -= 1 }
        // The last record's array again, when its reader let go of it (a reader that keeps its
        // records gets a new one): a row costs no array of its own.
        var fields = lastFields
        lastFields = []
        fields.removeAll(keepingCapacity: true)
        // Taken out of the object for the record (one exclusive access, not one per field).
        var recent = recentTexts
        recentTexts = []
        defer { recentTexts = recent }
        var index = 0
        while true {
            let start: Int, stop: Int
            if index < end && bytes[index] == Self.quote {
                var scan = index + 1
                while scan < end && bytes[scan] != Self.quote {
                    if bytes[scan] == Self.carriageReturn { return nil }
                    scan += 1
                }
                guard scan < end, scan + 1 == end || bytes[scan + 1] == Self.comma else { return nil }
                (start, stop) = (index + 1, scan)
                index = scan + 1
            } else {
                var scan = index
                while scan < end {
                    let byte = bytes[scan]
                    if byte == Self.comma { break }
                    if byte == Self.quote || byte == Self.carriageReturn { return nil }
                    scan += 1
                }
                (start, stop) = (index, scan)
                index = scan
            }
            guard stop - start <= Self.fieldBytesLimit, fields.count < Self.fieldsLimit else { return nil }
            let fieldBytes = UnsafeBufferPointer(rebasing: bytes[start..<stop])
            let column = fields.count
            guard let text = column < recent.count
                ? recent[column].text(UnsafeRawBufferPointer(fieldBytes)) : UTF8Text.string(fieldBytes)
            else { return nil }
            fields.append(text)
            if index == end { break }
            index += 1
        }
        source.skip(bytes.count)
        lastFields = fields
        return fields
    }

    private func skipByteOrderMark() throws {
        guard try source.peek() == 0xEF else { return }
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        for expected in bom {
            guard try take() == expected else { throw syntaxError("the file is not valid UTF-8", line: 1, column: 1) }
        }
        column = 1
    }

    private func expectLineFeed() throws {
        guard try source.peek() == Self.lineFeed else {
            throw syntaxError("a carriage return (CR) must be followed by a line feed (LF); lines end with CRLF or LF")
        }
        _ = try take()
    }

    /// Reads one field; returns its text and whether it ended the record.
    private func readField() throws -> (String, Bool) {
        field.removeAll(keepingCapacity: true)
        let startLine = line
        let startColumn = column
        var endsRecord: Bool
        if try source.peek() == Self.quote {
            _ = try take()
            while true {
                guard let byte = try take() else {
                    throw syntaxError("a quoted field opened here is never closed; close it with a double quote", line: startLine, column: startColumn)
                }
                if byte == Self.quote {
                    if try source.peek() == Self.quote {
                        _ = try take()
                        try append(Self.quote, startLine: startLine, startColumn: startColumn)
                        continue
                    }
                    break
                }
                try append(byte, startLine: startLine, startColumn: startColumn)
            }
            switch try take() {
            case nil: endsRecord = true
            case Self.comma?: endsRecord = false
            case Self.lineFeed?: endsRecord = true
            case Self.carriageReturn?:
                try expectLineFeed()
                endsRecord = true
            default:
                throw syntaxError("unexpected character after a closing quote; a quote inside a quoted field must be doubled (\"\")")
            }
        } else {
            while true {
                guard let byte = try take() else { endsRecord = true; break }
                if byte == Self.comma { endsRecord = false; break }
                if byte == Self.lineFeed { endsRecord = true; break }
                if byte == Self.carriageReturn {
                    try expectLineFeed()
                    endsRecord = true
                    break
                }
                if byte == Self.quote {
                    throw syntaxError("a double quote inside an unquoted field; enclose the whole field in double quotes and double the quote (\"\")")
                }
                try append(byte, startLine: startLine, startColumn: startColumn)
            }
        }
        guard let text = field.withUnsafeBufferPointer({ UTF8Text.string($0) }) else {
            throw syntaxError("the field is not valid UTF-8 text", line: startLine, column: startColumn)
        }
        return (text, endsRecord)
    }

    @inline(__always)
    private func append(_ byte: UInt8, startLine: Int, startColumn: Int) throws {
        guard field.count < Self.fieldBytesLimit else {
            throw syntaxError("a field is longer than \(Self.fieldBytesLimit) bytes (an unclosed quote?)", line: startLine, column: startColumn)
        }
        field.append(byte)
    }
}
