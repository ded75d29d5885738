/// How ``LogFileSystem/open(_:mode:)`` opens a file.
public enum LogFileMode: Hashable, Sendable {
    /// Read only; the file must exist.
    case read
    /// Read and write; the file must exist.
    case readWrite
    /// Read and write; the file is created (empty) when missing.
    case readWriteCreate
    /// Read and write; the file must not exist yet (`O_CREAT | O_EXCL`).
    case createNew
}

/// One open file of a log: positioned reads and writes, syncs, size and truncation.
///
/// Every failure is a ``LogError``: `.io` naming the call, the path and the error, `.notFound` for a
/// missing file. ``close()`` is called once per open.
public protocol LogFile: Sendable {
    /// The path the file was opened with.
    var path: String { get }
    /// The file's length in bytes.
    func size() throws -> Int64
    /// Fills `buffer` from `offset`; returns how many bytes were read (fewer only at the end of the file).
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int
    /// Writes all of `bytes` at `offset` (a failure may leave any prefix of them written).
    func write(_ bytes: [UInt8], at offset: Int64) throws
    /// `fdatasync`: the file's data (and the size it needs) reach the disk.
    func dataSync() throws
    /// `fsync`: data and metadata reach the disk.
    func fullSync() throws
    /// Sets the file's length.
    func truncate(to length: Int64) throws
    /// Releases the file.
    func close()
}

extension LogFile {
    /// Reads exactly `count` bytes at `offset`, or fewer only at the end of the file.
    func read(count: Int, at offset: Int64) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        let got = try buffer.withUnsafeMutableBytes { try read(into: $0, at: offset) }
        if got < count { buffer.removeLast(count - got) }
        return buffer
    }
}

/// The writer's exclusive hold on a log directory, from ``LogFileSystem/lockForWriting(directory:)``.
public protocol LogWriterLock: Sendable {
    /// Gives the lock up (once).
    func release()
}

/// Every file operation a log makes: the writer, readers, verification and repair go through it.
///
/// The default, ``PosixFileSystem``, is the real disk. ``SimulatedDisk`` is a seeded, in-memory
/// disk that tears writes, loses unsynced data on a simulated crash, fails syncs and writes, and
/// flips bits, for deterministic fault simulation.
///
/// ```swift
/// var options = LogOptions()
/// options.fileSystem = SimulatedDisk(seed: 42)
/// let writer = try LogWriter.create(directory: "/sim/log", options: options)
/// ```
public protocol LogFileSystem: Sendable {
    /// Opens (or creates, as `mode` says) the file at `path`.
    /// - Throws: ``LogError`` `.notFound` for a missing file, `.io` otherwise.
    func open(_ path: String, mode: LogFileMode) throws -> any LogFile
    /// The names of the entries in directory `path`.
    /// - Throws: ``LogError`` `.notFound` when the directory does not exist, `.io` otherwise.
    func entries(of directory: String) throws -> [String]
    /// Whether a file or directory exists at `path`.
    func exists(_ path: String) -> Bool
    /// Makes the directory `path` (its parent must exist); nothing when it exists.
    func makeDirectory(_ path: String) throws
    /// Removes the file at `path`.
    func remove(_ path: String) throws
    /// Renames `source` to `target`, replacing it.
    func rename(_ source: String, to target: String) throws
    /// Syncs the directory `path`, so that entries created, renamed or removed in it survive a crash.
    func syncDirectory(_ path: String) throws
    /// Takes the one writer's exclusive lock on `directory` without waiting.
    /// - Throws: ``LogError`` `.locked` when another writer holds it.
    func lockForWriting(directory: String) throws -> any LogWriterLock
    /// Whether some writer holds `directory`'s lock; takes no lock.
    func isLockedForWriting(directory: String) -> Bool
}

extension LogFileSystem where Self == PosixFileSystem {
    /// The real disk, through POSIX calls.
    public static var posix: PosixFileSystem { PosixFileSystem() }
}

extension LogFileSystem {
    /// The length of the file at `path`.
    func fileSize(_ path: String) throws -> Int64 {
        let file = try open(path, mode: .read)
        defer { file.close() }
        return try file.size()
    }

    /// Replaces the small file at `path` with `bytes`, as a hint a reader may do without:
    /// written to a temporary name beside it, then renamed over it, neither synced. A failure
    /// leaves the old file or none, never a part of `bytes` under `path`.
    func replaceHint(_ path: String, with bytes: [UInt8]) {
        let temporary = path + ".\(UInt64.random(in: 0...UInt64.max))"
        do {
            let file = try open(temporary, mode: .createNew)
            defer { file.close() }
            try file.write(bytes, at: 0)
        } catch {
            try? remove(temporary)
            return
        }
        do { try rename(temporary, to: path) } catch {
            try? remove(temporary)
            return
        }
        removeStaleTemporaries(of: path)
    }

    /// Removes the temporary files ``replaceHint(_:with:)`` left beside `path` when a process
    /// died between writing one and renaming it (`NAME.<digits>`), so that crashes do not
    /// pile them up. One another process is writing at this moment is removed too; its
    /// rename then fails, and its hint is left out, as any failed hint is.
    private func removeStaleTemporaries(of path: String) {
        let directory = StoreDirectory.parent(of: path)
        let prefix = StoreDirectory.name(of: path) + "."
        guard let names = try? entries(of: directory) else { return }
        for name in names where name.hasPrefix(prefix) {
            let suffix = name.dropFirst(prefix.count)
            if !suffix.isEmpty, suffix.allSatisfy({ $0.isASCII && $0.isNumber }) {
                try? remove(StoreDirectory.join(directory, name))
            }
        }
    }

    /// Removes the file at `path` when there is one; a failure is ignored (a hint, see
    /// ``replaceHint(_:with:)``).
    func removeHint(_ path: String) {
        if exists(path) { try? remove(path) }
    }

    /// The whole of the small file at `path` (under `limit` bytes), or nil when it is missing,
    /// empty, too large or unreadable: a hint's reader falls back to the full work.
    func readHint(_ path: String, limit: Int) -> [UInt8]? {
        guard exists(path), let file = try? open(path, mode: .read) else { return nil }
        defer { file.close() }
        guard let size = try? file.size(), size > 0, size < Int64(limit) else { return nil }
        return try? file.read(count: Int(size), at: 0)
    }
}
