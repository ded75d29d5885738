internal import Foundation

/// Decodes one version of one payload type from a JSON `data` object, strictly: unknown
/// fields are refused and decoding errors name the field.
struct JSONPayloadDecoder: Sendable {
    private let decodeClosure: @Sendable (JSONValue, String) throws -> EventBody

    init<Payload: EventPayload>(_ type: Payload.Type) {
        decodeClosure = { data, context in
            let payload: Payload = try Self.decodeStrictly(Payload.self, from: data, context: context)
            return payload.body
        }
    }

    init<Legacy: LegacyEventPayload>(_ type: Legacy.Type) {
        decodeClosure = { data, context in
            let payload: Legacy = try Self.decodeStrictly(Legacy.self, from: data, context: context)
            return payload.upcastBody()
        }
    }

    func decode(_ data: JSONValue, context: String) throws -> EventBody {
        try decodeClosure(data, context)
    }

    private static func decodeStrictly<Value: Codable>(_ type: Value.Type, from data: JSONValue, context: String) throws -> Value {
        guard case .object = data else {
            throw EventCodingError(.invalidJSON, "\(context): 'data' must be an object, not \(data.kindName)")
        }
        do {
            try data.checkIntegers(path: "data")
        } catch let error as EventCodingError {
            throw EventCodingError(error.code, "\(context): \(error.message)")
        }
        let value: Value
        do {
            let bytes = try JSONEncoder().encode(data)
            value = try EventJSON.payloadDecoder.decode(Value.self, from: bytes)
        } catch let error as DecodingError {
            throw EventJSON.describe(error, context: context, root: "data")
        }
        let echoed = try JSONDecoder().decode(JSONValue.self, from: try EventJSON.payloadEncoder.encode(value))
        do {
            try data.checkShape(against: echoed, path: "data")
        } catch let error as EventCodingError {
            throw EventCodingError(error.code, "\(context): \(error.message)")
        }
        return value
    }
}
