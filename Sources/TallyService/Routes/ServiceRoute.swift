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
}
