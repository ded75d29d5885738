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
    /// zero (``checkAfter(_:label:_:_:_:)``).
    static func checkBefore(_ event: NewEvent, label: String, _ times: AdmissionTimes, _ db: Database) throws -> [Admission.ProtectedBalance] {
        guard let checked = event.body.payload as? any AdmissionChecked else { return [] }
        var admission = Admission(database: db, label: label, typeName: event.type.name)
        try checked.checkAdmission(&admission)
        var protected = admission.protected
        for index in protected.indices {
            protected[index].lowestBefore = try times.lowestBalance(
                db, account: protected[index].account, commodity: protected[index].commodity, from: event.effectiveAt).amount.minorUnits
        }
        return protected
    }

    /// Checks, once `event` is folded, that none of the balances ``checkBefore(_:label:_:)``
    /// named is below zero at the event's effective time or any later one, unless it was
    /// already that low there before the event. The refusal names the first instant.
    static func checkAfter(_ event: Event, label: String, _ balances: [Admission.ProtectedBalance], _ times: AdmissionTimes, _ db: Database) throws {
        for balance in balances {
            let lowest = try times.lowestBalance(db, account: balance.account, commodity: balance.commodity, from: event.effectiveAt)
            guard lowest.amount.minorUnits < min(balance.lowestBefore, 0) else { continue }
            let when = lowest.at == event.effectiveAt ? "" : " on \(lowest.at), where an event recorded earlier needs it"
            throw LedgerError(.insufficientFunds, """
                \(label) (\(event.type.name)): it would take \(balance.account) below zero in \(balance.commodity.code)\(when); nothing was appended
                """)
        }
    }
}

/// The latest effective time of each balance an admission has asked about, kept while one
/// command's events are admitted, so that the lowest balance from an event's effective time
/// on is the balance itself when nothing is effective later: a bulk `append` of events in
/// date order (or all on one day) then costs O(1) per event, not a scan of every leg of the
/// day before it (which made a bulk append quadratic). A backdated event still reads the
/// legs after it (``BalanceQueries/lowestBalance(_:account:commodity:from:pending:)``).
final class AdmissionTimes {
    private struct Key: Hashable {
        let account: String
        let commodity: String
    }

    /// The latest effective microsecond of any leg of a balance, `Int64.min` for none; only
    /// balances asked about are here, each read from the read model once.
    private var latest: [Key: Int64] = [:]
    /// How many answers read the later legs of a balance.
    private(set) var scans = 0

    /// The lowest balance of `account` in `commodity` from `from` on, as
    /// ``BalanceQueries/lowestBalance(_:account:commodity:from:pending:)`` gives it.
    func lowestBalance(_ db: Database, account: String, commodity: Commodity, from: Instant) throws -> (amount: Money, at: Instant) {
        let key = Key(account: account, commodity: commodity.code)
        let known: Int64
        if let cached = latest[key] {
            known = cached
        } else {
            known = try Self.latestEffective(account: account, commodity: commodity.code, db)
            latest[key] = known
        }
        guard known <= from.microsecondsSinceEpoch else {
            scans += 1
            return try BalanceQueries.lowestBalance(db, account: account, commodity: commodity, from: from)
        }
        return (try BalanceQueries.balance(db, account: account, commodity: commodity), from)
    }

    /// Records the legs of an event just folded: a balance asked about before is now as late
    /// as the latest of them (one not asked about yet is read, with them, when it is).
    func noteFolded(_ postings: [Posting]) {
        for posting in postings {
            let key = Key(account: posting.account, commodity: posting.amount.commodity.code)
            guard let known = latest[key] else { continue }
            latest[key] = max(known, posting.effectiveAt.microsecondsSinceEpoch)
        }
    }

    /// The latest effective microsecond of the legs of a balance in the read model: those of
    /// its last day only.
    private static func latestEffective(account: String, commodity: String, _ db: Database) throws -> Int64 {
        guard let pair = try PostingDays.pair(of: account, commodity: commodity, db),
              let day = try PostingDays.lastDay(ofPair: pair, db)
        else { return Int64.min }
        var latest = Int64.min
        try PostingDays.forEachLeg(ofPair: pair, fromDay: day, throughDay: day, db) { latest = max(latest, $0.effectiveAt) }
        return latest
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
        guard price.significand > 0 else { throw admission.refuse(.invalidArgument, "'price' must be more than zero") }
        guard symbol != currency else { throw admission.refuse(.invalidArgument, "a symbol cannot be priced in itself") }
    }
}

extension FXRateSet: AdmissionChecked {
    /// A rate is positive, between two different currencies.
    public func checkAdmission(_ admission: inout Admission) throws {
        guard rate.significand > 0 else { throw admission.refuse(.invalidArgument, "'rate' must be more than zero") }
        guard base != quote else { throw admission.refuse(.invalidArgument, "a rate needs two different currencies") }
    }
}
