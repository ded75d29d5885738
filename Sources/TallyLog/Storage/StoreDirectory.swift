import Glibc

/// The files of a log directory: `LOCK`, segment files `NNNNNNNNNNNNNNNNNNNN.tlog`, and `quarantine/`.
enum StoreDirectory {
    static let lockName = "LOCK"
    static let quarantineName = "quarantine"

    static func segmentName(firstSequence: UInt64) -> String {
        let digits = String(firstSequence)
        return String(repeating: "0", count: LogFormat.segmentNameDigits - digits.count) + digits + LogFormat.segmentSuffix
    }

    /// The directory that holds `path` (`.` for a bare name).
    static func parent(of path: String) -> String {
        var path = path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The last component of `path`.
    static func name(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// The segment files of `directory`, sorted by first sequence number.
    /// - Throws: `.notFound` when the directory does not exist; `.corrupt` for a `.tlog` file with a malformed name.
    static func segments(in directory: String, fileSystem: any LogFileSystem = PosixFileSystem()) throws -> [(firstSequence: UInt64, path: String)] {
        var found: [(UInt64, String)] = []
        for name in try fileSystem.entries(of: directory) {
            guard name.hasSuffix(LogFormat.segmentSuffix) else { continue }
            let stem = name.dropLast(LogFormat.segmentSuffix.count)
            guard stem.utf8.count == LogFormat.segmentNameDigits, stem.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                  let first = UInt64(stem), first >= 1
            else {
                throw LogError(.corrupt, "a segment file name must be 20 decimal digits (a first sequence number ≥ 1) and .tlog; move the stray file away", path: join(directory, name))
            }
            found.append((first, join(directory, name)))
        }
        return found.sorted { $0.0 < $1.0 }.map { (firstSequence: $0.0, path: $0.1) }
    }
}

/// The writer's exclusive hold on a log directory: `flock(LOCK_EX | LOCK_NB)` on `LOCK`, plus an
/// open-file-description write lock on its first byte so readers can ask, without taking anything,
/// whether a writer is active (`F_OFD_GETLK`).
///
/// Both locks belong to the open file description, not to the descriptor, and a description lives as long
/// as any descriptor refers to it. A process spawned by another thread holds a copy of every descriptor
/// between its `fork`/`clone` and its `exec` (`O_CLOEXEC` only closes them at the `exec`), so closing ours
/// does not, by itself, drop the locks then. ``release()`` therefore unlocks both explicitly before closing.
struct DirectoryLock: LogWriterLock {
    let file: FileDescriptor

    /// `F_OFD_GETLK` and `F_OFD_SETLK` on Linux (all architectures); Glibc's module does not export them.
    private static let getLockCommand: Int32 = 36
    private static let setLockCommand: Int32 = 37

    static func acquire(directory: String) throws -> DirectoryLock {
        let path = StoreDirectory.join(directory, StoreDirectory.lockName)
        let file = try FileDescriptor.open(path, flags: O_RDWR | O_CREAT)
        if flock(file.raw, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            file.close()
            if code == EWOULDBLOCK {
                throw LogError(.locked, "another writer holds the log at \(directory); close it first (one writer per log)", path: path)
            }
            throw ioError("flock", path: path, errno: code)
        }
        // Advisory, for readers only; flock is the real exclusion. It cannot conflict once flock is ours,
        // since every writer drops it explicitly before its flock.
        _ = setMarker(file.raw, type: F_WRLCK)
        return DirectoryLock(file: file)
    }

    /// Sets or clears (`F_UNLCK`) the OFD lock on the first byte of `LOCK`.
    private static func setMarker(_ raw: Int32, type: Int32) -> Int32 {
        var region = flock()
        region.l_type = Int16(type)
        region.l_whence = Int16(SEEK_SET)
        region.l_start = 0
        region.l_len = 1
        return fcntl(raw, setLockCommand, &region)
    }

    /// Drops the readers' marker, then the flock, then closes. Both unlocks act on the open file description,
    /// so they take effect at once even while a just-spawned child still shares it; a bare `close` would leave
    /// both locks in place until that child's `exec`, and readers would see a writer that has gone.
    func release() {
        _ = Self.setMarker(file.raw, type: F_UNLCK)
        _ = flock(file.raw, LOCK_UN)
        file.close()
    }

    /// Whether some writer currently holds `directory`. Takes no lock.
    ///
    /// A hint, not proof that a frame is being written: it is true for an idle writer too, and for the locks
    /// of a writer that crashed after one of its children forked without `exec` (the child keeps them).
    /// Readers take its word for a bad last frame; `verifyLog` does not (see `Verifier.lastFrameIsInFlight`).
    static func isHeld(directory: String) -> Bool {
        let path = StoreDirectory.join(directory, StoreDirectory.lockName)
        let raw = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard raw >= 0 else { return false }
        defer { _ = Glibc.close(raw) }
        var region = flock()
        region.l_type = Int16(F_WRLCK)
        region.l_whence = Int16(SEEK_SET)
        region.l_start = 0
        region.l_len = 1
        guard fcntl(raw, getLockCommand, &region) == 0 else { return false }
        return region.l_type != Int16(F_UNLCK)
    }
}
