import Glibc
public import Tally

/// The file formats a ``HouseholdJournal`` is written in: the same entries for every tool.
public enum JournalFormat: String, CaseIterable, Sendable {
    /// Tally's journal CSV (`tally import`): one row per entry.
    case tallyCSV = "csv"
    /// A ledger-cli journal, which hledger reads too.
    case ledger
    /// A beancount file, with an `open` directive per account.
    case beancount

    /// The usual file extension.
    public var fileExtension: String {
        switch self {
        case .tallyCSV: "csv"
        case .ledger: "journal"
        case .beancount: "beancount"
        }
    }
}

/// Why a journal could not be written.
public struct JournalWriteError: Error, CustomStringConvertible {
    /// What failed and where.
    public let description: String
}

extension HouseholdJournal {
    /// Writes the journal in `format` to `path`, replacing what was there; streams, so memory
    /// stays small whatever the size.
    /// - Throws: ``JournalWriteError`` when the file cannot be created or written.
    public func write(_ format: JournalFormat, to path: String) throws {
        var output = try BufferedFile(path: path)
        switch format {
        case .tallyCSV:
            output.append("date,account,counter_account,amount,currency,payee,category,external_id\n")
            try forEach { entry in
                output.append("\(entry.date),\(entry.account),\(entry.counterAccount),\(entry.amountText()),\(entry.currency),")
                output.append(Self.csvField(entry.payee))
                output.append(",\(Self.csvField(entry.category)),\(entry.externalId ?? "")\n")
                try output.flushIfFull()
            }
        case .ledger:
            try forEach { entry in
                output.append("\(entry.date) * \(entry.payee)\n")
                output.append("    \(entry.account)    \(entry.amountText()) \(entry.currency)\n")
                output.append("    \(entry.counterAccount)    \(entry.amountText(negated: true)) \(entry.currency)\n\n")
                try output.flushIfFull()
            }
        case .beancount:
            output.append("option \"title\" \"Synthetic household (seed \(seed), \(transactions) transactions)\"\n")
            output.append("option \"operating_currency\" \"USD\"\n\n")
            for account in Self.accounts {
                output.append("\(Self.firstDate) open \(account.name) \(account.currency)\n")
            }
            output.append("\n")
            try forEach { entry in
                output.append("\(entry.date) * \"\(entry.payee)\" \"\(entry.category)\"\n")
                output.append("  \(entry.account)  \(entry.amountText()) \(entry.currency)\n")
                output.append("  \(entry.counterAccount)  \(entry.amountText(negated: true)) \(entry.currency)\n\n")
                try output.flushIfFull()
            }
        }
        try output.close()
    }

    /// Writes ``balances(through:)`` as `account,currency,balance` CSV, the form every tool's
    /// output is normalised to.
    /// - Throws: ``JournalWriteError`` when the file cannot be written.
    public func writeBalances(through date: LocalDate, to path: String) throws {
        var output = try BufferedFile(path: path)
        output.append("account,currency,balance\n")
        for row in balances(through: date) {
            output.append("\(row.account),\(row.currency),\(Self.decimalText(row.minorUnits))\n")
        }
        try output.close()
    }

    static func csvField(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\n") }) else {
            return text
        }
        return "\"" + text.replacingQuotes() + "\""
    }
}

extension String {
    fileprivate func replacingQuotes() -> String {
        var result = ""
        for character in self {
            if character == "\"" { result.append("\"\"") } else { result.append(character) }
        }
        return result
    }
}

/// An append-only file written in 1 MiB chunks.
struct BufferedFile {
    private let descriptor: Int32
    private let path: String
    private var buffer: [UInt8] = []
    private static let chunkBytes = 1 << 20

    init(path: String) throws {
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw JournalWriteError(description: "\(path): cannot create the file (errno \(errno))") }
        self.path = path
        buffer.reserveCapacity(Self.chunkBytes + 4096)
    }

    mutating func append(_ text: String) { buffer.append(contentsOf: text.utf8) }

    mutating func flushIfFull() throws {
        if buffer.count >= Self.chunkBytes { try flush() }
    }

    mutating func flush() throws {
        var offset = 0
        while offset < buffer.count {
            let written = buffer.withUnsafeBytes { bytes in
                Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            }
            guard written > 0 else { throw JournalWriteError(description: "\(path): write failed (errno \(errno))") }
            offset += written
        }
        buffer.removeAll(keepingCapacity: true)
    }

    mutating func close() throws {
        try flush()
        guard Glibc.close(descriptor) == 0 else { throw JournalWriteError(description: "\(path): close failed (errno \(errno))") }
    }
}
