internal import Crypto
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

#if canImport(Glibc)
private let systemRead = Glibc.read
#elseif canImport(Darwin)
private let systemRead = Darwin.read
#endif

/// A file read front to back in fixed chunks, hashing what it reads (SHA-256): the byte
/// source of the streaming readers. Memory stays at one chunk whatever the file's size.
final class FileBytes {
    /// Bytes per `read(2)`.
    static let chunkBytes = 1 << 20

    let path: String
    private let descriptor: Int32
    private var buffer: [UInt8]
    private var position = 0
    private var count = 0
    private var hasher = SHA256()
    private var isAtEnd = false
    /// Bytes handed out so far.
    private(set) var consumed: Int64 = 0
    /// The file's size when it was opened.
    let size: Int64

    /// Opens a file for reading.
    /// - Throws: ``ImportError`` (`unreadable`) naming the file.
    init(path: String) throws {
        self.path = path
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            let reason = errno == ENOENT ? "no such file" : "cannot be opened (errno \(errno))"
            throw ImportError(.unreadable, file: path, "\(reason); check the path")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw ImportError(.unreadable, file: path, "is not a regular file")
        }
        self.descriptor = descriptor
        self.size = Int64(status.st_size)
        buffer = [UInt8](repeating: 0, count: Self.chunkBytes)
    }

    deinit { close(descriptor) }

    /// The next byte, or nil at the end of the file.
    @inline(__always)
    func next() throws -> UInt8? {
        if position == count {
            guard try refill() else { return nil }
        }
        let byte = buffer[position]
        position += 1
        consumed += 1
        return byte
    }

    /// The next byte without consuming it.
    @inline(__always)
    func peek() throws -> UInt8? {
        if position == count {
            guard try refill() else { return nil }
        }
        return buffer[position]
    }

    private func refill() throws -> Bool {
        if isAtEnd { return false }
        let read = buffer.withUnsafeMutableBytes { raw in
            var result: Int
            repeat { result = systemRead(descriptor, raw.baseAddress, raw.count) } while result < 0 && errno == EINTR
            return result
        }
        guard read >= 0 else { throw ImportError(.unreadable, file: path, "read failed (errno \(errno))") }
        if read == 0 {
            isAtEnd = true
            return false
        }
        buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<read])) }
        position = 0
        count = read
        return true
    }

    /// The SHA-256 of every byte read, in lowercase hex; call after the last byte.
    func hexDigest() -> String {
        hasher.finalize().map { byte in
            let digits = Array("0123456789abcdef".utf8)
            return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]], as: UTF8.self)
        }.joined()
    }
}
