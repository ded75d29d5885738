import TallyEngine
import GRDB

/// What the envelope commands check against the envelopes read model.
enum EnvelopeRecords {
    /// One change to an envelope's definition, as `envelope_changes` keeps it.
    struct Change {
        /// What changed.
        enum Kind: String {
            case created, budget, rollover, funded, deleted
        }

        let kind: Kind
        /// The interval set by a creation or a budget change.
        let interval: EnvelopeInterval?
        /// The currency of the amount, when the change has one.
        let commodity: Commodity?
    }

    /// Whether an envelope of this id was ever created (deleted ones included).
    static func exists(_ envelopeId: String, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM envelopes WHERE envelope_id = ?)"), arguments: [envelopeId]) ?? false
    }

    /// The envelope's changes in effective-time order.
    ///
    /// - Throws: ``LedgerError`` (`inconsistentLog`) for a kind or interval no envelope event writes.
    static func changes(of envelopeId: String, _ db: Database) throws -> [Change] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT kind, interval, commodity FROM envelope_changes WHERE envelope_id = ? ORDER BY effective_at, sequence
            """), arguments: [envelopeId]).map { row in
            let kindName: String = row[EnvelopeColumns.kind]
            let intervalName: String? = row[EnvelopeColumns.interval]
            guard let kind = Change.Kind(rawValue: kindName) else {
                throw LedgerError(.inconsistentLog, "envelope '\(envelopeId)' has a change of kind '\(kindName)', which no envelope event makes")
            }
            let interval = try intervalName.map { name in
                guard let interval = EnvelopeInterval(rawValue: name) else {
                    throw LedgerError(.inconsistentLog, "envelope '\(envelopeId)' has the interval '\(name)', which is no envelope interval")
                }
                return interval
            }
            return Change(kind: kind, interval: interval, commodity: try (row[EnvelopeColumns.commodity] as String?).map(Commodity.named))
        }
    }

    /// The budgeted amount and interval in force at `instant`: the latest creation or budget
    /// change effective at or before it; nil when none is.
    static func setting(of envelopeId: String, inForceAt instant: Instant, _ db: Database) throws -> (budgeted: Money, interval: EnvelopeInterval)? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT interval, commodity, amount FROM envelope_changes
            WHERE envelope_id = ? AND kind IN ('created', 'budget') AND effective_at <= ? ORDER BY effective_at DESC, sequence DESC LIMIT 1
            """), arguments: [envelopeId, instant.microsecondsSinceEpoch]) else { return nil }
        let intervalName: String = row[EnvelopeColumns.interval]
        guard let interval = EnvelopeInterval(rawValue: intervalName) else {
            throw LedgerError(.inconsistentLog, "envelope '\(envelopeId)' has the interval '\(intervalName)', which is no envelope interval")
        }
        return (try row.money(EnvelopeColumns.amount, EnvelopeColumns.commodity), interval)
    }

    /// The rollover policy set last at or before `instant`; nil when none was (the default applies).
    static func policy(of envelopeId: String, inForceAt instant: Instant, _ db: Database) throws -> RolloverPolicy? {
        guard let name = try String.fetchOne(db.cachedStatement(sql: """
            SELECT policy FROM envelope_changes
            WHERE envelope_id = ? AND kind = 'rollover' AND effective_at <= ? ORDER BY effective_at DESC, sequence DESC LIMIT 1
            """), arguments: [envelopeId, instant.microsecondsSinceEpoch]) else { return nil }
        guard let policy = RolloverPolicy(rawValue: name) else {
            throw LedgerError(.inconsistentLog, "envelope '\(envelopeId)' has the rollover policy '\(name)', which is no policy")
        }
        return policy
    }

    /// The currency of an account opened for envelope budgeting; nil for another account.
    static func accountCurrency(_ account: String, _ db: Database) throws -> Commodity? {
        try String.fetchOne(db.cachedStatement(sql: "SELECT commodity FROM envelope_accounts WHERE account = ?"), arguments: [account])
            .map(Commodity.named)
    }

    /// When the account's opening took effect; nil when it was never opened for envelopes.
    static func accountOpenedAt(_ account: String, _ db: Database) throws -> Instant? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT effective_at FROM envelope_accounts WHERE account = ?"), arguments: [account])
            .map(Instant.init(microsecondsSinceEpoch:))
    }

    /// The envelope's first day; nil when it was never created.
    static func startDate(of envelopeId: String, _ db: Database) throws -> LocalDate? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT start_date FROM envelopes WHERE envelope_id = ?"), arguments: [envelopeId])
            .map { LocalDate(daysSinceEpoch: Int($0)) }
    }

    /// Whether the account was opened for envelope budgeting.
    static func isEnvelopeAccount(_ account: String, _ db: Database) throws -> Bool {
        try accountCurrency(account, db) != nil
    }
}
