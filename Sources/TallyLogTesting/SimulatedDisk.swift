public import TallyLog
internal import Foundation

/// An in-memory disk for deterministic fault simulation, driven by a seeded generator.
///
/// Each file keeps the bytes that are durable and the writes and truncations made since its last
/// sync; reads see both (the page cache). ``crash()`` keeps, drops or tears (at any byte) each unsynced
/// write, at random, and forgets every open file and lock. A failed `fdatasync`/`fsync` reports EIO and
/// loses the unsynced pages, as ext4 does, while reads keep showing them (the fsyncgate trap: a later sync
/// succeeds without writing them). Writes fail with ENOSPC or EIO, after writing a random prefix. Creating,
/// renaming and removing a file is durable only after its directory is synced; at a crash a random prefix of
/// each directory's unsynced changes survives. ``flipBit(where:)`` damages stored data.
///
/// ```swift
/// let disk = SimulatedDisk(seed: 7, faults: .init(writeIOErrorPerMillion: 20_000))
/// var options = LogOptions(); options.fileSystem = disk
/// let writer = try LogWriter.create(directory: "/sim/log", options: options)
/// try writer.append([record])        // acknowledged: survives any crash
/// disk.crash()                       // the writer is gone; reopen the log
/// ```
public final class SimulatedDisk: LogFileSystem, @unchecked Sendable {
    /// How often faults are injected, each in millionths per call.
    public struct Faults: Sendable, Hashable {
        /// A write fails with ENOSPC (after a random prefix of it is written).
        public var writeNoSpacePerMillion: Int
        /// A write fails with EIO (after a random prefix of it is written).
        public var writeIOErrorPerMillion: Int
        /// An `fdatasync` or `fsync` (file or directory) fails with EIO; a failed file sync loses the unsynced pages.
        public var syncIOErrorPerMillion: Int

        /// Fault rates, each in millionths per call; zero (the default) injects none.
        public init(writeNoSpacePerMillion: Int = 0, writeIOErrorPerMillion: Int = 0, syncIOErrorPerMillion: Int = 0) {
            self.writeNoSpacePerMillion = writeNoSpacePerMillion
            self.writeIOErrorPerMillion = writeIOErrorPerMillion
            self.syncIOErrorPerMillion = syncIOErrorPerMillion
        }

        /// No faults.
        public static let none = Faults()
    }

    /// What the disk has done so far.
    public struct Statistics: Sendable, Hashable {
        /// Simulated crashes.
        public var crashes = 0
        /// Writes failed with ENOSPC or EIO.
        public var writeFaults = 0
        /// Syncs failed with EIO.
        public var syncFaults = 0
        /// Unsynced writes a crash kept whole, dropped, or tore.
        public var writesKept = 0
        /// Unsynced writes a crash dropped.
        public var writesDropped = 0
        /// Unsynced writes a crash tore (kept a prefix of).
        public var writesTorn = 0
        /// Bits flipped in stored data.
        public var bitFlips = 0
        /// All injected faults: failed writes and syncs, torn writes, bit flips.
        public var faults: Int { writeFaults + syncFaults + writesTorn + bitFlips }
    }

    enum DataChange {
        case write(offset: Int, bytes: [UInt8])
        case truncate(length: Int)
    }

    final class Inode {
        var durable: [UInt8] = []
        var current: [UInt8] = []
        var pending: [DataChange] = []
    }

    enum NameChange {
        case link(path: String, inode: Int)
        case unlink(path: String)
        case rename(source: String, target: String)
        case makeDirectory(path: String)
    }

    private let lock = NSLock()
    private var random: SplitMix64
    private var faultsValue: Faults
    private var statisticsValue = Statistics()
    private var inodes: [Int: Inode] = [:]
    private var nextInode = 1
    private var names: [String: Int] = [:]
    private var durableNames: [String: Int] = [:]
    private var directories: Set<String> = []
    private var durableDirectories: Set<String> = []
    private var pendingNames: [String: [NameChange]] = [:]
    private var locks: [String: UInt64] = [:]
    private var nextToken: UInt64 = 1
    /// Bumped by every crash: files opened before it are dead.
    private var generation: UInt64 = 0

    /// A disk whose faults come from `seed`. Directories given in `roots` exist, durably, with no files.
    public init(seed: UInt64, faults: Faults = .none, roots: [String] = []) {
        random = SplitMix64(seed: seed)
        faultsValue = faults
        for root in roots {
            directories.insert(Self.normal(root))
            durableDirectories.insert(Self.normal(root))
        }
    }

    /// The faults injected from now on (set `.none` to let a check run undisturbed).
    public var faults: Faults {
        get { lock.withLock { faultsValue } }
        set { lock.withLock { faultsValue = newValue } }
    }

    /// Counts of what was simulated.
    public var statistics: Statistics { lock.withLock { statisticsValue } }

    // MARK: Crash and damage

    /// A power loss: every unsynced write is kept, dropped or torn at a random byte; each directory keeps a
    /// random prefix of its unsynced changes; open files and locks vanish (their later calls fail with EIO).
    public func crash() {
        lock.withLock {
            statisticsValue.crashes += 1
            generation += 1
            locks.removeAll()
            for id in inodes.keys.sorted() {
                let inode = inodes[id]!
                var bytes = inode.durable
                for change in inode.pending {
                    switch change {
                    case .write(let offset, let data):
                        switch Int.random(in: 0..<3, using: &random) {
                        case 0:
                            statisticsValue.writesKept += 1
                            Self.apply(.write(offset: offset, bytes: data), to: &bytes)
                        case 1:
                            statisticsValue.writesDropped += 1
                        default:
                            statisticsValue.writesTorn += 1
                            let kept = Int.random(in: 0...data.count, using: &random)
                            if kept > 0 { Self.apply(.write(offset: offset, bytes: Array(data[0..<kept])), to: &bytes) }
                        }
                    case .truncate:
                        if Bool.random(using: &random) { Self.apply(change, to: &bytes) }
                    }
                }
                inode.durable = bytes
                inode.current = bytes
                inode.pending = []
            }
            for directory in pendingNames.keys.sorted() {
                let changes = pendingNames[directory]!
                let kept = Int.random(in: 0...changes.count, using: &random)
                for change in changes[0..<kept] { applyDurably(change) }
            }
            pendingNames.removeAll()
            names = durableNames
            directories = durableDirectories
            let live = Set(names.values)
            inodes = inodes.filter { live.contains($0.key) }
        }
    }

    /// Flips one random bit of one random stored byte in a file whose path satisfies `include`, on the disk
    /// and in the page cache. Returns where, or nil when no such file has a byte.
    @discardableResult
    public func flipBit(where include: (String) -> Bool) -> (path: String, offset: Int)? {
        lock.withLock {
            let candidates = names.keys.sorted().filter { include($0) && !(inodes[names[$0]!]!.current.isEmpty) }
            guard let path = candidates.randomElement(using: &random) else { return nil }
            let inode = inodes[names[path]!]!
            let offset = Int.random(in: 0..<inode.current.count, using: &random)
            let mask = UInt8(1) << UInt8.random(in: 0..<8, using: &random)
            inode.current[offset] ^= mask
            if offset < inode.durable.count { inode.durable[offset] ^= mask }
            for index in inode.pending.indices {
                if case .write(let start, var data) = inode.pending[index], offset >= start, offset < start + data.count {
                    data[offset - start] ^= mask
                    inode.pending[index] = .write(offset: start, bytes: data)
                }
            }
            statisticsValue.bitFlips += 1
            return (path, offset)
        }
    }

    /// Puts a durable file on the disk (its directory must exist): a store made on the real disk, say.
    public func install(_ path: String, bytes: [UInt8]) {
        lock.withLock {
            let id = nextInode
            nextInode += 1
            let inode = Inode()
            inode.durable = bytes
            inode.current = bytes
            inodes[id] = inode
            names[Self.normal(path)] = id
            durableNames[Self.normal(path)] = id
        }
    }

    /// The bytes a read of `path` sees now (nil when there is no such file).
    public func contents(of path: String) -> [UInt8]? {
        lock.withLock { names[Self.normal(path)].map { inodes[$0]!.current } }
    }

    // MARK: LogFileSystem

    public func open(_ path: String, mode: LogFileMode) throws -> any LogFile {
        try lock.withLock {
            let path = Self.normal(path)
            if let id = names[path] {
                if mode == .createNew { throw LogError(.io, "open failed: File exists (errno 17)", path: path) }
                return SimulatedFile(disk: self, inode: id, path: path, generation: generation)
            }
            guard mode == .readWriteCreate || mode == .createNew else {
                throw LogError(.notFound, "no such file or directory", path: path)
            }
            let parent = Self.parent(of: path)
            guard directories.contains(parent) else { throw LogError(.notFound, "no such file or directory", path: path) }
            let id = nextInode
            nextInode += 1
            inodes[id] = Inode()
            names[path] = id
            pendingNames[parent, default: []].append(.link(path: path, inode: id))
            return SimulatedFile(disk: self, inode: id, path: path, generation: generation)
        }
    }

    public func entries(of directory: String) throws -> [String] {
        try lock.withLock {
            let directory = Self.normal(directory)
            guard directories.contains(directory) else { throw LogError(.notFound, "the log directory does not exist", path: directory) }
            let files = names.keys.filter { Self.parent(of: $0) == directory }
            let subdirectories = directories.filter { $0 != directory && Self.parent(of: $0) == directory }
            return (files + subdirectories).map { String($0.dropFirst(directory.count + 1)) }.sorted()
        }
    }

    public func exists(_ path: String) -> Bool {
        lock.withLock { names[Self.normal(path)] != nil || directories.contains(Self.normal(path)) }
    }

    public func makeDirectory(_ path: String) throws {
        try lock.withLock {
            let path = Self.normal(path)
            if directories.contains(path) { return }
            let parent = Self.parent(of: path)
            guard directories.contains(parent) else { throw LogError(.io, "mkdir failed: No such file or directory (errno 2)", path: path) }
            directories.insert(path)
            pendingNames[parent, default: []].append(.makeDirectory(path: path))
        }
    }

    public func remove(_ path: String) throws {
        try lock.withLock {
            let path = Self.normal(path)
            guard names.removeValue(forKey: path) != nil else { throw LogError(.io, "unlink failed: No such file or directory (errno 2)", path: path) }
            pendingNames[Self.parent(of: path), default: []].append(.unlink(path: path))
        }
    }

    public func rename(_ source: String, to target: String) throws {
        try lock.withLock {
            let source = Self.normal(source)
            let target = Self.normal(target)
            guard let id = names.removeValue(forKey: source) else {
                throw LogError(.io, "rename failed: No such file or directory (errno 2)", path: source)
            }
            guard directories.contains(Self.parent(of: target)) else {
                names[source] = id
                throw LogError(.io, "rename failed: No such file or directory (errno 2)", path: target)
            }
            names[target] = id
            if Self.parent(of: source) == Self.parent(of: target) {
                pendingNames[Self.parent(of: source), default: []].append(.rename(source: source, target: target))
            } else {
                pendingNames[Self.parent(of: source), default: []].append(.unlink(path: source))
                pendingNames[Self.parent(of: target), default: []].append(.link(path: target, inode: id))
            }
        }
    }

    public func syncDirectory(_ path: String) throws {
        try lock.withLock {
            let path = Self.normal(path)
            guard directories.contains(path) else { throw LogError(.notFound, "no such file or directory", path: path) }
            if random.chance(perMillion: faultsValue.syncIOErrorPerMillion) {
                statisticsValue.syncFaults += 1
                throw LogError(.io, "fsync failed: Input/output error (errno 5)", path: path)
            }
            for change in pendingNames.removeValue(forKey: path) ?? [] { applyDurably(change) }
        }
    }

    public func lockForWriting(directory: String) throws -> any LogWriterLock {
        try lock.withLock {
            let directory = Self.normal(directory)
            if locks[directory] != nil {
                throw LogError(.locked, "another writer holds the log at \(directory); close it first (one writer per log)", path: directory)
            }
            let token = nextToken
            nextToken += 1
            locks[directory] = token
            return SimulatedLock(disk: self, directory: directory, token: token)
        }
    }

    public func isLockedForWriting(directory: String) -> Bool {
        lock.withLock { locks[Self.normal(directory)] != nil }
    }

    // MARK: Files

    func release(directory: String, token: UInt64) {
        lock.withLock { if locks[directory] == token { locks[directory] = nil } }
    }

    func withInode<T>(_ file: SimulatedFile, _ call: String, _ body: (Inode) throws -> T) throws -> T {
        try lock.withLock {
            guard file.generation == generation, let inode = inodes[file.inode] else {
                throw LogError(.io, "\(call) failed: Input/output error (errno 5) (the simulated disk crashed)", path: file.path)
            }
            return try body(inode)
        }
    }

    func write(_ file: SimulatedFile, _ bytes: [UInt8], at offset: Int64) throws {
        try withInode(file, "pwrite") { inode in
            let noSpace = random.chance(perMillion: faultsValue.writeNoSpacePerMillion)
            let failed = noSpace || random.chance(perMillion: faultsValue.writeIOErrorPerMillion)
            if failed {
                statisticsValue.writeFaults += 1
                let kept = Int.random(in: 0...bytes.count, using: &random)
                if kept > 0 {
                    let change = DataChange.write(offset: Int(offset), bytes: Array(bytes[0..<kept]))
                    Self.apply(change, to: &inode.current)
                    inode.pending.append(change)
                }
                throw LogError(
                    .io, noSpace ? "pwrite failed: No space left on device (errno 28)" : "pwrite failed: Input/output error (errno 5)",
                    path: file.path, offset: offset + Int64(kept))
            }
            let change = DataChange.write(offset: Int(offset), bytes: bytes)
            Self.apply(change, to: &inode.current)
            inode.pending.append(change)
        }
    }

    func sync(_ file: SimulatedFile, call: String) throws {
        try withInode(file, call) { inode in
            if random.chance(perMillion: faultsValue.syncIOErrorPerMillion) {
                // ext4: the dirty pages are marked clean and never written; the cache still shows them.
                // A size change is metadata, journaled: it stays pending.
                statisticsValue.syncFaults += 1
                inode.pending = inode.pending.filter { if case .truncate = $0 { true } else { false } }
                throw LogError(.io, "\(call) failed: Input/output error (errno 5)", path: file.path)
            }
            for change in inode.pending { Self.apply(change, to: &inode.durable) }
            inode.pending = []
        }
    }

    func truncate(_ file: SimulatedFile, to length: Int64) throws {
        try withInode(file, "ftruncate") { inode in
            let change = DataChange.truncate(length: Int(length))
            Self.apply(change, to: &inode.current)
            inode.pending.append(change)
        }
    }

    // MARK: Helpers

    private func applyDurably(_ change: NameChange) {
        switch change {
        case .link(let path, let inode): durableNames[path] = inode
        case .unlink(let path): durableNames[path] = nil
        case .rename(let source, let target): durableNames[target] = durableNames.removeValue(forKey: source)
        case .makeDirectory(let path): durableDirectories.insert(path)
        }
    }

    static func apply(_ change: DataChange, to bytes: inout [UInt8]) {
        switch change {
        case .write(let offset, let data):
            if bytes.count < offset + data.count { bytes.append(contentsOf: repeatElement(0, count: offset + data.count - bytes.count)) }
            bytes.replaceSubrange(offset..<(offset + data.count), with: data)
        case .truncate(let length):
            if bytes.count > length { bytes.removeLast(bytes.count - length) } else { bytes.append(contentsOf: repeatElement(0, count: length - bytes.count)) }
        }
    }

    static func normal(_ path: String) -> String {
        var path = path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return path
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

/// A file open on a ``SimulatedDisk``.
final class SimulatedFile: LogFile, @unchecked Sendable {
    let disk: SimulatedDisk
    let inode: Int
    let path: String
    let generation: UInt64

    init(disk: SimulatedDisk, inode: Int, path: String, generation: UInt64) {
        self.disk = disk
        self.inode = inode
        self.path = path
        self.generation = generation
    }

    func size() throws -> Int64 { try disk.withInode(self, "fstat") { Int64($0.current.count) } }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        try disk.withInode(self, "pread") { inode in
            let start = Int(offset)
            guard start < inode.current.count else { return 0 }
            let count = min(buffer.count, inode.current.count - start)
            guard count > 0 else { return 0 }
            inode.current.withUnsafeBytes { source in
                buffer.baseAddress!.copyMemory(from: source.baseAddress! + start, byteCount: count)
            }
            return count
        }
    }

    func write(_ bytes: [UInt8], at offset: Int64) throws { try disk.write(self, bytes, at: offset) }
    func dataSync() throws { try disk.sync(self, call: "fdatasync") }
    func fullSync() throws { try disk.sync(self, call: "fsync") }
    func truncate(to length: Int64) throws { try disk.truncate(self, to: length) }
    func close() {}
}

/// A writer's lock on a ``SimulatedDisk`` directory; a crash drops it.
struct SimulatedLock: LogWriterLock {
    let disk: SimulatedDisk
    let directory: String
    let token: UInt64

    func release() { disk.release(directory: directory, token: token) }
}
