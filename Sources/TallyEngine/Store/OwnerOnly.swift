import Foundation
import Glibc
import TallyLog

/// Keeps a store's files its owner's alone: a store holds a household's whole financial
/// life, so no other account on the machine may read it, whatever the process's umask.
/// The log's files and directories are made so by `TallyLog`; this covers the read models,
/// whose files SQLite creates (its `-wal` and `-shm` files take the database file's mode).
enum OwnerOnly {
    /// Creates `path` empty with mode 0600 when it is missing, and narrows it (and its
    /// `-wal`/`-shm` companions) to 0600 when it exists with wider permissions.
    ///
    /// - Throws: ``StoreError`` (`io`) naming the call and the path.
    static func prepareDatabaseFile(_ path: String) throws {
        try preparePrivateParent(of: path)
        let descriptor = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, ownerOnlyFileMode)
        guard descriptor >= 0 else { throw StoreError(.io, "open failed for \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        try narrow(descriptor, path)
        for suffix in ["-wal", "-shm"] {
            let companion = open(path + suffix, O_RDONLY | O_CLOEXEC)
            guard companion >= 0 else { continue }
            defer { close(companion) }
            try narrow(companion, path + suffix)
        }
    }

    /// For an encrypted store's read models outside the store: makes their `tally-UID` directory
    /// (0700) when missing, and refuses one that is not this user's alone.
    ///
    /// - Throws: ``StoreError`` (`io`) for a directory owned by another account or open to others.
    static func preparePrivateParent(of path: String) throws {
        let parent = (path as NSString).deletingLastPathComponent
        guard (parent as NSString).lastPathComponent == "tally-\(getuid())" else { return }
        let code = makeOwnerOnlyDirectory(parent)
        guard code == 0 || code == EEXIST else {
            throw StoreError(.io, "mkdir failed for \(parent): \(String(cString: strerror(code)))")
        }
        var status = stat()
        guard lstat(parent, &status) == 0, status.st_mode & S_IFMT == S_IFDIR, status.st_uid == getuid(), status.st_mode & 0o077 == 0 else {
            throw StoreError(.io, "\(parent) is not a directory private to this user (owner \(status.st_uid), mode \(String(status.st_mode & 0o777, radix: 8))): an encrypted store's read models go only into a directory no one else can enter; remove it")
        }
    }

    /// Makes a directory for throw-away state (a replay's) that only its owner may enter.
    static func makeDirectory(_ path: String) throws {
        let code = makeOwnerOnlyDirectory(path)
        guard code == 0 else { throw StoreError(.io, "mkdir failed for \(path): \(String(cString: strerror(code)))") }
    }

    /// Whether `path` can be read or entered by accounts other than its owner.
    static func isOpenToOthers(_ path: String) -> Bool {
        var status = stat()
        guard stat(path, &status) == 0 else { return false }
        return status.st_mode & 0o077 != 0
    }

    private static func narrow(_ descriptor: Int32, _ path: String) throws {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw StoreError(.io, "fstat failed for \(path): \(String(cString: strerror(errno)))") }
        guard status.st_mode & 0o077 != 0 else { return }
        guard fchmod(descriptor, ownerOnlyFileMode) == 0 else {
            throw StoreError(.io, "fchmod failed for \(path): \(String(cString: strerror(errno)))")
        }
    }
}
