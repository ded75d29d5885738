// The log form of every event payload, derived from its `Codable` declaration: an event type
// declares its fields once, as stored properties, and its JSON and binary forms both follow
// from them (`BinaryPayloadEncoder`, `BinaryPayloadDecoder`). A type may still write its own
// `encode(to:)` and `init(from:)` over `BinaryWriter` and `BinaryReader`. Of Tally's own, one
// does: `JournalEntryPosted`, the payload an import writes and a rebuild reads a million
// times, field by field in the derived form (the tests hold it to the derived coders).

extension EventPayload {
    /// The binary form derived from the payload's `Codable` declaration: its fields in
    /// declaration order, without keys (``BinaryPayloadEncoder``).
    public func encode(to writer: inout BinaryWriter) { BinaryPayloadEncoder.encode(self, to: &writer) }

    /// Reads the binary form derived from the payload's `Codable` declaration (``BinaryPayloadDecoder``).
    ///
    /// - Throws: ``EventCodingError`` on short or invalid input.
    public init(from reader: inout BinaryReader) throws { self = try BinaryPayloadDecoder.decode(Self.self, from: &reader) }
}

extension LegacyEventPayload {
    /// The binary form derived from the payload's `Codable` declaration, as for ``EventPayload``.
    public func encode(to writer: inout BinaryWriter) { BinaryPayloadEncoder.encode(self, to: &writer) }

    /// Reads the binary form derived from the payload's `Codable` declaration, as for ``EventPayload``.
    ///
    /// - Throws: ``EventCodingError`` on short or invalid input.
    public init(from reader: inout BinaryReader) throws { self = try BinaryPayloadDecoder.decode(Self.self, from: &reader) }
}
