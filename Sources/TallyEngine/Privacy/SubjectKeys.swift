internal import Crypto
internal import Foundation
internal import Synchronization
public import TallyLog

/// The per-subject keys personal text is sealed under (names, payees, notes, free text): one
/// random AES-256 key and one opaque random identifier per subject, named `KIND:ID` (`owner`,
/// `payee:Tesco`).
///
/// A store keeps them in its `SUBJECTS` file (owner-only, replaced atomically), apart from the
/// log: destroying a subject's key (``erase(_:)``) makes every field sealed under it read as
/// erased, in the log, in read models rebuilt from it, in exports and in copies of the log
/// taken earlier, while the log's bytes, and so its hash chain and every digest kept before,
/// stay exactly as they were. On an encrypted store the file's content is sealed (AES-256-GCM)
/// under a key derived (HKDF-SHA256) from the store's first data key, which the key-encryption
/// key wraps; on a plain store it is plain JSON.
///
/// ```swift
/// let subjects = try SubjectKeys.load(root: "books", logKeys: nil)
/// print(subjects.subjects.map(\.name))   // ["owner", "payee:Acme Corp", …]
/// ```
public final class SubjectKeys: Sendable {
    /// One subject: its `KIND:ID` name and its opaque identifier (32 hex digits).
    public struct Subject: Hashable, Sendable {
        /// `owner` or `payee:NAME`.
        public let name: String
        /// The opaque identifier the log's sealed fields name (it reveals nothing of the name).
        public let identifier: String
    }

    struct Entry {
        var name: String
        var key: SymmetricKey
    }

    struct State {
        var byIdentifier: [[UInt8]: Entry] = [:]
        var byName: [String: [UInt8]] = [:]
        /// Subjects ever created here (erased ones included): the seeded source's counter.
        var created: UInt64 = 0
        /// Subjects made here that the file does not hold yet, in the order they were made:
        /// the next save appends their records (an import's second thread makes subjects
        /// while the first one saves and appends).
        var unsavedSubjects: [[UInt8]] = []
        /// How many of ``texts`` the file holds (the next save appends the rest).
        var savedTexts = 0
        /// Where the file's complete records end, as this set last read or wrote it; nil when
        /// the next save writes the whole file (no file yet, or one of an earlier form).
        var fileLength: Int?
        /// Bytes past ``fileLength`` when the file was read: a record a crash tore, which the
        /// next writer cuts at open.
        var tornBytes = 0
        /// Whole writes owed (an erasure, whose key the file must lose; a set made for a new
        /// store): the next save writes the whole file anew.
        var rewrites: UInt64 = 0
        /// Whether this set holds what its file does not (subjects, texts, an erasure).
        var changed: Bool { !unsavedSubjects.isEmpty || savedTexts < texts.count || rewrites > 0 }
        /// Identifiers looked for, not found even after a reload: erased (or of another store).
        var missing: Set<[UInt8]> = []
        /// Recent seals and opens (payees repeat): sealed bytes by subject and text, text by
        /// sealed bytes. Bounded (``cacheEntriesLimit``), emptied by an erasure.
        var sealedByText: [SubjectText: [UInt8]] = [:]
        var textBySealed: [SealedBytes: String] = [:]
        /// Each text sealed once, by reference (``reference(_:subject:)``): the sealed bytes
        /// (`identifier · nonce · ciphertext · tag`, as an inline field holds them) at the
        /// index an event names. Never shrinks: an erasure destroys the key, and these bytes
        /// then open to nothing, as an old log's inline fields do.
        var texts: [[UInt8]] = []
        var referenceBySealed: [SealedBytes: UInt64] = [:]
        /// Recent references by subject and text, and texts by reference. Bounded
        /// (``cacheEntriesLimit``), emptied by an erasure.
        var referenceByText: [PersonalText: UInt64] = [:]
        var textByReference: [UInt64: String] = [:]
        /// References looked for, not found even after a reload: a lost or older `SUBJECTS`.
        var missingReferences: Set<UInt64> = []
    }

    /// The most entries either cache holds before it is emptied.
    static let cacheEntriesLimit = 8_192

    /// The file the keys are saved to; nil for keys kept in memory only.
    let path: String?
    /// The key the file's content is sealed under (an encrypted store); nil for plain JSON.
    let fileKey: SymmetricKey?
    /// For tests and the demo only: derive identifiers and keys from this seed (reproducible
    /// digests), never for a real store.
    let seed: UInt64?
    /// Whether personal text is written as a reference to its entry in ``State/texts`` (the
    /// current form) rather than inline: false only for a restore of an export whose keys were
    /// carried in the first file form, whose log held every text inline (the same bytes, the
    /// same digest).
    let writesReferences: Bool
    private let state: Mutex<State>
    /// How many erasures this process has made: a reader's own cache of texts by reference
    /// (``DecodedTexts``) holds only while this count is the one it was filled under.
    private let erasureCount = Atomic<UInt64>(0)

    /// How many erasures this process has made (see ``erasureCount``).
    var erasures: UInt64 { erasureCount.load(ordering: .acquiring) }
    /// Held by a save while it writes: two saves never append at once.
    private let saving = Mutex(())

    /// The first file form (keys only), still read; ``SubjectKeyFile`` describes the current one.
    static let firstFormatName = "tally-subjects-1"
    /// The text an erased field reads as, followed by a short digest of its sealed bytes (equal
    /// texts stay equal, different ones different).
    public static let erasedMarker = "[erased"

    init(path: String?, fileKey: SymmetricKey?, seed: UInt64?, state: State = State(), writesReferences: Bool = true) {
        self.path = path
        self.fileKey = fileKey
        self.seed = seed
        self.writesReferences = writesReferences
        self.state = Mutex(state)
    }

    /// Keys kept in memory only (nothing is saved): for tests and catalogs that never touch a store.
    ///
    /// - Parameter seed: derive identifiers and keys from this seed (reproducible bytes); nil for random.
    public static func inMemory(seed: UInt64? = nil) -> SubjectKeys {
        SubjectKeys(path: nil, fileKey: nil, seed: seed)
    }

    /// The subjects that have a key, sorted by name.
    public var subjects: [Subject] {
        state.withLock { state in
            state.byName.map { Subject(name: $0.key, identifier: Self.hex($0.value)) }.sorted { $0.name < $1.name }
        }
    }

    /// The subject named `name` (`owner`, `payee:NAME`), or nil when it has no key (never had
    /// one, or was erased).
    public func subject(named name: String) -> Subject? {
        state.withLock { state in state.byName[name].map { Subject(name: name, identifier: Self.hex($0)) } }
    }

    // MARK: Sealing

    /// Seals `text` under `subject`'s key, making the subject (a new random identifier and key)
    /// when it has none: `identifier (16 bytes) · nonce (12) · ciphertext · tag (16)`.
    ///
    /// The nonce is HMAC-SHA256(subject key, text) cut to 12 bytes, so equal texts of one subject
    /// seal to equal bytes (grouping by payee stays exact; a repeated command encodes the same).
    func seal(_ text: String, subject: String) -> [UInt8] {
        let cacheKey = SubjectText(subject: subject, text: text)
        if let cached = state.withLock({ $0.sealedByText[cacheKey] }) { return cached }
        let sealed = sealAnew(text, subject: subject)
        state.withLock { state in
            if state.sealedByText.count >= Self.cacheEntriesLimit { state.sealedByText.removeAll(keepingCapacity: true) }
            state.sealedByText[cacheKey] = sealed
        }
        return sealed
    }

    private func sealAnew(_ text: String, subject: String) -> [UInt8] {
        let (identifier, key) = state.withLock { state -> ([UInt8], SymmetricKey) in
            if let identifier = state.byName[subject], let entry = state.byIdentifier[identifier] { return (identifier, entry.key) }
            let (identifier, key) = makeSubject(counter: state.created)
            state.created += 1
            state.byName[subject] = identifier
            state.byIdentifier[identifier] = Entry(name: subject, key: key)
            state.unsavedSubjects.append(identifier)
            return (identifier, key)
        }
        let plain = Array(text.utf8)
        let mac = HMAC<SHA256>.authenticationCode(for: plain, using: key)
        do {
            let nonce = try AES.GCM.Nonce(data: Array(mac.prefix(12)))
            let box = try AES.GCM.seal(plain, using: key, nonce: nonce, authenticating: identifier)
            return identifier + Array(box.nonce) + Array(box.ciphertext) + Array(box.tag)
        } catch {
            // A 12-byte nonce and a 256-bit key cannot be refused: a failure here is a broken build.
            preconditionFailure("AES-GCM refused a 12-byte nonce and a 256-bit key: \(error)")
        }
    }

    /// Opens sealed bytes; nil when the subject's key is gone (erased) or the bytes do not open.
    func open(_ sealed: ArraySlice<UInt8>) -> String? {
        let bytes = SealedBytes(bytes: Array(sealed))
        if let cached = state.withLock({ $0.textBySealed[bytes] }) { return cached }
        guard let text = openAnew(sealed) else { return nil }
        state.withLock { state in
            if state.textBySealed.count >= Self.cacheEntriesLimit { state.textBySealed.removeAll(keepingCapacity: true) }
            state.textBySealed[bytes] = text
        }
        return text
    }

    /// The reference to `text` sealed under `subject`'s key: its index among the texts sealed
    /// once in the `SUBJECTS` file, recorded there (saved before the append that names it) the
    /// first time it is sealed. Equal texts of one subject have one reference (their sealed
    /// bytes are equal), so events that name them encode alike and group exactly.
    ///
    /// Recent references are kept by subject and text (``PersonalText``), so the subject's
    /// `KIND:ID` name (`payee:…`, a new string) is made only for a text not met lately: an
    /// import names a payee on every row, the same few again and again.
    func reference(_ text: String, subject: PersonalSubject) -> UInt64 {
        let cacheKey = PersonalText(subject: subject, text: text)
        if let cached = state.withLock({ $0.referenceByText[cacheKey] }) { return cached }
        let sealed = seal(text, subject: subject.name)
        return state.withLock { state in
            let reference: UInt64
            let bytes = SealedBytes(bytes: sealed)
            if let known = state.referenceBySealed[bytes] {
                reference = known
            } else {
                reference = UInt64(state.texts.count)
                state.texts.append(sealed)
                state.referenceBySealed[bytes] = reference
            }
            if state.referenceByText.count >= Self.cacheEntriesLimit { state.referenceByText.removeAll(keepingCapacity: true) }
            state.referenceByText[cacheKey] = reference
            return reference
        }
    }

    /// A subject and one of its texts, hashed once when the text names its own subject (a
    /// payee's name in the payee field).
    struct PersonalText: Hashable {
        let subject: PersonalSubject
        let text: String

        func hash(into hasher: inout Hasher) {
            hasher.combine(text)
            switch subject {
            case .owner: hasher.combine(0 as UInt8)
            case .payee(let payee) where payee == text: hasher.combine(1 as UInt8)
            case .payee(let payee): hasher.combine(2 as UInt8); hasher.combine(payee)
            }
        }
    }

    /// A subject and one of its texts, the key of the sealed-bytes and references caches: the
    /// two strings as they are, not joined into a third (an import asks once per row).
    struct SubjectText: Hashable {
        let subject: String
        let text: String
    }

    /// The text a reference names: opened with its subject's key, or, when the key is gone
    /// (erased), the erased marker of its sealed bytes (as the same text written inline reads).
    /// A reference this store does not hold, even after reloading the file, reads as erased and
    /// is remembered as lost (``missingIdentifiers``): the file is older than the log, or gone.
    func text(forReference reference: UInt64) -> String {
        if let cached = state.withLock({ $0.textByReference[reference] }) { return cached }
        guard let sealed = sealedText(forReference: reference) else { return Self.erasedText(reference: reference) }
        // An erased subject's marker is kept too: its key never comes back in this process.
        let text = open(sealed[...]) ?? Self.erasedText(sealed[...])
        state.withLock { state in
            if state.textByReference.count >= Self.cacheEntriesLimit { state.textByReference.removeAll(keepingCapacity: true) }
            state.textByReference[reference] = text
        }
        return text
    }

    /// The sealed bytes of a reference; a miss reloads the file once (a writer in another
    /// process may have sealed the text since), then is remembered as lost.
    func sealedText(forReference reference: UInt64) -> [UInt8]? {
        let (sealed, known) = state.withLock { state in
            (reference < UInt64(state.texts.count) ? state.texts[Int(reference)] : nil, state.missingReferences.contains(reference))
        }
        if let sealed { return sealed }
        if known { return nil }
        let reloaded = reloadedFile()
        return state.withLock { state in
            adopt(reloaded, into: &state)
            guard reference < UInt64(state.texts.count) else {
                state.missingReferences.insert(reference)
                return nil
            }
            return state.texts[Int(reference)]
        }
    }

    /// The file as it is now, read again (nil when there is no file or it cannot be read).
    private func reloadedFile() -> State? {
        path.flatMap { try? Self.readState(path: $0, fileKey: fileKey) }
    }

    /// Takes `reloaded` as the state unless this process changed it since the last save,
    /// keeping what it already knows to be missing.
    private func adopt(_ reloaded: State?, into state: inout State) {
        guard let reloaded, !state.changed else { return }
        let missing = state.missing
        let missingReferences = state.missingReferences
        state = reloaded
        state.missing = missing
        state.missingReferences = missingReferences
    }

    private func openAnew(_ sealed: ArraySlice<UInt8>) -> String? {
        guard sealed.count >= 16 + 12 + 16 else { return nil }
        let identifier = Array(sealed.prefix(16))
        guard let key = key(for: identifier) else { return nil }
        let body = sealed.dropFirst(16)
        guard let nonce = try? AES.GCM.Nonce(data: Array(body.prefix(12))),
              let box = try? AES.GCM.SealedBox(nonce: nonce, ciphertext: body.dropFirst(12).dropLast(16), tag: body.suffix(16)),
              let plain = try? AES.GCM.open(box, using: key, authenticating: identifier)
        else { return nil }
        return String(validating: plain, as: UTF8.self)
    }

    /// The key of an identifier; a miss reloads the file once (a writer in another process may
    /// have made the subject since), then is remembered as erased.
    private func key(for identifier: [UInt8]) -> SymmetricKey? {
        let (key, known) = state.withLock { state in (state.byIdentifier[identifier]?.key, state.missing.contains(identifier)) }
        if let key { return key }
        if known { return nil }
        let reloaded = reloadedFile()
        return state.withLock { state in
            adopt(reloaded, into: &state)
            guard let key = state.byIdentifier[identifier]?.key else {
                state.missing.insert(identifier)
                return nil
            }
            return key
        }
    }

    /// The text an erased field reads as: `[erased 1a2b3c4d]`, the digits from the sealed bytes.
    static func erasedText(_ sealed: ArraySlice<UInt8>) -> String {
        let digest = SHA256.hash(data: Array(sealed))
        return "\(erasedMarker) \(hex(Array(digest.prefix(4))))]"
    }

    /// The text a reference this store does not hold reads as (a lost or older `SUBJECTS`
    /// file, or a reader without subject keys): the erased marker, its digits from the reference.
    static func erasedText(reference: UInt64) -> String {
        var material = Array("tally text reference".utf8)
        withUnsafeBytes(of: reference.littleEndian) { material += $0 }
        return erasedText(material[...])
    }

    private func makeSubject(counter: UInt64) -> ([UInt8], SymmetricKey) {
        guard let seed else {
            let identifier = SymmetricKey(size: .bits128).withUnsafeBytes { Array($0) }
            return (identifier, SymmetricKey(size: .bits256))
        }
        var material = Array("tally seeded subject".utf8)
        withUnsafeBytes(of: seed.littleEndian) { material += $0 }
        withUnsafeBytes(of: counter.littleEndian) { material += $0 }
        let identifier = Array(SHA256.hash(data: material + [0])).prefix(16)
        let key = SymmetricKey(data: Array(SHA256.hash(data: material + [1])))
        return (Array(identifier), key)
    }

    // MARK: Erasure

    /// Destroys the key of the subject named `name` (and its name), in memory; ``save()`` makes
    /// it durable.
    ///
    /// - Returns: the subject's identifier.
    /// - Throws: ``StoreError`` `notFound` when no subject of that name has a key.
    @discardableResult
    func erase(_ name: String) throws -> [UInt8] {
        try state.withLock { state in
            guard let identifier = state.byName[name] else {
                throw StoreError(.notFound, Self.unknownMessage(name, known: state.byName.keys.sorted()))
            }
            state.byName[name] = nil
            state.byIdentifier[identifier] = nil
            state.missing.insert(identifier)
            state.sealedByText.removeAll()
            state.textBySealed.removeAll()
            state.referenceByText.removeAll()
            state.textByReference.removeAll()
            state.rewrites += 1
            erasureCount.add(1, ordering: .releasing)
            return identifier
        }
    }

    static func unknownMessage(_ name: String, known: [String]) -> String {
        let shown = known.prefix(5).joined(separator: ", ")
        return "no subject named '\(name)' has a key in this store (already erased, or never recorded); "
            + "`tally erase --list` shows the \(known.count) it has\(known.isEmpty ? "" : ", e.g. \(shown)"); nothing was changed"
    }

    // MARK: The file

    /// The first two file forms: one JSON object (``SubjectKeyFile`` describes the current one).
    private struct FileForm: Codable {
        struct Item: Codable {
            var id: String
            var name: String
            var key: String
            /// ``SubjectKeys/check(identifier:key:)`` of the identifier and key: one changed
            /// character of a key is damage, never an erasure. Absent in files written before it.
            var check: String?
        }
        var format: String
        var created: UInt64?
        var subjects: [Item]?
        /// The second form's texts sealed once (base64 of `identifier · nonce · ciphertext ·
        /// tag`), a reference's text at its index; erased subjects' included (their key is gone).
        var texts: [String]?
        /// ``SubjectKeys/check(texts:)`` of `texts`: a changed byte is damage, never an erasure.
        var textsCheck: String?
        /// An encrypted store's: the plain form's JSON, sealed (base64 of nonce · ciphertext · tag).
        var sealed: String?
    }

    /// Loads the keys of the store at `root` (none yet when it has no `SUBJECTS` file).
    ///
    /// - Parameters:
    ///   - root: the store's directory.
    ///   - logKeys: an encrypted store's unwrapped data keys (the file is sealed under a key derived
    ///     from the first); nil for a plain store.
    ///   - seed: tests and the demo only: reproducible identifiers and keys for new subjects.
    /// - Throws: ``StoreError`` `badKey` for a damaged or truncated file, or one sealed under other keys.
    public static func load(root: String, logKeys: LogKeys?, seed: UInt64? = nil) throws -> SubjectKeys {
        let path = StoreLayout(root: root).subjectKeyFilePath
        let fileKey = logKeys.map(fileKey(from:))
        if fileKey == nil, try isSealedFile(path) {
            // A sealed file without the store's keys: the log refuses to open too (keyRequired, the
            // clearer error); keys kept in memory only, so nothing can ever overwrite the file.
            return SubjectKeys(path: nil, fileKey: nil, seed: seed)
        }
        let state = try readState(path: path, fileKey: fileKey) ?? State()
        return SubjectKeys(path: path, fileKey: fileKey, seed: seed, state: state)
    }

    /// Reads the file again for a writer that has just taken the store's lock, and cuts a
    /// record a crash tore at its end (the log's torn frame is cut at open alike). All saves
    /// happen under that lock, so the file is now the newest set: keys loaded before the lock
    /// (another process may have added subjects, or erased one, in between) are replaced by
    /// it, with the caches, unless this set holds subjects not saved yet (a store being
    /// created), which the next save writes.
    ///
    /// - Throws: ``StoreError`` for a damaged file, as ``load(root:logKeys:seed:)``; `io` when
    ///   the torn record cannot be cut.
    func reloadForWriting() throws {
        guard let path, let reloaded = try Self.readState(path: path, fileKey: fileKey) else { return }
        let cut = state.withLock { state -> Int? in
            guard !state.changed else { return nil }
            state = reloaded
            return reloaded.tornBytes > 0 ? reloaded.fileLength : nil
        }
        guard let cut else { return }
        try SubjectKeyFile.cut(path, at: cut)
        state.withLock { $0.tornBytes = 0 }
    }

    /// A new set that will be saved at `root` (a creation writes it with the store): empty, or
    /// for a restore the keys an export carried beside its events (`FILE.subjects`), so that
    /// re-sealing the same text under the same key gives the same bytes and the same digest.
    ///
    /// Keys carried in the first file form (an export by a version that wrote every text inline)
    /// keep writing text inline, so that the restored log has the exported one's bytes.
    static func new(root: String, logKeys: LogKeys?, seed: UInt64?, carrying carried: String? = nil) throws -> SubjectKeys {
        var state = State()
        var writesReferences = true
        if let carried, let loaded = try readState(path: carried, fileKey: nil) {
            state = loaded
            state.fileLength = nil
            state.tornBytes = 0
            state.rewrites += 1
            writesReferences = try readFormat(path: carried) != firstFormatName
        }
        return SubjectKeys(
            path: StoreLayout(root: root).subjectKeyFilePath, fileKey: logKeys.map(fileKey(from:)), seed: seed, state: state,
            writesReferences: writesReferences)
    }

    private static func readFormat(path: String) throws -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return SubjectKeyFile.format(of: Array(data))
    }

    /// The same keys and file, writing personal text inline as versions before references did:
    /// for tests of logs those versions wrote.
    func inlineForm() -> SubjectKeys {
        SubjectKeys(path: path, fileKey: fileKey, seed: seed, state: state.withLock { $0 }, writesReferences: false)
    }

    /// Writes the live subjects' keys, unsealed, to `path` (owner-only, atomic): an export's
    /// companion, as private as the export itself (which holds their plaintext).
    func writeCarried(to path: String) throws {
        try StoreKeyFile(path: path).save(try fileBytes(sealed: false))
    }

    private static func fileKey(from logKeys: LogKeys) -> SymmetricKey {
        let first = logKeys.identifiers.min() ?? 1
        // The first data key is never removed (`key new-data-key` adds), so the file opens under
        // every later key set of the store.
        let data = logKeys.key(first) ?? SymmetricKey(size: .bits256)
        return HKDF<SHA256>.deriveKey(inputKeyMaterial: data, info: Array("tally subject keys 1".utf8), outputByteCount: 32)
    }

    private static func isSealedFile(_ path: String) throws -> Bool {
        guard let data = FileManager.default.contents(atPath: path) else { return false }
        return SubjectKeyFile.isSealed(Array(data))
    }

    private static func readState(path: String, fileKey: SymmetricKey?) throws -> State? {
        guard let data = FileManager.default.contents(atPath: path) else {
            if FileManager.default.fileExists(atPath: path) { throw StoreError(.io, "cannot read the subject key file '\(path)'") }
            return nil
        }
        let bytes = Array(data)
        guard SubjectKeyFile.format(of: bytes) == SubjectKeyFile.formatName else {
            return try readWholeForm(data, path: path, fileKey: fileKey)
        }
        let contents = try SubjectKeyFile.read(bytes, path: path, fileKey: fileKey)
        var state = State()
        state.created = contents.created
        for subject in contents.subjects {
            state.byIdentifier[subject.identifier] = Entry(name: subject.name, key: subject.key)
            state.byName[subject.name] = subject.identifier
        }
        for text in contents.texts {
            state.referenceBySealed[SealedBytes(bytes: text)] = UInt64(state.texts.count)
            state.texts.append(text)
        }
        state.savedTexts = state.texts.count
        state.fileLength = contents.length
        state.tornBytes = bytes.count - contents.length
        return state
    }

    /// Reads a file of the first two forms (one JSON object); the next save writes it anew in
    /// the current form.
    private static func readWholeForm(_ data: Data, path: String, fileKey: SymmetricKey?) throws -> State {
        let damaged = StoreError(.badKey, "the subject key file '\(path)' is damaged or truncated; restore it from a backup (without it no personal text of the store opens)")
        guard var form = try? JSONDecoder().decode(FileForm.self, from: data), SubjectKeyFile.wholeFormatNames.contains(form.format) else {
            throw damaged
        }
        if let sealed = form.sealed {
            guard let fileKey else {
                throw StoreError(.badKey, "the subject key file '\(path)' is sealed but the store's keys were not given")
            }
            guard let bytes = Data(base64Encoded: sealed), bytes.count >= 28,
                  let box = try? AES.GCM.SealedBox(combined: bytes), let plain = try? AES.GCM.open(box, using: fileKey),
                  let inner = try? JSONDecoder().decode(FileForm.self, from: plain)
            else { throw StoreError(.badKey, "the subject key file '\(path)' does not open with the store's keys (damaged, or of another store); restore it from a backup") }
            form = inner
        }
        var state = State()
        state.created = form.created ?? 0
        for item in form.subjects ?? [] {
            guard let identifier = unhex(item.id), identifier.count == 16,
                  let key = Data(base64Encoded: item.key), key.count == 32 else { throw damaged }
            if let check = item.check, check != Self.check(identifier: identifier, key: Array(key)) {
                throw StoreError(.keyFileDamaged, "the subject key file '\(path)' is damaged: the key of subject \(item.id) does not match its checksum (it would read as erased); restore the file from a backup")
            }
            state.byIdentifier[identifier] = Entry(name: item.name, key: SymmetricKey(data: key))
            state.byName[item.name] = identifier
        }
        for text in form.texts ?? [] {
            guard let sealed = Data(base64Encoded: text), sealed.count >= PersonalTextTag.overheadBytes else { throw damaged }
            let bytes = Array(sealed)
            state.referenceBySealed[SealedBytes(bytes: bytes)] = UInt64(state.texts.count)
            state.texts.append(bytes)
        }
        if form.texts != nil || form.textsCheck != nil, form.textsCheck != Self.check(texts: state.texts) {
            throw StoreError(.keyFileDamaged, "the subject key file '\(path)' is damaged: its sealed texts do not match their checksum (they would read as erased); restore the file from a backup")
        }
        state.savedTexts = state.texts.count
        return state
    }

    /// The checksum a key is saved with: the first 8 bytes of SHA-256 over a label, the subject's
    /// identifier and its key, in hex. It reveals nothing of the key.
    static func check(identifier: [UInt8], key: [UInt8]) -> String {
        hex(Array(SHA256.hash(data: Array("tally subject key check 1".utf8) + identifier + key).prefix(8)))
    }

    /// The checksum the sealed texts are saved with: the first 8 bytes of SHA-256 over a label
    /// and each text, length first, in hex.
    static func check(texts: [[UInt8]]) -> String {
        var hash = SHA256()
        hash.update(data: Array("tally subject texts check 1".utf8))
        for text in texts {
            withUnsafeBytes(of: UInt64(text.count).littleEndian) { hash.update(bufferPointer: $0) }
            hash.update(data: text)
        }
        return hex(Array(hash.finalize().prefix(8)))
    }

    /// The identifiers (hex) of subjects whose sealed text was read and whose key this store
    /// does not hold: erased, or lost (a deleted or damaged `SUBJECTS`); `verify` tells them
    /// apart by the log's `erasure_recorded` events. A reference whose text the file does not
    /// hold (always a loss: an erasure keeps the sealed text) is named `text#N`.
    /// Lost keys and texts (``missingIdentifiers``) named for a message: `the personal text of
    /// 2 subjects (…)`, `3 sealed texts (text#0, …)`, or both joined by "and".
    static func lostDescription(_ lost: [String]) -> String {
        func shown(_ items: [String]) -> String { items.prefix(20).joined(separator: ", ") + (items.count > 20 ? ", …" : "") }
        let texts = lost.filter { $0.hasPrefix("text#") }
        let subjects = lost.filter { !$0.hasPrefix("text#") }
        var parts: [String] = []
        if !subjects.isEmpty { parts.append("the personal text of \(subjects.count) subject\(subjects.count == 1 ? "" : "s") (\(shown(subjects)))") }
        if !texts.isEmpty { parts.append("\(texts.count) sealed text\(texts.count == 1 ? "" : "s") (\(shown(texts)))") }
        return parts.joined(separator: " and ")
    }

    var missingIdentifiers: [String] {
        state.withLock { $0.missing.map(Self.hex).sorted() + $0.missingReferences.sorted().map { "text#\($0)" } }
    }

    /// Whether the store's subject key file is on disk (keys kept in memory only: true). Every
    /// store made by this version has one from its creation; a store without it has lost it,
    /// or was made before subject keys and holds no sealed text (``Ledger/subjectsWithoutKeys()`` tells).
    public var fileExists: Bool {
        path.map { FileManager.default.fileExists(atPath: $0) } ?? true
    }

    /// The whole file's bytes as they are now.
    func fileBytes(sealed: Bool = true) throws -> [UInt8] {
        let (created, subjects, texts) = state.withLock { state in (state.created, Self.liveSubjects(state), state.texts) }
        return try SubjectKeyFile.whole(created: created, subjects: subjects, texts: texts[...], fileKey: sealed ? fileKey : nil)
    }

    /// Every subject that has a key, by identifier.
    private static func liveSubjects(_ state: State) -> [SubjectKeyFile.SubjectRecord] {
        state.byIdentifier.map { SubjectKeyFile.SubjectRecord(identifier: $0.key, name: $0.value.name, key: $0.value.key) }
            .sorted { $0.identifier.lexicographicallyPrecedes($1.identifier) }
    }

    /// Saves what the keys hold and the file does not, before any append that may name it:
    /// the records of new subjects and texts appended to the file and synced (`fdatasync`), or,
    /// after an erasure (and for a file of an earlier form), the whole file written anew
    /// (owner-only, synced, renamed over the old one, the directory synced). A crash leaves
    /// the old records with a torn one after them, cut at the next open, or the old file or
    /// the new one.
    ///
    /// Called before every append that may name a new subject, so no sealed field ever reaches
    /// the log before its key is durable.
    /// - Returns: whether the file was written (false when nothing changed).
    /// - Throws: ``StoreError`` `io` naming the call; the file then holds what it held.
    @discardableResult
    public func save() throws -> Bool {
        try save(publishing: nil)
    }

    /// What one save writes, taken under the state's lock.
    private struct Pending {
        var whole: Bool
        var created: UInt64
        var subjects: [SubjectKeyFile.SubjectRecord]
        var texts: ArraySlice<[UInt8]>
        /// How many of the state's unsaved subjects and texts this save covers.
        var unsavedSubjects: Int
        var textsEnd: Int
        var rewrites: UInt64
        var length: Int
    }

    /// ``save()``, with what is written handed to `publish` before the file is written (a
    /// store whose log is on PostgreSQL puts it in the database first: a node that copies the
    /// database's keys over its file then never takes one back).
    @discardableResult
    func save(publishing publish: ((SubjectKeyFile.Write) throws -> Void)?) throws -> Bool {
        guard let path else { return false }
        return try saving.withLock { _ in
            let pending = state.withLock { state -> Pending? in
                guard state.changed else { return nil }
                let whole = state.fileLength == nil || state.rewrites > 0
                let subjects = whole
                    ? Self.liveSubjects(state)
                    : state.unsavedSubjects.compactMap { identifier in
                        state.byIdentifier[identifier].map { SubjectKeyFile.SubjectRecord(identifier: identifier, name: $0.name, key: $0.key) }
                    }
                return Pending(
                    whole: whole, created: state.created, subjects: subjects, texts: state.texts[(whole ? 0 : state.savedTexts)...],
                    unsavedSubjects: state.unsavedSubjects.count, textsEnd: state.texts.count, rewrites: state.rewrites,
                    length: state.fileLength ?? 0)
            }
            guard let pending else { return false }
            let length: Int
            if pending.whole {
                let bytes = try SubjectKeyFile.whole(created: pending.created, subjects: pending.subjects, texts: pending.texts, fileKey: fileKey)
                try publish?(.whole(bytes))
                try StoreKeyFile(path: path).save(bytes)
                length = bytes.count
            } else {
                let records = try SubjectKeyFile.records(subjects: pending.subjects, texts: pending.texts, fileKey: fileKey)
                try publish?(.append(records, after: pending.length, path: path))
                try SubjectKeyFile.append(records, after: pending.length, to: path)
                length = pending.length + records.count
            }
            // What was made while the file was written stays unsaved, for the next save.
            state.withLock { state in
                state.unsavedSubjects.removeFirst(min(pending.unsavedSubjects, state.unsavedSubjects.count))
                state.savedTexts = max(state.savedTexts, pending.textsEnd)
                state.rewrites -= min(pending.rewrites, state.rewrites)
                state.fileLength = length
                state.tornBytes = 0
            }
            return true
        }
    }

    /// Marks the keys saved: a creation wrote ``fileBytes(sealed:)``, `length` bytes, with the store.
    func markSaved(length: Int) {
        state.withLock { state in
            state.unsavedSubjects = []
            state.savedTexts = state.texts.count
            state.rewrites = 0
            state.fileLength = length
            state.tornBytes = 0
        }
    }

    static func hex(_ bytes: [UInt8]) -> String { hexString(bytes) }

    static func unhex(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var result: [UInt8] = []
        var index = 0
        while index < utf8.count {
            guard let high = Self.nibble(utf8[index]), let low = Self.nibble(utf8[index + 1]) else { return nil }
            result.append(high << 4 | low)
            index += 2
        }
        return result
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}

/// Sealed bytes as a dictionary key, hashed in one call: an array of bytes hashes element by
/// element, which cost a decode more than the lookup saved (every sealed payee is looked up).
struct SealedBytes: Hashable {
    let bytes: [UInt8]

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
