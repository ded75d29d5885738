public import TallyEngine
internal import Synchronization

/// What a bulk bank import did, or (in a refusal for conflicts) what the file held.
public struct BankImportSummary: Hashable, Sendable {
    /// Data rows in the file.
    public var rows = 0
    /// Rows recorded as new transactions.
    public var imported = 0
    /// Rows whose bank transaction was imported before with the same data (in an earlier
    /// import, one by one or in bulk, or earlier in the file): recorded once, so nothing
    /// was appended for them and a re-categorisation made since stays.
    public var alreadyPresent = 0
    /// Rows whose bank transaction id was imported before with another date, amount, payee
    /// or category. Any refuses the whole file, so a summary returned by an import says 0.
    public var conflicts = 0
    /// Events appended: one per imported row, and a `reference_balance_reconciled` for each
    /// row dated before a reference balance.
    public var eventsAppended = 0
    /// Batches committed, one durable commit each.
    public var commits = 0
    /// The sequence numbers appended, when any were.
    public var sequences: ClosedRange<UInt64>?

    /// An empty summary.
    public init() {}
}

/// A bulk bank import refused because rows conflict with transactions imported before under
/// the same bank transaction id. Nothing was appended. Thrown as the `underlying` error of a
/// ``LedgerError`` `idempotencyConflict`.
///
/// ```swift
/// catch let error as LedgerError where error.code == .idempotencyConflict {
///     if let refusal = error.underlying as? BankImportConflicts { refusal.conflicts.forEach { print($0) } }
/// }
/// ```
public struct BankImportConflicts: Error, Hashable, Sendable, CustomStringConvertible {
    /// What the file holds: rows, already present, conflicting; `imported` is 0.
    public let summary: BankImportSummary
    /// The first conflicting rows (at most ``BankImport/conflictsListed``), each naming file,
    /// line and the field `external_id`.
    public let conflicts: [ImportError]

    /// How many rows conflict, then each listed conflict as `FILE:LINE: field 'external_id': …`.
    public var description: String {
        let count = summary.conflicts
        let more = count > conflicts.count ? " (the first \(conflicts.count) listed)" : ""
        return "\(count) row\(count == 1 ? "" : "s") of the file conflict\(count == 1 ? "s" : "") with a bank transaction imported before\(more); nothing was imported:\n"
            + conflicts.map(\.description).joined(separator: "\n")
    }
}

/// Importing a bank CSV (``BankCSV``) into the budget product, all or nothing, each row as
/// ``Ledger/importBankTransaction(bankId:externalId:payee:category:amount:date:idempotencyKey:)``
/// imports one transaction (the same command, so the same dedup, conflicts and reference
/// balance reconciliation):
/// 1. the validating pass reads the whole file: header, every field, every event within the
///    log's limits; the first bad row refuses the file naming file, line and field;
/// 2. the rehearsal plans every row's command, in file order, against the read models as the
///    appending pass will (``Ledger`` rehearses and rolls back): a row whose transaction was
///    imported before with the same data is already present, one with other data a
///    conflict; any conflict refuses the file, listing the conflicting lines;
/// 3. the appending pass runs the commands in batches (`run(batch:)`), one durable commit each.
///
/// Memory: each pass streams the file (one read chunk and one batch of commands). The
/// rehearsal is the write pipeline's (`WritePipeline.rehearse`), whose draft keeps every
/// event it folded until it rolls back, so its memory grows with the file's rows (a few
/// hundred bytes each); the appending pass holds one batch.
public enum BankImport {
    /// Commands per commit unless told otherwise.
    public static let defaultBatchSize = 1_000
    /// Conflicting rows a refusal lists.
    public static let conflictsListed = 20
    /// Rows between progress reports while reading.
    static let progressRows = 4_096
}

extension Ledger {
    /// Imports a bank CSV (``BankCSV``) of one connected bank: all rows or none.
    ///
    /// ```swift
    /// let summary = try ledger.importBankCSV(at: "chase-may.csv", bankId: "chase")
    /// print(summary.imported, summary.alreadyPresent)
    /// ```
    ///
    /// - Parameters:
    ///   - path: the CSV file.
    ///   - bankId: a connected bank; each row's id is `bank:<bankId>:<external_id>`.
    ///   - batchSize: commands per commit, `1...``ImportBatch/sizeMax```.
    ///   - progress: called now and then: `validating` with bytes read over twice the file's
    ///     size (the validating pass, then the rehearsal), `appending` with rows handled over
    ///     rows after each commit. Throwing from it stops the import (what was committed stays;
    ///     re-running imports the rest).
    /// - Returns: rows imported and already present.
    /// - Throws: ``LedgerError``: `invalidInput` with an ``ImportError`` naming file, line and
    ///   field of a bad row (nothing appended); `idempotencyConflict` with a
    ///   ``BankImportConflicts`` (nothing appended); `notFound` / `notAllowed` when the bank
    ///   was never connected or is disconnected; `invalidArgument` for a bad bank id or batch size.
    public func importBankCSV(
        at path: String, bankId: String, batchSize: Int = BankImport.defaultBatchSize,
        progress: ((ImportProgress) throws -> Void)? = nil
    ) throws -> BankImportSummary {
        try LedgerError.boundary {
            try ImportBatch.check(batchSize)
            let bankId = try BudgetSettings.validIdentifier(bankId, "the bank id")
            let currency = try read { db in
                try BankRules.requireConnected(bankId, db)
                return try BudgetSettings.currency(db)
            }
            func rows() throws -> BankRows { try BankRows(path: path, bankId: bankId, currency: currency, ledger: self) }
            let checked = try validateBankRows(try rows(), progress: progress)
            try rehearseBankRows(try rows(), digest: checked.digest, progress: progress)
            return try appendBankRows(try rows(), checked: checked, batchSize: batchSize, progress: progress)
        }
    }

    /// The validating pass: every row well formed and its event within the log's limits.
    /// Returns the file's digest and its rows.
    private func validateBankRows(_ rows: BankRows, progress: ((ImportProgress) throws -> Void)?) throws -> (digest: String, rows: Int) {
        var rows = rows
        var count = 0
        while let (line, command) = try rows.next() {
            try BankCSV.checkRecord(command, catalog: catalog, line: line, file: rows.path)
            count += 1
            if count % BankImport.progressRows == 0 {
                try progress?(ImportProgress(phase: .validating, completed: rows.bytesRead, total: 2 * rows.fileBytes, committedSequence: nil))
            }
        }
        try progress?(ImportProgress(phase: .validating, completed: rows.bytesRead, total: 2 * rows.fileBytes, committedSequence: nil))
        return (rows.hexDigest(), count)
    }

    /// The rehearsal: plans every row's command in order and rolls back. Refuses the file for
    /// any conflict, listing the first ones; any other refusal names the row.
    private func rehearseBankRows(_ rows: BankRows, digest: String, progress: ((ImportProgress) throws -> Void)?) throws {
        var rows = rows
        var summary = BankImportSummary()
        var conflicts: [ImportError] = []
        let planned = Mutex(0)
        try rehearse { plan in
            while let (line, command) = try rows.next() {
                summary.rows += 1
                var counted = command
                let inner = command.plan
                counted.plan = { db in
                    planned.withLock { $0 += 1 }
                    return try inner(db)
                }
                do {
                    try plan(counted)
                } catch let error as LedgerError where error.code == .idempotencyConflict || error.code == .alreadyExists {
                    // Refused before anything was folded: the rehearsal goes on, to list them all.
                    summary.conflicts += 1
                    if conflicts.count < BankImport.conflictsListed {
                        conflicts.append(ImportError(.conflict, file: rows.path, line: line, field: "external_id", Self.conflictReason(error)))
                    }
                } catch let error as LedgerError {
                    throw ImportError(.invalidRow, file: rows.path, line: line, error.message)
                }
                if summary.rows % BankImport.progressRows == 0 {
                    try progress?(ImportProgress(phase: .validating, completed: rows.fileBytes + rows.bytesRead, total: 2 * rows.fileBytes, committedSequence: nil))
                }
            }
        }
        guard rows.hexDigest() == digest else {
            throw ImportError(.changedDuringImport, file: rows.path, "the file changed while it was checked; nothing was appended")
        }
        summary.alreadyPresent = summary.rows - planned.withLock { $0 } - summary.conflicts
        guard summary.conflicts == 0 else {
            let refusal = BankImportConflicts(summary: summary, conflicts: conflicts)
            throw LedgerError(.idempotencyConflict, refusal.description, underlying: refusal)
        }
    }

    /// What a conflicting row's error says, without amounts or the pipeline's sequence numbers.
    private static func conflictReason(_ error: LedgerError) -> String {
        if error.code == .alreadyExists {
            return "a transaction with this id exists already, recorded under another idempotency key; it cannot be imported again"
        }
        return "this bank transaction id was imported before (or earlier in this file) with another date, amount, payee or category; "
            + "a bank sends one transaction per id, so correct the row or re-categorise the transaction instead"
    }

    /// The appending pass: the rows' commands in batches, one durable commit each.
    private func appendBankRows(
        _ rows: BankRows, checked: (digest: String, rows: Int), batchSize: Int, progress: ((ImportProgress) throws -> Void)?
    ) throws -> BankImportSummary {
        var rows = rows
        var summary = BankImportSummary()
        var batch: [LedgerCommand] = []
        var lines: [Int] = []
        batch.reserveCapacity(batchSize)
        lines.reserveCapacity(batchSize)
        func appended() -> String {
            summary.sequences.map { "; rows were appended as seq \($0.lowerBound)-\($0.upperBound), re-run the import to finish" } ?? "; nothing was appended"
        }
        /// The rows of the batches committed so far.
        var rowsCommitted = 0
        func commit() throws {
            let results = try run(batch: batch)
            // Every outcome is counted before a refusal is reported: the batch's other rows
            // were committed all the same.
            var refused: (line: Int, error: any Error)?
            for (line, outcome) in zip(lines, results) {
                switch outcome {
                case .success(let result):
                    if result.wasAlreadyApplied { summary.alreadyPresent += 1 } else if !result.events.isEmpty { summary.imported += 1 }
                    guard !result.wasAlreadyApplied, let first = result.events.first?.sequence, let last = result.events.last?.sequence else { continue }
                    summary.eventsAppended += result.events.count
                    summary.sequences = (summary.sequences?.lowerBound ?? first)...last
                case .failure(let error):
                    if refused == nil { refused = (line, error) }
                }
            }
            if let refused {
                throw ImportError(.changedDuringImport, file: rows.path, line: refused.line, "the row was refused after the rehearsal (\(refused.error))\(appended())")
            }
            summary.commits += 1
            rowsCommitted = summary.rows
            batch.removeAll(keepingCapacity: true)
            lines.removeAll(keepingCapacity: true)
            try progress?(ImportProgress(
                phase: .appending, completed: Int64(summary.rows), total: Int64(checked.rows), committedSequence: summary.sequences?.upperBound))
        }
        do {
            while let (line, command) = try rows.next() {
                summary.rows += 1
                batch.append(command)
                lines.append(line)
                if batch.count == batchSize { try commit() }
            }
            guard rows.hexDigest() == checked.digest, summary.rows == checked.rows else {
                throw ImportError(.changedDuringImport, file: rows.path, "the file changed after it was checked\(appended())")
            }
            if !batch.isEmpty { try commit() }
        } catch {
            throw ImportError.stopped(error, file: rows.path, committed: summary.sequences, rowsCommitted: rowsCommitted)
        }
        return summary
    }
}
