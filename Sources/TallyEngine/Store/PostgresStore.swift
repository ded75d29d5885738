internal import Foundation
internal import Glibc
public import TallyLog

/// The names under which a store keeps its small files in the database beside a log on PostgreSQL.
enum StoredFileName {
    /// The per-subject keys (``SubjectKeys``).
    static let subjects = "SUBJECTS"
    /// An encrypted store's wrapped data keys (``StoreKeyFile``).
    static let keys = "KEYS"
    /// An encrypted store's marker and identifier.
    static let sealed = "SEALED"
    /// How many subjects were erased: a node whose count is behind the database's deletes its
    /// read models (they hold the erased text) and folds them again.
    static let erasures = "ERASURES"
    /// Every one of them, with its path in a store's directory.
    static func all(in layout: StoreLayout) -> [(name: String, path: String)] {
        [(subjects, layout.subjectKeyFilePath), (keys, layout.keyFilePath), (sealed, layout.sealedMarkerPath)]
    }
}

/// A store whose log lives in a ledger on PostgreSQL: its local directory on this node.
///
/// Every node (a machine, or a command-line user) keeps its own directory for such a ledger: the
/// read models it folds from the database, the lock of the local process that writes them, and
/// `log/POSTGRES` naming the location. ``attach(_:at:)`` makes that directory on first use; the
/// first open then builds the read models from the database (the bulk path of a rebuild).
///
/// ```swift
/// let location = try PostgresLogLocation("postgresql://tally@db:5432/books?ledger=home")
/// try PostgresStore.attach(location, at: "/var/cache/tally/home")
/// let ledger = try Ledger.open(at: "/var/cache/tally/home")
/// ```
public enum PostgresStore {
    /// Makes `root` this node's directory for the ledger at `location`, or, when it is one
    /// already, points it at `location` again (a new password, say) after checking that it names
    /// the same ledger on the same server.
    /// - Throws: ``StoreError`` `alreadyExists` when `root` holds another store or other files;
    ///   `LogError` `notFound` when the database has no such ledger, `io` for a server that cannot be reached.
    public static func attach(_ location: PostgresLogLocation, at root: String) throws {
        let layout = StoreLayout(root: root)
        if layout.exists {
            guard let current = try LogStorage.remoteLocation(in: layout.logDirectory) else {
                throw StoreError(.alreadyExists, "'\(root)' holds a store whose log is in its own files, not the ledger \(location.displayName); choose another read-model directory")
            }
            guard current.ledger == location.ledger, current.server == location.server else {
                throw StoreError(.alreadyExists, "'\(root)' is the directory of the ledger \(current.displayName), not \(location.displayName); choose another read-model directory")
            }
            if current.uri != location.uri { try LogStorage.writeRemoteLocation(location, in: layout.logDirectory) }
            try refreshFiles(of: layout, from: location)
            return
        }
        let files = try PostgresLedgerFiles.load(location)
        try makeDirectory(root)
        if let entries = try? FileManager.default.contentsOfDirectory(atPath: root), !entries.isEmpty {
            throw StoreError(.alreadyExists, "'\(root)' is not empty and not a store; choose an empty read-model directory")
        }
        try write(files, into: layout)
        guard mkdir(layout.logDirectory, 0o700) == 0 || errno == EEXIST else {
            throw StoreError(.io, "cannot create '\(layout.logDirectory)': errno \(errno)")
        }
        try LogStorage.writeRemoteLocation(location, in: layout.logDirectory)
        // The marker last: until it is there, the directory is not taken for a store.
        try StoreKeyFile(path: layout.markerPath).save(Array(StoreLayout.markerText.utf8))
    }

    /// Brings the store's small files up to the database's copies (another node may have made
    /// subjects or erased one since).
    static func refreshFiles(of layout: StoreLayout, from location: PostgresLogLocation) throws {
        try write(try PostgresLedgerFiles.load(location), into: layout)
    }

    private static func write(_ files: [String: [UInt8]], into layout: StoreLayout) throws {
        let erasuresPath = layout.root + "/" + StoredFileName.erasures
        let erasures = files[StoredFileName.erasures]
        let localErasures = FileManager.default.contents(atPath: erasuresPath).map { Array($0) }
        if let erasures, erasures != localErasures {
            // A subject was erased on another node since this one folded its read models: they
            // hold its text in the clear, so they go (the next open folds them again, without it).
            try SubjectErasure.deleteReadModels(of: layout.root)
        }
        for (name, path) in StoredFileName.all(in: layout) {
            guard let content = files[name] else { continue }
            if let existing = FileManager.default.contents(atPath: path), Array(existing) == content { continue }
            try StoreKeyFile(path: path).save(content)
        }
        if let erasures, erasures != localErasures { try StoreKeyFile(path: erasuresPath).save(erasures) }
    }

    /// Counts one more erasure in the database (``StoredFileName/erasures``), under the ledger's lease.
    static func countErasure(of location: PostgresLogLocation, with writer: PostgresLogWriter, layout: StoreLayout) throws {
        let files = try PostgresLedgerFiles.load(location)
        let count = files[StoredFileName.erasures].flatMap { Int(String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
        let next = Array("\(count + 1)\n".utf8)
        try writer.storeFile(StoredFileName.erasures, next)
        // This node's read models were deleted by the erasure itself: its count is the database's.
        try StoreKeyFile(path: layout.root + "/" + StoredFileName.erasures).save(next)
    }

    /// Creates `path` and its missing parents, owner-only.
    private static func makeDirectory(_ path: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw StoreError(.io, "cannot create the read-model directory '\(path)': \(error.localizedDescription)")
        }
    }
}

extension StoreLayout {
    /// For a store whose log is on PostgreSQL, brings its small files (subject keys, keys) up to
    /// the database's copies; nothing for a store of files.
    ///
    /// The files are written only under the store's directory lock, taken here without waiting
    /// (`holdingLock`: the caller holds it already): when another process of this node holds
    /// it, that writer keeps the files current itself (it alone writes the ledger, and saves a
    /// new key to the database and then to its file before any event names it), and nothing is
    /// written, so a copy read from the database a moment before never replaces a newer file.
    func refreshFromDatabase(holdingLock: Bool = false) throws {
        guard let location = try LogStorage.remoteLocation(in: logDirectory) else { return }
        if holdingLock { return try PostgresStore.refreshFiles(of: self, from: location) }
        let lock: any LogWriterLock
        do {
            lock = try PosixFileSystem().lockForWriting(directory: logDirectory)
        } catch let error as LogError where error.code == .locked {
            return
        }
        defer { lock.release() }
        try PostgresStore.refreshFiles(of: self, from: location)
    }
}

extension PostgresStore {
    /// This machine's directory for the ledger at `location`: under `base` when given, else
    /// `$TALLY_READ_MODELS`, else the user's cache directory (`$XDG_CACHE_HOME/tally` or
    /// `~/.cache/tally`), in a folder named by the server, database and ledger.
    public static func defaultDirectory(for location: PostgresLogLocation, under base: String? = nil) -> String {
        let environment = ProcessInfo.processInfo.environment
        let root: String
        if let base, !base.isEmpty {
            root = base
        } else if let configured = environment["TALLY_READ_MODELS"], !configured.isEmpty {
            root = configured
        } else if let cache = environment["XDG_CACHE_HOME"], !cache.isEmpty {
            root = cache + "/tally"
        } else {
            root = NSHomeDirectory() + "/.cache/tally"
        }
        let server = location.server.map { $0.isLetter || $0.isNumber ? $0 : "_" }
        return root + "/" + String(server) + "-" + location.ledger
    }
}

extension PostgresLogWriter {
    /// Puts what a save of the subject keys writes in the database: records appended to its
    /// copy when that copy is the one the file's records follow, else the whole file.
    func publishSubjects(_ write: SubjectKeyFile.Write) throws {
        if case .append(let records, let length, _) = write, try appendToFile(StoredFileName.subjects, records, after: length) { return }
        try storeFile(StoredFileName.subjects, try write.wholeBytes())
    }
}
