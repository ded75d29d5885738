import Foundation
import GRDB

extension Ledger {
    /// A plain wallet on the ledger's general accounts: deposits, purchases and transfers
    /// between `Assets:…` accounts, with no split, no round-up and no product to configure.
    /// The overdraft rule holds at each command's effective time and every later one
    /// (``PlanReads/requireCovers(_:from:at:calendar:what:)``): a backdated purchase cannot
    /// overdraw a purchase already recorded after it.
    ///
    /// ```swift
    /// let alice = "Assets:Customers:alice"
    /// try ledger.wallet.deposit(try Money(parsing: "50.00", commodity: .usd), into: alice, payee: "Payroll", idempotencyKey: "dep-1")
    /// try await ledger.wallet.purchase(try Money(parsing: "12.40", commodity: .usd), from: alice, merchant: "Corner Grocer", idempotencyKey: "pur-1")
    /// let left = try ledger.wallet.balance(of: alice, in: .usd)   // 37.60 USD
    /// ```
    ///
    /// Each command records one engine event (`journal_entry_posted` for a deposit or a purchase,
    /// `transfer_made` for a transfer), so `balances`, `audit`, time travel and the log's tools
    /// see wallet money as any other. Each has a `…Command` form returning the
    /// ``LedgerCommand`` it runs, for ``Ledger/run(batch:)-659qc`` or an embedder's own command.
    public var wallet: Wallet { Wallet(ledger: self) }

    /// The plain wallet of one ledger (``Ledger/wallet``).
    public struct Wallet: Sendable {
        /// The ledger the wallet records in.
        public let ledger: Ledger

        /// The longest account name, merchant or payee the wallet takes, in UTF-8 bytes.
        public static let textBytesLimit = 200

        // MARK: Deposits

        /// Records money arriving in `account` from outside (`External:Deposits`). The account
        /// is opened by its first deposit.
        ///
        /// - Parameters:
        ///   - amount: more than zero.
        ///   - account: an `Assets:…` account, e.g. `Assets:Customers:alice`.
        ///   - payee: who paid, if known (sealed in the log as personal text).
        ///   - effectiveAt: when the money arrived; `now` when nil.
        ///   - idempotencyKey: a repeat with the same input returns the first result and appends nothing.
        /// - Throws: ``LedgerError``: `invalidArgument` for a non-positive amount, an account that is
        ///   not `Assets:…`, or text past its limit; `notAllowed` for a closed account;
        ///   `idempotencyConflict` for a key used with other input. Nothing is appended.
        @discardableResult
        public func deposit(
            _ amount: Money, into account: String, payee: String? = nil, effectiveAt: Instant? = nil, idempotencyKey: String? = nil
        ) throws -> Ledger.CommandResult {
            try ledger.run(depositCommand(amount, into: account, payee: payee, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
        }

        /// ``deposit(_:into:payee:effectiveAt:idempotencyKey:)`` for async callers.
        @discardableResult
        public func deposit(
            _ amount: Money, into account: String, payee: String? = nil, effectiveAt: Instant? = nil, idempotencyKey: String? = nil
        ) async throws -> Ledger.CommandResult {
            try await ledger.run(depositCommand(amount, into: account, payee: payee, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
        }

        /// The command ``deposit(_:into:payee:effectiveAt:idempotencyKey:)`` runs; its input is
        /// checked at once, its plan when the pipeline reaches it.
        public func depositCommand(
            _ amount: Money, into account: String, payee: String? = nil, effectiveAt: Instant? = nil, idempotencyKey: String? = nil
        ) throws -> LedgerCommand {
            let at = try instant(effectiveAt)
            try Self.requirePositive(amount, "deposit")
            try Self.requireWalletAccount(account)
            let payee = try Self.optionalText(payee, "payee")
            let deposited = NewEvent(effectiveAt: at, body: EventBody(JournalEntryPosted(
                account: account, counterAccount: LedgerAccounts.deposits, amount: amount, payee: payee)))
            return LedgerCommand(idempotencyKey: idempotencyKey, request: deposited, requestHasEffectiveTime: effectiveAt != nil) { db in
                try Self.requireNotClosed(account, db)
                return [deposited]
            }
        }

        // MARK: Purchases

        /// Records a purchase paid from `account` to `merchant` (`External:Purchases`).
        ///
        /// - Parameters:
        ///   - amount: more than zero.
        ///   - account: an `Assets:…` account that holds the money.
        ///   - merchant: who was paid (sealed in the log as personal text), not blank.
        ///   - effectiveAt: when it was paid; `now` when nil.
        ///   - idempotencyKey: a repeat with the same input returns the first result, even when the
        ///     account could no longer cover it.
        /// - Throws: ``LedgerError``: `notFound` for an account never deposited to; `insufficientFunds`
        ///   when the account's balance at `effectiveAt` or any later time is less than `amount`;
        ///   `notAllowed` for a closed account; `invalidArgument`; `idempotencyConflict`. Nothing is appended.
        @discardableResult
        public func purchase(
            _ amount: Money, from account: String, merchant: String, effectiveAt: Instant? = nil, idempotencyKey: String? = nil
        ) throws -> Ledger.CommandResult {
            try ledger.run(purchaseCommand(amount, from: account, merchant: merchant, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
        }

        /// ``purchase(_:from:merchant:effectiveAt:idempotencyKey:)`` for async callers.
        @discardableResult
        public func purchase(
            _ amount: Money, from account: String, merchant: String, effectiveAt: Instant? = nil, idempotencyKey: String? = nil
        ) async throws -> Ledger.CommandResult {
            try await ledger.run(purchaseCommand(amount, from: account, merchant: merchant, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
        }

        /// The command ``purchase(_:from:merchant:effectiveAt:idempotencyKey:)`` runs.
        public func purchaseCommand(
            _ amount: Money, from account: String, merchant: String, effectiveAt: Instant? = nil, idempotencyKey: String? = nil
        ) throws -> LedgerCommand {
            let at = try instant(effectiveAt)
            try Self.requirePositive(amount, "purchase")
            try Self.requireWalletAccount(account)
            guard let merchant = try Self.optionalText(merchant, "merchant") else {
                throw LedgerError(.invalidArgument, "a purchase names its merchant; 'merchant' is blank")
            }
            let paid = NewEvent(effectiveAt: at, body: EventBody(JournalEntryPosted(
                account: account, counterAccount: LedgerAccounts.purchases, amount: try amount.negated(), payee: merchant)))
            let calendar = ledger.calendar
            return LedgerCommand(idempotencyKey: idempotencyKey, request: paid, requestHasEffectiveTime: effectiveAt != nil) { db in
                try Self.requireFunded(amount, from: account, at: at, calendar: calendar, what: "the purchase", db)
                return [paid]
            }
        }

        // MARK: Transfers

        /// Records money moving from `source` to `target`, both `Assets:…` accounts in the same
        /// currency.
        ///
        /// - Parameters:
        ///   - amount: more than zero.
        ///   - source: the account the money leaves; it must cover `amount` from `effectiveAt` on.
        ///   - target: the account it arrives in; it must exist (a deposit opened it).
        ///   - effectiveAt: when it moved; `now` when nil.
        ///   - idempotencyKey: a repeat with the same input returns the first result. The transfer's
        ///     id is `wallet:KEY`, so a repeat compares equal; without a key it is a new UUID.
        /// - Throws: ``LedgerError``: `notFound` for an account never deposited to; `insufficientFunds`;
        ///   `notAllowed` for a closed account; `invalidArgument` for a transfer to the same account;
        ///   `idempotencyConflict`. Nothing is appended.
        @discardableResult
        public func transfer(
            _ amount: Money, from source: String, to target: String, effectiveAt: Instant? = nil, idempotencyKey: String? = nil
        ) throws -> Ledger.CommandResult {
            try ledger.run(transferCommand(amount, from: source, to: target, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
        }

        /// ``transfer(_:from:to:effectiveAt:idempotencyKey:)`` for async callers.
        @discardableResult
        public func transfer(
            _ amount: Money, from source: String, to target: String, effectiveAt: Instant? = nil, idempotencyKey: String? = nil
        ) async throws -> Ledger.CommandResult {
            try await ledger.run(transferCommand(amount, from: source, to: target, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
        }

        /// The command ``transfer(_:from:to:effectiveAt:idempotencyKey:)`` runs.
        public func transferCommand(
            _ amount: Money, from source: String, to target: String, effectiveAt: Instant? = nil, idempotencyKey: String? = nil
        ) throws -> LedgerCommand {
            let at = try instant(effectiveAt)
            try Self.requirePositive(amount, "transfer")
            try Self.requireWalletAccount(source)
            try Self.requireWalletAccount(target)
            guard source != target else { throw LedgerError(.invalidArgument, "a transfer moves money between two accounts; '\(source)' is both") }
            let transferId = idempotencyKey.map { "wallet:\($0)" } ?? "wallet:\(UUID().uuidString.lowercased())"
            let moved = NewEvent(effectiveAt: at, body: EventBody(TransferMade(transferId: transferId, source: source, target: target, amount: amount)))
            let calendar = ledger.calendar
            return LedgerCommand(idempotencyKey: idempotencyKey, request: moved, requestHasEffectiveTime: effectiveAt != nil) { db in
                guard try AccountRecords.exists(target, db) else {
                    throw LedgerError(.notFound, "no account '\(target)' to transfer to; a deposit opens it")
                }
                try Self.requireNotClosed(target, db)
                try Self.requireFunded(amount, from: source, at: at, calendar: calendar, what: "the transfer", db)
                return [moved]
            }
        }

        // MARK: Reads

        /// The balance of `account` in `commodity`: with everything recorded when both dates are
        /// nil, else at `asOf` as known at `knownAt` (``PlanReads/balance(of:in:asOf:knownAt:)``).
        public func balance(of account: String, in commodity: Commodity, asOf: Instant? = nil, knownAt: Instant? = nil) throws -> Money {
            try ledger.read { db in
                let reads = PlanReads(db)
                if asOf == nil && knownAt == nil { return try reads.balance(of: account, in: commodity) }
                return try reads.balance(of: account, in: commodity, asOf: asOf ?? Instant(microsecondsSinceEpoch: .max), knownAt: knownAt)
            }
        }

        /// ``balance(of:in:asOf:knownAt:)`` for async callers, on the engine's blocking pool.
        public func balance(of account: String, in commodity: Commodity, asOf: Instant? = nil, knownAt: Instant? = nil) async throws -> Money {
            try await ledger.run { try $0.wallet.balance(of: account, in: commodity, asOf: asOf, knownAt: knownAt) }
        }

        // MARK: Rules

        private func instant(_ effectiveAt: Instant?) throws -> Instant {
            let at = effectiveAt ?? ledger.now
            guard at.isInCalendarRange else { throw LedgerError(.invalidArgument, "the effective time must lie in years 0001 to 9999") }
            return at
        }

        private static func requirePositive(_ amount: Money, _ what: String) throws {
            guard amount.isPositive else { throw LedgerError(.invalidArgument, "a \(what) moves more than zero") }
        }

        /// A wallet account is one of the user's `Assets:…` accounts.
        private static func requireWalletAccount(_ account: String) throws {
            guard !account.isEmpty, account.utf8.count <= textBytesLimit, LedgerAccounts.kind(of: account) == .asset,
                  account.hasPrefix("Assets:"), account.count > "Assets:".count else {
                throw LedgerError(.invalidArgument, "a wallet account is an 'Assets:…' account of 1 to \(textBytesLimit) bytes, e.g. Assets:Customers:alice; got '\(account)'")
            }
        }

        /// Trimmed text, nil when absent or blank; refused past the limit.
        private static func optionalText(_ text: String?, _ field: String) throws -> String? {
            guard let trimmed = text?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
            guard trimmed.utf8.count <= textBytesLimit else {
                throw LedgerError(.invalidArgument, "'\(field)' holds at most \(textBytesLimit) bytes of UTF-8")
            }
            return trimmed
        }

        private static func requireNotClosed(_ account: String, _ db: Database) throws {
            if try AccountRecords.isOpen(account, db) == false {
                throw LedgerError(.notAllowed, "the account '\(account)' is closed")
            }
        }

        /// Money taken out of `account`: it exists, is open, and covers `amount` from `at` on.
        private static func requireFunded(_ amount: Money, from account: String, at: Instant, calendar: LedgerCalendar, what: String, _ db: Database) throws {
            let reads = PlanReads(db)
            guard try reads.accountExists(account) else {
                throw LedgerError(.notFound, "no account '\(account)'; a deposit opens it")
            }
            try requireNotClosed(account, db)
            try reads.requireCovers(amount, from: account, at: at, calendar: calendar, what: what)
        }
    }
}
