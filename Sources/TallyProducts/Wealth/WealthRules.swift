public import TallyEngine
// The rules of the automated wealth account (docs/domain.md §1), each in one place and pure:
// how a deposit splits, what a purchase rounds up by, what the account's status is, and
// which arguments a wealth command accepts. Commands call them; projectors never do
// (replay folds what the events recorded).

/// How deposits are divided between Spend and Invest: two integer weights.
///
/// ```swift
/// let rule = SplitRule(spendWeight: 70, investWeight: 30)   // the default
/// let even = SplitRule(spendWeight: 1, investWeight: 1)      // 50/50
/// ```
public struct SplitRule: Hashable, Sendable, CustomStringConvertible {
    /// The share of a deposit that goes to Spend, relative to ``investWeight``.
    public let spendWeight: Int64
    /// The share of a deposit that goes to Invest, relative to ``spendWeight``.
    public let investWeight: Int64

    /// A rule from two weights; ``WealthRules/validate(_:)`` says whether a command may set it.
    ///
    /// - Parameters:
    ///   - spendWeight: the Spend weight, e.g. 70.
    ///   - investWeight: the Invest weight, e.g. 30.
    public init(spendWeight: Int64, investWeight: Int64) {
        self.spendWeight = spendWeight
        self.investWeight = investWeight
    }

    /// `"70/30"`.
    public var description: String { "\(spendWeight)/\(investWeight)" }
}

/// Whether a wealth account's automation is running, waiting, or stopped by the user.
public enum WealthStatus: String, Sendable, CaseIterable {
    /// Every deposit received has been split.
    case active
    /// A deposit has been received and not yet split.
    case allocating
    /// The user paused automation: deposits stay unsplit in the wallet until resumed.
    case paused
}

/// The rules of the automated wealth account, pure functions of their inputs.
///
/// ```swift
/// let deposit = try Money(parsing: "100.00", commodity: .usd)
/// let split = try WealthRules.split(deposit, by: WealthRules.defaultSplitRule)   // 70.00 / 30.00
/// let roundUp = try WealthRules.roundUp(for: try Money(parsing: "3.40", commodity: .usd), increment: try Money(parsing: "1.00", commodity: .usd))   // 0.60
/// ```
public enum WealthRules {
    /// The rule a wealth account uses until the user sets another: 70% Spend, 30% Invest.
    public static let defaultSplitRule = SplitRule(spendWeight: 70, investWeight: 30)
    /// Whether round-ups are on before the user switches them: off.
    public static let defaultRoundUpsEnabled = false
    /// The largest weight a split rule may use (weights are ratios, not amounts).
    public static let splitWeightLimit: Int64 = 1_000_000
    /// The longest wealth account name, in bytes.
    public static let accountNameBytesLimit = 64
    /// The longest merchant, source or destination text, in bytes (the event string limit).
    public static let textBytesLimit = 1_024

    // MARK: Split

    /// Splits a deposit between Spend and Invest by `rule`; the two parts always add up to
    /// the deposit, to the last minor unit.
    ///
    /// Each part first gets its exact share rounded toward zero; a minor unit left over
    /// goes to the part with the larger remainder, and on equal remainders to Spend (the
    /// largest-remainder method of ``Money/allocated(byRatios:)``). So at 70/30 a deposit of
    /// 0.01 gives Spend 0.01 and Invest 0.00, and 100.01 gives 70.01 and 30.00.
    ///
    /// - Parameters:
    ///   - deposit: the amount received, positive.
    ///   - rule: the rule in force when the deposit arrived.
    /// - Returns: Spend's part and Invest's part, in the deposit's commodity.
    /// - Throws: ``LedgerError`` (`invalidArgument`) for a rule ``validate(_:)`` refuses.
    public static func split(_ deposit: Money, by rule: SplitRule) throws -> (spend: Money, invest: Money) {
        try validate(rule)
        let parts = try deposit.allocated(byRatios: [rule.spendWeight, rule.investWeight])
        return (parts[0], parts[1])
    }

    /// Refuses a rule with a negative weight, a weight past ``splitWeightLimit``, or both
    /// weights zero.
    ///
    /// - Throws: ``LedgerError`` (`invalidArgument`).
    public static func validate(_ rule: SplitRule) throws {
        guard rule.spendWeight >= 0, rule.investWeight >= 0 else {
            throw LedgerError(.invalidArgument, "split weights must be zero or more; give e.g. 70 30 (Spend, Invest)")
        }
        guard rule.spendWeight <= splitWeightLimit, rule.investWeight <= splitWeightLimit else {
            throw LedgerError(.invalidArgument, "split weights must be at most \(splitWeightLimit); they are ratios, e.g. 70 30")
        }
        guard rule.spendWeight > 0 || rule.investWeight > 0 else {
            throw LedgerError(.invalidArgument, "split weights cannot both be zero; give e.g. 100 0 to keep every deposit in Spend")
        }
    }

    // MARK: Round-up

    /// The round-up increment of a currency when no `round_up_increment_set` is in force for
    /// it: one major unit for an ISO 4217 currency with minor units (1.00 USD, 1.00 GBP,
    /// 1.000 BHD, 1.0000 CLF); none for an ISO currency without minor units (JPY, KRW: every
    /// amount is already a whole unit, so a default would always round up by zero; set one such
    /// as 100 JPY), a crypto token (BTC, USDC) or any other code. With none, a purchase's
    /// round-up is recorded as not defined and nothing moves: never a fraction of a BTC swept.
    ///
    /// ```swift
    /// WealthRules.defaultRoundUpIncrement(for: .usd)                     // 1.00 USD
    /// WealthRules.defaultRoundUpIncrement(for: try Commodity.named("BTC"))   // nil
    /// ```
    public static func defaultRoundUpIncrement(for currency: Commodity) -> Money? {
        guard currency.isISOCurrency, currency.scale > 0 else { return nil }
        var unit: Int64 = 1
        for _ in 0..<currency.scale { unit *= 10 }
        return Money(minorUnits: unit, commodity: currency)
    }

    /// Refuses a round-up increment that is not positive or not in `currency`.
    ///
    /// - Throws: ``LedgerError`` (`invalidArgument`).
    public static func validate(roundUpIncrement increment: Money, for currency: Commodity) throws {
        guard increment.commodity == currency else {
            throw LedgerError(.invalidArgument, "the round-up increment \(increment) is not in \(currency.code); give it in the currency it is for")
        }
        try requirePositive(increment, "the round-up increment")
    }

    /// The round-up of a purchase: the next multiple of `increment` minus the amount (3.40 USD
    /// rounds up by 0.60 at 1.00, 1,234 JPY by 66 at 100); a multiple of it (5.00 at 1.00)
    /// rounds up by zero.
    ///
    /// - Parameters:
    ///   - purchase: the purchase amount, positive.
    ///   - increment: the increment in force for the purchase's currency on its day, positive,
    ///     same commodity (``defaultRoundUpIncrement(for:)`` or a `round_up_increment_set`).
    /// - Returns: the round-up in the purchase's commodity, zero or positive, less than `increment`.
    public static func roundUp(for purchase: Money, increment: Money) throws -> Money {
        precondition(increment.commodity == purchase.commodity && increment.isPositive, "a round-up increment is positive and in the purchase's commodity")
        let excess = purchase.minorUnits.magnitude % increment.minorUnits.magnitude
        // excess < increment <= Int64.max, so the difference fits.
        return Money(minorUnits: excess == 0 ? 0 : Int64(increment.minorUnits.magnitude - excess), commodity: purchase.commodity)
    }

    /// What happens to a purchase's round-up: applied when Spend, after the purchase, still
    /// covers it whole; otherwise skipped whole, never half made. Nil for a zero round-up.
    ///
    /// - Parameters:
    ///   - roundUp: the round-up (``roundUp(for:)``).
    ///   - spendAfterPurchase: the Spend balance once the purchase is paid, same commodity.
    public static func roundUpOutcome(_ roundUp: Money, spendAfterPurchase: Money) throws -> RoundUpOutcome? {
        guard roundUp.isPositive else { return nil }
        return try spendAfterPurchase.isLess(than: roundUp) ? .skipped : .applied
    }

    /// Whether a round-up moved money or was skipped.
    public enum RoundUpOutcome: Sendable {
        /// Spend covered it: it moved from Spend to Invest.
        case applied
        /// Spend could not cover it: nothing moved; the skip is recorded.
        case skipped
    }

    // MARK: Status

    /// The account's status: `paused` if the user paused automation; otherwise
    /// `allocating` while any deposit is received but not yet split; otherwise `active`.
    ///
    /// - Parameters:
    ///   - isPaused: whether automation is paused.
    ///   - hasUnsplitDeposits: whether any deposit waits to be split.
    public static func status(isPaused: Bool, hasUnsplitDeposits: Bool) -> WealthStatus {
        if isPaused { return .paused }
        return hasUnsplitDeposits ? .allocating : .active
    }

    // MARK: Arguments

    /// Refuses an amount that is zero or negative: deposits, purchases and withdrawals move
    /// money one way, named by the command.
    ///
    /// - Parameters:
    ///   - amount: the amount given.
    ///   - what: the role, e.g. "the purchase amount".
    /// - Throws: ``LedgerError`` (`invalidArgument`).
    public static func requirePositive(_ amount: Money, _ what: String) throws {
        guard amount.isPositive else {
            throw LedgerError(.invalidArgument, "\(what) must be more than zero")
        }
    }

    /// Refuses a payment (a purchase or a withdrawal) at `date` that Spend cannot cover, there
    /// and at every later effective time: `lowestSpend` is the lowest Spend balance from the
    /// payment's effective time on (``BalanceQueries``), so a backdated withdrawal cannot
    /// overdraw a purchase already recorded after it. The error names the day it would break.
    ///
    /// - Parameters:
    ///   - amount: what is to be paid.
    ///   - lowestSpend: the lowest Spend balance in the amount's commodity from the payment's
    ///     effective time on, and the first day it is that low.
    ///   - date: the payment's day (ledger time zone).
    ///   - account: the wealth account, for the message.
    ///   - what: the payment, e.g. "the purchase".
    /// - Throws: ``LedgerError`` (`insufficientFunds`).
    public static func requireSpendCovers(
        _ amount: Money, lowestSpend: (amount: Money, date: LocalDate), on date: LocalDate, account: String, what: String
    ) throws {
        // Amounts stay out of messages (they reach logs); the account, currency and days say where.
        try PlanReads.requireCovers(amount, lowest: lowestSpend, on: date,
                                    balance: "the Spend balance in \(amount.commodity.code) of wealth account '\(account)'", what: what)
    }

    /// Refuses a backdated change of a setting that an event recorded after it was decided by
    /// (a split by another rule, a purchase with or without a round-up, a deposit split while
    /// the change would pause automation, a purchase while it would freeze the card): the
    /// past that was recorded stays true. The error names the first such day.
    ///
    /// - Parameters:
    ///   - change: the change, e.g. "switching round-ups on".
    ///   - from: the change's day.
    ///   - conflict: the first recorded event it contradicts, and its day; nil when none does.
    /// - Throws: ``LedgerError`` (`notAllowed`).
    public static func requireNoLaterDecision(_ change: String, from: LocalDate, conflict: (what: String, date: LocalDate)?) throws {
        guard let conflict else { return }
        throw LedgerError(
            .notAllowed,
            "\(change) from \(from) would contradict \(conflict.what) recorded for \(conflict.date); give an effective date after it"
        )
    }

    /// Refuses an account name that is empty, longer than ``accountNameBytesLimit`` bytes, or
    /// holds anything but ASCII letters, digits, `-`, `_` and `.` (names become parts of
    /// ledger account names such as `Wealth:main:Spend`).
    ///
    /// - Throws: ``LedgerError`` (`invalidArgument`).
    public static func validate(accountName account: String) throws {
        let allowed = account.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
        }
        guard !account.isEmpty, account.utf8.count <= accountNameBytesLimit, allowed else {
            throw LedgerError(
                .invalidArgument,
                "a wealth account name must be 1 to \(accountNameBytesLimit) ASCII letters, digits, '-', '_' or '.', e.g. main"
            )
        }
    }

    /// Refuses text (a merchant, a source, a destination, an external id) that is empty
    /// when required, or longer than ``textBytesLimit`` bytes.
    ///
    /// - Parameters:
    ///   - text: the text given.
    ///   - what: its role, e.g. "the merchant".
    ///   - isRequired: whether it must not be empty.
    /// - Throws: ``LedgerError`` (`invalidArgument`).
    public static func validate(text: String, _ what: String, isRequired: Bool = false) throws {
        if isRequired && text.isEmpty {
            throw LedgerError(.invalidArgument, "\(what) must not be empty")
        }
        guard text.utf8.count <= textBytesLimit else {
            throw LedgerError(.invalidArgument, "\(what) is longer than \(textBytesLimit) bytes; shorten it")
        }
    }
}

// What an event of the wealth account arriving already decided must keep: amounts positive
// by meaning, split parts not negative, and no wallet, Spend or Invest balance below zero.

extension DepositReceived: AdmissionChecked {
    public func checkAdmission(_ admission: inout Admission) throws {
        try admission.requirePositive(amount, "amount")
        admission.protect(LedgerAccounts.wallet(account), in: amount.commodity)
    }
}

extension DepositSplit: AdmissionChecked {
    public func checkAdmission(_ admission: inout Admission) throws {
        try admission.requireNotNegative(spend, "spend")
        try admission.requireNotNegative(invest, "invest")
        for protected in [LedgerAccounts.wallet(account), LedgerAccounts.spend(account), LedgerAccounts.invest(account)] {
            admission.protect(protected, in: spend.commodity)
        }
    }
}

extension PurchaseMade: AdmissionChecked {
    public func checkAdmission(_ admission: inout Admission) throws {
        try admission.requirePositive(amount, "amount")
        admission.protect(LedgerAccounts.spend(account), in: amount.commodity)
    }
}

extension RoundUpApplied: AdmissionChecked {
    public func checkAdmission(_ admission: inout Admission) throws {
        try admission.requirePositive(amount, "amount")
        admission.protect(LedgerAccounts.spend(account), in: amount.commodity)
    }
}

extension WithdrawalMade: AdmissionChecked {
    public func checkAdmission(_ admission: inout Admission) throws {
        try admission.requirePositive(amount, "amount")
        admission.protect(LedgerAccounts.spend(account), in: amount.commodity)
    }
}

extension SplitRuleSet: AdmissionChecked {
    /// The rule a command would accept: no negative weight, none past the limit, not both zero.
    public func checkAdmission(_ admission: inout Admission) throws {
        do {
            try WealthRules.validate(SplitRule(spendWeight: spendWeight, investWeight: investWeight))
        } catch let error as LedgerError {
            throw admission.refuse(.invalidArgument, error.message)
        }
    }
}

extension WealthRules {
    /// Refuses a correction (a reversal, an amendment) after which a protected balance (the
    /// wallet, Spend or Invest) would be below zero: at the corrected entry's time or later,
    /// money it brought was used since. The error names the first day it would break.
    ///
    /// - Parameters:
    ///   - what: the correction, e.g. "reversing deposit 12".
    ///   - balance: the balance's name, e.g. "Spend".
    ///   - lowest: the lowest the balance would be from the correction's time on, and its day.
    ///   - account: the wealth account, for the message.
    /// - Throws: ``LedgerError`` (`insufficientFunds`).
    public static func requireCorrectionCovered(_ what: String, balance: String, lowest: (amount: Money, date: LocalDate), account: String) throws {
        guard lowest.amount.isNegative else { return }
        throw LedgerError(
            .insufficientFunds,
            "\(what) would take the \(balance) balance in \(lowest.amount.commodity.code) of wealth account '\(account)' below zero on \(lowest.date), where later payments are recorded; correct those first"
        )
    }
}
