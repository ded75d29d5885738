internal import Foundation
internal import Glibc
public import TallyLog

/// What an export wrote: how many events, through which head, and whether a restore of it
/// can reproduce the head digest.
public struct ExportSummary: Hashable, Sendable {
    /// The events written, `1` through ``head``'s sequence number.
    public let events: UInt64
    /// The log head the export ends at: a restore of it ends at the same digest (check it
    /// with `tally verify --expect`) unless ``olderVersionEvents`` is more than zero.
    public let head: LogDigest
    /// Events the log holds in an older schema version: they are written in the current
    /// version (read models answer alike), so a restore hashes them differently and its
    /// head digest differs from ``head``.
    public let olderVersionEvents: Int
}

extension Ledger {
    /// The file name of the events in an export directory (`tally export --dir`).
    public static let exportEventsFileName = "ledger.ndjson"
    /// What ``export(to:)`` appends to the file's name for the companion holding the live
    /// subjects' keys (owner-only): ``restore(from:into:options:expect:progress:)`` reads it to
    /// seal the same text under the same keys, so the restored head digest is the exported one.
    /// Without it a restore makes new keys and its digest differs (answers are the same).
    public static let exportSubjectsSuffix = ".subjects"

    /// Writes every event of the ledger, through its head when the export starts, as NDJSON
    /// (``EventJSON``: one event a line with its `seq`, `recorded_at`, `effective_at`, type,
    /// version, entity, cause, idempotency key and data), for a restore
    /// (``restore(from:into:options:expect:progress:)``) or another program.
    ///
    /// ```swift
    /// let summary = try ledger.export(to: "backup/ledger.ndjson")
    /// print(summary.head)   // 412:9f…: a restore of the file ends at this digest
    /// ```
    ///
    /// The file is written beside its final name, synced, then renamed onto it: a reader never
    /// sees half an export, and a failure leaves any earlier file as it was. It is the owner's
    /// alone (mode 0600): it holds the household's whole history. Personal text is in plain
    /// form for live subjects and the erased marker for erased ones; the live subjects' keys go
    /// to `FILE.subjects` (``exportSubjectsSuffix``), also 0600, for a restore to the same digest.
    ///
    /// - Parameters:
    ///   - path: the file to write (replaced when it exists); its directory must exist.
    /// - Throws: ``LedgerError`` (`store`) when the file cannot be written, or for a damaged log.
    @discardableResult
    public func export(to path: String) throws -> ExportSummary {
        try LedgerError.boundary {
            let file = try ExportFile(replacing: path)
            do {
                let summary = try export { try file.write($0) }
                try options.subjectKeys?.writeCarried(to: path + Self.exportSubjectsSuffix)
                try file.commit()
                return summary
            } catch {
                file.discard()
                throw error
            }
        }
    }

    /// Streams every event of the ledger as NDJSON lines (each with its line feed) to
    /// `write`, through the head when the export starts; ``export(to:)`` for a file.
    ///
    /// ```swift
    /// try ledger.export { line in FileHandle.standardOutput.write(Data(line.utf8)) }
    /// ```
    ///
    /// - Throws: ``LedgerError`` for a damaged log, or what `write` throws.
    @discardableResult
    public func export(_ write: (String) throws -> Void) throws -> ExportSummary {
        try LedgerError.boundary {
            // A lost key file would make every personal text read as erased: refused before a
            // line is written (only a store without `SUBJECTS` is read twice for it).
            if let keys = options.subjectKeys, !keys.fileExists {
                try Self.requireNoLostKeys(try subjectsWithoutKeys(), doing: "an export")
            }
            var erased: Set<String> = []
            let head = self.head
            let reader = try store?.reader() ?? EventStoreReader.open(at: layout.root, catalog: catalog, fileSystem: options.logFileSystem, keys: options.logKeys)
            var count: UInt64 = 0
            var older = 0
            var buffer = ""
            buffer.reserveCapacity(1 << 16)
            try reader.forEach(from: 1, through: head.sequence) { event in
                count += 1
                if event.storedVersion != event.type.version { older += 1 }
                if let erasure = event.body.as(ErasureRecorded.self) { erased.insert(erasure.subject) }
                buffer += try EventJSON.encode(event)
                buffer += "\n"
                if buffer.utf8.count >= 1 << 16 {
                    try write(buffer)
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            // Keys missing from a file that is there (entries removed): the file export is discarded.
            try Self.requireNoLostKeys((options.subjectKeys?.missingIdentifiers ?? []).filter { !erased.contains($0) }, doing: "an export")
            if !buffer.isEmpty { try write(buffer) }
            guard count == head.sequence else {
                throw StoreError(.io, "the log held \(count) events through its head \(head.sequence); nothing complete was exported")
            }
            return ExportSummary(events: count, head: head, olderVersionEvents: older)
        }
    }
}

extension Ledger {
    /// The identifiers (hex) of subjects whose sealed text the log holds, whose key the
    /// subject key file (`SUBJECTS`) does not hold, and whose erasure the log does not record:
    /// keys lost to a deleted or damaged file, never erased. Reads the whole log.
    ///
    /// ```swift
    /// let lost = try ledger.subjectsWithoutKeys()   // [] for a healthy store
    /// ```
    ///
    /// - Throws: ``LedgerError`` for a damaged log.
    public func subjectsWithoutKeys() throws -> [String] {
        try LedgerError.boundary {
            guard let keys = options.subjectKeys else { return [] }
            let reader = try store?.reader() ?? EventStoreReader.open(at: layout.root, catalog: catalog, fileSystem: options.logFileSystem, keys: options.logKeys)
            var erased: Set<String> = []
            try reader.forEach(from: 1, through: head.sequence) { event in
                if let erasure = event.body.as(ErasureRecorded.self) { erased.insert(erasure.subject) }
            }
            return keys.missingIdentifiers.filter { !erased.contains($0) }
        }
    }

    /// Refuses `action` when subjects' keys are lost (``subjectsWithoutKeys()``): it would
    /// write or show their personal text as erased although nobody erased it.
    static func requireNoLostKeys(_ lost: [String], doing action: String) throws {
        guard !lost.isEmpty else { return }
        throw StoreError(.keyFileDamaged, """
            \(SubjectKeys.lostDescription(lost)) cannot be read: their keys are missing from \
            the subject key file (SUBJECTS) and the log records no erasure of them, so the file was deleted or damaged; \(action) \
            would show that text as erased. Restore SUBJECTS from a backup; nothing was written
            """)
    }
}

/// A file written beside its final name and renamed onto it once complete and synced.
final class ExportFile {
    let path: String
    let temporary: String
    private let descriptor: Int32
    private var isClosed = false

    init(replacing path: String) throws {
        self.path = path
        temporary = path + ".tally-export-" + String(UInt64.random(in: .min ... .max), radix: 16)
        descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, ownerOnlyFileMode)
        guard descriptor >= 0 else {
            throw StoreError(.io, "cannot write the export '\(path)': \(String(cString: strerror(errno))) (does its directory exist?)")
        }
    }

    func write(_ text: String) throws {
        var bytes = Array(text.utf8)
        defer { bytes.removeAll() }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            guard written > 0 else {
                if written < 0 && errno == EINTR { continue }
                throw StoreError(.io, "cannot write the export '\(path)': \(String(cString: strerror(written < 0 ? errno : EIO)))")
            }
            offset += written
        }
    }

    /// Syncs the file and renames it onto its final name.
    func commit() throws {
        guard fsync(descriptor) == 0 else { throw StoreError(.io, "cannot sync the export '\(path)': \(String(cString: strerror(errno)))") }
        close(descriptor)
        isClosed = true
        guard rename(temporary, path) == 0 else {
            let code = errno
            throw StoreError(.io, "cannot move the export into place as '\(path)': \(String(cString: strerror(code)))")
        }
    }

    /// Removes the unfinished file.
    func discard() {
        if !isClosed { close(descriptor) }
        isClosed = true
        unlink(temporary)
    }
}

/// Files of an export, each written beside its name, synced and renamed onto it: a reader
/// never sees half of one, and a failure leaves an earlier file as it was.
public enum ExportFiles {
    /// Writes `text` to `path` (replaced when it exists; mode 0600) in one step.
    ///
    /// ```swift
    /// try ExportFiles.write(BalancesCSV.render(try ledger.balances()), to: "backup/balances.csv")
    /// ```
    /// - Throws: ``LedgerError`` (`store`) when the file cannot be written.
    public static func write(_ text: String, to path: String) throws {
        try LedgerError.boundary {
            let file = try ExportFile(replacing: path)
            do {
                try file.write(text)
                try file.commit()
            } catch {
                file.discard()
                throw error
            }
        }
    }
}
