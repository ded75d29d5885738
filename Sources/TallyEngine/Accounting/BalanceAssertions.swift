extension Ledger {
    /// Records that an account's balance at the end of `date` (in the ledger's time zone)
    /// is `amount`, as beancount's `balance` directive does; `tally verify` reports the
    /// assertion, with the expected and the actual amount, whenever it stops holding.
    ///
    /// ```swift
    /// try ledger.assertBalance(account: "Assets:Bank", amount: try Money(parsing: "1257.90", commodity: .gbp),
    ///                          on: try LocalDate(parsing: "2026-03-31"))
    /// ```
    ///
    /// - Parameters:
    ///   - account: the account asserted, e.g. `Assets:Bank`.
    ///   - amount: the balance it must have, in the commodity asserted.
    ///   - date: the day whose end the balance holds at, in the ledger's time zone.
    ///   - idempotencyKey: an optional key; a repeat with the same account, amount and
    ///     day returns the first result and appends nothing, other input is refused.
    /// - Throws: ``LedgerError`` (`invalidArgument`) for an empty account name,
    ///   `idempotencyConflict`.
    @discardableResult
    public func assertBalance(account: String, amount: Money, on date: LocalDate, idempotencyKey: String? = nil) throws -> CommandResult {
        guard !account.isEmpty, account.utf8.count <= 200 else {
            throw LedgerError(.invalidArgument, "an account name holds 1 to 200 bytes")
        }
        // Effective at noon of that day, so it sorts inside the day it is about.
        let noon = Instant(microsecondsSinceEpoch: calendar.startOfDay(date).microsecondsSinceEpoch + 12 * 3_600_000_000)
        let asserted = NewEvent(effectiveAt: noon, body: EventBody(BalanceAsserted(account: account, amount: amount)))
        return try perform(idempotencyKey: idempotencyKey, request: asserted, requestHasEffectiveTime: true) { _ in [asserted] }
    }
}
