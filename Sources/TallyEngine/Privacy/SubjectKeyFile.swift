internal import Crypto
internal import Foundation
internal import TallyLog

/// The `SUBJECTS` file's form, `tally-subjects-3`: one line per record, appended.
///
/// ```
/// {"created":0,"format":"tally-subjects-3"}                      the header
/// {"check":"…","id":"…","key":"…","name":"payee:Tesco"}          a subject and its key
/// {"check":"…","text":"…"}                                       a text sealed once (its reference: its rank among texts)
/// ```
///
/// A save appends the records of the subjects and texts made since the last one and syncs
/// them (`fdatasync`) before the append that names them: its cost follows what is new, not
/// what the file holds. A crash mid-append leaves a torn last line (no line end), which
/// readers skip and the next writer cuts at open, as the log cuts a torn frame; a complete
/// line that does not read, or whose checksum does not match, is damage, refused by name. An
/// erasure (and a new store, and a file of an earlier form) writes the whole file anew
/// (owner-only, synced, renamed over the old one), without the erased key.
///
/// On an encrypted store every line is `{"sealed":"…"}` (the header with `"format"` too): the
/// plain line, sealed with AES-256-GCM under the file key, base64.
enum SubjectKeyFile {
    /// The form this version writes.
    static let formatName = "tally-subjects-3"
    /// The earlier forms, one JSON object each (keys, then keys and texts), still read.
    static let wholeFormatNames = ["tally-subjects-1", "tally-subjects-2"]

    /// One line, plain (or, for an encrypted store, its `sealed` form).
    struct Line: Codable {
        var format: String?
        var created: UInt64?
        var id: String?
        var name: String?
        var key: String?
        var text: String?
        /// A subject's: ``SubjectKeyFile/check(identifier:key:name:)``; a text's: ``check(text:)``.
        var check: String?
        var sealed: String?
    }

    /// What a save writes: the whole file, or records appended after the first `after` bytes
    /// of the file at `path`.
    enum Write {
        case whole([UInt8])
        case append([UInt8], after: Int, path: String)

        /// The whole file once written (for a copy that cannot take the records alone).
        func wholeBytes() throws -> [UInt8] {
            switch self {
            case .whole(let bytes): return bytes
            case .append(let records, let length, let path):
                guard let data = FileManager.default.contents(atPath: path), data.count >= length else {
                    throw StoreError(.io, "cannot read the subject key file '\(path)'")
                }
                return Array(data.prefix(length)) + records
            }
        }
    }

    /// A subject's record: identifier, key and name.
    struct SubjectRecord {
        var identifier: [UInt8]
        var name: String
        var key: SymmetricKey
    }

    // MARK: Writing

    /// The whole file: the header, then every live subject's record and every text's.
    static func whole(created: UInt64, subjects: [SubjectRecord], texts: ArraySlice<[UInt8]>, fileKey: SymmetricKey?) throws -> [UInt8] {
        // The header's counter plus one per subject record is the set's counter when read back.
        // A file of an earlier form may count fewer subjects than it holds (written before the count).
        let header = Line(format: formatName, created: created - min(created, UInt64(subjects.count)))
        let encoder = lineEncoder()
        var bytes: [UInt8]
        if let fileKey {
            let inner = Line(created: header.created)
            bytes = try encode(Line(format: formatName, sealed: try seal(try encode(inner, encoder), fileKey)), encoder)
        } else {
            bytes = try encode(header, encoder)
        }
        bytes += try records(subjects: subjects, texts: texts, fileKey: fileKey)
        return bytes
    }

    /// The records of `subjects` and `texts`, one line each, in that order.
    static func records(subjects: [SubjectRecord], texts: ArraySlice<[UInt8]>, fileKey: SymmetricKey?) throws -> [UInt8] {
        let encoder = lineEncoder()
        var bytes: [UInt8] = []
        for subject in subjects {
            let key = subject.key.withUnsafeBytes { Array($0) }
            bytes += try line(
                Line(id: SubjectKeys.hex(subject.identifier), name: subject.name, key: Data(key).base64EncodedString(),
                     check: check(identifier: subject.identifier, key: key, name: subject.name)), fileKey, encoder)
        }
        for text in texts {
            bytes += try line(Line(text: Data(text).base64EncodedString(), check: check(text: text)), fileKey, encoder)
        }
        return bytes
    }

    private static func line(_ line: Line, _ fileKey: SymmetricKey?, _ encoder: JSONEncoder) throws -> [UInt8] {
        guard let fileKey else { return try encode(line, encoder) }
        return try encode(Line(sealed: try seal(try encode(line, encoder), fileKey)), encoder)
    }

    /// One encoder for the lines of one write (keys sorted: the same record, the same line).
    private static func lineEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    private static func encode(_ line: Line, _ encoder: JSONEncoder) throws -> [UInt8] {
        Array(try encoder.encode(line)) + [0x0A]
    }

    private static func seal(_ plain: [UInt8], _ fileKey: SymmetricKey) throws -> String {
        // Without its line end: the sealed line carries its own.
        let box = try AES.GCM.seal(plain.dropLast(), using: fileKey)
        guard let combined = box.combined else { preconditionFailure("AES-GCM with a 12-byte nonce has a combined form") }
        return combined.base64EncodedString()
    }

    /// Appends `records` after the file's first `length` bytes and syncs them: a torn tail a
    /// crash left past `length` is cut first.
    /// - Throws: ``StoreError`` `io` naming the call, also when complete records follow
    ///   `length` (another process wrote the file without the store's lock) or the file got shorter; nothing is appended then.
    static func append(_ records: [UInt8], after length: Int, to path: String) throws {
        do {
            let file = try PosixFileSystem().open(path, mode: .readWrite)
            defer { file.close() }
            let size = try file.size()
            if size > Int64(length) {
                var beyond = [UInt8](repeating: 0, count: Int(size) - length)
                let read = try beyond.withUnsafeMutableBytes { try file.read(into: $0, at: Int64(length)) }
                guard !beyond.prefix(read).contains(0x0A) else {
                    throw StoreError(.io, "the subject key file '\(path)' holds records this process did not read (written without the store's lock); nothing was appended, open the store again")
                }
                try file.truncate(to: Int64(length))
            } else if size < Int64(length) {
                throw StoreError(.io, "the subject key file '\(path)' is shorter than when it was read (replaced by another process); nothing was appended, open the store again")
            }
            do {
                try file.write(records, at: Int64(length))
                try file.dataSync()
            } catch {
                // Whatever part was written names nothing yet: gone, so the next save appends
                // where this one began (should the cut fail too, the next open cuts it).
                try? file.truncate(to: Int64(length))
                throw error
            }
        } catch let error as LogError {
            throw StoreError(.io, "cannot append to the subject key file '\(path)': \(error.message)")
        }
    }

    /// Cuts the file at `length` (a torn record a crash left after it), synced.
    static func cut(_ path: String, at length: Int) throws {
        do {
            let file = try PosixFileSystem().open(path, mode: .readWrite)
            defer { file.close() }
            try file.truncate(to: Int64(length))
            try file.dataSync()
        } catch let error as LogError {
            throw StoreError(.io, "cannot cut the torn record at the end of the subject key file '\(path)': \(error.message)")
        }
    }

    // MARK: Reading

    /// The form a file's first line names (nil when it names none).
    static func format(of data: [UInt8]) -> String? {
        header(of: data)?.format
    }

    /// Whether the file is sealed (an encrypted store's).
    static func isSealed(_ data: [UInt8]) -> Bool {
        header(of: data)?.sealed != nil
    }

    private static func header(of data: [UInt8]) -> Line? {
        let end = data.firstIndex(of: 0x0A) ?? data.endIndex
        return try? JSONDecoder().decode(Line.self, from: Data(data[..<end]))
    }

    /// What a file of this form holds.
    struct Contents {
        var created: UInt64
        var subjects: [SubjectRecord]
        var texts: [[UInt8]]
        /// Where its complete lines end; past it, a torn record.
        var length: Int
    }

    /// Reads a file of this form.
    /// - Throws: ``StoreError`` `badKey` for a file that does not read (or a sealed one without
    ///   the key), `keyFileDamaged` for a record whose checksum does not match.
    static func read(_ data: [UInt8], path: String, fileKey: SymmetricKey?) throws -> Contents {
        let damaged = StoreError(.badKey, "the subject key file '\(path)' is damaged or truncated; restore it from a backup (without it no personal text of the store opens)")
        let length = (data.lastIndex(of: 0x0A) ?? -1) + 1
        var lines = data[..<length].split(separator: 0x0A, omittingEmptySubsequences: false).dropLast()
        guard let first = lines.popFirst() else { throw damaged }
        let decoder = JSONDecoder()
        func open(_ line: Line) throws -> Line {
            guard let sealed = line.sealed else { return line }
            guard let fileKey else {
                throw StoreError(.badKey, "the subject key file '\(path)' is sealed but the store's keys were not given")
            }
            guard let bytes = Data(base64Encoded: sealed), bytes.count >= 28,
                  let box = try? AES.GCM.SealedBox(combined: bytes), let plain = try? AES.GCM.open(box, using: fileKey),
                  let inner = try? decoder.decode(Line.self, from: plain)
            else { throw StoreError(.badKey, "the subject key file '\(path)' does not open with the store's keys (damaged, or of another store); restore it from a backup") }
            return inner
        }
        guard let header = try? decoder.decode(Line.self, from: Data(first)), header.format == formatName else { throw damaged }
        var contents = Contents(created: try open(header).created ?? 0, subjects: [], texts: [], length: length)
        for bytes in lines {
            guard let line = try? decoder.decode(Line.self, from: Data(bytes)) else { throw damaged }
            let record = try open(line)
            if let text = record.text {
                guard let sealed = Data(base64Encoded: text), sealed.count >= PersonalTextTag.overheadBytes else { throw damaged }
                let bytes = Array(sealed)
                guard record.check == check(text: bytes) else {
                    throw StoreError(.keyFileDamaged, "the subject key file '\(path)' is damaged: one of its sealed texts (text#\(contents.texts.count)) does not match its checksum (it would read as erased); restore the file from a backup")
                }
                contents.texts.append(bytes)
            } else {
                guard let id = record.id, let name = record.name, let identifier = SubjectKeys.unhex(id), identifier.count == 16,
                      let keyText = record.key, let key = Data(base64Encoded: keyText), key.count == 32 else { throw damaged }
                guard record.check == check(identifier: identifier, key: Array(key), name: name) else {
                    throw StoreError(.keyFileDamaged, "the subject key file '\(path)' is damaged: the key of subject \(id) does not match its checksum (it would read as erased); restore the file from a backup")
                }
                contents.subjects.append(SubjectRecord(identifier: identifier, name: name, key: SymmetricKey(data: key)))
                contents.created += 1
            }
        }
        return contents
    }

    // MARK: Checksums

    /// A subject record's checksum: the first 8 bytes of SHA-256 over a label, the identifier,
    /// the key and the name, in hex. It reveals nothing of the key.
    static func check(identifier: [UInt8], key: [UInt8], name: String) -> String {
        SubjectKeys.hex(Array(SHA256.hash(data: Array("tally subject record check 3".utf8) + identifier + key + Array(name.utf8)).prefix(8)))
    }

    /// A text record's checksum: the first 8 bytes of SHA-256 over a label and the sealed text, in hex.
    static func check(text: [UInt8]) -> String {
        SubjectKeys.hex(Array(SHA256.hash(data: Array("tally subject text check 3".utf8) + text).prefix(8)))
    }
}
