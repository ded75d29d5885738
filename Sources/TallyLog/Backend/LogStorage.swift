import Foundation

/// Opens the log a directory stands for: the segment files in it, or — when it holds a
/// `POSTGRES` file naming a location — the ledger's log on PostgreSQL.
///
/// A store on PostgreSQL keeps a local directory all the same (its read models, its lock for
/// the local process that folds them); its `log/` directory then holds only that one file.
///
/// ```swift
/// let writer = try LogStorage.openWriter(directory: "books/log")
/// let reader = try LogStorage.openReader(directory: "books/log")
/// ```
public enum LogStorage {
    /// The file, in a log directory, that names a log on PostgreSQL (one line: its URI).
    public static let remoteFileName = "POSTGRES"

    /// The PostgreSQL location `directory` stands for, or nil for a log of segment files.
    /// - Throws: ``LogError`` `invalidArgument` for a `POSTGRES` file that does not name a location.
    public static func remoteLocation(in directory: String) throws -> PostgresLogLocation? {
        let path = StoreDirectory.join(directory, remoteFileName)
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        do {
            return try PostgresLogLocation(text)
        } catch let error as LogError {
            throw LogError(.invalidArgument, "the log's location file does not name a PostgreSQL ledger: \(error.message)", path: path)
        }
    }

    /// Writes (or replaces) the file that makes `directory` stand for `location`: owner-only, as it may hold a password.
    public static func writeRemoteLocation(_ location: PostgresLogLocation, in directory: String) throws {
        let path = StoreDirectory.join(directory, remoteFileName)
        let temporary = path + ".new"
        let bytes = Array((location.uri + "\n").utf8)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw LogError(.io, "cannot write the log's location file: errno \(errno)", path: temporary) }
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor)
        close(descriptor)
        guard written == bytes.count, synced == 0, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw LogError(.io, "cannot write the log's location file: errno \(errno)", path: path)
        }
    }

    /// A name for this process as a log's lease holder: `TALLY_NODE` when set, else host and process id.
    public static var processOwnerName: String {
        if let node = ProcessInfo.processInfo.environment["TALLY_NODE"], !node.isEmpty { return node }
        return "\(ProcessInfo.processInfo.hostName):\(getpid())"
    }

    /// Opens the log for writing: ``LogWriter/open(directory:options:)``, or for a log on
    /// PostgreSQL the directory's lock and then the ledger's lease (``PostgresLogWriter/open(_:owner:options:leaseSeconds:waitSeconds:localLock:waiting:)``).
    /// Either waits up to ``LogOptions/lockWaitMicroseconds`` for another writer, whose name
    /// ``LogOptions/lockWaitNotice`` is told of through the wait when it is long.
    public static func openWriter(directory: String, options: LogOptions = .init(), owner: String = processOwnerName) throws -> any LogWriting {
        guard let location = try remoteLocation(in: directory) else { return try LogWriter.open(directory: directory, options: options) }
        let started = DispatchTime.now().uptimeNanoseconds
        let lock = try options.lockForWriting(directory: directory)
        do {
            // What is left of the wait after the directory's lock is the lease's (whole seconds, rounded up).
            let waited = Int64((DispatchTime.now().uptimeNanoseconds - started) / 1_000)
            let remaining = max(options.lockWaitMicroseconds - waited, 0)
            let notice = options.lockWaitNotice
            return try PostgresLogWriter.open(
                location, owner: owner, options: options, waitSeconds: (remaining + 999_999) / 1_000_000, localLock: lock,
                waiting: notice.map { notice in { _ in notice(waited) } })
        } catch {
            lock.release()
            throw error
        }
    }

    /// Opens a view of the log: ``LogReader/open(directory:fileSystem:keys:)``, or ``PostgresLogReader/open(_:keys:through:)``.
    public static func openReader(directory: String, fileSystem: any LogFileSystem = PosixFileSystem(), keys: LogKeys? = nil) throws -> any LogReading {
        guard let location = try remoteLocation(in: directory) else {
            return try LogReader.open(directory: directory, fileSystem: fileSystem, keys: keys)
        }
        return try PostgresLogReader.open(location, keys: keys)
    }
}
