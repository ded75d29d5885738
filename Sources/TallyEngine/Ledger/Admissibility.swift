public import GRDB

/// An event type with invariants that an event arriving already decided (an NDJSON import,
/// `tally append`, ``Ledger/appendEvents(_:)``) must keep where it lands in the log: what
/// its commands would never record. The decisions such an event carries (a split's parts, a
/// round-up's amount) are not made again; only what no decision may break is checked.
///
/// ```swift
/// extension MerchantTagged: AdmissionChecked {
///     public func checkAdmission(_ admission: inout Admission) throws {
///         guard !merchant.isEmpty else { throw admission.refuse(.invalidArgument, "'merchant' is empty") }
///     }
/// }
/// ```
public protocol AdmissionChecked: EventPayload {
    /// Checks the event against the state before it (``Admission/database``), throwing
    /// ``Admission/refuse(_:_:)``'s error, and names through ``Admission/protect(_:in:)`` the
    /// balances it moves that must not go below zero once it is folded: at its effective
    /// time and at every later one (a backdated event must not overdraw one recorded after it).
    func checkAdmission(_ admission: inout Admission) throws
}

/// What an admission check may read, and what it declares (``AdmissionChecked``).
public struct Admission {
    /// A balance that must stay at or above zero once the event is folded, from the event's
    /// effective time on.
    struct ProtectedBalance {
        let account: String
        let commodity: Commodity
        /// Its lowest balance from the event's effective time on, before the event.
        var lowestBefore: Int64 = 0
    }

    /// The read models as they stand before the event: every earlier event folded.
    public let database: Database
    /// The event's place in messages (its index in a command, or a file and line) and its type.
    let label: String
    let typeName: String
    private(set) var protected: [ProtectedBalance] = []

    /// The error that refuses the event, naming where it is and its type.
    public func refuse(_ code: LedgerError.Code, _ reason: String) -> LedgerError {
        LedgerError(code, "\(label) (\(typeName)): \(reason); nothing was appended")
    }

    /// Refuses an amount that is not more than zero.
    public func requirePositive(_ amount: Money, _ field: String) throws {
        guard amount.isPositive else { throw refuse(.invalidArgument, "'\(field)' must be more than zero") }
    }

    /// Refuses an amount below zero.
    public func requireNotNegative(_ amount: Money, _ field: String) throws {
        guard !amount.isNegative else { throw refuse(.invalidArgument, "'\(field)' must not be negative") }
    }

    /// Declares that `account` must hold at least zero in `commodity` once the event is folded,
    /// at the event's effective time and at every later effective time (where it held at
    /// least zero before the event: an event never answers for a shortfall it did not cause).
    public mutating func protect(_ account: String, in commodity: Commodity) {
        protected.append(ProtectedBalance(account: account, commodity: commodity))
    }
}

/// The admission of events that arrive already decided: the checks each type declares
/// (``AdmissionChecked``) before the event is folded, and the balances they protect after.
/// Causes must name an earlier event (the pipeline checks that for every command).
enum Admissibility {
    /// Checks `event` (named `label` in messages: its place in the command or in a file)
    /// against the state before it, and returns the balances it moves that must not go below
    /// zero (``checkAfter(_:label:_:_:)``).
    static func checkBefore(_ event: NewEvent, label: String, _ db: Database) throws -> [Admission.ProtectedBalance] {
        guard let checked = event.body.payload as? any AdmissionChecked else { return [] }
        var admission = Admission(database: db, label: label, typeName: event.type.name)
        try checked.checkAdmission(&admission)
        var protected = admission.protected
        for index in protected.indices {
            protected[index].lowestBefore = try BalanceQueries.lowestBalance(
                db, account: protected[index].account, commodity: protected[index].commodity, from: event.effectiveAt).amount.minorUnits
        }
        return protected
    }

    /// Checks, once `event` is folded, that none of the balances ``checkBefore(_:label:_:)``
    /// named is below zero at the event's effective time or any later one, unless it was
    /// already that low there before the event. The refusal names the first instant.
    static func checkAfter(_ event: Event, label: String, _ balances: [Admission.ProtectedBalance], _ db: Database) throws {
        for balance in balances {
            let lowest = try BalanceQueries.lowestBalance(db, account: balance.account, commodity: balance.commodity, from: event.effectiveAt)
            guard lowest.amount.minorUnits < min(balance.lowestBefore, 0) else { continue }
            let when = lowest.at == event.effectiveAt ? "" : " on \(lowest.at), where an event recorded earlier needs it"
            throw LedgerError(.insufficientFunds, """
                \(label) (\(event.type.name)): it would take \(balance.account) below zero in \(balance.commodity.code)\(when); nothing was appended
                """)
        }
    }
}

extension LedgerCreated: AdmissionChecked {
    /// A ledger is created once, by the first event of its log.
    public func checkAdmission(_ admission: inout Admission) throws {
        throw admission.refuse(.notAllowed, "a ledger is created once, by the first event of its log")
    }
}

extension PriceQuoted: AdmissionChecked {
    /// A price is positive and names a symbol other than its currency.
    public func checkAdmission(_ admission: inout Admission) throws {
        try admission.requirePositive(price, "price")
        guard symbol != price.commodity else { throw admission.refuse(.invalidArgument, "a symbol cannot be priced in itself") }
    }
}

extension FXRateSet: AdmissionChecked {
    /// A rate is positive, between two different currencies.
    public func checkAdmission(_ admission: inout Admission) throws {
        guard rate.significand > 0 else { throw admission.refuse(.invalidArgument, "'rate' must be more than zero") }
        guard base != quote else { throw admission.refuse(.invalidArgument, "a rate needs two different currencies") }
    }
}
