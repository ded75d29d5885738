import Crypto
import TallyLog

// Content keys as the log holds them.
//
// A journal row without an external id is keyed by its content: `journal:row:~:<YYYYMMDD>
// <16 characters>:<n>`, the row's date, the first 96 bits of the digest of its fields
// (``JournalCSV/RowKeys/contentDigest(of:)``) and its count among identical rows of that day.
// The digest's 16 base64url characters are random: LZ4 cannot compress them, and in a log of
// a million such rows the key was 20 of the 30 bytes an event took on disk. Yet all but the
// count is a function of the event the key is on: its date is the event's effective day, its
// digest hashes the event's account, counter account, amount, currency, and its payee and
// category as sealed (the bytes `SUBJECTS` holds for the payload's references).
//
// So the log holds such a key in a short form, `␁<d><n>`: the byte 0x01, one character for
// the row's date against the effective instant's UTC day (`-` the day before, `0` the same,
// `+` the day after: the start of a day in any time zone lies on its own UTC date or the one
// before), and the count `n` in decimal. Reading the log expands it again from the event
// (``EventCatalog/decode(_:)``), so nothing above the log's bytes sees the short form. A key
// is written short only when expanding the short form gives it back exactly (checked when
// the record is made), so a key the event does not derive (another store's, a hand-written
// one, a payload that changed) is kept whole; and since no key given to the engine may hold
// a control character, no caller's key can be taken for a short one.
//
// The expansion reads the sealed bytes of a reference from `SUBJECTS`, which keeps them after
// an erasure (no key opens them any more): an erased payee's rows keep their keys. Where
// `SUBJECTS` lacks a reference (damage `tally verify` reports as lost keys), the reference's
// number stands in for its bytes, so the keys of different payees stay different.

extension JournalCSV {
    /// Dated content keys in the log's short form (see the top of this file).
    enum LoggedContentKey {
        /// The first byte of a key in short form: a control character, which no key an event
        /// is given may hold (``EventCatalog/record(for:)`` refuses them).
        static let marker: UInt8 = 0x01
        private static let prefixBytes = Array(JournalCSV.datedContentKeyPrefix.utf8)
        /// The prefix, eight digits of date and sixteen characters of digest, then `:`.
        private static let countOffset = prefixBytes.count + 8 + 16 + 1

        /// Whether a logged key is in short form.
        @inline(__always)
        static func isShort(_ key: String) -> Bool { key.utf8.first == marker }

        /// The short form of `key`, when it is a dated content key that the event it is on
        /// derives exactly (a current `journal_entry_posted` without an external id, its
        /// date within a day of the effective instant's UTC date); nil otherwise.
        ///
        /// `vouchedCount` (not 0): the key's count, the import having made the key from the
        /// row the payload was encoded from (``NewEvent/vouchedContentKeyCount``): the
        /// digest is not computed again (it was 40 % of the key's cost on the import's reading
        /// thread), except in a debug build, which checks that it derives all the same.
        static func short(
            of key: String, kind: UInt32, version: UInt16, effectiveAt: Int64, payload: [UInt8], subjectKeys: SubjectKeys?,
            vouchedCount: UInt32 = 0
        ) -> String? {
            guard kind == JournalEntryPosted.eventType.code, version == JournalEntryPosted.eventType.version else { return nil }
            if vouchedCount != 0 {
                var text = key
                let short = text.withUTF8 { text -> String? in
                    guard text.count > countOffset, text.starts(with: prefixBytes),
                          let date = date(text[prefixBytes.count..<(prefixBytes.count + 8)]) else { return nil }
                    let offset = date.daysSinceEpoch - Int(RollupBuckets.day(effectiveAt))
                    guard (-1...1).contains(offset) else { return nil }
                    var short: [UInt8] = [marker, offsetCharacter(offset)]
                    RowKeys.appendDecimal(UInt64(vouchedCount), to: &short)
                    return String(decoding: short, as: UTF8.self)
                }
                assert(short == Self.short(of: key, kind: kind, version: version, effectiveAt: effectiveAt, payload: payload, subjectKeys: subjectKeys),
                       "a vouched content key \(key) does not derive from its event")
                return short
            }
            var key = key
            return key.withUTF8 { text -> String? in
                guard text.count > countOffset, text.count <= countOffset + 10,
                      text.starts(with: prefixBytes), text[countOffset - 1] == UInt8(ascii: ":"),
                      let count = canonicalCount(text[countOffset...]),
                      let date = date(text[prefixBytes.count..<(prefixBytes.count + 8)])
                else { return nil }
                let offset = date.daysSinceEpoch - Int(RollupBuckets.day(effectiveAt))
                guard (-1...1).contains(offset), let fields = Fields(payload: payload, subjectKeys: subjectKeys) else { return nil }
                var buffer: [UInt8] = []
                buffer.reserveCapacity(256)
                let digest = RowKeys.Digest(fields.digest(on: date, buffer: &buffer))
                buffer.removeAll(keepingCapacity: true)
                digest.appendBase64URL(to: &buffer, characters: 16)
                guard buffer.elementsEqual(text[(prefixBytes.count + 8)..<(countOffset - 1)]) else { return nil }
                var short: [UInt8] = [marker, offsetCharacter(offset)]
                RowKeys.appendDecimal(UInt64(count), to: &short)
                return String(decoding: short, as: UTF8.self)
            }
        }

        /// The whole key a short form stands for, derived from its event (`body`, its payload
        /// decoded: the accounts and amount are taken from it, the personal fields' bytes
        /// from the payload). `texts`, a read's shared state, keeps sealed bytes by reference
        /// and the scratch buffer the key is made in.
        ///
        /// - Throws: ``EventCodingError`` when the short form is malformed or its event cannot
        ///   derive a content key (another type or version, an external id, a payload that
        ///   does not read): the log is damaged.
        static func expanded(
            _ short: String, of logged: LoggedEvent, body: EventBody? = nil, subjectKeys: SubjectKeys?, texts: DecodedTexts? = nil
        ) throws -> String {
            func refused(_ reason: String) -> EventCodingError {
                EventCodingError(.invalidValue, "event \(logged.sequence): its idempotency key is held in short form, but \(reason)")
            }
            guard logged.kind == JournalEntryPosted.eventType.code, logged.version == JournalEntryPosted.eventType.version else {
                throw refused("only a \(JournalEntryPosted.eventType.name) v\(JournalEntryPosted.eventType.version) derives one")
            }
            var text = short
            let parsed = text.withUTF8 { bytes -> (offset: Int, count: UInt32)? in
                guard bytes.count >= 3, let offset = offset(of: bytes[1]), let count = canonicalCount(bytes[2...]) else { return nil }
                return (offset, count)
            }
            guard let (offset, count) = parsed else { throw refused("the short form is malformed") }
            let date = LocalDate(daysSinceEpoch: Int(RollupBuckets.day(logged.effectiveAt)) + offset)
            var buffer = texts?.contentKeyScratch ?? []
            texts?.contentKeyScratch = []
            defer { texts?.contentKeyScratch = buffer }
            let digest: SHA256.Digest
            if let entry = body?.payload as? JournalEntryPosted {
                let payload = logged.payload
                guard let parts = payload.withUnsafeBufferPointer(Fields.personalParts),
                      let payee = Fields.bytes(of: parts.payee, in: payload, subjectKeys: subjectKeys, texts: texts),
                      let category = Fields.bytes(of: parts.category, in: payload, subjectKeys: subjectKeys, texts: texts)
                else {
                    throw refused("its payload derives no content key (an external id, or fields that do not read)")
                }
                digest = RowKeys.contentDigest(
                    date: date, account: entry.account.utf8, counterAccount: entry.counterAccount.utf8, amount: entry.amount,
                    payee: payee, category: category, buffer: &buffer)
            } else {
                guard let fields = Fields(payload: logged.payload, subjectKeys: subjectKeys) else {
                    throw refused("its payload derives no content key (an external id, or fields that do not read)")
                }
                digest = fields.digest(on: date, buffer: &buffer)
            }
            buffer.removeAll(keepingCapacity: true)
            buffer.append(contentsOf: prefixBytes)
            let day = date.components
            RowKeys.appendDigits(day.year, width: 4, to: &buffer)
            RowKeys.appendDigits(day.month, width: 2, to: &buffer)
            RowKeys.appendDigits(day.day, width: 2, to: &buffer)
            RowKeys.Digest(digest).appendBase64URL(to: &buffer, characters: 16)
            buffer.append(UInt8(ascii: ":"))
            RowKeys.appendDecimal(UInt64(count), to: &buffer)
            return String(decoding: buffer, as: UTF8.self)
        }

        /// What a content key's digest hashes, read from a `journal_entry_posted` payload
        /// where it lies (the accounts' bytes are the payload's own).
        struct Fields {
            let account: ArraySlice<UInt8>
            let counterAccount: ArraySlice<UInt8>
            let amount: Money
            let payee: [UInt8]
            let category: [UInt8]

            /// Nil when the payload does not read as one, or has an external id (such a row
            /// is keyed by it, not by its content).
            init?(payload: [UInt8], subjectKeys: SubjectKeys?) {
                var reader = BinaryReader(payload)
                guard let account = Self.stringBytes(&reader),
                      let counterAccount = Self.stringBytes(&reader),
                      let amount = try? Money(from: &reader),
                      let payee = Self.digestBytes(&reader, sealed: { subjectKeys?.sealedText(forReference: $0) }),
                      let category = Self.digestBytes(&reader, sealed: { subjectKeys?.sealedText(forReference: $0) }),
                      (try? reader.readByte()) == 0, reader.isAtEnd
                else { return nil }
                self.account = account
                self.counterAccount = counterAccount
                self.amount = amount
                self.payee = payee
                self.category = category
            }

            func digest(on date: LocalDate, buffer: inout [UInt8]) -> SHA256.Digest {
                RowKeys.contentDigest(
                    date: date, account: account, counterAccount: counterAccount, amount: amount,
                    payee: payee[...], category: category[...], buffer: &buffer)
            }

            /// Where a personal field's digest bytes are: none, a range of the payload (plain
            /// text, or sealed inline), or a reference's sealed bytes in `SUBJECTS`.
            enum Part {
                case bytes(Range<Int>)
                case reference(UInt64)
            }

            /// The payee's and category's parts, the accounts and amount passed over (a decoded
            /// payload has them), read where they lie; nil as for ``init(payload:subjectKeys:)``.
            static func personalParts(_ payload: UnsafeBufferPointer<UInt8>) -> (payee: Part, category: Part)? {
                var position = 0
                func varint() -> UInt64? {
                    var value: UInt64 = 0
                    var shift: UInt64 = 0
                    while position < payload.count, shift < 64 {
                        let byte = payload[position]
                        position += 1
                        value |= UInt64(byte & 0x7F) << shift
                        if byte & 0x80 == 0 { return value }
                        shift += 7
                    }
                    return nil
                }
                func string() -> Range<Int>? {
                    guard let length = varint(), length <= UInt64(payload.count - position) else { return nil }
                    position += Int(length)
                    return (position - Int(length))..<position
                }
                func personal() -> Part? {
                    guard position < payload.count else { return nil }
                    let present = payload[position]
                    position += 1
                    if present == 0 { return .bytes(position..<position) }
                    guard present == 1, position < payload.count else { return nil }
                    let tag = payload[position]
                    position += 1
                    switch tag {
                    case PersonalTextTag.plain, PersonalTextTag.sealed: return string().map(Part.bytes)
                    case PersonalTextTag.reference: return varint().map(Part.reference)
                    default: return nil
                    }
                }
                // Account, counter account, the amount's commodity code and minor units.
                guard string() != nil, string() != nil, string() != nil, varint() != nil,
                      let payee = personal(), let category = personal(),
                      position + 1 == payload.count, payload[position] == 0
                else { return nil }
                return (payee, category)
            }

            /// A part's bytes: the payload's, or the reference's sealed bytes (a reference
            /// `SUBJECTS` lacks stands as a NUL, `#` and its number).
            static func bytes(of part: Part, in payload: [UInt8], subjectKeys: SubjectKeys?, texts: DecodedTexts?) -> ArraySlice<UInt8>? {
                switch part {
                case .bytes(let range):
                    return payload[range]
                case .reference(let reference):
                    if let subjectKeys,
                       let sealed = texts?.sealedText(forReference: reference, in: subjectKeys) ?? subjectKeys.sealedText(forReference: reference) {
                        return sealed[...]
                    }
                    return Array("\u{0}#\(reference)".utf8)[...]
                }
            }

            /// A string's bytes as the payload holds them (a varint length, then UTF-8).
            private static func stringBytes(_ reader: inout BinaryReader) -> ArraySlice<UInt8>? {
                guard let length = try? reader.readVarint(), length <= UInt64(reader.bytes.count - reader.position) else { return nil }
                let start = reader.position
                reader.position += Int(length)
                return reader.bytes[start..<reader.position]
            }

            /// An optional personal field as its row's digest takes it: nothing for none or
            /// empty text, the text for plain text, the sealed bytes for sealed text (inline,
            /// or those of its reference in `SUBJECTS`; a reference `SUBJECTS` lacks stands as a
            /// NUL, `#` and its number, which neither a sealed text nor an event's text can be).
            private static func digestBytes(_ reader: inout BinaryReader, sealed: (UInt64) -> [UInt8]?) -> [UInt8]? {
                guard let present = try? reader.readByte() else { return nil }
                if present == 0 { return [] }
                guard present == 1, let tag = try? reader.readByte() else { return nil }
                switch tag {
                case PersonalTextTag.plain:
                    return (try? reader.readString()).map { Array($0.utf8) }
                case PersonalTextTag.sealed:
                    return stringBytes(&reader).map(Array.init)
                case PersonalTextTag.reference:
                    guard let reference = try? reader.readVarint() else { return nil }
                    return sealed(reference) ?? Array("\u{0}#\(reference)".utf8)
                default:
                    return nil
                }
            }
        }

        private static func offsetCharacter(_ offset: Int) -> UInt8 {
            switch offset {
            case -1: UInt8(ascii: "-")
            case 0: UInt8(ascii: "0")
            default: UInt8(ascii: "+")
            }
        }

        private static func offset(of character: UInt8) -> Int? {
            switch character {
            case UInt8(ascii: "-"): -1
            case UInt8(ascii: "0"): 0
            case UInt8(ascii: "+"): 1
            default: nil
            }
        }

        /// A count as a key spells it: 1 or more, in decimal without leading zeros, at most
        /// ten digits (so within 32 bits, as the import counts).
        private static func canonicalCount<Digits: Collection<UInt8>>(_ digits: Digits) -> UInt32? {
            guard let first = digits.first, first != UInt8(ascii: "0"), digits.count <= 10 else { return nil }
            var value: UInt64 = 0
            for digit in digits {
                guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + UInt64(digit - UInt8(ascii: "0"))
            }
            return value <= UInt64(UInt32.max) ? UInt32(value) : nil
        }

        /// Eight digits `YYYYMMDD` naming a calendar date (checked without throwing: the
        /// validating pass's stand-in keys, dated `00000000`, come here a million times).
        private static func date(_ digits: UnsafeBufferPointer<UInt8>.SubSequence) -> LocalDate? {
            var value = 0
            for digit in digits {
                guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(digit - UInt8(ascii: "0"))
            }
            let (year, month, day) = (value / 10_000, value / 100 % 100, value % 100)
            guard year >= 1, (1...12).contains(month), day >= 1, day <= CivilCalendar.daysInMonth(year: year, month: month) else { return nil }
            return LocalDate(daysSinceEpoch: CivilCalendar.days(year: year, month: month, day: day))
        }
    }
}
