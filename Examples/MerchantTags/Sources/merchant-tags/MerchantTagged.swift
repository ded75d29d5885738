import GRDB
import TallyEngine

/// An account tagged with the merchant it deals with: the example's own event type.
///
/// It moves no money (`MovesNoMoney`), so the engine's balances ignore it. Its code, 10,001,
/// is in the range the engine leaves to embedders (from 10,000). Its fields are declared once:
/// the JSON form (`tally log`, imports) is the synthesized `Codable` one, and the log's
/// binary form is derived from it.
struct MerchantTagged: EventPayload, MovesNoMoney, AdmissionChecked {
    static let eventType = EventType("merchant_tagged", code: 10_001)
    var account: String
    var merchant: String

    init(account: String, merchant: String) {
        self.account = account
        self.merchant = merchant
    }

    var entity: String { "merchant:\(account)" }

    /// What is wrong with the tag, if anything: the one rule every recorded tag keeps.
    var problem: String? { merchant.isEmpty ? "'merchant' is empty" : nil }

    /// Checked for events that arrive already decided (`Ledger.appendEvents`, imports).
    /// Commands are not admission-checked: the tag command below checks the same rule.
    func checkAdmission(_ admission: inout Admission) throws {
        if let problem { throw admission.refuse(.invalidArgument, problem) }
    }
}

extension LedgerCommand {
    /// The example's command: tags `account` with `merchant`. Its plan runs inside the write
    /// pipeline's transaction, so it sees every command committed or planned before it, and
    /// refuses (appending nothing) a tag without a merchant or for an account the engine has
    /// never seen (``AccountRecords``: every posting opens its accounts).
    static func tag(_ account: String, as merchant: String, key: String, at instant: Instant) -> LedgerCommand {
        let tagged = MerchantTagged(account: account, merchant: merchant)
        let request = NewEvent(effectiveAt: instant, body: EventBody(tagged))
        return LedgerCommand(idempotencyKey: key, request: request) { db in
            if let problem = tagged.problem { throw LedgerError(.invalidArgument, problem) }
            guard try AccountRecords.exists(account, db) else { throw LedgerError(.notFound, "no account '\(account)' to tag") }
            return [request]
        }
    }
}

extension LedgerCommand {
    /// The example's money rule: pays `amount` out of `account` to the merchant tagged on
    /// `supplier` (an expense account), and never lets `account` go below zero, at the payment's
    /// effective time or at any later one where payments are already recorded. Its plan reads
    /// the balances through the engine's public `PlanReads`, in the pipeline's transaction: no
    /// copy of the balances of its own.
    static func pay(
        _ amount: Money, from account: String, to supplier: String, key: String, at instant: Instant, calendar: LedgerCalendar
    ) -> LedgerCommand {
        let request = NewEvent(effectiveAt: instant, body: EventBody(JournalEntryPosted(account: supplier, counterAccount: account, amount: amount)))
        return LedgerCommand(idempotencyKey: key, request: request, requestHasEffectiveTime: true) { db in
            guard let merchant = try MerchantTagQueries.merchant(of: supplier).fetch(db) else {
                throw LedgerError(.notFound, "no merchant tagged on '\(supplier)' to pay")
            }
            try PlanReads(db).requireCovers(amount, from: account, at: instant, calendar: calendar, what: "the payment to \(merchant)")
            return [request]
        }
    }
}
