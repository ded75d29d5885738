import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Tally

/// Ledgers, API keys, health and metrics.
enum AdminRoutes {
    static let createLedger = ServiceRoute(method: .post, path: "/ledgers", operationId: "createLedger", security: .serverAdmin)
    static let createKey = ServiceRoute(method: .post, path: "/ledgers/{ledger}/keys", operationId: "createKey", security: .ledger(.admin))
    static let listKeys = ServiceRoute(method: .get, path: "/ledgers/{ledger}/keys", operationId: "listKeys", security: .ledger(.admin))
    static let revokeKey = ServiceRoute(method: .delete, path: "/ledgers/{ledger}/keys/{key}", operationId: "revokeKey", security: .ledger(.admin))
    static let health = ServiceRoute(method: .get, path: "/health", operationId: "getHealth", security: .none)
    static let metrics = ServiceRoute(method: .get, path: "/metrics", operationId: "getMetrics", security: .serverAdmin)

    /// `POST /ledgers` `{"id", "name"?, "base_currency"?, "time_zone"?}`: a new store, as `tally init`.
    static func handleCreateLedger(_ call: Call) async throws -> Response {
        let body = try JSONBody(try await call.body(limit: call.state.configuration.commandBodyBytesLimit))
        try body.requireOnly(["id", "name", "base_currency", "time_zone"])
        let id = try body.string("id")
        try LedgerPool.validate(id: id)
        let name = try body.optionalString("name") ?? id
        let code = try body.optionalString("base_currency") ?? "USD"
        let timeZone = try body.optionalString("time_zone") ?? "UTC"
        let currency: Commodity
        do { currency = try Commodity.named(code) } catch {
            throw Problem(.unprocessableContent, "invalid_currency", "'base_currency' '\(code)': \(error)", field: "base_currency")
        }
        guard currency.isISOCurrency else {
            throw Problem(.unprocessableContent, "invalid_currency", "'base_currency' '\(code)' is not an ISO 4217 currency", field: "base_currency")
        }
        guard TimeZone(identifier: timeZone) != nil else {
            throw Problem(.unprocessableContent, "invalid_time_zone", "'time_zone' '\(timeZone)' is not an IANA time zone (e.g. Europe/London, UTC)", field: "time_zone")
        }
        let ledger = try await call.state.pool.create(id: id, name: name, baseCurrency: currency, timeZone: timeZone)
        // The new ledger as `GET /ledgers/{id}` gives it.
        let settings = try await call.state.blocking { try ledger.settings() }
        return Call.json(QueryRoutes.settingsJSON(id, ledger, settings), status: .created, headers: [.location: "/ledgers/\(id)"])
    }

    /// `POST /ledgers/{ledger}/keys` `{"scopes": ["read", "write"]}`: a new key, shown once.
    static func handleCreateKey(_ call: Call) async throws -> Response {
        let id = try call.ledger
        let body = try JSONBody(try await call.body(limit: call.state.configuration.commandBodyBytesLimit))
        try body.requireOnly(["scopes"])
        guard let names = try body.optionalStrings("scopes"), !names.isEmpty else { throw Problem.missingField("scopes") }
        var scopes = Set<Scope>()
        for name in names {
            guard let scope = Scope(rawValue: name) else {
                throw Problem.invalidField("scopes", "'\(name)' is not a scope; use read, write, admin")
            }
            scopes.insert(scope)
        }
        // The ledger must exist: a key for nothing would be a trap.
        let now = try await call.state.pool.with(id) { ledger in ledger.now.description }
        let (record, key) = try call.state.keys.create(ledger: id, scopes: scopes, now: now)
        call.state.logger.info("api key created", metadata: ["ledger": "\(id)", "key": "\(record.id)", "scopes": "\(record.scopes)"])
        return Call.json(.object([
            ("id", .string(record.id)), ("ledger", .string(id)), ("scopes", .array(record.scopes.map(JSONValue.string))),
            ("created_at", .string(record.createdAt)), ("key", .string(key)),
        ]), status: .created)
    }

    /// `GET /ledgers/{ledger}/keys`: the ledger's keys, never their secrets or hashes.
    static func handleListKeys(_ call: Call) async throws -> Response {
        let id = try call.ledger
        let records = try call.state.keys.keys(of: id)
        return Call.json(.object([("keys", .array(records.map { record in
            .object([("id", .string(record.id)), ("scopes", .array(record.scopes.map(JSONValue.string))), ("created_at", .string(record.createdAt))])
        }))]))
    }

    /// `DELETE /ledgers/{ledger}/keys/{key}`: revokes a key at once.
    static func handleRevokeKey(_ call: Call) async throws -> Response {
        let id = try call.ledger
        let key = try call.parameter("key")
        guard try call.state.keys.revoke(id: key, ledger: id) else {
            throw Problem(.notFound, "key_not_found", "ledger '\(id)' has no key '\(key)'", field: "key")
        }
        call.state.logger.info("api key revoked", metadata: ["ledger": "\(id)", "key": "\(key)"])
        return Response(status: .noContent)
    }

    /// `GET /health`: 200 `{"status":"up"}` when every open ledger's read models have folded
    /// its whole log, else 503 `{"status":"degraded"}`. Needs no key and says nothing more
    /// without one; with the server's admin key it also names why (`state`) and each open
    /// ledger's head and checkpoint.
    static func handleHealth(_ call: Call) async throws -> Response {
        let rows = await call.state.pool.health()
        call.state.metrics.openLedgers(rows.count)
        let healthy = rows.allSatisfy { $0.checkpoint == $0.head }
        let up = healthy && !call.state.shutdown.hasFired
        var fields: [(String, JSONValue)] = [("status", .string(up ? "up" : "degraded"))]
        let isAdmin = call.request.headers[.authorization] != nil
            && (try? call.state.authenticate(call.request, call.context, ledger: nil))?.isServerAdmin == true
        if isAdmin {
            fields += [
                ("state", .string(call.state.shutdown.hasFired ? "shutting_down" : healthy ? "ok" : "behind")),
                ("open_ledgers", .integer(Int64(rows.count))),
                ("ledgers", .array(rows.map { row in
                    .object([
                        ("id", .string(row.id)), ("head", .integer(Int64(row.head))),
                        ("read_models", row.checkpoint.map { .integer(Int64($0)) } ?? .null),
                        ("at_head", .bool(row.checkpoint == row.head)),
                    ])
                })),
            ]
        }
        return Call.json(.object(fields), status: up ? .ok : .serviceUnavailable)
    }

    /// `GET /metrics`: Prometheus text exposition.
    static func handleMetrics(_ call: Call) async throws -> Response {
        call.state.metrics.openLedgers(await call.state.pool.openCount)
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; version=0.0.4"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: call.state.metrics.exposition())))
    }
}
