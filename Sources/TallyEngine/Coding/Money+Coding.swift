// The interchange and log forms of exact money values.
//
// JSON: money is an object `{"amount": "12.34", "currency": "USD"}` whose amount is a
// decimal string at most as precise as the commodity's scale; a rate or a price ratio is a
// decimal string, `"1.2345"`. Never a JSON number, so no reader can round it through binary
// floating point. Log: the commodity code as a string, then the minor units as a zigzag varint.

extension Money: Codable {
    private enum CodingKeys: String, CodingKey { case amount, currency }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let code = try container.decode(String.self, forKey: .currency)
        let text = try container.decode(String.self, forKey: .amount)
        do {
            self = try Money(parsing: text, commodity: try Commodity.named(code))
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .amount, in: container, debugDescription: "\(error)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(decimalString, forKey: .amount)
        try container.encode(commodity.code, forKey: .currency)
    }
}

extension Money: BinaryCodable {
    public func encode(to writer: inout BinaryWriter) {
        writer.writeString(commodity.code)
        writer.writeZigZag(minorUnits)
    }

    public init(from reader: inout BinaryReader) throws {
        let commodity = try Commodity(from: &reader)
        self.init(minorUnits: try reader.readZigZag(), commodity: commodity)
    }
}

extension Commodity: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let code = try container.decode(String.self)
        do {
            self = try Commodity.named(code)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(error)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(code)
    }
}

extension Commodity: BinaryCodable {
    public func encode(to writer: inout BinaryWriter) { writer.writeString(code) }

    public init(from reader: inout BinaryReader) throws {
        let code = try reader.readString(limit: 32)
        do {
            self = try reader.texts?.commodity(code) ?? Commodity.named(code)
        } catch {
            throw EventCodingError(.invalidValue, "'\(code)' is not a commodity code\(reader.where)")
        }
    }
}

extension ExactDecimal: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        do {
            self = try ExactDecimal(parsing: try container.decode(String.self))
        } catch let error as DecodingError {
            throw error
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(error)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(decimalString)
    }
}

extension ExactDecimal: BinaryCodable {
    /// The significand as a zigzag varint, then the scale as one byte.
    public func encode(to writer: inout BinaryWriter) {
        writer.writeZigZag(significand)
        writer.writeByte(UInt8(scale))
    }

    public init(from reader: inout BinaryReader) throws {
        let significand = try reader.readZigZag()
        let scale = Int(try reader.readByte())
        do {
            self = try ExactDecimal(significand: significand, scale: scale)
        } catch {
            throw EventCodingError(.invalidValue, "decimal scale \(scale) is out of range\(reader.where)")
        }
    }
}
