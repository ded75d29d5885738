import Foundation
import Hummingbird
import Tally

/// The server's ledgers as an operator sees them (the admin key): the list and a deletion;
/// and a ledger's personal data (its admin scope): the subjects it has and an erasure, as
/// `tally erase` does. What the library does to a closed store runs with the ledger closed
/// (``LedgerPool/withClosed(_:why:_:)``): close, erase, and it opens again on the next request.
enum LedgerAdminRoutes {
    static let list = ServiceRoute(method: .get, path: "/ledgers", operationId: "listLedgers", security: .serverAdmin)
    static let delete = ServiceRoute(method: .delete, path: "/ledgers/{ledger}", operationId: "deleteLedger", security: .serverAdmin)
    static let subjects = ServiceRoute(method: .get, path: "/ledgers/{ledger}/subjects", operationId: "listSubjects", security: .ledger(.admin))
    static let erase = ServiceRoute(method: .post, path: "/ledgers/{ledger}/erasures", operationId: "eraseSubject", security: .ledger(.admin))

    /// `GET /ledgers`: every ledger of this node's data directory, by id, and whether it is open.
    static func handleList(_ call: Call) async throws -> Response {
        let ledgers = try await call.state.pool.list()
        return Call.json(.object([
            ("ledgers", .array(ledgers.map { .object([("id", .string($0.id)), ("open", .bool($0.isOpen))]) })),
        ]))
    }

    /// `DELETE /ledgers/{ledger}`: the ledger and everything of it, for good, as `tally erase
    /// --everything` deletes a store (its keys first, so nothing sealed under them opens again,
    /// then its read models and directory), then its API keys, kept refusals and webhooks. A new
    /// ledger may take the id afterwards. 204; 409 `ledger_in_use` while a request holds it.
    static func handleDelete(_ call: Call) async throws -> Response {
        let id = try call.ledger
        let deleted = try await call.state.pool.withClosed(id, why: "delete it") { path in
            try StoreErasure.eraseEverything(at: path)
        }
        let keys = try call.state.keys.revokeAll(ledger: id)
        try call.state.refusals.forget(ledger: id)
        let webhooks = try call.state.webhooks.remove(ledger: id)
        call.state.logger.notice("ledger deleted", metadata: [
            "ledger": "\(id)", "paths": "\(deleted.count)", "keys_revoked": "\(keys)", "webhooks_removed": "\(webhooks)",
        ])
        return Response(status: .noContent)
    }

    /// `GET /ledgers/{ledger}/subjects`: the subjects whose personal text the ledger seals
    /// under a key of their own (`owner`, `payee:NAME`), as `tally erase --list` lists them.
    static func handleSubjects(_ call: Call) async throws -> Response {
        let options = call.state.configuration.ledgerOptions
        let path = call.state.pool.path(of: try call.ledger)
        let subjects = try await call.state.pool.with(try call.ledger) { _ in
            try await call.state.blocking { try SubjectErasure.subjects(at: path, options: options) }
        }
        return Call.json(.object([("subjects", .array(subjects.map { .string($0.name) }))]))
    }

    /// `POST /ledgers/{ledger}/erasures` `{"subject": "payee:Acme"}`: erases one subject's
    /// personal data as `tally erase SUBJECT` does (an `erasure_recorded` event, the subject's key
    /// destroyed, the read models folded again: its text reads "[erased …]" everywhere from
    /// then on; amounts, dates and the hash chain stay). 201 with the event's sequence number;
    /// 404 for a subject with no key (never recorded, or erased already: nothing changes).
    static func handleErase(_ call: Call) async throws -> Response {
        let id = try call.ledger
        let body = try JSONBody(try await call.body(limit: call.state.configuration.commandBodyBytesLimit))
        try body.requireOnly(["subject"])
        let subject = try body.string("subject")
        let options = call.state.configuration.ledgerOptions
        let outcome: SubjectErasure.Outcome
        do {
            outcome = try await call.state.pool.withClosed(id, why: "erase a subject") { path in
                try SubjectErasure.erase(subject, at: path, options: options)
            }
        } catch let error as LedgerError {
            throw Problem.ledger(error, field: error.code == .notFound || error.code == .invalidArgument ? "subject" : nil)
        }
        call.state.logger.notice("subject erased", metadata: ["ledger": "\(id)", "subject": "\(outcome.identifier)", "seq": "\(outcome.sequence)"])
        return Call.json(.object([
            ("subject", .string(outcome.subject)), ("identifier", .string(outcome.identifier)), ("seq", .integer(Int64(outcome.sequence))),
        ]), status: .created)
    }
}
