// libFuzzer target: the binary event decoder (`EventCatalog.decodeBody`).
//
// Input: byte 0 picks a type of the catalog, byte 1 one of its readable versions, the rest
// is the payload. Whatever decodes must encode back to bytes that decode to the same body
// (the read-back rule `EventCatalog.record(for:)` relies on), and must print as JSON.
//
// Seeds: with TALLY_FUZZ_SEED_STORE=DIR (a store, e.g. from `tally demo`) and
// TALLY_FUZZ_SEED_OUT=DIR set, the binary writes up to three inputs per type and version
// found in the store's log to the second directory and exits (Fuzz/seed.sh).
@testable import Tally
import Foundation
import TallyLog

private let codes: [UInt32] = EventCatalog.entriesByCode.keys.sorted()

@_cdecl("LLVMFuzzerInitialize")
public func initializeEventDecoder(_ argc: UnsafeMutableRawPointer, _ argv: UnsafeMutableRawPointer) -> CInt {
    let environment = ProcessInfo.processInfo.environment
    guard let store = environment["TALLY_FUZZ_SEED_STORE"], let output = environment["TALLY_FUZZ_SEED_OUT"] else { return 0 }
    do {
        let reader = try LogReader.open(directory: store + "/log")
        var written: [String: Int] = [:]
        try reader.forEach { event in
            guard let typeIndex = codes.firstIndex(of: event.kind), let type = EventCatalog.type(code: event.kind),
                  let versionIndex = EventCatalog.versions(of: type).firstIndex(of: event.version) else { return }
            let name = "\(type.name)-v\(event.version)"
            let count = written[name, default: 0]
            guard count < 3 else { return }
            written[name] = count + 1
            let input = [UInt8(typeIndex), UInt8(versionIndex)] + event.payload
            FileManager.default.createFile(atPath: "\(output)/\(name)-\(count)", contents: Data(input))
        }
        print("seeded \(written.values.reduce(0, +)) inputs of \(written.count) types and versions")
    } catch {
        fatalError("cannot seed from \(store): \(error)")
    }
    exit(0)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEventDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard bytes.count >= 2 else { return 0 }
    let code = codes[Int(bytes[0]) % codes.count]
    guard let type = EventCatalog.type(code: code) else { fatalError("catalog code \(code) has no type") }
    let versions = EventCatalog.versions(of: type)
    let version = versions[Int(bytes[1]) % versions.count]
    guard let body = try? EventCatalog.decodeBody(code: code, version: version, payload: Array(bytes[2...])) else { return 0 }
    var writer = BinaryWriter()
    body.payload.encode(to: &writer)
    let again: EventBody
    do {
        again = try EventCatalog.decodeBody(code: code, version: type.version, payload: writer.bytes)
    } catch {
        fatalError("\(type) decoded from v\(version) but its re-encoding does not decode: \(error)")
    }
    guard again == body else { fatalError("\(type) decoded from v\(version) re-encodes to a different body") }
    _ = EventJSON.payloadJSON(body)
    return 0
}
