public import HTTPTypes

/// One operation the service serves, as `Schemas/openapi.yaml` describes it: method, path
/// template (OpenAPI form, `{ledger}`), operation id and the key it needs. ``TallyServer/routes``
/// lists them all; a test holds the list and the document to each other in both directions.
public struct ServiceRoute: Sendable, Hashable {
    /// The key a route needs.
    public enum Security: Sendable, Hashable {
        /// No key (`GET /health`).
        case none
        /// The server's admin key (creating ledgers, metrics).
        case serverAdmin
        /// A key of the ledger in the path with this scope (the admin key also passes).
        case ledger(Scope)
    }

    /// The HTTP method.
    public let method: HTTPRequest.Method
    /// The path template, e.g. `/ledgers/{ledger}/balances`.
    public let path: String
    /// The OpenAPI `operationId`.
    public let operationId: String
    /// The key it needs.
    public let security: Security

    /// The path in Hummingbird's form (`:ledger`).
    var routerPath: String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { part in
            part.hasPrefix("{") && part.hasSuffix("}") ? ":" + part.dropFirst().dropLast() : String(part)
        }.joined(separator: "/")
    }

    /// Whether a request path (raw, as it arrived) is one this template describes: the same
    /// number of segments, each literal equal, each `{name}` any non-empty segment.
    func matches(path: String) -> Bool {
        let template = self.path.split(separator: "/", omittingEmptySubsequences: false)
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard template.count == parts.count else { return false }
        return zip(template, parts).allSatisfy { pattern, part in
            pattern.hasPrefix("{") && pattern.hasSuffix("}") ? !part.isEmpty : pattern == part
        }
    }
}
