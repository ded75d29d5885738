public import TallyLog

/// The registry of every event type and version: the one place that maps log codes and
/// names to payload types, and turns log records into events and back.
///
/// ```swift
/// let record = try catalog.record(for: newEvent)
/// let event = try catalog.decode(loggedEvent)
/// ```
public struct EventCatalog: Sendable {
    typealias BinaryDecoder = @Sendable (inout BinaryReader) throws -> EventBody

    struct Entry: Sendable {
        let type: EventType
        let payloadType: any EventPayload.Type
        let binaryDecoders: [UInt16: BinaryDecoder]
        let jsonDecoders: [UInt16: JSONPayloadDecoder]
    }

    let entriesByCode: [UInt32: Entry]
    let entriesByName: [String: Entry]
    /// The keys personal text is sealed under when a record is made and opened with when an
    /// event is decoded (``SubjectKeys``); nil writes it plain and reads sealed text as erased.
    /// A ledger's catalog has its store's keys.
    public var subjectKeys: SubjectKeys?

    /// A catalog of these payload types.
    ///
    /// Every type must say what it does to balances: conform to ``MovesMoney`` (and give its
    /// postings) or to ``MovesNoMoney``; a type that says neither is refused, so no money
    /// event can be registered and silently post nothing.
    ///
    /// ```swift
    /// let catalog = try EventCatalog(EventCatalog.engineTypes + [MerchantTagged.self])
    /// ```
    /// - Throws: ``EventCodingError`` (`invalidValue`) naming a type whose code or name
    ///   another type has, a legacy version not older than its type's, or a type that
    ///   declares no postings.
    public init(_ payloadTypes: [any EventPayload.Type]) throws {
        var byCode: [UInt32: Entry] = [:]
        var byName: [String: Entry] = [:]
        for payloadType in payloadTypes {
            let entry = try Self.makeEntry(payloadType)
            if let other = byCode[entry.type.code] {
                guard ObjectIdentifier(other.payloadType) != ObjectIdentifier(payloadType) else { continue }
                throw EventCodingError(.invalidValue, "event types \(other.type.name) and \(entry.type.name) share the log code \(entry.type.code); give each a code of its own")
            }
            if let other = byName[entry.type.name] {
                throw EventCodingError(.invalidValue, "two event types are named \(other.type.name) (codes \(other.type.code) and \(entry.type.code)); give each a name of its own")
            }
            guard payloadType.postingDeclaration != .undeclared else {
                throw EventCodingError(.invalidValue, "event type \(entry.type.name) declares no postings: conform it to MovesMoney (and give its postings) or to MovesNoMoney")
            }
            byCode[entry.type.code] = entry
            byName[entry.type.name] = entry
        }
        entriesByCode = byCode
        entriesByName = byName
    }

    /// This catalog with more types.
    ///
    /// - Throws: as ``init(_:)`` does.
    public func adding(_ payloadTypes: [any EventPayload.Type]) throws -> EventCatalog {
        var catalog = try EventCatalog(entriesByCode.values.sorted { $0.type.code < $1.type.code }.map(\.payloadType) + payloadTypes)
        catalog.subjectKeys = subjectKeys
        return catalog
    }

    /// This catalog with personal text sealed under, and opened with, `subjectKeys`.
    public func sealing(with subjectKeys: SubjectKeys?) -> EventCatalog {
        var catalog = self
        catalog.subjectKeys = subjectKeys
        return catalog
    }

    private static func makeEntry<Payload: EventPayload>(_ payloadType: Payload.Type) throws -> Entry {
        let current = Payload.eventType.version
        var binary: [UInt16: BinaryDecoder] = [current: { reader in try Payload(from: &reader).body }]
        var json: [UInt16: JSONPayloadDecoder] = [current: JSONPayloadDecoder(Payload.self)]
        for legacy in Payload.legacyVersions {
            guard legacy.version < current, binary[legacy.version] == nil else {
                throw EventCodingError(.invalidValue, "\(Payload.eventType.name): legacy version \(legacy.version) must be older than \(current) and listed once")
            }
            binary[legacy.version] = legacyBinaryDecoder(legacy)
            json[legacy.version] = JSONPayloadDecoder(legacy)
        }
        return Entry(type: Payload.eventType, payloadType: payloadType, binaryDecoders: binary, jsonDecoders: json)
    }

    private static func legacyBinaryDecoder<Legacy: LegacyEventPayload>(_ type: Legacy.Type) -> BinaryDecoder {
        { reader in try Legacy(from: &reader).upcastBody() }
    }

    /// Every event type, ordered by log code.
    public var types: [EventType] { entriesByCode.values.map(\.type).sorted { $0.code < $1.code } }

    /// Every payload type, ordered by log code.
    public var payloadTypes: [any EventPayload.Type] {
        entriesByCode.values.sorted { $0.type.code < $1.type.code }.map(\.payloadType)
    }

    /// The type with this `snake_case` name.
    public func type(named name: String) -> EventType? { entriesByName[name]?.type }

    /// The type with this log code.
    public func type(code: UInt32) -> EventType? { entriesByCode[code]?.type }

    /// Every version of a type that can be read, oldest first.
    public func versions(of type: EventType) -> [UInt16] {
        (entriesByCode[type.code]?.binaryDecoders.keys).map { $0.sorted() } ?? []
    }

    /// The log record of a new event: the payload in the current version's binary form.
    ///
    /// This is the record check every event passes before it reaches the log: commands,
    /// journal and NDJSON imports and `append` all come through here, so a rule enforced
    /// here holds for every event, and an import that runs it in its validating pass knows
    /// that its appending pass cannot be refused for the same reason.
    ///
    /// - The record would read back exactly (an assertion after the write paired with the
    ///   one before the read): what cannot, such as a commodity whose scale is not its
    ///   code's registered scale, is refused here rather than stored and refused by every
    ///   reader forever. Each value is checked as it is written (``BinaryCodable/readsBack(_:from:)``);
    ///   a payload with a value whose type codes itself is read back whole and compared.
    /// - Every limit the log and the decoder set on one event holds: strings up to
    ///   ``eventStringBytesLimit`` bytes, lists up to ``eventListCountLimit`` elements, the
    ///   entity up to `LogFormat.entityBytesMax` bytes, an idempotency key of 1 to
    ///   `LogFormat.idempotencyKeyBytesMax` bytes, the payload up to
    ///   `LogFormat.payloadBytesMax` bytes, the effective time in years 0001-9999.
    /// - Every text field, and the idempotency key, meets ``EventText``'s rule: no control
    ///   characters (a note may hold tabs and line feeds).
    ///
    /// ```swift
    /// do { _ = try catalog.record(for: event) }
    /// catch let error as EventCodingError { print(error.field ?? "?", error.reason ?? error.message) }
    /// ```
    ///
    /// - Throws: ``EventCodingError`` naming the type and, in ``EventCodingError/field``,
    ///   the field at fault as its path in the event's JSON form (`data.payee`,
    ///   `idempotency_key`, `effective_at`).
    public func record(for event: NewEvent) throws -> LogRecord {
        try record(for: event, readingBack: true)
    }

    /// ``record(for:)``; without `readingBack`, the payload's values are not checked:
    /// only for an event the same check passed before (an import's appending pass, for rows
    /// whose bytes are those its validating pass checked).
    func record(for event: NewEvent, readingBack: Bool) throws -> LogRecord {
        let type = event.type
        guard event.effectiveAt.isInCalendarRange else {
            throw EventCodingError(.invalidValue, field: "effective_at", reason: "lies outside years 0001-9999", context: type.name)
        }
        var writer = BinaryWriter(capacity: 128)
        writer.subjectKeys = subjectKeys
        if readingBack { writer.check = BinaryPayloadCheck() }
        event.body.payload.encode(to: &writer)
        if let check = writer.check { try checkReadsBack(event.body, payload: writer.bytes, check: check) }
        let entity = event.entity
        try checkEnvelope(event, entity: entity, payloadBytes: writer.bytes.count)
        // A dated content key the event derives is held in its short form (LoggedContentKey).
        let effectiveAt = event.effectiveAt.microsecondsSinceEpoch
        var key = event.idempotencyKey
        if let full = key, let short = JournalCSV.LoggedContentKey.short(
            of: full, kind: type.code, version: type.version, effectiveAt: effectiveAt, payload: writer.bytes, subjectKeys: subjectKeys,
            vouchedCount: event.vouchedContentKeyCount) {
            key = short
        }
        return LogRecord(
            kind: type.code, version: type.version, effectiveAt: effectiveAt,
            entity: entity, cause: event.cause, idempotencyKey: key,
            payload: writer.bytes
        )
    }

    /// Runs ``record(for:)`` ahead and keeps its record in the event, so that the write
    /// pipeline need not make it again (``preparedRecord(of:)``).
    ///
    /// - Throws: as ``record(for:)`` does.
    func prepare(_ event: inout NewEvent, readingBack: Bool = true) throws {
        let record = try record(for: event, readingBack: readingBack)
        event.setPreparedRecord(record)
    }

    /// The record ``prepare(_:)`` made for this event, when the event has not changed since
    /// and its type is this catalog's (same code and version); else nil, and the caller
    /// runs ``record(for:)``.
    func preparedRecord(of event: NewEvent) -> LogRecord? {
        guard let record = event.preparedRecord, let entry = entriesByCode[record.kind],
              entry.type == event.type, record.version == event.type.version else { return nil }
        return record
    }

    /// Whether the payload would read back as written, and its text is clean, from what
    /// the encoder measured while writing it (``BinaryPayloadCheck``): every value at the
    /// bottom of a derived payload was checked as it was written (each string's length and
    /// characters, each ``BinaryCodable`` value read back from its own bytes, each list's
    /// count), and the derived reader reads the structure around them back exactly, so a
    /// payload whose values all passed reads back equal without being decoded. Only a
    /// payload with a value the encoder could not vouch for (a type with a coding of its
    /// own, or a payload not written by the derived encoder), or one that failed, is read
    /// back whole (``checkReadBack(_:payload:)``), which also finds the field at fault.
    func checkReadsBack(_ body: EventBody, payload: [UInt8], check: BinaryPayloadCheck) throws {
        if check.lossy || check.needsReadBack || check.vouched != 0..<payload.count {
            try checkReadBack(body, payload: payload)
            // A string past its limit is refused even where the reader would not see it (a
            // sealed reference): one rule for every store.
            guard check.lossy else { return }
            try refuseFirstProblem(in: body)
            throw EventCodingError(.invalidValue, "\(body.type.name): the payload does not read back as written")
        }
        if check.sawControlCharacter { try refuseFirstProblem(in: body) }
    }

    /// Throws the record check's error for the first field of `body` at fault (a control
    /// character, a string or list past its limit: ``EventText/firstProblem(in:)``), if any.
    private func refuseFirstProblem(in body: EventBody) throws {
        guard let problem = try EventText.firstProblem(in: body) else { return }
        throw EventCodingError(problem.code, field: problem.field, reason: problem.reason, context: body.type.name)
    }

    /// Reads the payload back with every string scanned for control characters; on a
    /// failure or a control character, finds the field (the slow path, run only then).
    func checkReadBack(_ body: EventBody, payload: [UInt8]) throws {
        let type = body.type
        var reader = BinaryReader(payload)
        reader.subjectKeys = subjectKeys
        reader.scansForControlCharacters = true
        let readBack: EventBody
        do {
            readBack = try decodeBody(code: type.code, version: type.version, reader: &reader)
        } catch let error as EventCodingError {
            try refuseFirstProblem(in: body)
            throw error
        }
        if reader.sawControlCharacter { try refuseFirstProblem(in: body) }
        guard readBack == body else {
            throw EventCodingError(
                .invalidValue,
                "\(type.name): the payload does not read back as written; a commodity's scale must be the one its code is registered with (Commodity.named)"
            )
        }
    }

    /// The limits of the log record around the payload: entity, idempotency key, size.
    private func checkEnvelope(_ event: NewEvent, entity: String, payloadBytes: Int) throws {
        let context = event.type.name
        let entityBytes = entity.utf8.count
        if entityBytes > LogFormat.entityBytesMax {
            throw EventCodingError(
                .limitExceeded, field: try EventText.fieldFormingEntity(entity, of: event.body),
                reason: "is too long: the event's entity, built from it, would be \(entityBytes) bytes; the limit is \(LogFormat.entityBytesMax)",
                context: context)
        }
        if let key = event.idempotencyKey {
            let keyBytes = key.utf8.count
            guard keyBytes >= 1 else {
                throw EventCodingError(.invalidValue, field: "idempotency_key", reason: "is empty; give no key instead", context: context)
            }
            guard keyBytes <= LogFormat.idempotencyKeyBytesMax else {
                throw EventCodingError(
                    .limitExceeded, field: "idempotency_key",
                    reason: "holds \(keyBytes) bytes; the limit is \(LogFormat.idempotencyKeyBytesMax)", context: context)
            }
            if EventText.containsControl(key.utf8), let reason = EventText.problem(in: key, isFreeText: false) {
                throw EventCodingError(.invalidValue, field: "idempotency_key", reason: reason, context: context)
            }
        }
        guard payloadBytes <= LogFormat.payloadBytesMax else {
            throw EventCodingError(
                .limitExceeded, field: "data",
                reason: "encodes to \(payloadBytes) bytes; the limit is \(LogFormat.payloadBytesMax)", context: context)
        }
    }

    /// Decodes a logged event, upcasting an old version to the current one.
    ///
    /// - Throws: ``EventCodingError`` naming the sequence number, type and version when the
    ///   type or version is unknown or the payload does not decode.
    public func decode(_ logged: LoggedEvent) throws -> Event {
        try decode(logged, sharing: nil)
    }

    /// ``decode(_:)`` with the texts and commodities a read's decodes share (nil: none).
    func decode(_ logged: LoggedEvent, sharing texts: DecodedTexts?) throws -> Event {
        let recordedAt = Instant(microsecondsSinceEpoch: logged.recordedAt)
        let effectiveAt = Instant(microsecondsSinceEpoch: logged.effectiveAt)
        guard recordedAt.isInCalendarRange, effectiveAt.isInCalendarRange else {
            throw EventCodingError(.invalidValue, "event \(logged.sequence): a time lies outside years 0001-9999")
        }
        var reader = BinaryReader(logged.payload)
        reader.sequence = logged.sequence
        reader.subjectKeys = subjectKeys
        reader.texts = texts
        let body = try decodeBody(code: logged.kind, version: logged.version, reader: &reader)
        var key = logged.idempotencyKey
        if let stored = key, JournalCSV.LoggedContentKey.isShort(stored) {
            key = try JournalCSV.LoggedContentKey.expanded(stored, of: logged, body: body, subjectKeys: subjectKeys, texts: texts)
        }
        return Event(
            sequence: logged.sequence,
            recordedAt: recordedAt,
            effectiveAt: effectiveAt,
            cause: logged.cause, idempotencyKey: key,
            storedVersion: logged.version, body: body
        )
    }

    /// Decodes a binary payload of the given type code and version.
    public func decodeBody(code: UInt32, version: UInt16, payload: [UInt8], sequence: UInt64? = nil) throws -> EventBody {
        var reader = BinaryReader(payload)
        reader.sequence = sequence
        reader.subjectKeys = subjectKeys
        return try decodeBody(code: code, version: version, reader: &reader)
    }

    /// Decodes the whole of `reader` as a payload of the given type code and version.
    private func decodeBody(code: UInt32, version: UInt16, reader: inout BinaryReader) throws -> EventBody {
        let sequence = reader.sequence
        var at: String { sequence.map { "event \($0): " } ?? "" }
        guard let entry = entriesByCode[code] else {
            throw EventCodingError(.unknownType, "\(at)type code \(code) is not in this build's catalog")
        }
        guard let decoder = entry.binaryDecoders[version] else {
            throw EventCodingError(
                .unsupportedVersion,
                "\(at)\(entry.type.name) version \(version) is not readable (known: \(versions(of: entry.type).map(String.init).joined(separator: ", ")))"
            )
        }
        reader.typeName = entry.type.name
        reader.version = version
        let body = try decoder(&reader)
        try reader.expectEnd()
        return body
    }
}
