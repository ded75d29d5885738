import Hummingbird
import Tally

/// Lists served a page at a time with opaque cursors (``Cursor``) that carry their filters.
/// The audit list pins `known_at` on its first page (the time of that request, when not
/// given), so later pages read the same history however the ledger grows meanwhile.
enum ListRoutes {
    static let audit = ServiceRoute(method: .get, path: "/ledgers/{ledger}/audit", operationId: "listAudit", security: .ledger(.read))
    static let log = ServiceRoute(method: .get, path: "/ledgers/{ledger}/log", operationId: "listLog", security: .ledger(.read))

    /// `GET /ledgers/{ledger}/audit?target=…[&from=D][&through=D][&known_at=T][&limit=N][&cursor=C]`:
    /// every change to an account, a pot, an envelope or an item's value (the CLI's targets:
    /// `pot:ID`, `envelope:ID`, `asset:ID`, `liability:ID`, else an account name; `account=` is
    /// the older name of the parameter) with the event that caused it, its times and the
    /// running balance, oldest first. A page is read by `Ledger.auditPage`: an account's page
    /// costs what it returns, whatever the account's history.
    static func handleAudit(_ call: Call) async throws -> Response {
        let id = try call.ledger
        let cursor = try call.query("cursor").map { try Cursor(token: $0, list: "audit", ledger: id) }
        var filters = try Cursor.filters(["target", "account", "from", "through", "known_at"], call: call, cursor: cursor)
        let limit = try Cursor.limit(call)
        if filters["target"] != nil, filters["account"] != nil {
            throw Problem.invalidParameter("account", "give 'target' or its older name 'account', not both")
        }
        guard let text = filters["target"] ?? filters["account"] else {
            throw Problem.invalidParameter("target", "the audit needs 'target': an account name, pot:ID, envelope:ID, asset:ID or liability:ID")
        }
        let target: AuditTarget
        do { target = try AuditTarget(parsing: text) } catch let error as LedgerError {
            throw Problem.invalidParameter(filters["target"] != nil ? "target" : "account", error.message)
        }
        let position: AuditPosition? = try cursor?.after.map { text in
            guard let position = AuditPosition(text) else { throw Problem.invalidParameter("cursor", "the cursor is not one this server gave; start again without it") }
            return position
        }
        return try await call.state.pool.with(id) { ledger in
            if filters["known_at"] == nil { filters["known_at"] = ledger.now.description }
            let knownAt = try TimeParameters.knownAt(filters["known_at"], ledger)
            let from = try TimeParameters.day(filters["from"], field: "from")
            let through = try TimeParameters.day(filters["through"], field: "through")
            let page = try await call.state.blocking {
                try ledger.auditPage(target, from: from, through: through, knownAt: knownAt, after: position, limit: limit)
            }
            let next = page.next.map { Cursor(list: "audit", ledger: id, filters: filters, position: 0, after: $0.description).token }
            return Call.json(.object([
                ("target", .string(target.description)),
                ("account", .string(text)),
                ("known_at", .optional(filters["known_at"])),
                ("entries", .array(page.entries.map { entry in
                    .object([
                        ("seq", .integer(Int64(entry.sequence))), ("recorded_at", .instant(entry.recordedAt)),
                        ("effective_at", .instant(entry.effectiveAt)), ("effective_date", .string(entry.effectiveDate.description)),
                        ("event_type", .string(entry.eventType)), ("cause", entry.cause.map { .integer(Int64($0)) } ?? .null),
                        ("currency", .string(entry.amount.commodity.code)), ("amount", .amount(entry.amount)), ("balance", .amount(entry.balance)),
                    ])
                })),
                ("next_cursor", .optional(next)),
            ]))
        }
    }

    private struct PageFull: Error {}

    /// `GET /ledgers/{ledger}/log?[type=T][&limit=N][&cursor=C]`: the events of the log in
    /// their published JSON form, oldest first, optionally of one type.
    static func handleLog(_ call: Call) async throws -> Response {
        let id = try call.ledger
        let cursor = try call.query("cursor").map { try Cursor(token: $0, list: "log", ledger: id) }
        let filters = try Cursor.filters(["type"], call: call, cursor: cursor)
        let limit = try Cursor.limit(call)
        return try await call.state.pool.with(id) { ledger in
            let head = ledger.head.sequence
            let after = cursor?.position ?? 0
            let (events, last) = try await call.state.blocking { () throws -> ([String], UInt64) in
                var events: [String] = []
                var last = after
                guard after < head else { return (events, last) }
                let reader = try EventStoreReader.open(at: ledger.layout.root, catalog: ledger.catalog)
                do {
                    try reader.forEach(from: after + 1, through: head) { event in
                        if events.count == limit { throw PageFull() }
                        last = event.sequence
                        if let type = filters["type"], event.type.name != type { return }
                        events.append(try EventJSON.encode(event))
                    }
                } catch is PageFull {}
                return (events, last)
            }
            let next = last < head ? Cursor(list: "log", ledger: id, filters: filters, position: last).token : nil
            return Call.json(.object([
                ("events", .array(events.map(JSONValue.raw))),
                ("next_cursor", .optional(next)),
            ]))
        }
    }
}
