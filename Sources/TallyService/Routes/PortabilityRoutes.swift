import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Tally

/// Imports and export. An import's body is streamed to a file in the data directory (never
/// held whole in memory, at most ``TallyServer/Configuration/importBodyBytesLimit`` bytes),
/// then handed to the same library calls the CLI makes: the whole file is validated and
/// rehearsed first, so a bad row refuses it all and appends nothing; a file imported twice
/// appends nothing the second time (its rows' own idempotency keys).
enum PortabilityRoutes {
    static let importEvents = ServiceRoute(method: .post, path: "/ledgers/{ledger}/imports/events", operationId: "importEvents", security: .ledger(.write))
    static let importJournal = ServiceRoute(method: .post, path: "/ledgers/{ledger}/imports/journal", operationId: "importJournal", security: .ledger(.write))
    static let export = ServiceRoute(method: .get, path: "/ledgers/{ledger}/export", operationId: "exportLedger", security: .ledger(.read))
    static let restore = ServiceRoute(method: .post, path: "/ledgers/{ledger}/restore", operationId: "restoreLedger", security: .serverAdmin)

    enum Kind { case events, journal }

    /// The line of the body an import refused (also named in the detail).
    static let lineField = HTTPField.Name("Tally-Import-Line")!

    static func handleImport(_ kind: Kind, _ call: Call) async throws -> Response {
        let id = try call.ledger
        let directory = call.state.configuration.dataDirectory + "/tmp"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Call.requireAnnouncedLength(call.request, limit: call.state.configuration.importBodyBytesLimit)
        let path = directory + "/import-\(KeyStore.randomHex(bytes: 8))" + (kind == .events ? ".ndjson" : ".csv")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await spool(call.request.body, to: path, limit: call.state.configuration.importBodyBytesLimit)
        return try await call.state.pool.with(id) { ledger in
            let summary: ImportSummary
            do {
                summary = try await call.state.blocking { () throws -> ImportSummary in
                    switch kind {
                    case .events:
                        return try ledger.importEvents(ndjsonAt: path)
                    case .journal:
                        return try ledger.importJournal(csvAt: path)
                    }
                }
            } catch {
                // The library names the file, line and field; the file is the body here.
                throw refusal(error, path: path)
            }
            return Call.json(.object([
                ("rows", .integer(Int64(summary.rows))),
                ("imported", .integer(Int64(summary.imported))),
                ("duplicates_skipped", .integer(Int64(summary.duplicatesSkipped))),
                ("events_appended", .integer(Int64(summary.eventsAppended))),
                ("commits", .integer(Int64(summary.commits))),
                ("first_seq", summary.sequences.map { .integer(Int64($0.lowerBound)) } ?? .null),
                ("last_seq", summary.sequences.map { .integer(Int64($0.upperBound)) } ?? .null),
            ]))
        }
    }

    /// `POST /ledgers/{ledger}/restore` (admin key), the body an export (`GET
    /// /ledgers/{id}/export`, `tally export`): a new ledger `{ledger}` with every event as it
    /// was recorded, answering every query as the exported one did. 201 with `Location`; 409
    /// when the ledger exists; a bad line is 422 naming it (`Tally-Import-Line`), and nothing
    /// is left behind. Its head digest is the exported one's only when no personal text was
    /// sealed (an export over HTTP carries no subjects' keys, so text is sealed anew: `tally
    /// export` and `tally restore` carry them and keep the digest).
    static func handleRestore(_ call: Call) async throws -> Response {
        let id = try call.ledger
        try LedgerPool.validate(id: id)
        try Call.requireAnnouncedLength(call.request, limit: call.state.configuration.importBodyBytesLimit)
        let directory = call.state.configuration.dataDirectory + "/tmp"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/restore-\(KeyStore.randomHex(bytes: 8)).ndjson"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await spool(call.request.body, to: path, limit: call.state.configuration.importBodyBytesLimit)
        let summary: RestoreSummary
        do {
            summary = try await call.state.pool.restore(id: id, from: path)
        } catch let problem as Problem {
            throw problem
        } catch {
            throw refusal(error, path: path)
        }
        var headers = HTTPFields()
        headers[.location] = "/ledgers/\(id)"
        return Call.json(.object([
            ("id", .string(id)), ("events", .integer(Int64(summary.events))), ("head", .string(summary.head.description)),
        ]), status: .created, headers: headers)
    }

    /// A library refusal of an uploaded file, as a problem: the file is the body here.
    static func refusal(_ error: any Error, path: String) -> any Error {
        guard let refusal = LedgerError.reporting(error) else { return error }
        let importError = refusal.underlying as? ImportError
        var problem = Problem.ledger(LedgerError(refusal.code, refusal.message.replacingOccurrences(of: path, with: "body")), field: importError?.field)
        if let line = importError?.line { problem.headers[lineField] = String(line) }
        return problem
    }

    /// Writes the body to `path` as it arrives; 413 past `limit` bytes.
    static func spool(_ body: RequestBody, to path: String, limit: Int) async throws {
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw ServiceError("cannot create \(path)")
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var written = 0
        for try await buffer in body {
            written += buffer.readableBytes
            guard written <= limit else {
                throw Problem(.contentTooLarge, "body_too_large", "an import is at most \(limit) bytes; split the file")
            }
            try handle.write(contentsOf: Data(buffer.readableBytesView))
        }
    }

    /// `GET /ledgers/{ledger}/export`: every event as NDJSON (`Ledger.export`, the form
    /// `tally restore` reads), through the head when the request arrived. The export is read
    /// while the ledger is leased, in 64 KiB chunks, and sent after (a household's history
    /// fits in memory; no lease outlives its request).
    static func handleExport(_ call: Call) async throws -> Response {
        let chunks = try await call.state.pool.with(try call.ledger) { ledger in
            try await call.state.blocking { () throws -> [ByteBuffer] in
                var chunks: [ByteBuffer] = []
                var chunk = ""
                try ledger.export { line in
                    chunk += line
                    if chunk.utf8.count >= 64 * 1024 {
                        chunks.append(ByteBuffer(string: chunk))
                        chunk = ""
                    }
                }
                if !chunk.isEmpty { chunks.append(ByteBuffer(string: chunk)) }
                return chunks
            }
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/x-ndjson"
        return Response(status: .ok, headers: headers, body: ResponseBody(contentsOf: chunks))
    }
}
