// libFuzzer target: the JSON event importer (`EventJSON.decode`, one NDJSON line).
//
// Whatever decodes must print (`EventJSON.encode`) as JSON that decodes to the same event,
// and its binary record, when the log would accept it, must read back as the same body.
@testable import Tally

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEventJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let decoded = try? EventJSON.decode(bytes, catalog: .standard) else { return 0 }
    let new = decoded.event
    let event = Event(
        sequence: 1, recordedAt: new.effectiveAt, effectiveAt: new.effectiveAt, cause: nil,
        idempotencyKey: new.idempotencyKey, body: new.body)
    let line = EventJSON.encode(event)
    let again: EventJSON.Decoded
    do {
        again = try EventJSON.decode(Array(line.utf8), catalog: .standard)
    } catch {
        fatalError("an event that decoded prints as JSON that does not decode: \(error)\n\(line)")
    }
    guard again.event.body == new.body, again.event.effectiveAt == new.effectiveAt,
          again.event.idempotencyKey == new.idempotencyKey
    else { fatalError("an event that decoded prints as JSON that decodes differently:\n\(line)") }
    if let record = try? EventCatalog.record(for: new) {
        guard (try? EventCatalog.decodeBody(code: record.kind, version: record.version, payload: record.payload)) == new.body else {
            fatalError("a record the log would accept does not read back:\n\(line)")
        }
    }
    return 0
}
