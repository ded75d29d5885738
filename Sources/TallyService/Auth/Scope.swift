/// What an API key may do on its ledger: `read` (queries, export, events), `write`
/// (commands, imports), `admin` (the ledger's keys and settings). Each route needs one.
public enum Scope: String, Sendable, CaseIterable, Hashable {
    /// Queries, audit, lists, export and live events.
    case read
    /// Commands and imports.
    case write
    /// Managing the ledger's API keys.
    case admin
}

/// Who a request comes from, once its key is checked.
struct Principal: Sendable {
    /// The key's id (rate limits and logs name it; never the secret).
    let keyId: String
    /// The ledger the key belongs to; nil for the server's admin key, which may do anything.
    let ledger: String?
    let scopes: Set<Scope>

    var isServerAdmin: Bool { ledger == nil }

    /// Refuses unless this key may act with `scope` on `ledger`: 403 for a key of another
    /// ledger (without saying whether that ledger exists) or a missing scope.
    func require(_ scope: Scope, on ledger: String) throws {
        if isServerAdmin { return }
        guard self.ledger == ledger else {
            throw Problem(.forbidden, "forbidden_ledger", "this API key belongs to another ledger")
        }
        guard scopes.contains(scope) else {
            throw Problem(.forbidden, "missing_scope", "this API key lacks the '\(scope.rawValue)' scope this route needs")
        }
    }
}
