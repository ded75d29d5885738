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
    /// One chunk, allocated once (not an array: the hot loops read it without bounds or
    /// uniqueness checks, and ``lineAhead()`` hands out a view of it).
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    private var position = 0
    private var count = 0
    private var hasher = SHA256()
    private var isAtEnd = false
    /// Bytes handed out so far.
    private(set) var consumed: Int64 = 0
    /// Bytes read from the file so far (handed out or waiting in the chunk).
    private var readTotal: Int64 = 0
    /// When kept (``keepReadDigests()``): the SHA-256 of the file's first bytes after every
    /// read, by how many bytes had been read. One per read (a chunk, 1 MiB): a few hundred
    /// bytes of memory per megabyte of file.
    private(set) var readDigests: [Int64: [UInt8]]?
    /// The file's size when it was opened.
    let size: Int64

    /// Opens a file for reading, `chunkBytes` at a time (tests make it small to cross chunks).
    /// - Throws: ``ImportError`` (`unreadable`) naming the file.
    init(path: String, chunkBytes: Int = FileBytes.chunkBytes) throws {
        precondition(chunkBytes > 0, "a chunk holds at least one byte")
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
        buffer = .allocate(capacity: chunkBytes)
    }

    deinit {
        close(descriptor)
        buffer.deallocate()
    }

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
        position = 0
        count = 0
        return try readMore()
    }

    /// Reads into the free space after `count` (at least one byte must be free); false at
    /// the end of the file.
    private func readMore() throws -> Bool {
        if isAtEnd { return false }
        let free = UnsafeMutableBufferPointer(rebasing: buffer[count...])
        var read: Int
        repeat { read = systemRead(descriptor, free.baseAddress, free.count) } while read < 0 && errno == EINTR
        guard read >= 0 else { throw ImportError(.unreadable, file: path, "read failed (errno \(errno))") }
        if read == 0 {
            isAtEnd = true
            return false
        }
        hasher.update(bufferPointer: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: buffer[count..<(count + read)])))
        count += read
        readTotal += Int64(read)
        if readDigests != nil { readDigests![readTotal] = Array(hasher.finalize()) }
        return true
    }

    /// The bytes not yet handed out up to and including the next line feed, reading more
    /// when the chunk holds none (what is left moves to the chunk's start first); nil when
    /// no line feed comes within one chunk or before the end of the file. The view is valid
    /// until the next call on this reader; ``skip(_:)`` consumes it.
    func lineAhead() throws -> UnsafeBufferPointer<UInt8>? {
        while true {
            let start = buffer.baseAddress! + position
            if let found = memchr(start, Int32(UInt8(ascii: "\n")), count - position) {
                let end = found.assumingMemoryBound(to: UInt8.self)
                return UnsafeBufferPointer(start: start, count: end - start + 1)
            }
            if isAtEnd { return nil }
            if count == buffer.count {
                guard position > 0 else { return nil }
                let left = count - position
                buffer.baseAddress!.update(from: buffer.baseAddress! + position, count: left)
                position = 0
                count = left
            }
            guard try readMore() else { return nil }
        }
    }

    /// Consumes `bytes` bytes of those ``lineAhead()`` returned.
    func skip(_ bytes: Int) {
        precondition(bytes <= count - position, "skipping past the bytes read")
        position += bytes
        consumed += Int64(bytes)
    }

    /// Keeps the digest of the bytes read so far after every read (``readDigests``).
    func keepReadDigests() {
        if readDigests == nil { readDigests = [:] }
    }

    /// How many bytes have been read from the file, and their SHA-256.
    func digestOfBytesRead() -> (bytes: Int64, digest: [UInt8]) {
        (readTotal, Array(hasher.finalize()))
    }

    /// The SHA-256 of every byte read, in lowercase hex; call after the last byte.
    func hexDigest() -> String {
        hasher.finalize().map { byte in
            let digits = Array("0123456789abcdef".utf8)
            return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]], as: UTF8.self)
        }.joined()
    }
}
