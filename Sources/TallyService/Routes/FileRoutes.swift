import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Tally

/// Files an app uploads or downloads: a bank's CSV imported whole (`tally tx import-bank
/// FILE --bank ID`) and the products' CSVs (`tally export --csv NAME`).
enum FileRoutes {
    static let importBankCSV = ServiceRoute(method: .post, path: "/ledgers/{ledger}/banks/{bank}/imports", operationId: "importBankCSV", security: .ledger(.write))
    static let exportCSV = ServiceRoute(method: .get, path: "/ledgers/{ledger}/exports/{name}", operationId: "exportProductCSV", security: .ledger(.read))

    /// `POST /ledgers/{ledger}/banks/{bank}/imports`, the body a bank CSV: streamed to a file,
    /// then `Ledger.importBankCSV`, all or nothing as the CLI's: every row is validated and
    /// rehearsed before anything is appended, so a bad row (named by line and field,
    /// `Tally-Import-Line`) or a row that conflicts with one recorded differently refuses the
    /// whole file; rows already present (the same bank id) are counted, not appended again.
    /// 201 when rows were appended, 200 when every row was present already.
    static func handleImportBankCSV(_ call: Call) async throws -> Response {
        let id = try call.ledger
        let bank = try call.parameter("bank")
        let limit = call.state.configuration.importBodyBytesLimit
        try Call.requireAnnouncedLength(call.request, limit: limit)
        let directory = call.state.configuration.dataDirectory + "/tmp"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/bank-\(KeyStore.randomHex(bytes: 8)).csv"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await PortabilityRoutes.spool(call.request.body, to: path, limit: limit)
        return try await call.state.pool.with(id) { ledger in
            let summary: BankImportSummary
            do {
                summary = try await call.state.blocking { try ledger.importBankCSV(at: path, bankId: bank) }
            } catch {
                throw PortabilityRoutes.refusal(error, path: path)
            }
            return Call.json(.object([
                ("bank", .string(bank)), ("rows", .integer(Int64(summary.rows))), ("imported", .integer(Int64(summary.imported))),
                ("already_present", .integer(Int64(summary.alreadyPresent))), ("events_appended", .integer(Int64(summary.eventsAppended))),
                ("commits", .integer(Int64(summary.commits))),
                ("first_seq", summary.sequences.map { .integer(Int64($0.lowerBound)) } ?? .null),
                ("last_seq", summary.sequences.map { .integer(Int64($0.upperBound)) } ?? .null),
            ]), status: summary.eventsAppended > 0 ? .created : .ok)
        }
    }

    /// `GET /ledgers/{ledger}/exports/{name}`: one product's CSV (`text/csv`, RFC 4180, with
    /// its header), `name` one of ``ProductCSVName`` (`budget-transactions`, …), as `tally
    /// export --csv NAME` prints it.
    static func handleExportCSV(_ call: Call) async throws -> Response {
        let text = try call.parameter("name")
        guard let name = ProductCSVName(rawValue: text.hasSuffix(".csv") ? String(text.dropLast(4)) : text) else {
            throw Problem(.notFound, "not_found", "there is no product CSV '\(text)'; the names are \(ProductCSVName.allCases.map(\.rawValue).joined(separator: ", "))", field: "name")
        }
        let csv = try await call.state.pool.with(try call.ledger) { ledger in
            try await call.state.blocking { try ledger.productCSV(name) }
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/csv; charset=utf-8"
        headers[.contentDisposition] = "attachment; filename=\"\(name.rawValue).csv\""
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: csv)))
    }
}
