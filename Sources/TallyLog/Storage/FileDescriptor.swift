import Glibc

/// The mode of every file a store creates: read and write for its owner only (0600).
package let ownerOnlyFileMode: UInt32 = 0o600
/// The mode of every directory a store creates: its owner only (0700).
package let ownerOnlyDirectoryMode: UInt32 = 0o700

/// Makes `path` a directory only its owner may enter (``ownerOnlyDirectoryMode``), whatever
/// the umask: 0 on success, else the `errno` of the call that failed (`EEXIST` when the
/// path exists; a directory made but not narrowed is removed).
package func makeOwnerOnlyDirectory(_ path: String) -> Int32 {
    guard mkdir(path, ownerOnlyDirectoryMode) == 0 else { return errno }
    guard chmod(path, ownerOnlyDirectoryMode) == 0 else {
        let code = errno
        rmdir(path)
        return code
    }
    return 0
}

/// A thin owner of a POSIX file descriptor: positioned reads and writes, syncs, sizes.
/// Every failure becomes a ``LogError`` with code `.io` naming the call, the path and `errno`.
struct FileDescriptor: LogFile {
    let raw: Int32
    let path: String

    /// Opens `path`; a file it may create is the owner's alone (``ownerOnlyFileMode``), whatever
    /// the process's umask: a store keeps a household's finances.
    static func open(_ path: String, flags: Int32, mode: mode_t = ownerOnlyFileMode) throws -> FileDescriptor {
        let raw = Glibc.open(path, flags | O_CLOEXEC, mode)
        guard raw >= 0 else {
            let code = errno
            if code == ENOENT { throw LogError(.notFound, "no such file or directory", path: path) }
            throw ioError("open", path: path, errno: code)
        }
        if flags & O_CREAT != 0, fchmod(raw, mode) != 0 {
            let code = errno
            Glibc.close(raw)
            throw ioError("fchmod", path: path, errno: code)
        }
        return FileDescriptor(raw: raw, path: path)
    }

    /// Closes the descriptor; call once per ``open(_:flags:mode:)``. Not retried on `EINTR` (Linux has
    /// released the descriptor by then, and a retry could close another thread's newly opened file).
    /// `EBADF` means a double close, which is a bug: a second close can hit a descriptor number
    /// that another thread has reused. Debug builds trap on it.
    func close() {
        let result = Glibc.close(raw)
        let code = errno
        assert(result == 0 || code != EBADF, "double close of descriptor \(raw) for \(path)")
    }

    func size() throws -> Int64 {
        var status = stat()
        guard fstat(raw, &status) == 0 else { throw ioError("fstat", path: path, errno: errno) }
        return Int64(status.st_size)
    }

    /// Fills `buffer` from `offset`; returns how many bytes were read (less than the buffer only at end of file).
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        var done = 0
        while done < buffer.count {
            let result = pread(raw, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            if result < 0 {
                if errno == EINTR { continue }
                throw ioError("pread", path: path, errno: errno, offset: offset + Int64(done))
            }
            if result == 0 { break }
            done += result
        }
        return done
    }

    func write(_ bytes: [UInt8], at offset: Int64) throws {
        try bytes.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let result = pwrite(self.raw, raw.baseAddress! + done, raw.count - done, off_t(offset) + off_t(done))
                if result < 0 {
                    if errno == EINTR { continue }
                    throw ioError("pwrite", path: path, errno: errno, offset: offset + Int64(done))
                }
                done += result
            }
        }
    }

    func dataSync() throws {
        while fdatasync(raw) != 0 {
            if errno == EINTR { continue }
            throw ioError("fdatasync", path: path, errno: errno)
        }
    }

    func fullSync() throws {
        while fsync(raw) != 0 {
            if errno == EINTR { continue }
            throw ioError("fsync", path: path, errno: errno)
        }
    }

    func truncate(to length: Int64) throws {
        while ftruncate(raw, off_t(length)) != 0 {
            if errno == EINTR { continue }
            throw ioError("ftruncate", path: path, errno: errno, offset: length)
        }
    }
}

func ioError(_ call: String, path: String, errno code: Int32, offset: Int64? = nil) -> LogError {
    let reason = String(cString: strerror(code))
    return LogError(.io, "\(call) failed: \(reason) (errno \(code))", path: path, offset: offset)
}

/// The real disk: every operation is the POSIX call of the same name (``LogFileSystem/posix``).
public struct PosixFileSystem: LogFileSystem {
    /// The real disk.
    public init() {}

    public func open(_ path: String, mode: LogFileMode) throws -> any LogFile {
        let flags: Int32
        switch mode {
        case .read: flags = O_RDONLY
        case .readWrite: flags = O_RDWR
        case .readWriteCreate: flags = O_RDWR | O_CREAT
        case .createNew: flags = O_RDWR | O_CREAT | O_EXCL
        }
        return try FileDescriptor.open(path, flags: flags)
    }

    public func entries(of directory: String) throws -> [String] {
        guard let handle = opendir(directory) else {
            let code = errno
            if code == ENOENT { throw LogError(.notFound, "the log directory does not exist", path: directory) }
            throw ioError("opendir", path: directory, errno: code)
        }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    public func exists(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0
    }

    /// Makes a directory only its owner may enter (``ownerOnlyDirectoryMode``), whatever the umask.
    public func makeDirectory(_ path: String) throws {
        let code = makeOwnerOnlyDirectory(path)
        guard code == 0 || code == EEXIST else { throw ioError("mkdir", path: path, errno: code) }
    }

    public func remove(_ path: String) throws {
        guard unlink(path) == 0 else { throw ioError("unlink", path: path, errno: errno) }
    }

    public func rename(_ source: String, to target: String) throws {
        guard Glibc.rename(source, target) == 0 else { throw ioError("rename", path: source, errno: errno) }
    }

    /// Syncs a directory so that a created, renamed or removed entry survives a crash.
    public func syncDirectory(_ path: String) throws {
        let directory = try FileDescriptor.open(path, flags: O_RDONLY | O_DIRECTORY)
        defer { directory.close() }
        try directory.fullSync()
    }

    public func lockForWriting(directory: String) throws -> any LogWriterLock {
        try DirectoryLock.acquire(directory: directory)
    }

    public func isLockedForWriting(directory: String) -> Bool {
        DirectoryLock.isHeld(directory: directory)
    }
}
