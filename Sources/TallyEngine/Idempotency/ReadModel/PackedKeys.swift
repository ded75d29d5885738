import GRDB
internal import Dispatch
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

// The idempotency keys of the read model live in two places (docs/concurrency.md, "How the
// keys are kept"):
//
//   idempotency_keys        loose: one row per key (its stored spelling, its first sequence
//                           number), as every fold writes them
//   idempotency_key_blocks  packed: the keys in order, a block of about `blockBytes` per
//                           row, keyed by the block's last key; each key front-coded
//                           against the one before it
//   idempotency_key_counts  how many keys each place holds (one row)
//
// A row per key costs ≈ 30 bytes (a key of 15–30 bytes, its sequence number, the cell and
// the B-tree's free space): a million imported rows left 29.7 MB of keys, more than the log
// holding those rows. Keys of one source share most of their bytes with their neighbours in
// order (`␁bank-42-10417`, `␁bank-42-10418`), so packed a key takes what differs from the one
// before, its length and the difference of its sequence number: ≈ 9 bytes.
//
// Folds insert loose rows, as before (a group's keys sorted, many to a statement); once the
// loose rows reach an eighth of the packed ones (at least `looseMinimum`), the write that
// brought them packs them: every loose key goes into the block where it belongs, blocks
// past `blockBytes` are cut, and the loose table is emptied. An eighth keeps both the loose
// table's share of the store and the packing's rewriting (a key is rewritten about eight
// times over the store's life) small. It all happens in the fold's own transaction: the
// checkpoint records exactly what both places hold.
//
// An import's batches (a bulk write) pack once the loose rows reach half the packed ones,
// and the import packs what is loose when it ends. Keys that scatter (the digests of rows
// without an external id) land in every block, so each packing rewrites all of them: a
// million such rows imported packed about a dozen times at an eighth, three or four times at
// a half, and the end's packing leaves the store as compact as before.
//
// A key's first sequence number is the least recorded for it in either place (a fold writes
// a key's first use first; a loose row may repeat a packed key, and packing keeps the lesser).
// Where the loose rows end and how the blocks are cut depend on how the log was batched when
// it was folded, not on what it holds: two folds of one log compare by their keys
// (``IdempotencyProjector/comparableRows(_:schema:)``), not by these rows.
//
// A block is a run of entries, each
//
//   varint shared · varint suffix count · suffix bytes · zigzag varint (sequence − previous)
//
// where `shared` counts the leading bytes the key has in common with the entry before it
// (0 for a block's first key) and the previous sequence of a block's first entry is 0.

/// The packed idempotency keys and their loose rows' count (see above).
enum PackedKeys {
    static let blocksTable = "idempotency_key_blocks"
    static let countsTable = "idempotency_key_counts"
    static let tables = [blocksTable, countsTable]

    /// A block is cut once it holds this many bytes: a look-up decodes half a block on
    /// average (≈ 35 entries). A block and its key stay under the ≈ 1,000 bytes a row of a
    /// `WITHOUT ROWID` table keeps in its 4 KB page (at most 1.25 times this, with a short
    /// tail joined and a key): past that, SQLite moves the rest of the row to an overflow page
    /// of its own, and blocks of 1,024 bytes took 28.9 MB for 8.3 MB of keys.
    static let blockBytes = 640
    /// Fewer loose rows than this are never packed: a store of a few keys keeps them loose.
    /// The store keeps its own (`idempotency_key_counts.loose_minimum`): tests lower it so
    /// that a few hundred commands pack, as a store's millions do.
    static let looseMinimum: Int64 = 8_192

    /// The share of the packed keys (one over this) the loose rows reach before a write packs them.
    static let steadyDivisor: Int64 = 8
    /// ``steadyDivisor`` for a bulk write (an import's batch; see above).
    static let bulkDivisor: Int64 = 2

    /// How many loose rows make a write pack them, with `packed` keys in blocks.
    static func packingThreshold(packed: Int64, minimum: Int64 = looseMinimum, divisor: Int64 = steadyDivisor) -> Int64 {
        max(minimum, packed / divisor)
    }

    static func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE \(blocksTable) (
                last_key TEXT PRIMARY KEY NOT NULL,
                keys BLOB NOT NULL
            ) STRICT, WITHOUT ROWID;
            CREATE TABLE \(countsTable) (
                loose INTEGER NOT NULL,
                packed INTEGER NOT NULL,
                loose_minimum INTEGER NOT NULL
            ) STRICT;
            INSERT INTO \(countsTable) (rowid, loose, packed, loose_minimum) VALUES (1, 0, 0, \(looseMinimum));
            """)
    }

    /// Notes `inserted` new loose rows and packs the loose rows when they reach
    /// ``packingThreshold(packed:)``.
    static func noteLoose(_ inserted: Int, divisor: Int64 = steadyDivisor, _ db: Database) throws {
        guard inserted > 0 else { return }
        let add = RawStatement(try db.cachedStatement(sql: "UPDATE \(countsTable) SET loose = loose + ? WHERE rowid = 1"))
        add.bind(1, Int64(inserted))
        try add.step(db)
        let (loose, packed, minimum) = try counts(db)
        if loose >= packingThreshold(packed: packed, minimum: minimum, divisor: divisor) { try pack(db) }
    }

    /// Packs the loose keys, if any: the end of an import (see above). Returns how many.
    @discardableResult
    static func packLoose(_ db: Database) throws -> Int64 {
        let loose = try counts(db).loose
        if loose > 0 { try pack(db) }
        return loose
    }

    /// How many keys are loose and how many packed, and the fewest loose keys packed.
    static func counts(_ db: Database) throws -> (loose: Int64, packed: Int64, minimum: Int64) {
        let read = RawStatement(try db.cachedStatement(sql: "SELECT loose, packed, loose_minimum FROM \(countsTable) WHERE rowid = 1"))
        var counts: (Int64, Int64, Int64)?
        try read.forEachRow(db) { row in counts = (try row.requiredInteger(0), try row.requiredInteger(1), try row.requiredInteger(2)) }
        guard let counts else {
            throw StoreError(.readModelsDisagree, "\(countsTable) has no row; run `tally rebuild`")
        }
        return counts
    }

    /// Packs from `minimum` loose keys in this store's read models (until they are folded
    /// again): for tests, whose stores hold hundreds of keys, not millions.
    package static func setLooseMinimum(_ minimum: Int64, _ db: Database) throws {
        try db.execute(sql: "UPDATE \(countsTable) SET loose_minimum = ? WHERE rowid = 1", arguments: [max(1, minimum)])
    }

    /// Whether `count` more loose keys would reach the packing threshold.
    static func wouldPack(adding count: Int, divisor: Int64 = steadyDivisor, _ db: Database) throws -> Bool {
        let (loose, packed, minimum) = try counts(db)
        return loose + Int64(count) >= packingThreshold(packed: packed, minimum: minimum, divisor: divisor)
    }

    /// Moves every loose key into the blocks (``pack(_:_:)``) and empties the loose table;
    /// with `newer` (keys in key order, each once, folded after every loose one), those keys
    /// too, as if they had been inserted loose first (of a key in both, the loose row's
    /// sequence number, the earlier).
    static func pack(adding newer: KeyRun? = nil, _ db: Database) throws {
        var loose = KeyRun()
        try RawStatement(try db.cachedStatement(sql: "SELECT key, first_sequence FROM idempotency_keys ORDER BY key")).forEachRow(db) { row in
            loose.append(row.text(0), sequence: try row.requiredInteger(1))
        }
        if loose.count > 0 { try db.execute(sql: "DELETE FROM idempotency_keys") }
        if let newer { loose = loose.count > 0 ? KeyRun.merging(older: loose, newer: newer) : newer }
        guard loose.count > 0 else { return }
        let added = try pack(loose, db)
        let counts = RawStatement(try db.cachedStatement(sql: "UPDATE \(countsTable) SET loose = 0, packed = packed + ? WHERE rowid = 1"))
        counts.bind(1, added)
        try counts.step(db)
    }

    /// Puts a run of keys (in key order, each once) into the blocks: each goes into the first
    /// block whose last key is not below it (a key past every block, into new blocks after
    /// the last, with the last when that one is short), a block past ``blockBytes`` is cut.
    /// Returns how many of the keys the blocks did not hold; the counts are the caller's.
    static func pack(_ loose: KeyRun, _ db: Database) throws -> Int64 {
        let holding = RawStatement(try db.cachedStatement(sql: "SELECT last_key, keys FROM \(blocksTable) WHERE last_key >= ? ORDER BY last_key LIMIT 1"))
        let lastBlock = RawStatement(try db.cachedStatement(sql: "SELECT last_key, keys FROM \(blocksTable) ORDER BY last_key DESC LIMIT 1"))
        let remove = RawStatement(try db.cachedStatement(sql: "DELETE FROM \(blocksTable) WHERE last_key = ?"))
        let insert = RawStatement(try db.cachedStatement(sql: "INSERT INTO \(blocksTable) (last_key, keys) VALUES (?, ?)"))
        var added: Int64 = 0
        var next = 0
        try loose.withKeys { key in
            while next < loose.count {
                var block: (last: [UInt8], keys: [UInt8])?
                do {
                    holding.bindText(1, key(next))
                    defer { holding.clearBindings() }
                    try holding.forEachRow(db) { row in block = (Array(row.text(0)), Array(row.blob(1))) }
                }
                var end = loose.count
                if let block {
                    end = next + 1
                    block.last.withUnsafeBytes { last in
                        while end < loose.count, StoredKeySpellings.compare(key(end), last) <= 0 { end += 1 }
                    }
                } else {
                    try lastBlock.forEachRow(db) { row in
                        if row.blob(1).count < blockBytes { block = (Array(row.text(0)), Array(row.blob(1))) }
                    }
                }
                if let block {
                    try block.last.withUnsafeBytes { last in
                        remove.bindText(1, last)
                        defer { remove.clearBindings() }
                        try remove.step(db)
                    }
                }
                added += try merge(block?.keys ?? [], with: loose, sequences: next..<end, key: key) { last, keys in
                    insert.bindText(1, last)
                    defer { insert.clearBindings() }
                    try insert.step(db, bindingBlob: keys, at: 2)
                }
                next = end
            }
        }
        return added
    }

    /// Writes a block's entries (`block`, none when empty) and the run's keys in `range`
    /// merged in key order (of a key in both, the lesser sequence number), as blocks cut
    /// once past ``blockBytes`` (a short last block joins the one before); returns how many
    /// of the run's keys were not in the block.
    static func merge(
        _ block: [UInt8], with run: KeyRun, sequences range: Range<Int>, key: (Int) -> UnsafeRawBufferPointer,
        _ write: (_ last: UnsafeRawBufferPointer, _ keys: UnsafeRawBufferPointer) throws -> Void
    ) throws -> Int64 {
        var added: Int64 = 0
        var writer = KeyBlockWriter()
        var held: KeyBlockWriter?
        func add(_ entry: UnsafeRawBufferPointer, _ sequence: Int64) throws {
            writer.add(entry, sequence: sequence)
            guard writer.bytes.count >= blockBytes else { return }
            if let held { try write(held.last, held.bytes) }
            held = writer
            writer = KeyBlockWriter()
        }
        try block.withUnsafeBytes { old in
            let cursor = KeyBlockCursor(old)
            var hasOld = try cursor.next()
            var index = range.lowerBound
            while hasOld || index < range.upperBound {
                let order: Int
                if !hasOld {
                    order = 1
                } else if index == range.upperBound {
                    order = -1
                } else {
                    order = cursor.withKey { StoredKeySpellings.compare($0, key(index)) }
                }
                if order < 0 {
                    try cursor.withKey { try add($0, cursor.sequence) }
                    hasOld = try cursor.next()
                } else if order > 0 {
                    try add(key(index), run.sequences[index])
                    added += 1
                    index += 1
                } else {
                    try cursor.withKey { try add($0, min(cursor.sequence, run.sequences[index])) }
                    hasOld = try cursor.next()
                    index += 1
                }
            }
        }
        if let held {
            if writer.count > 0, writer.bytes.count < blockBytes / 4 {
                // A short tail joins the block before it.
                let cursor = KeyBlockCursor(writer.bytes)
                while try cursor.next() { cursor.withKey { held.add($0, sequence: cursor.sequence) } }
                writer = KeyBlockWriter()
            }
            try write(held.last, held.bytes)
        }
        if writer.count > 0 { try write(writer.last, writer.bytes) }
        return added
    }

    /// The first sequence number packed for a key's stored spelling (nil: not packed).
    static func firstSequence(ofSpelling key: UnsafeRawBufferPointer, _ db: Database) throws -> Int64? {
        try firstEntry(atLeast: key, db) { entry, sequence in
            StoredKeySpellings.compare(entry, key) == 0 ? sequence : nil
        } ?? nil
    }

    /// Whether a packed key lies in `from..<below` (stored spellings).
    static func holdsKey(from: UnsafeRawBufferPointer, below: UnsafeRawBufferPointer, _ db: Database) throws -> Bool {
        try firstEntry(atLeast: from, db) { entry, _ in StoredKeySpellings.compare(entry, below) < 0 } ?? false
    }

    /// Calls `body` with the least packed key not below `key` and its sequence number, and
    /// returns what it returns (nil: every packed key is below `key`). That key lies in the
    /// one block whose last key is the least not below `key`.
    private static func firstEntry<Result>(
        atLeast key: UnsafeRawBufferPointer, _ db: Database, _ body: (UnsafeRawBufferPointer, Int64) -> Result
    ) throws -> Result? {
        let holding = RawStatement(try db.cachedStatement(sql: "SELECT keys FROM \(blocksTable) WHERE last_key >= ? ORDER BY last_key LIMIT 1"))
        holding.bindText(1, key)
        defer { holding.clearBindings() }
        var result: Result?
        try holding.forEachRow(db) { row in
            let cursor = KeyBlockCursor(row.blob(0))
            while try cursor.next() {
                guard cursor.withKey({ StoredKeySpellings.compare($0, key) }) >= 0 else { continue }
                result = cursor.withKey { body($0, cursor.sequence) }
                break
            }
        }
        return result
    }

    /// The first sequence number packed for each of a run of stored spellings (`key(i)` for
    /// `i` in `0..<count`), in order.
    ///
    /// When the blocks between the run's least and greatest key are fewer than its keys,
    /// they are read in one range scan and walked beside the run in key order; else each key
    /// is looked up on its own (a scattered run would read every block between).
    static func firstSequences(count: Int, key: (Int) -> UnsafeRawBufferPointer, _ db: Database) throws -> [Int64?] {
        guard count > 0 else { return [] }
        let order = (0..<count).sorted { StoredKeySpellings.compare(key($0), key($1)) < 0 }
        let least = key(order[0])
        let greatest = key(order[count - 1])
        let counting = RawStatement(try db.cachedStatement(
            sql: "SELECT count(*) FROM (SELECT 1 FROM \(blocksTable) WHERE last_key >= ? AND last_key <= ? LIMIT ?)"))
        counting.bindText(1, least)
        counting.bindText(2, greatest)
        counting.bind(3, Int64(count))
        defer { counting.clearBindings() }
        var found = [Int64?](repeating: nil, count: count)
        guard try counting.integer(db) ?? 0 < count else {
            for index in 0..<count { found[index] = try firstSequence(ofSpelling: key(index), db) }
            return found
        }
        let scan = RawStatement(try db.cachedStatement(sql: "SELECT keys FROM \(blocksTable) WHERE last_key >= ? ORDER BY last_key"))
        scan.bindText(1, least)
        defer { scan.clearBindings() }
        var next = 0
        try scan.forEachRowWhile(db, { row in
            let cursor = KeyBlockCursor(row.blob(0))
            var hasEntry = try cursor.next()
            while hasEntry, next < count {
                let wanted = key(order[next])
                let comparison = cursor.withKey { StoredKeySpellings.compare($0, wanted) }
                if comparison < 0 {
                    hasEntry = try cursor.next()
                } else {
                    if comparison == 0 { found[order[next]] = cursor.sequence }
                    next += 1
                }
            }
            return next < count
        })
        return found
    }

    /// Every packed key and its first sequence number, in order (a read model's comparison).
    static func forEachKey(_ db: Database, schema: String, _ body: (UnsafeRawBufferPointer, Int64) throws -> Void) throws {
        try RawStatement(try db.makeStatement(sql: "SELECT keys FROM \(schema).\(blocksTable) ORDER BY last_key")).forEachRow(db) { row in
            let cursor = KeyBlockCursor(row.blob(0))
            while try cursor.next() { try cursor.withKey { try body($0, cursor.sequence) } }
        }
    }
}

/// The keys a rebuild folds into a new file, held in memory and packed in one go at its end
/// (``ReadModelStore/foldIntoNewFile(_:projectors:snapshots:from:batchSize:progress:)``): no
/// one reads that file until it is complete, and a rebuild that stops leaves it to be
/// removed, so its checkpoints may run ahead of its keys. A million events rebuilt in 0.84
/// times the time of loose rows packed an eighth at a time (paired runs). Past
/// ``heldMost`` keys, those held are packed at once: memory stays bounded.
///
/// The keys are sorted as they come, off the folding thread: every ``chunkKeys`` keys go to a
/// ``KeySorter``, which sorts them and merges them with those before on a queue of its own
/// while the fold goes on. Sorted at the end on the folding thread, a million keys' sort was
/// 12 % of a rebuild's busier thread and ran after the reading thread had finished.
final class KeyBacklog {
    /// The most keys held: by default 2^20, ≈ 35 MB of keys at a journal's 18 bytes a key.
    let heldMost: Int
    /// The keys gathered before they are handed to the sorter.
    let chunkKeys: Int
    private var filling = KeyRun()
    private var held = 0
    private let sorter = KeySorter()

    init(heldMost: Int = 1 << 20, chunkKeys: Int = 1 << 16) {
        self.heldMost = heldMost
        self.chunkKeys = max(1, min(chunkKeys, heldMost))
    }

    /// Holds a key folded at `sequence` (in log order).
    func add(_ key: String, sequence: Int64, _ db: Database) throws {
        StoredKey.withSpelling(of: key) { filling.append($0, sequence: sequence) }
        held += 1
        if filling.count >= chunkKeys { handOver() }
        if held >= heldMost { try write(db) }
    }

    private func handOver() {
        sorter.sort(filling)
        filling = KeyRun()
    }

    /// Hands over the keys not yet with the sorter and has it merge them all while the
    /// caller does something else (the rebuild: its deferred indexes); ``write(_:)`` then
    /// finds them merged.
    func finishSorting() {
        guard held > 0 else { return }
        if filling.count > 0 { handOver() }
        sorter.mergeAhead()
    }

    /// Packs the keys held, each once with its first sequence number, and lets them go.
    func write(_ db: Database) throws {
        guard held > 0 else { return }
        if filling.count > 0 { handOver() }
        held = 0
        let added = try PackedKeys.pack(sorter.sorted(), db)
        let counts = RawStatement(try db.cachedStatement(sql: "UPDATE \(PackedKeys.countsTable) SET packed = packed + ? WHERE rowid = 1"))
        counts.bind(1, added)
        try counts.step(db)
    }
}

/// Sorts runs of keys handed over in log order, on a queue of its own, into one run by key
/// with each key once at its first sequence number. Each run is sorted (the first of equal
/// keys kept) and merged with the sorted run before it while that one holds no more keys
/// (a binary counter's carries): a key is compared about log2(n) times in all, and what is
/// left when the keys are asked for is the last run's sort and the merges it carries.
final class KeySorter: @unchecked Sendable {
    // @unchecked: `runs` is read and written only on `queue`.
    private let queue = DispatchQueue(label: "Tally.keySorter")
    /// The sorted runs, oldest first.
    private var runs: [KeyRun] = []

    /// Sorts `run`, the keys after those handed over before, behind them.
    func sort(_ run: KeyRun) {
        queue.async { [self] in
            var sorted = run.sortedFirstOfEach()
            while let older = runs.last, older.count <= sorted.count {
                runs.removeLast()
                sorted = KeyRun.merging(older: older, newer: sorted)
            }
            runs.append(sorted)
        }
    }

    /// Merges every run handed over into one on the sorter's queue, without waiting: a
    /// caller with other work to do before it asks for ``sorted()`` starts this first, and
    /// the merge runs beside that work instead of on the caller's thread.
    func mergeAhead() {
        queue.async { [self] in runs = [mergingAll()] }
    }

    /// Every run merged into one, the runs emptied (on `queue`).
    private func mergingAll() -> KeyRun {
        var merged = runs.popLast() ?? KeyRun()
        while let older = runs.popLast() { merged = KeyRun.merging(older: older, newer: merged) }
        return merged
    }

    /// Every key handed over, by key, each once at its first sequence number; the sorter
    /// starts empty again.
    func sorted() -> KeyRun {
        queue.sync { [self] in mergingAll() }
    }
}

/// Keys' stored spellings (``StoredKeySpellings``), each with a sequence number.
struct KeyRun {
    private(set) var spellings = StoredKeySpellings()
    private(set) var sequences: [Int64] = []

    var count: Int { spellings.count }

    mutating func append(_ key: UnsafeRawBufferPointer, sequence: Int64) {
        spellings.append(spelled: key)
        sequences.append(sequence)
    }

    /// Calls `body` with a function giving the key at a place, valid during the call.
    func withKeys<Result>(_ body: ((Int) -> UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try spellings.withSpellings(body)
    }

    /// The run's keys by key, each once with the sequence number it was first added with.
    func sortedFirstOfEach() -> KeyRun {
        var sorted = KeyRun()
        let order = spellings.order()
        withKeys { key in
            var previous: Int?
            for index in order {
                if let previous, StoredKeySpellings.compare(key(previous), key(index)) == 0 { continue }
                sorted.append(key(index), sequence: sequences[index])
                previous = index
            }
        }
        return sorted
    }

    /// Two runs by key, each key once, merged by key: of a key in both, `older`'s entry
    /// (the first added, when `older`'s keys were added before `newer`'s).
    static func merging(older: KeyRun, newer: KeyRun) -> KeyRun {
        var merged = KeyRun()
        older.withKeys { old in
            newer.withKeys { new in
                var next = (old: 0, new: 0)
                while next.old < older.count || next.new < newer.count {
                    let order = next.old == older.count ? 1 : next.new == newer.count ? -1
                        : StoredKeySpellings.compare(old(next.old), new(next.new))
                    if order <= 0 {
                        merged.append(old(next.old), sequence: older.sequences[next.old])
                        next.old += 1
                        if order == 0 { next.new += 1 }
                    } else {
                        merged.append(new(next.new), sequence: newer.sequences[next.new])
                        next.new += 1
                    }
                }
            }
        }
        return merged
    }
}

/// Writes a block's entries (``PackedKeys``), in key order, into memory of its own (a
/// block is rewritten whenever a key joins it: a packing of a million keys writes millions
/// of entries, and an array's appends and its uniqueness and access checks were most of it).
final class KeyBlockWriter {
    @exclusivity(unchecked) private var storage: UnsafeMutableRawBufferPointer
    @exclusivity(unchecked) private var used = 0
    @exclusivity(unchecked) private var lastKey: UnsafeMutableRawBufferPointer
    @exclusivity(unchecked) private var lastCount = 0
    @exclusivity(unchecked) private var lastSequence: Int64 = 0
    /// How many entries the block holds.
    @exclusivity(unchecked) private(set) var count = 0

    init() {
        storage = .allocate(byteCount: 2 * PackedKeys.blockBytes, alignment: 1)
        lastKey = .allocate(byteCount: 128, alignment: 1)
    }

    deinit {
        storage.deallocate()
        lastKey.deallocate()
    }

    /// The block's bytes, valid until the next ``add(_:sequence:)``.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: storage[..<used]) }
    /// The last key written (the block's key in `idempotency_key_blocks`), valid until the
    /// next ``add(_:sequence:)``.
    var last: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: lastKey[..<lastCount]) }

    /// Adds a key greater than every key added before.
    func add(_ key: UnsafeRawBufferPointer, sequence: Int64) {
        var shared = 0
        let common = min(lastCount, key.count)
        while shared < common, lastKey[shared] == key[shared] { shared += 1 }
        let suffix = key.count - shared
        reserve(used + 30 + suffix)
        writeVarint(UInt64(shared))
        writeVarint(UInt64(suffix))
        if suffix > 0 {
            UnsafeMutableRawBufferPointer(rebasing: storage[used..<(used + suffix)]).copyMemory(from: UnsafeRawBufferPointer(rebasing: key[shared...]))
            used += suffix
        }
        let step = sequence &- lastSequence
        writeVarint(UInt64(bitPattern: (step << 1) ^ (step >> 63)))
        if key.count > lastKey.count {
            let grown = UnsafeMutableRawBufferPointer.allocate(byteCount: 2 * key.count, alignment: 1)
            grown.copyMemory(from: UnsafeRawBufferPointer(rebasing: lastKey[..<shared]))
            lastKey.deallocate()
            lastKey = grown
        }
        if suffix > 0 {
            UnsafeMutableRawBufferPointer(rebasing: lastKey[shared..<key.count]).copyMemory(from: UnsafeRawBufferPointer(rebasing: key[shared...]))
        }
        lastCount = key.count
        lastSequence = sequence
        count += 1
    }

    private func reserve(_ bytes: Int) {
        guard bytes > storage.count else { return }
        let grown = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes, 2 * storage.count), alignment: 1)
        grown.copyMemory(from: UnsafeRawBufferPointer(rebasing: storage[..<used]))
        storage.deallocate()
        storage = grown
    }

    private func writeVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            storage[used] = UInt8(truncatingIfNeeded: value) | 0x80
            used += 1
            value >>= 7
        }
        storage[used] = UInt8(value)
        used += 1
    }
}

/// Reads a block's entries (``PackedKeys``) in order; the key is rebuilt in memory of the
/// cursor's own.
final class KeyBlockCursor {
    private let bytes: UnsafeRawBufferPointer
    @exclusivity(unchecked) private var offset = 0
    @exclusivity(unchecked) private var key: UnsafeMutableRawBufferPointer
    @exclusivity(unchecked) private var keyCount = 0
    /// The entry's sequence number.
    @exclusivity(unchecked) private(set) var sequence: Int64 = 0

    /// A cursor before the first entry of `bytes`, which must outlive it.
    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        key = .allocate(byteCount: 128, alignment: 1)
    }

    deinit { key.deallocate() }

    /// Steps to the next entry; false past the last.
    /// - Throws: ``StoreError`` (`readModelsDisagree`) for a damaged block.
    func next() throws -> Bool {
        guard offset < bytes.count else { return false }
        let shared = Int(try varint())
        let suffix = Int(try varint())
        guard shared <= keyCount, suffix <= bytes.count - offset else { throw Self.damaged }
        if shared + suffix > key.count {
            let grown = UnsafeMutableRawBufferPointer.allocate(byteCount: 2 * (shared + suffix), alignment: 1)
            grown.copyMemory(from: UnsafeRawBufferPointer(rebasing: key[..<shared]))
            key.deallocate()
            key = grown
        }
        if suffix > 0 {
            UnsafeMutableRawBufferPointer(rebasing: key[shared..<(shared + suffix)])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + suffix)]))
        }
        keyCount = shared + suffix
        offset += suffix
        let step = try varint()
        sequence &+= Int64(bitPattern: (step >> 1) ^ (0 &- (step & 1)))
        return true
    }

    /// Calls `body` with the entry's key, valid during the call.
    func withKey<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(rebasing: key[..<keyCount]))
    }

    private func varint() throws -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while offset < bytes.count, shift < 64 {
            let byte = bytes[offset]
            offset += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
        throw Self.damaged
    }

    private static var damaged: StoreError {
        StoreError(.readModelsDisagree, "a block of \(PackedKeys.blocksTable) is damaged; run `tally rebuild`")
    }
}
