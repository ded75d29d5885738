import Foundation
import Hummingbird
import Tally

/// What the ledger tells and draws (docs/notifications.md): its notifications as JSON and
/// its charts as JSON or SVG, each at `as_of` and as known at `known_at` like every query.
enum NotificationRoutes {
    static let notifications = ServiceRoute(method: .get, path: "/ledgers/{ledger}/notifications", operationId: "listNotifications", security: .ledger(.read))
    static let chart = ServiceRoute(method: .get, path: "/ledgers/{ledger}/charts/{name}", operationId: "getChart", security: .ledger(.read))

    /// `GET /ledgers/{ledger}/notifications?kind=K,K&since=ID`: oldest first; the products'
    /// kinds and the service's own `webhook_disabled` (``WebhookNotifications``).
    static func handleNotifications(_ call: Call) async throws -> Response {
        try await call.state.pool.with(try call.ledger) { ledger in
            let asOf = try TimeParameters.asOf(call.query("as_of"), ledger)
            let knownAt = try TimeParameters.knownAt(call.query("known_at"), ledger)
            let kinds = (call.query("kind") ?? "").split(separator: ",").map { NotificationKind(String($0)) }
            let since = call.query("since")
            let sources = call.state.notificationSources(try call.ledger)
            let notes = try await call.state.blocking { try ledger.notifications(asOf: asOf, knownAt: knownAt, kinds: kinds, since: since, sources: sources) }
            return Call.json(.object([
                ("as_of", .instant(asOf)), ("known_at", knownAt.map(JSONValue.instant) ?? .null),
                ("notifications", .array(notes.map { json($0, calendar: ledger.calendar) })),
            ]))
        }
    }

    /// A notification: its figures exact, as strings.
    static func json(_ note: LedgerNotification, calendar: LedgerCalendar) -> JSONValue {
        .object([
            ("id", .string(note.id)), ("kind", .string(note.kind.rawValue)), ("at", .instant(note.at)),
            ("date", .string(calendar.date(of: note.at).description)), ("subject", .string(note.subject)),
            ("causes", .array(note.causes.map { .integer(Int64($0)) })), ("message", .string(note.message)),
            ("figures", .object(note.figures.keys.sorted().map { ($0, .string(note.figures[$0]!)) })),
        ])
    }

    /// `GET /ledgers/{ledger}/charts/{name}?from=D&to=D&goal=AMOUNT`: the series as JSON, or
    /// the SVG drawing when the client accepts `image/svg+xml` and not JSON first.
    static func handleChart(_ call: Call) async throws -> Response {
        let text = try call.parameter("name")
        guard let name = ChartName(rawValue: text) else {
            throw Problem(.notFound, "not_found", "no chart '\(text)'; the charts are \(ChartName.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let svg = try wantsSVG(call.request.headers[.accept])
        return try await call.state.pool.with(try call.ledger) { ledger in
            let asOf = try TimeParameters.asOf(call.query("as_of"), ledger)
            let knownAt = try TimeParameters.knownAt(call.query("known_at"), ledger)
            let from = try TimeParameters.day(call.query("from"), field: "from")
            let to = try TimeParameters.day(call.query("to"), field: "to")
            let chart = try await call.state.blocking {
                let goal = try call.query("goal").map { text in
                    let currency = try ledger.settings(asOf: asOf, knownAt: knownAt).baseCurrency
                    guard let goal = try? Money(parsing: text, commodity: currency) else {
                        throw Problem.invalidParameter("goal", "'goal' is '\(text)', not an amount in \(currency.code)")
                    }
                    return goal
                }
                return try ledger.chart(name, ChartRequest(from: from, to: to, asOf: asOf, knownAt: knownAt, goal: goal))
            }
            guard svg else { return Call.json(.raw(chart.json)) }
            var headers = HTTPFields()
            headers[.contentType] = "image/svg+xml; charset=utf-8"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: SVGChart.render(chart))))
        }
    }

    /// Whether `Accept` asks for SVG: its media ranges in order of quality (then as given);
    /// JSON when there is none, or the first acceptable one is JSON or a wildcard.
    /// - Throws: 406 when it accepts neither.
    static func wantsSVG(_ accept: String?) throws -> Bool {
        guard let accept, !accept.isEmpty else { return false }
        let ranges = accept.split(separator: ",").enumerated().compactMap { index, part -> (type: String, quality: Int, index: Int)? in
            let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let type = pieces.first?.lowercased(), !type.isEmpty else { return nil }
            // q as thousandths, exactly: "0.8" → 800.
            var quality = 1000
            for piece in pieces.dropFirst() where piece.lowercased().hasPrefix("q=") {
                let value = piece.dropFirst(2)
                let parts = value.split(separator: ".", omittingEmptySubsequences: false)
                let whole = Int(parts.first ?? "") ?? 0
                let fraction = parts.count > 1 ? String(parts[1].prefix(3)) : ""
                quality = min(1000, whole * 1000 + (Int(fraction + String(repeating: "0", count: 3 - fraction.count)) ?? 0))
            }
            return quality > 0 ? (type, quality, index) : nil
        }.sorted { ($1.quality, $0.index) < ($0.quality, $1.index) }
        for range in ranges {
            switch range.type {
            case "image/svg+xml", "image/*": return true
            case "application/json", "application/*", "*/*": return false
            default: continue
            }
        }
        throw Problem(.notAcceptable, "not_acceptable", "a chart is served as application/json or image/svg+xml; Accept is '\(accept)'")
    }
}
