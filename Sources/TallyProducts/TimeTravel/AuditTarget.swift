public import TallyEngine

/// What an audit explains, in the one spelling the CLI's `tally audit TARGET` and the
/// service's `GET /ledgers/{id}/audit?target=…` both read: `pot:ID` (a savings pot),
/// `envelope:ID` (what an envelope has left), `asset:ID` or `liability:ID` (an item's value),
/// anything else an account's name (`Assets:Bank`, `Budget:Pots:holiday`).
public enum AuditTarget: Hashable, Sendable, CustomStringConvertible {
    /// An account, by name.
    case account(String)
    /// A savings pot, by id (its account `Budget:Pots:<id>`).
    case pot(String)
    /// An envelope, by id.
    case envelope(String)
    /// An asset's value, by id.
    case asset(String)
    /// A liability's value, by id.
    case liability(String)

    private static let prefixes: [(String, @Sendable (String) -> AuditTarget)] = [
        ("pot:", AuditTarget.pot), ("envelope:", AuditTarget.envelope), ("asset:", AuditTarget.asset), ("liability:", AuditTarget.liability),
    ]

    /// Reads a target as the CLI writes it.
    ///
    /// ```swift
    /// let target = try AuditTarget(parsing: "pot:holiday")   // .pot("holiday")
    /// ```
    /// - Throws: ``LedgerError`` (`invalidArgument`) for an empty target or a prefix without an id.
    public init(parsing text: String) throws {
        guard !text.isEmpty else {
            throw LedgerError(.invalidArgument, "the audit needs a target: an account name, pot:ID, envelope:ID, asset:ID or liability:ID")
        }
        for (prefix, make) in Self.prefixes where text.hasPrefix(prefix) {
            let id = String(text.dropFirst(prefix.count))
            guard !id.isEmpty else { throw LedgerError(.invalidArgument, "'\(text)' names no id after '\(prefix)'") }
            self = make(id)
            return
        }
        self = .account(text)
    }

    /// The target as the CLI writes it.
    public var description: String {
        switch self {
        case .account(let name): name
        case .pot(let id): "pot:\(id)"
        case .envelope(let id): "envelope:\(id)"
        case .asset(let id): "asset:\(id)"
        case .liability(let id): "liability:\(id)"
        }
    }
}

extension Ledger {
    /// Every change to `target` with the event that made it and the running balance or
    /// value (``audit(account:from:through:knownAt:)``, ``envelopeAudit(_:from:through:knownAt:)``,
    /// ``auditValue(of:_:from:through:knownAt:)``).
    ///
    /// - Throws: ``LedgerError`` (`notFound`) for a target that never moved or does not exist.
    public func audit(_ target: AuditTarget, from: LocalDate? = nil, through: LocalDate? = nil, knownAt: Instant? = nil) throws -> [AuditEntry] {
        switch target {
        case .account(let name): try audit(account: name, from: from, through: through, knownAt: knownAt)
        case .pot(let id): try audit(account: LedgerAccounts.pot(id), from: from, through: through, knownAt: knownAt)
        case .envelope(let id): try envelopeAudit(id, from: from, through: through, knownAt: knownAt)
        case .asset(let id): try auditValue(of: .asset, id, from: from, through: through, knownAt: knownAt)
        case .liability(let id): try auditValue(of: .liability, id, from: from, through: through, knownAt: knownAt)
        }
    }

    /// One page of ``audit(_:from:through:knownAt:)`` after `position`, costing what it
    /// returns: an account's or a pot's is read from the balance read model a page at a time
    /// (``auditPage(account:from:through:knownAt:after:limit:)``), an item's value at the
    /// moments the page spans (``auditValuePage(of:_:from:through:knownAt:after:limit:)``), an
    /// envelope's folded on from its snapshot before the page
    /// (``envelopeAuditPage(_:from:through:knownAt:after:limit:)``).
    ///
    /// - Throws: as ``audit(_:from:through:knownAt:)``; (`invalidArgument`) for a limit below 1.
    public func auditPage(
        _ target: AuditTarget, from: LocalDate? = nil, through: LocalDate? = nil, knownAt: Instant? = nil,
        after position: AuditPosition? = nil, limit: Int
    ) throws -> AuditPage {
        switch target {
        case .account(let name):
            return try auditPage(account: name, from: from, through: through, knownAt: knownAt, after: position, limit: limit)
        case .pot(let id):
            return try auditPage(account: LedgerAccounts.pot(id), from: from, through: through, knownAt: knownAt, after: position, limit: limit)
        case .asset(let id):
            return try auditValuePage(of: .asset, id, from: from, through: through, knownAt: knownAt, after: position, limit: limit)
        case .liability(let id):
            return try auditValuePage(of: .liability, id, from: from, through: through, knownAt: knownAt, after: position, limit: limit)
        case .envelope(let id):
            return try envelopeAuditPage(id, from: from, through: through, knownAt: knownAt, after: position, limit: limit)
        }
    }
}
