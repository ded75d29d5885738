import Hummingbird
import Tally

/// What a command answers besides its events: the resource it created or changed, as the
/// `GET` of that resource gives it as known right after the command (`known_at` the command's
/// recording time, so a replay of the key answers the same), under a field named for it
/// (`"pot": {…}`, `"transaction": {…}`; null once the command ended it), and for a command
/// that creates an addressable resource, its path in `Location`. A command that changed
/// nothing answers the resource as it is. A command with no resource of its own (a price, an
/// FX rate, a transfer) answers its events only.
enum CommandResources {
    /// How a command's resource is found and read.
    struct Resource: Sendable {
        /// The answer's field.
        let field: String
        /// Whether the command creates the resource (its answer then carries `Location`).
        let creates: Bool
        /// The resource's id from the request, or from the events when the ledger chose it.
        let id: @Sendable (_ call: Call, _ body: JSONBody, _ events: [Event]) throws -> String
        /// The resource's path under `/ledgers/{ledger}`, for `Location`.
        let path: @Sendable (_ id: String) -> String
        /// The resource as known at an instant (nil: everything recorded), or nil when it is gone.
        let read: @Sendable (_ ledger: Ledger, _ id: String, _ body: JSONBody, _ knownAt: Instant?) throws -> JSONValue?
    }

    /// The resource of each command route, by operation id.
    static let byOperation: [String: Resource] = {
        var table: [String: Resource] = [:]
        func add(_ operations: [String], _ resource: Resource) { for operation in operations { table[operation] = resource } }
        add(["depositWealth", "purchaseWealth", "withdrawWealth", "setWealthSplitRule", "setWealthRoundUps", "pauseWealthAutomation",
             "resumeWealthAutomation", "freezeWealthCard", "unfreezeWealthCard", "amendWealthEntry", "reverseWealthEntry"], wealth)
        add(["createPot"], pot(creates: true))
        add(["addToPot", "withdrawFromPot", "deletePot", "deletePotResource"], pot(creates: false))
        add(["recordTransaction", "importBankTransaction"], transaction(creates: true))
        add(["amendTransaction", "recategoriseTransaction", "deleteTransaction", "deleteTransactionResource"], transaction(creates: false))
        add(["setBudget", "deleteBudget"], budget)
        add(["defineRecurring"], recurring(creates: true))
        add(["removeRecurring", "deleteRecurringResource"], recurring(creates: false))
        add(["createEnvelope"], envelope(creates: true))
        add(["changeEnvelopeBudget", "fundEnvelope", "setEnvelopeRollover", "deleteEnvelope", "deleteEnvelopeResource"], envelope(creates: false))
        add(["startChallenge"], challenge(creates: true))
        add(["completeChallengeStep"], challenge(creates: false))
        add(["addAsset"], item(.asset, creates: true))
        add(["recordValuation", "tagAsset", "renameAsset", "setAssetPosition", "clearValuationOverride", "removeAsset", "deleteAssetResource"], item(.asset, creates: false))
        add(["addLiability"], item(.liability, creates: true))
        add(["recordLiabilityValuation", "removeLiability", "deleteLiabilityResource"], item(.liability, creates: false))
        add(["setDueSoonDays", "setPageSize", "setPriceStaleness", "setBaseCurrency"], settings)
        return table
    }()

    /// The answer of a command that ran: its events and its resource, with `Location` for a creation.
    static func answer(_ operation: String, events: [Event], ledger: Ledger, call: Call, body: JSONBody) throws -> (fields: [(String, JSONValue)], location: String?) {
        let eventsJSON: JSONValue = .array(try events.map { .raw(try EventJSON.encode($0)) })
        guard let resource = byOperation[operation] else { return ([("events", eventsJSON)], nil) }
        let id = try resource.id(call, body, events)
        let value = try resource.read(ledger, id, body, events.map(\.recordedAt).max()) ?? .null
        let location = resource.creates && !events.isEmpty ? "/ledgers/\(try call.ledger)" + resource.path(id) : nil
        return ([(resource.field, value), ("events", eventsJSON)], location)
    }

    // MARK: Resources

    private static func parameter(_ name: String) -> @Sendable (Call, JSONBody, [Event]) throws -> String {
        { call, _, _ in try call.parameter(name) }
    }

    private static func bodyId(_ field: String) -> @Sendable (Call, JSONBody, [Event]) throws -> String {
        { _, body, _ in try body.string(field) }
    }

    private static func escaped(_ id: String) -> String {
        id.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? id
    }

    /// A wealth account's summary as of the end of the day the command was recorded (in the
    /// ledger's time zone), so that a replay on a later day answers the same; today's end
    /// when the command appended nothing.
    static let wealth = Resource(field: "account", creates: false, id: parameter("account"), path: { "/wealth/\(escaped($0))" }) { ledger, id, _, knownAt in
        let asOf = ledger.calendar.endOfDay(ledger.calendar.date(of: knownAt ?? ledger.now))
        return QueryRoutes.wealthJSON(try ledger.wealthSummary(account: id, asOf: asOf, knownAt: knownAt), asOf: asOf, knownAt: knownAt)
    }

    static func pot(creates: Bool) -> Resource {
        Resource(field: "pot", creates: creates, id: creates ? bodyId("id") : parameter("pot"), path: { "/pots/\(escaped($0))" }) { ledger, id, _, knownAt in
            try ledger.pots(knownAt: knownAt).first { $0.id == id }.map(QueryRoutes.potJSON)
        }
    }

    /// A recorded transaction's id: the one its event names, else (a repeat that appended
    /// nothing) the one the request names, or the bank's.
    private static func recordedTransactionId(_ call: Call, _ body: JSONBody, _ events: [Event]) throws -> String {
        let recorded: [String] = events.compactMap { event in event.body.as(TransactionRecorded.self)?.transactionId }
        if let id = recorded.last { return id }
        if let given = try body.optionalString("id") { return given }
        let bank = try call.parameter("bank")
        let external = try body.string("external_id")
        return "bank:" + bank + ":" + external
    }

    static func transaction(creates: Bool) -> Resource {
        let id: @Sendable (Call, JSONBody, [Event]) throws -> String = creates ? recordedTransactionId : parameter("transaction")
        return Resource(field: "transaction", creates: creates, id: id, path: { "/transactions/\(escaped($0))" }) { ledger, id, _, knownAt in
            try ledger.transaction(id: id, knownAt: knownAt).map(QueryRoutes.transactionJSON)
        }
    }

    static let budget = Resource(field: "budget", creates: false, id: { _, body, _ in try body.string("month") }, path: { _ in "/budgets" }) { ledger, month, body, knownAt in
        let category = try CommandRoutes.category(body, "category")
        let month = try Month(parsing: month)
        let budgets = try ledger.budgets(month: month, knownAt: knownAt)
        let conversion = try ledger.budgetBaseConversion(at: min(ledger.calendar.endOfDay(month.lastDay), ledger.now), knownAt: knownAt)
        return try budgets.first { $0.category == category }.map { try ReadRoutes.budgetJSON($0, conversion) }
    }

    static func recurring(creates: Bool) -> Resource {
        Resource(field: "recurring", creates: creates, id: creates ? bodyId("id") : parameter("recurring"), path: { "/recurring/\(escaped($0))" }) { ledger, id, _, knownAt in
            try ledger.recurringItems(knownAt: knownAt).first { $0.id == id }.map(ReadRoutes.recurringJSON)
        }
    }

    static func envelope(creates: Bool) -> Resource {
        Resource(field: "envelope", creates: creates, id: creates ? bodyId("id") : parameter("envelope"), path: { "/envelopes/\(escaped($0))" }) { ledger, id, _, knownAt in
            try ledger.envelopeStatuses(knownAt: knownAt).first { $0.envelopeId == id }.map(QueryRoutes.envelopeJSON)
        }
    }

    static func challenge(creates: Bool) -> Resource {
        Resource(field: "challenge", creates: creates, id: creates ? bodyId("id") : parameter("challenge"), path: { "/challenges/\(escaped($0))" }) { ledger, id, _, knownAt in
            try ledger.challengeProgresses(knownAt: knownAt).first { $0.challengeId == id }.map(ReadRoutes.challengeJSON)
        }
    }

    static func item(_ kind: ItemKind, creates: Bool) -> Resource {
        let name = kind == .asset ? "asset" : "liability"
        return Resource(field: name, creates: creates, id: creates ? bodyId("id") : parameter(name), path: { "/\(kind == .asset ? "assets" : "liabilities")/\(escaped($0))" }) { ledger, id, _, knownAt in
            try ledger.netWorthItems(kind: kind, knownAt: knownAt).items.first { $0.itemId == id }.map { QueryRoutes.itemJSON($0, ledger) }
        }
    }

    static let settings = Resource(field: "ledger", creates: false, id: { call, _, _ in try call.ledger }, path: { _ in "" }) { ledger, id, _, knownAt in
        QueryRoutes.settingsJSON(id, ledger, try ledger.settings(asOf: ledger.now, knownAt: knownAt))
    }
}
