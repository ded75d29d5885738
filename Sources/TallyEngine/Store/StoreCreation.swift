internal import Foundation
internal import Glibc
internal import TallyLog

/// How `init` makes a store: all of it, or nothing.
///
/// The complete store (the `STORE` marker, `log/` with its first segment and `ledger_created` as event 1,
/// synced) is built in a staging directory beside the target, `.<name>.tally-init.<random>` in the same
/// parent, then renamed onto the target in one `rename(2)`: onto an absent path, or onto an empty
/// directory (which the kernel replaces only while it is empty). A target that has anything in it makes
/// the rename fail with `ENOTEMPTY`, so of two inits racing for one path exactly one wins, and the other
/// removes only its own staging directory. Nothing is ever deleted that this code did not create.
///
/// A staging directory is locked (`flock` on the directory) while it is built. One left by an `init` that
/// was killed is never renamed into place; a later `init` of the same target removes it once it is stale:
/// unlocked, older than ``staleAgeSeconds``, and holding nothing but what `init` writes.
enum StoreCreation {
    /// The steps of a build, in order; tests abandon a build after each to play a kill there.
    enum Step: CaseIterable, Sendable {
        case stagingMade, markerWritten, logCreated, eventAppended, stagingSynced
    }

    /// Thrown where a test asked a build to stop as a killed process would.
    struct Abandoned: Error {}

    /// A staging directory left unlocked this long, by a process that never renamed it, is stale.
    static let staleAgeSeconds: Int64 = 60

    /// Where a store is to be created.
    struct Target {
        /// The path as given, for messages.
        let given: String
        /// The path the store is renamed onto.
        let path: String
        let parent: String
        let name: String

        /// Staging directories of this target start with this (the name cut to 100 bytes, for `NAME_MAX`).
        var stagingPrefix: String { "." + String(decoding: name.utf8.prefix(100), as: UTF8.self) + ".tally-init." }
    }

    /// Builds a complete store beside `root` and renames it into place.
    ///
    /// - Parameters:
    ///   - abandoningAfter: for tests: stop after this step as a killed process would (the staging
    ///     directory stays, unlocked) and throw ``Abandoned``.
    /// - Throws: ``StoreError`` (`alreadyExists`, `invalidPath`, `io`); `LogError` from the log's creation.
    static func create(
        at root: String, ledger: LedgerCreated, effectiveAt: Instant, options: LogOptions, keyFile: [UInt8]? = nil,
        catalog: EventCatalog = .engine, postgres: PostgresLogLocation? = nil, abandoningAfter: Step? = nil
    ) throws {
        let target = try Self.target(for: root)
        removeStaleStagings(of: target)
        let existingMode = try checkVacant(target)
        let staging = try Staging.make(beside: target)
        func reached(_ step: Step) throws {
            if step == abandoningAfter {
                staging.abandon()
                throw Abandoned()
            }
        }
        do {
            try reached(.stagingMade)
            try build(
                in: staging.path, ledger: ledger, effectiveAt: effectiveAt, options: options, keyFile: keyFile, catalog: catalog,
                postgres: postgres, reached: reached)
            try reached(.stagingSynced)
            try staging.publish(as: target, mode: existingMode)
        } catch let error as Abandoned {
            throw error
        } catch {
            staging.discard()
            throw error
        }
        staging.release()
        try syncDirectory(target.parent, note: "the store at '\(target.given)' is complete, but its creation may not survive a power loss")
    }

    /// Writes the marker, creates the log, appends `ledger_created`, syncs everything.
    private static func build(
        in directory: String, ledger: LedgerCreated, effectiveAt: Instant, options: LogOptions, keyFile: [UInt8]?,
        catalog: EventCatalog, postgres: PostgresLogLocation?, reached: (Step) throws -> Void
    ) throws {
        let layout = StoreLayout(root: directory)
        if let keyFile { try writeSynced(String(decoding: keyFile, as: UTF8.self), to: layout.keyFilePath) }
        if options.keys != nil {
            var generator = SystemRandomNumberGenerator()
            let identifier = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }.joined()
            try writeSynced(identifier, to: layout.sealedMarkerPath)
        }
        try writeSynced(StoreLayout.markerText, to: layout.markerPath)
        try reached(.markerWritten)
        let writer: any LogWriting
        if let postgres {
            // The log is the database's; the directory keeps the lock and the file that names it.
            guard mkdir(layout.logDirectory, 0o700) == 0 else {
                throw StoreError(.io, "cannot create '\(layout.logDirectory)': errno \(errno)")
            }
            try LogStorage.writeRemoteLocation(postgres, in: layout.logDirectory)
            writer = try PostgresLogWriter.create(postgres, owner: LogStorage.processOwnerName, options: options)
        } else {
            writer = try LogWriter.create(directory: layout.logDirectory, options: options)
        }
        do {
            try reached(.logCreated)
            let record = try catalog.record(for: NewEvent(effectiveAt: effectiveAt, body: EventBody(ledger)))
            if let subjects = catalog.subjectKeys {
                // The owner's key, made by sealing the ledger's name, is in the store before its first event.
                let bytes = try subjects.fileBytes()
                try writeSynced(String(decoding: bytes, as: UTF8.self), to: layout.subjectKeyFilePath)
                try (writer as? PostgresLogWriter)?.storeFile(StoredFileName.subjects, bytes)
                subjects.markSaved(length: bytes.count)
            }
            if let remote = writer as? PostgresLogWriter {
                // Every node of the ledger finds the store's keys and marker in the database.
                if let keyFile { try remote.storeFile(StoredFileName.keys, keyFile) }
                if let sealed = FileManager.default.contents(atPath: layout.sealedMarkerPath) {
                    try remote.storeFile(StoredFileName.sealed, Array(sealed))
                }
            }
            _ = try writer.append([record])
            try writer.sync()
            try writer.close()
        } catch {
            try? writer.close()
            throw error
        }
        try reached(.eventAppended)
        try syncDirectory(directory)
    }

    /// Normalises `root` and creates its missing parents (as `mkdir -p`; they are kept).
    static func target(for root: String) throws -> Target {
        var path = root
        while path.utf8.count > 1 && path.hasSuffix("/") { path.removeLast() }
        guard !path.isEmpty, path != "/" else {
            throw StoreError(.invalidPath, "'\(root)' cannot hold a store: name a directory, e.g. --store ./ledger")
        }
        let components = path.split(separator: "/", omittingEmptySubsequences: false)
        let name = String(components.last!)
        var status = stat()
        let isLink = lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK
        if name == "." || name == ".." || isLink {
            // Resolve `.`, `..` and a symbolic link to the directory they name, and create the store there.
            guard let resolved = realpath(path, nil) else {
                throw StoreError(.invalidPath, "'\(root)' names no directory that exists (a symbolic link to a missing path?)")
            }
            defer { free(resolved) }
            let resolvedPath = String(cString: resolved)
            guard resolvedPath != "/" else {
                throw StoreError(.invalidPath, "'\(root)' is the root directory, which cannot hold a store: name a directory, e.g. --store ./ledger")
            }
            return try target(for: resolvedPath, given: root)
        }
        return try target(for: path, given: root)
    }

    private static func target(for path: String, given: String) throws -> Target {
        let components = path.split(separator: "/", omittingEmptySubsequences: false)
        let name = String(components.last!)
        let parentComponents = components.dropLast()
        let parent = parentComponents.isEmpty ? "." : (parentComponents == [""] ? "/" : parentComponents.joined(separator: "/"))
        do {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        } catch {
            throw StoreError(.io, "cannot create the directory '\(parent)' for the store '\(given)': \(reason(error))")
        }
        return Target(given: given, path: path, parent: parent, name: name)
    }

    /// Throws unless the target is absent or an empty directory; returns that directory's mode (which the
    /// store keeps), or nil when nothing is there. Advisory: the rename decides, atomically.
    static func checkVacant(_ target: Target) throws -> mode_t? {
        var status = stat()
        guard lstat(target.path, &status) == 0 else {
            let code = errno
            guard code == ENOENT else { throw ioError("lstat", path: target.path, errno: code) }
            return nil
        }
        try refuseExisting(target.path, status: status, given: target.given)
        return status.st_mode & 0o7777
    }

    /// Throws unless `path` is an empty directory that a rename may replace.
    private static func refuseExisting(_ path: String, status: stat, given: String) throws {
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw StoreError(.alreadyExists, "'\(given)' already exists and is not a directory; choose another --store")
        }
        if StoreLayout(root: path).exists {
            throw StoreError(.alreadyExists, "a store already exists at '\(given)'")
        }
        let contents: [String]
        do { contents = try FileManager.default.contentsOfDirectory(atPath: path) } catch {
            throw StoreError(.io, "cannot list '\(given)': \(reason(error))")
        }
        guard contents.isEmpty else {
            throw StoreError(.alreadyExists, "'\(given)' already exists and is not an empty directory; choose another --store")
        }
        var here = stat()
        if stat(".", &here) == 0, here.st_dev == status.st_dev, here.st_ino == status.st_ino {
            throw StoreError(.invalidPath, "'\(given)' is the current directory, which init cannot replace: run it from the parent directory with --store NAME")
        }
    }

    /// Removes this target's staging directories that a killed `init` left, when they are clearly stale.
    /// Anything that does not look exactly like one is left alone.
    @discardableResult
    static func removeStaleStagings(of target: Target, staleAge: Int64 = staleAgeSeconds, now: Int64 = Int64(time(nil))) -> [String] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: target.parent) else { return [] }
        var removed: [String] = []
        for entry in entries where entry.hasPrefix(target.stagingPrefix) {
            let path = target.parent == "/" ? "/" + entry : target.parent + "/" + entry
            if removeIfStale(path, staleAge: staleAge, now: now) { removed.append(path) }
        }
        return removed
    }

    private static func removeIfStale(_ path: String, staleAge: Int64, now: Int64) -> Bool {
        var before = stat()
        guard lstat(path, &before) == 0, before.st_mode & S_IFMT == S_IFDIR,
              now - Int64(before.st_mtim.tv_sec) >= staleAge else { return false }
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        // Locked: an init is building it. After the lock, the name must still be that directory.
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return false }
        var locked = stat()
        var after = stat()
        guard fstat(descriptor, &locked) == 0, lstat(path, &after) == 0,
              locked.st_dev == after.st_dev, locked.st_ino == after.st_ino,
              holdsOnlyWhatInitWrites(path) else { return false }
        return (try? FileManager.default.removeItem(atPath: path)) != nil
    }

    /// `STORE` and `log/` (segments, `LOCK`, `PUBLISHED`, the log's `INDEX` cache and its
    /// temporary files), or a part of them.
    private static func holdsOnlyWhatInitWrites(_ path: String) -> Bool {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: path),
              Set(entries).isSubset(of: ["STORE", "KEYS", "SEALED", "SUBJECTS", "log"]) else { return false }
        guard entries.contains("log") else { return true }
        guard let logEntries = try? FileManager.default.contentsOfDirectory(atPath: path + "/log") else { return false }
        return logEntries.allSatisfy {
            $0 == "LOCK" || $0 == "PUBLISHED" || $0 == "INDEX" || $0.hasPrefix("INDEX.") || ($0.hasSuffix(".tlog") && $0.utf8.count == 25)
        }
    }

    /// A staging directory this process made and holds locked.
    struct Staging {
        let path: String
        let descriptor: Int32

        /// Makes and locks a new staging directory beside `target`.
        static func make(beside target: Target) throws -> Staging {
            for _ in 0..<16 {
                let suffix = String(UInt64.random(in: .min ... .max), radix: 16)
                let name = target.stagingPrefix + String(repeating: "0", count: 16 - suffix.utf8.count) + suffix
                let path = target.parent == "/" ? "/" + name : target.parent + "/" + name
                // The store is the owner's alone, whatever the umask (it becomes the store on rename).
                let code = makeOwnerOnlyDirectory(path)
                guard code == 0 else {
                    if code == EEXIST { continue }
                    throw ioError("mkdir", path: path, errno: code, hint: "cannot create a directory beside '\(target.given)'")
                }
                let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                guard descriptor >= 0, flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                    let code = errno
                    if descriptor >= 0 { close(descriptor) }
                    rmdir(path)
                    throw ioError("flock", path: path, errno: code)
                }
                return Staging(path: path, descriptor: descriptor)
            }
            throw StoreError(.io, "cannot find a free name for a staging directory beside '\(target.given)'")
        }

        /// Renames the complete store onto the target (the caller syncs the parent), with the mode of the
        /// empty directory it replaces, if any.
        func publish(as target: Target, mode: mode_t?) throws {
            if let mode { _ = chmod(path, mode) }
            guard rename(path, target.path) == 0 else {
                let code = errno
                throw StoreCreation.renameError(code, target: target)
            }
        }

        /// Unlocks a published store's former staging directory.
        func release() {
            close(descriptor)
        }

        /// Removes the staging directory (only ever this one) and unlocks it.
        func discard() {
            try? FileManager.default.removeItem(atPath: path)
            close(descriptor)
        }

        /// Unlocks and leaves everything as it is, as a killed process would.
        func abandon() {
            close(descriptor)
        }
    }

    static func renameError(_ code: Int32, target: Target) -> StoreError {
        switch code {
        case EEXIST, ENOTEMPTY:
            if StoreLayout(root: target.path).exists {
                return StoreError(.alreadyExists, "a store already exists at '\(target.given)' (another init created it first)")
            }
            return StoreError(.alreadyExists, "'\(target.given)' already exists and is not an empty directory; choose another --store")
        case ENOTDIR:
            return StoreError(.alreadyExists, "'\(target.given)' already exists and is not a directory; choose another --store")
        case EBUSY:
            return StoreError(.invalidPath, "'\(target.given)' is a mount point or in use and cannot be replaced: create the store inside it (--store \(target.given)/ledger)")
        default:
            return ioError("rename", path: target.path, errno: code, hint: "cannot move the new store into place")
        }
    }

    /// Creates `path` with `text`, synced; fails if it exists.
    static func writeSynced(_ text: String, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, ownerOnlyFileMode)
        guard descriptor >= 0 else { throw ioError("open", path: path, errno: errno) }
        defer { close(descriptor) }
        guard fchmod(descriptor, ownerOnlyFileMode) == 0 else { throw ioError("fchmod", path: path, errno: errno) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw ioError("write", path: path, errno: written < 0 ? errno : EIO) }
        guard fsync(descriptor) == 0 else { throw ioError("fsync", path: path, errno: errno) }
    }

    /// Makes a file's contents durable.
    static func syncFile(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ioError("open", path: path, errno: errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw ioError("fsync", path: path, errno: errno) }
    }

    /// Syncs a directory so that its new entries survive a power loss.
    static func syncDirectory(_ path: String, note: String? = nil) throws {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ioError("open", path: path, errno: errno, hint: note) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw ioError("fsync", path: path, errno: errno, hint: note) }
    }

    static func ioError(_ call: String, path: String, errno code: Int32, hint: String? = nil) -> StoreError {
        let reason = String(cString: strerror(code))
        return StoreError(.io, (hint.map { $0 + ": " } ?? "") + "\(call) '\(path)' failed: \(reason) (errno \(code))")
    }

    private static func reason(_ error: any Error) -> String {
        (error as NSError).localizedDescription
    }
}
