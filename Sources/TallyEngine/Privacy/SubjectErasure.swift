internal import Foundation
internal import TallyLog

/// Erasing one person: destroys a subject's key (``SubjectKeys``) so that every personal text
/// sealed under it reads as erased everywhere, while amounts, dates, the log's bytes, its hash
/// chain and every digest kept before stay exactly as they were.
///
/// The steps, in this order, each leaving a consistent store if a crash stops it there:
/// 1. `erasure_recorded` (naming the subject's opaque identifier) is appended to the log;
/// 2. under the writer's lock, the read models (which hold the plaintext) are deleted, `-wal`,
///    `-shm` and a killed rebuild's `.rebuilding` file included;
/// 3. still under the lock, the subject's key and name are removed from the `SUBJECTS` file
///    (atomic replace, synced);
/// 4. the read models are folded again from the log (any later open would do it too).
///
/// Stopped after step 1 or 2 the key is still there: run the erasure again (a second
/// `erasure_recorded` is harmless). After step 3 the erasure is complete; the next open folds
/// the read models again.
///
/// ```swift
/// let outcome = try SubjectErasure.erase("payee:Acme Corp", at: "books", options: .standard)
/// print(outcome.identifier, outcome.sequence)
/// ```
public enum SubjectErasure {
    /// What an erasure did.
    public struct Outcome: Hashable, Sendable {
        /// The subject's `KIND:ID` name, as given.
        public let subject: String
        /// Its opaque identifier, as the `erasure_recorded` event names it.
        public let identifier: String
        /// The sequence number of the `erasure_recorded` event.
        public let sequence: UInt64
    }

    /// The subjects of the store at `root` that have a key, sorted by name.
    ///
    /// - Throws: as ``Ledger/Options/unlocked(at:)``; ``StoreError`` `keyFileDamaged` when the
    ///   subject key file is gone while the log holds text sealed for subjects it does not
    ///   record as erased (``Ledger/subjectsWithoutKeys()``).
    public static func subjects(at root: String, options: Ledger.Options) throws -> [SubjectKeys.Subject] {
        try LedgerError.boundary {
            try StoreLayout(root: root).requireStore()
            let options = try options.unlocked(at: root)
            guard let keys = options.subjectKeys else { return [] }
            if !keys.fileExists {
                // No key file: lost (or a store made before subject keys); the log tells which.
                let ledger = try Ledger.openForReading(at: root, options: options)
                defer { try? ledger.close() }
                try Ledger.requireNoLostKeys(try ledger.subjectsWithoutKeys(), doing: "a list of the subjects")
            }
            return keys.subjects
        }
    }

    /// Erases the subject named `name` (`owner`, `payee:NAME`) of the store at `root`.
    ///
    /// - Throws: ``LedgerError`` `invalidArgument` for a name that is not a subject, `notFound` for a
    ///   subject with no key (never recorded, or already erased: nothing is changed), `locked` while
    ///   another process writes, `store` for the store's own failures.
    @discardableResult
    public static func erase(_ name: String, at root: String, options: Ledger.Options) throws -> Outcome {
        try LedgerError.boundary {
            _ = try PersonalSubject(parsing: name)
            try StoreLayout(root: root).requireStore()
            let options = try options.unlocked(at: root)
            guard let keys = options.subjectKeys, let subject = keys.subject(named: name) else {
                let known = options.subjectKeys?.subjects.map(\.name) ?? []
                throw LedgerError(.notFound, SubjectKeys.unknownMessage(name, known: known))
            }
            let ledger = try Ledger.open(at: root, options: options)
            let result: Ledger.CommandResult
            do {
                let erased = NewEvent(effectiveAt: ledger.now, body: EventBody(ErasureRecorded(subject: subject.identifier)))
                result = try ledger.run(LedgerCommand(request: erased) { _ in [erased] })
                try ledger.close()
            } catch {
                try? ledger.close()
                throw error
            }
            // Under the writer's lock, so that no other process folds the read models again with
            // the key still there between their deletion and the key's.
            do {
                let layout = StoreLayout(root: root)
                let lock = try PosixFileSystem().lockForWriting(directory: layout.logDirectory)
                defer { lock.release() }
                try deleteReadModels(of: root)
                if let remote = try LogStorage.remoteLocation(in: layout.logDirectory) {
                    // A log on PostgreSQL: the keys every node reads are the database's. Under the
                    // ledger's lease (no node adds a subject meanwhile), the key goes from the
                    // newest set there, and that set goes back.
                    let writer = try PostgresLogWriter.open(remote, owner: LogStorage.processOwnerName, options: options.logOptions)
                    defer { try? writer.close() }
                    try PostgresStore.refreshFiles(of: layout, from: remote)
                    try keys.reloadForWriting()
                    try keys.erase(name)
                    try keys.save(publishing: writer.publishSubjects)
                    // Every other node's read models hold the erased text: they go when it next opens.
                    try PostgresStore.countErasure(of: remote, with: writer, layout: layout)
                } else {
                    try keys.erase(name)
                    try keys.save()
                }
            }
            try Ledger.open(at: root, options: options).close()
            return Outcome(subject: name, identifier: subject.identifier, sequence: result.events.last?.sequence ?? 0)
        }
    }

    /// Deletes the store's read models (they are derived from the log, and hold plaintext).
    static func deleteReadModels(of root: String) throws {
        let path = StoreLayout(root: root).readModelPath
        for suffix in ReadModelStore.fileSuffixes where FileManager.default.fileExists(atPath: path + suffix) {
            do { try FileManager.default.removeItem(atPath: path + suffix) } catch {
                throw StoreError(.io, "cannot delete the read models '\(path + suffix)': \((error as NSError).localizedDescription); run the erasure again to finish it")
            }
        }
    }
}
