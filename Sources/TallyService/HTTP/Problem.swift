import HTTPTypes
import Hummingbird
import NIOCore
import TallyEngine

/// An error answered as `application/problem+json` (RFC 9457): an HTTP status, a stable
/// machine-readable ``code`` (snake case, never reworded), a human ``detail`` without amounts
/// or personal data, and the request ``field`` at fault when one is.
///
/// ```json
/// {"type":"https://tally.invalid/problems/invalid_amount","title":"Invalid amount","status":422,
///  "code":"invalid_amount","detail":"amount '1.234' has more decimals than USD allows","field":"amount"}
/// ```
struct Problem: Error, Sendable {
    let status: HTTPResponse.Status
    let code: String
    let detail: String
    let field: String?
    var headers: HTTPFields = [:]

    init(_ status: HTTPResponse.Status, _ code: String, _ detail: String, field: String? = nil) {
        self.status = status
        self.code = code
        self.detail = detail
        self.field = field
    }

    /// The problem document's JSON.
    var json: JSONValue {
        var fields: [(String, JSONValue)] = [
            ("type", .string("https://tally.invalid/problems/\(code)")),
            ("title", .string(Self.title(code))),
            ("status", .integer(Int64(status.code))),
            ("code", .string(code)),
            ("detail", .string(detail)),
        ]
        if let field { fields.append(("field", .string(field))) }
        return .object(fields)
    }

    /// The response carrying this problem.
    var response: Response {
        var headers = self.headers
        headers[.contentType] = "application/problem+json"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: json.text)))
    }

    private static func title(_ code: String) -> String {
        let words = code.split(separator: "_").joined(separator: " ")
        return words.prefix(1).uppercased() + words.dropFirst()
    }

    // MARK: Common problems

    static func missingField(_ field: String) -> Problem {
        Problem(.unprocessableContent, "missing_field", "the body has no '\(field)'", field: field)
    }

    static func invalidField(_ field: String, _ detail: String) -> Problem {
        Problem(.unprocessableContent, "invalid_field", detail, field: field)
    }

    static func invalidParameter(_ name: String, _ detail: String) -> Problem {
        Problem(.badRequest, "invalid_parameter", detail, field: name)
    }

    /// No key, or not a bearer one: RFC 6750's challenge says which scheme to use.
    static var unauthorized: Problem {
        var problem = Problem(.unauthorized, "unauthorized", "give a valid API key: Authorization: Bearer <key>")
        problem.headers[.wwwAuthenticate] = #"Bearer realm="tally""#
        return problem
    }

    /// A key that is unknown or revoked.
    static var invalidKey: Problem {
        var problem = Problem(.unauthorized, "invalid_key", "the API key is unknown or revoked")
        problem.headers[.wwwAuthenticate] = #"Bearer realm="tally", error="invalid_token""#
        return problem
    }

    /// The ledger's own refusal, with the status that says what kind it is.
    static func ledger(_ error: LedgerError, field: String? = nil) -> Problem {
        // The problem's code is the ledger's own stable name for it (LedgerError.Code.name).
        let status: HTTPResponse.Status = switch error.code {
        case .notFound: .notFound
        case .alreadyExists, .idempotencyConflict: .conflict
        case .insufficientFunds, .invalidArgument, .notAllowed, .cardFrozen, .currencyMismatch, .overflow, .invalidEvent, .invalidInput:
            .unprocessableContent
        case .locked: .serviceUnavailable
        default: .internalServerError
        }
        let code = error.code.name
        return Problem(status, code, error.message, field: field)
    }

    /// Any error a handler threw, as a problem: a ``Problem`` as it is, a ledger's error by
    /// its code, Hummingbird's body-size refusal as 413, anything else a 500 that names no
    /// internals.
    static func from(_ error: any Error) -> Problem {
        switch error {
        case let problem as Problem: return problem
        case is NIOTooManyBytesError:
            return Problem(.contentTooLarge, "body_too_large", "the request body is larger than this route accepts")
        case let error as HTTPError where error.status == .contentTooLarge:
            return Problem(.contentTooLarge, "body_too_large", "the request body is larger than this route accepts")
        case let error as HTTPError where error.status == .notFound:
            return Problem(.notFound, "route_not_found", "no such route; Schemas/openapi.yaml lists them")
        case let error as HTTPError:
            return Problem(error.status, "http_error", error.body ?? error.status.reasonPhrase)
        default:
            if let error = LedgerError.reporting(error) { return .ledger(error) }
            return Problem(.internalServerError, "internal", "the server failed to answer; the request may be retried with its Idempotency-Key")
        }
    }
}
