import Glibc

/// A thin owner of a POSIX file descriptor: positioned reads and writes, syncs, sizes.
/// Every failure becomes a ``LogError`` with code `.io` naming the call, the path and `errno`.
struct FileDescriptor: Sendable {
    let raw: Int32
    let path: String

    static func open(_ path: String, flags: Int32, mode: mode_t = 0o644) throws -> FileDescriptor {
        let raw = Glibc.open(path, flags | O_CLOEXEC, mode)
        guard raw >= 0 else {
            let code = errno
            if code == ENOENT { throw LogError(.notFound, "no such file or directory", path: path) }
            throw ioError("open", path: path, errno: code)
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

    /// Reads exactly `count` bytes at `offset`, or fewer only at the end of the file.
    func read(count: Int, at offset: Int64) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        let got = try buffer.withUnsafeMutableBytes { try read(into: $0, at: offset) }
        if got < count { buffer.removeLast(count - got) }
        return buffer
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

/// Syncs a directory so that a created, renamed or removed entry survives a crash.
func syncDirectory(_ path: String) throws {
    let directory = try FileDescriptor.open(path, flags: O_RDONLY | O_DIRECTORY)
    defer { directory.close() }
    try directory.fullSync()
}
