public import TallyEngine
// Events of the monthly budget and savings pots product (docs/domain.md §2), also used by the
// envelope product's transactions (§3).

/// The fixed set of budget categories.
public enum BudgetCategory: String, EventEnumeration {
    /// Entertainment, Bills and Groceries (`entertainment`, `bills`, `groceries`).
    case entertainment, bills, groceries
    /// Dining Out (`dining_out`).
    case diningOut = "dining_out"
    /// Transportation (`transportation`).
    case transportation
    /// Personal Care (`personal_care`).
    case personalCare = "personal_care"
    /// Education, Lifestyle, Shopping and General (`education`, `lifestyle`, `shopping`,
    /// `general`); General is the category of an envelope transaction given none.
    case education, lifestyle, shopping, general

    /// The name a person reads: "Dining Out".
    public var displayName: String {
        switch self {
        case .entertainment: "Entertainment"
        case .bills: "Bills"
        case .groceries: "Groceries"
        case .diningOut: "Dining Out"
        case .transportation: "Transportation"
        case .personalCare: "Personal Care"
        case .education: "Education"
        case .lifestyle: "Lifestyle"
        case .shopping: "Shopping"
        case .general: "General"
        }
    }
}

/// Whether the user typed a transaction or a bank connection imported it.
public enum TransactionSource: String, EventEnumeration {
    /// `manual`: typed by the user (generated recurring occurrences count as manual), can be
    /// amended and deleted; `bank`: imported from a connected bank, can only be re-categorised.
    case manual, bank
}

/// How often a recurring item falls due.
public enum RecurringFrequency: String, EventEnumeration {
    /// Every month, every third month or every twelfth month, counted from the start month
    /// (`monthly`, `quarterly`, `yearly`); `weekly` is refused by
    /// ``Ledger/defineRecurring(id:payee:category:amount:dayOfMonth:startMonth:endMonth:frequency:idempotencyKey:)``:
    /// a recurring item falls due on a day of the month, and an item an early event recorded
    /// as weekly falls due every month on its day (``schedule``).
    case weekly, monthly, quarterly, yearly

    /// The schedule the item follows, and the frequency every answer shows: `monthly` for a
    /// recorded `weekly` (it falls due every month on its day), the frequency itself otherwise.
    /// So what an answer or an export shows is always a frequency `recurring define` and
    /// `tally import` take.
    ///
    /// ```swift
    /// RecurringFrequency.weekly.schedule   // .monthly
    /// ```
    public var schedule: RecurringFrequency { self == .weekly ? .monthly : self }
}

/// A transaction happened on the effective date. Manual ones can be amended and deleted;
/// bank ones only re-categorised.
public struct TransactionRecorded: SealsPersonalText {
    public static let eventType = EventType("transaction_recorded", code: 40, version: 2)
    /// Version 1 stored personal text as plain strings.
    public static var legacyVersions: [any LegacyEventPayload.Type] { [PlainTextVersion<TransactionRecorded>.self] }
    /// The fields sealed per subject in the log.
    public static let personalTextFields: [String: PersonalTextSealing] = ["payee": .payee]
    /// The transaction's id: `manual:<sequence>` or the caller's id for a manual one,
    /// `bank:<bank id>:<external id>` for an imported one.
    public var transactionId: String
    /// Who was paid, or who paid; an envelope transaction's may be empty.
    public var payee: String
    /// The budget category it counts in.
    public var category: BudgetCategory
    /// Signed: positive income, negative expense; not zero. In the budget currency, or for
    /// an envelope transaction in its account's currency.
    public var amount: Money
    /// Whether the user marked it as recurring.
    public var recurring: Bool
    /// Typed by the user (`manual`) or imported from a bank (`bank`).
    public var source: TransactionSource
    /// The bank's transaction id (bank source); importing it again records nothing.
    public var externalId: String?
    /// The connected bank it was imported from (bank source); nil for a manual one.
    public var bankId: String?
    /// The account it moved, for ledgers that keep several (envelope budgeting); nil for
    /// the budget's current account, `Budget:Current`.
    public var account: String?
    /// The envelope it is assigned to (envelope budgeting); nil for none.
    public var envelope: String?
    /// 1 unit of `amount`'s currency in the base currency, when they differ.
    public var rateToBase: ExactDecimal?

    /// A transaction; its event's effective time is the start of its day in the ledger's
    /// time zone.
    ///
    /// - Parameters:
    ///   - transactionId: the transaction's id.
    ///   - payee: who was paid, or who paid.
    ///   - category: the budget category.
    ///   - amount: signed: positive income, negative expense.
    ///   - recurring: whether the user marks it as recurring.
    ///   - source: `manual` or `bank`.
    ///   - externalId: the bank's transaction id, for an imported one.
    ///   - bankId: the bank it was imported from, for an imported one.
    ///   - account: the account it moved; nil for `Budget:Current`.
    ///   - envelope: the envelope it is assigned to; nil for none.
    ///   - rateToBase: 1 unit of `amount`'s currency in the base currency; nil in the base currency.
    public init(
        transactionId: String, payee: String, category: BudgetCategory, amount: Money,
        recurring: Bool = false, source: TransactionSource, externalId: String? = nil,
        bankId: String? = nil, account: String? = nil, envelope: String? = nil,
        rateToBase: ExactDecimal? = nil
    ) {
        self.transactionId = transactionId
        self.payee = payee
        self.category = category
        self.amount = amount
        self.recurring = recurring
        self.source = source
        self.externalId = externalId
        self.bankId = bankId
        self.account = account
        self.envelope = envelope
        self.rateToBase = rateToBase
    }

    public var entity: String { "transaction:\(transactionId)" }
}

extension TransactionRecorded: ExampleProviding {
    public static var example: TransactionRecorded {
        get throws {
            try TransactionRecorded(
                transactionId: "txn_01J8ZQ4M2K", payee: "Tesco Express", category: .groceries,
                amount: Money(parsing: "-23.45", commodity: .gbp), recurring: true, source: .bank,
                externalId: "bank-tx-4471902", bankId: "monzo", account: "Cash", envelope: "env_groceries",
                rateToBase: ExactDecimal(parsing: "1.2703")
            )
        }
    }
}

/// A manual transaction was amended: this is its new version, dated by the event's
/// effective time. The audit trail keeps both versions.
public struct TransactionAmended: SealsPersonalText {
    public static let eventType = EventType("transaction_amended", code: 41, version: 2)
    /// Version 1 stored personal text as plain strings.
    public static var legacyVersions: [any LegacyEventPayload.Type] { [PlainTextVersion<TransactionAmended>.self] }
    /// The fields sealed per subject in the log.
    public static let personalTextFields: [String: PersonalTextSealing] = ["payee": .payee]
    /// The manual transaction amended.
    public var transactionId: String
    /// The new version's payee.
    public var payee: String
    /// The new version's category.
    public var category: BudgetCategory
    /// The new version's amount, signed: positive income, negative expense; not zero.
    public var amount: Money
    /// Whether the new version is marked as recurring.
    public var recurring: Bool

    /// The whole new version of a manual transaction (every field, changed or not); its
    /// event's effective time is the start of the version's day.
    public init(transactionId: String, payee: String, category: BudgetCategory, amount: Money, recurring: Bool) {
        self.transactionId = transactionId
        self.payee = payee
        self.category = category
        self.amount = amount
        self.recurring = recurring
    }

    public var entity: String { "transaction:\(transactionId)" }
}

extension TransactionAmended: ExampleProviding {
    public static var example: TransactionAmended {
        get throws {
            try TransactionAmended(
                transactionId: "txn_01J8ZQ6B7P", payee: "Pizza Express", category: .diningOut,
                amount: Money(parsing: "-31.90", commodity: .gbp), recurring: false
            )
        }
    }
}

/// A manual transaction was deleted (it stays in the log and the audit).
public struct TransactionDeleted: EventPayload {
    public static let eventType = EventType("transaction_deleted", code: 42)
    /// The manual transaction deleted.
    public var transactionId: String

    /// The deletion of a manual transaction.
    public init(transactionId: String) { self.transactionId = transactionId }

    public var entity: String { "transaction:\(transactionId)" }
}

extension TransactionDeleted: ExampleProviding {
    public static var example: TransactionDeleted {
        TransactionDeleted(transactionId: "txn_01J8ZQ9TXD")
    }
}

/// A transaction, bank-imported or manual, moved to another category; survives re-imports.
public struct TransactionRecategorised: EventPayload {
    public static let eventType = EventType("transaction_recategorised", code: 43)
    /// The transaction moved.
    public var transactionId: String
    /// The new category; the transaction keeps its date and amount.
    public var category: BudgetCategory

    /// A transaction moved to `category`.
    public init(transactionId: String, category: BudgetCategory) {
        self.transactionId = transactionId
        self.category = category
    }

    public var entity: String { "transaction:\(transactionId)" }
}

extension TransactionRecategorised: ExampleProviding {
    public static var example: TransactionRecategorised {
        TransactionRecategorised(transactionId: "txn_01J8ZQ4M2K", category: .bills)
    }
}

/// A bank connection was made.
public struct BankConnected: EventPayload {
    public static let eventType = EventType("bank_connected", code: 44)
    /// The bank's id, chosen when connecting: 1 to 100 characters without `:` or spaces;
    /// the ids of the transactions imported from it include it.
    public var bankId: String
    /// The bank's display name; the id when none was given.
    public var name: String

    /// A connection to the bank `bankId`, new or renewed after a disconnection.
    public init(bankId: String, name: String) {
        self.bankId = bankId
        self.name = name
    }

    public var entity: String { "bank:\(bankId)" }
}

extension BankConnected: ExampleProviding {
    public static var example: BankConnected {
        BankConnected(bankId: "monzo", name: "Monzo Bank")
    }
}

/// The user's consent to read a connected bank's transactions runs until the end of
/// ``expiresOn`` (open-banking consents last a few months, then must be renewed at the bank):
/// recorded with the connection (`tally bank connect --consent-expires`) or later, when it is
/// renewed (`tally bank consent`). The latest consent after the bank's last disconnection is
/// the one in force; `bank_consent_expiring` tells when it is about to end (docs/domain.md §2).
public struct BankConsentGranted: EventPayload {
    public static let eventType = EventType("bank_consent_granted", code: 56)
    /// The bank the consent is for.
    public var bankId: String
    /// The last day (in the ledger's time zone) the consent covers.
    public var expiresOn: LocalDate

    /// Consent for the bank `bankId` until the end of `expiresOn`.
    public init(bankId: String, expiresOn: LocalDate) {
        self.bankId = bankId
        self.expiresOn = expiresOn
    }

    public var entity: String { "bank:\(bankId)" }
}

extension BankConsentGranted: ExampleProviding {
    public static var example: BankConsentGranted {
        get throws {
            try BankConsentGranted(bankId: "monzo", expiresOn: LocalDate(parsing: "2026-07-31"))
        }
    }
}

/// A bank was disconnected; every transaction it imported stays.
public struct BankDisconnected: EventPayload {
    public static let eventType = EventType("bank_disconnected", code: 45)
    /// The bank disconnected.
    public var bankId: String

    /// The disconnection of the bank `bankId`.
    public init(bankId: String) { self.bankId = bankId }

    public var entity: String { "bank:\(bankId)" }
}

extension BankDisconnected: ExampleProviding {
    public static var example: BankDisconnected {
        BankDisconnected(bankId: "starling")
    }
}

/// The reference balance was set or reset (an untracked transfer): current balance =
/// reference balance − money held in pots, plus transactions after it.
///
/// Version 2 added ``adjustment``; version 1 events read with none.
public struct ReferenceBalanceSet: EventPayload {
    public static let eventType = EventType("reference_balance_set", code: 46, version: 2)
    public static var legacyVersions: [any LegacyEventPayload.Type] { [ReferenceBalanceSetV1.self] }
    /// The reference balance, in the budget currency: the bank balance, pots included, at
    /// the event's effective time.
    public var amount: Money
    /// The untracked transfer into the current balance (negative: out of it) that makes
    /// the current balance plus pots, as of the event's effective time, equal the amount.
    /// Absent in version 1 events, whose transfer is measured against every posting
    /// recorded before them.
    public var adjustment: Money?

    /// A reference balance of `amount`; `adjustment` is the untracked transfer that makes
    /// the current balance plus pots equal it (nil only in version 1 events).
    public init(amount: Money, adjustment: Money? = nil) {
        self.amount = amount
        self.adjustment = adjustment
    }

    public var entity: String { "balance:reference" }
}

extension ReferenceBalanceSet: ExampleProviding {
    public static var example: ReferenceBalanceSet {
        get throws {
            try ReferenceBalanceSet(
                amount: Money(parsing: "3120.55", commodity: .gbp),
                adjustment: Money(parsing: "-42.10", commodity: .gbp)
            )
        }
    }
}

/// A change to the current balance dated before a reference balance recorded earlier (an
/// older transaction entered, imported, amended or deleted later): the bank balance the
/// reference stated already held it, so the reference's untracked transfer shrinks by the
/// same amount, at the reference's effective time. Caused by the event that made the change.
/// The current balance from the reference on stays what the reference made it.
public struct ReferenceBalanceReconciled: EventPayload {
    public static let eventType = EventType("reference_balance_reconciled", code: 100)
    /// The change to the reference's untracked transfer into the current balance (negative:
    /// less came in untracked), in the budget currency; never zero.
    public var adjustment: Money
    /// The sequence number of the `reference_balance_set` it reconciles.
    public var reference: Int64

    /// The reconciliation of the reference recorded at `reference` by `adjustment`.
    public init(adjustment: Money, reference: Int64) {
        self.adjustment = adjustment
        self.reference = reference
    }

    public var entity: String { "balance:reference" }
}

extension ReferenceBalanceReconciled: ExampleProviding {
    public static var example: ReferenceBalanceReconciled {
        get throws {
            try ReferenceBalanceReconciled(adjustment: Money(parsing: "18.40", commodity: .gbp), reference: 7)
        }
    }
}

/// `reference_balance_set` version 1, before resets recorded their adjustment.
public struct ReferenceBalanceSetV1: LegacyEventPayload, Hashable {
    public static let version: UInt16 = 1
    /// The reference balance, in the budget currency: the bank balance, pots included.
    public var amount: Money

    /// A version 1 reference balance, as an old log holds it.
    public init(amount: Money) { self.amount = amount }

    /// Version 1 recorded no adjustment: replay measures it as version 1 did.
    public func upcastBody() -> EventBody { EventBody(ReferenceBalanceSet(amount: amount)) }
}

extension ReferenceBalanceSetV1: ExampleProviding {
    public static var example: ReferenceBalanceSetV1 {
        get throws {
            try ReferenceBalanceSetV1(amount: Money(parsing: "3120.55", commodity: .gbp))
        }
    }
}

/// A budget for one category and month was set (or its maximum changed).
public struct BudgetSet: EventPayload {
    public static let eventType = EventType("budget_set", code: 47)
    /// The category the budget limits.
    public var category: BudgetCategory
    /// The month the budget covers; the event is effective at the start of its first day.
    public var month: Month
    /// Positive, in the budget currency.
    public var maximum: Money

    /// The budget of `category` for `month`, with its maximum.
    public init(category: BudgetCategory, month: Month, maximum: Money) {
        self.category = category
        self.month = month
        self.maximum = maximum
    }

    public var entity: String { "budget:\(category.rawValue):\(month)" }
}

extension BudgetSet: ExampleProviding {
    public static var example: BudgetSet {
        get throws {
            try BudgetSet(
                category: .groceries, month: Month(parsing: "2026-04"),
                maximum: Money(parsing: "400.00", commodity: .gbp)
            )
        }
    }
}

/// A budget was deleted; no transaction changes.
public struct BudgetDeleted: EventPayload {
    public static let eventType = EventType("budget_deleted", code: 48)
    /// The category of the budget deleted.
    public var category: BudgetCategory
    /// The month of the budget deleted.
    public var month: Month

    /// The deletion of the budget of `category` for `month`.
    public init(category: BudgetCategory, month: Month) {
        self.category = category
        self.month = month
    }

    public var entity: String { "budget:\(category.rawValue):\(month)" }
}

extension BudgetDeleted: ExampleProviding {
    public static var example: BudgetDeleted {
        get throws {
            try BudgetDeleted(category: .entertainment, month: Month(parsing: "2026-03"))
        }
    }
}

/// A savings pot (a goal) was created.
public struct PotCreated: SealsPersonalText {
    public static let eventType = EventType("pot_created", code: 49, version: 2)
    /// Version 1 stored personal text as plain strings.
    public static var legacyVersions: [any LegacyEventPayload.Type] { [PlainTextVersion<PotCreated>.self] }
    /// The fields sealed per subject in the log.
    public static let personalTextFields: [String: PersonalTextSealing] = ["name": .owner]
    /// The pot's id, 1 to 100 characters without `:` or spaces; its money is held in the
    /// account `Budget:Pots:<id>`.
    public var potId: String
    /// What the user calls the pot; the id when none was given.
    public var name: String
    /// Positive; progress is total ÷ target.
    public var target: Money

    /// A new pot with a target, empty.
    public init(potId: String, name: String, target: Money) {
        self.potId = potId
        self.name = name
        self.target = target
    }

    public var entity: String { "pot:\(potId)" }
}

extension PotCreated: ExampleProviding {
    public static var example: PotCreated {
        get throws {
            try PotCreated(
                potId: "holiday", name: "Holiday in Lisbon ☀️",
                target: Money(parsing: "1500.00", commodity: .gbp)
            )
        }
    }
}

/// Money moved from the current balance into a pot.
public struct PotFunded: EventPayload {
    public static let eventType = EventType("pot_funded", code: 50)
    /// The pot that received the money.
    public var potId: String
    /// Positive.
    public var amount: Money

    /// `amount` moved from the current balance into the pot `potId`.
    public init(potId: String, amount: Money) {
        self.potId = potId
        self.amount = amount
    }

    public var entity: String { "pot:\(potId)" }
}

extension PotFunded: ExampleProviding {
    public static var example: PotFunded {
        get throws {
            try PotFunded(potId: "holiday", amount: Money(parsing: "200.00", commodity: .gbp))
        }
    }
}

/// Money moved out of a pot back into the current balance.
public struct PotWithdrawn: EventPayload {
    public static let eventType = EventType("pot_withdrawn", code: 51)
    /// The pot the money left.
    public var potId: String
    /// Positive.
    public var amount: Money

    /// `amount` moved from the pot `potId` back into the current balance.
    public init(potId: String, amount: Money) {
        self.potId = potId
        self.amount = amount
    }

    public var entity: String { "pot:\(potId)" }
}

extension PotWithdrawn: ExampleProviding {
    public static var example: PotWithdrawn {
        get throws {
            try PotWithdrawn(potId: "holiday", amount: Money(parsing: "50.00", commodity: .gbp))
        }
    }
}

/// A pot was deleted; its total went back to the current balance.
public struct PotDeleted: EventPayload {
    public static let eventType = EventType("pot_deleted", code: 52)
    /// The pot deleted; its id may be used again for a new pot.
    public var potId: String
    /// The total returned, zero or positive.
    public var returned: Money

    /// The deletion of the pot `potId`, returning `returned` (its whole total) to the current balance.
    public init(potId: String, returned: Money) {
        self.potId = potId
        self.returned = returned
    }

    public var entity: String { "pot:\(potId)" }
}

extension PotDeleted: ExampleProviding {
    public static var example: PotDeleted {
        get throws {
            try PotDeleted(potId: "emergency", returned: Money(parsing: "725.10", commodity: .gbp))
        }
    }
}

/// A recurring income or expense was defined (monthly by default).
public struct RecurringDefined: SealsPersonalText {
    public static let eventType = EventType("recurring_defined", code: 53, version: 2)
    /// Version 1 stored personal text as plain strings.
    public static var legacyVersions: [any LegacyEventPayload.Type] { [PlainTextVersion<RecurringDefined>.self] }
    /// The fields sealed per subject in the log.
    public static let personalTextFields: [String: PersonalTextSealing] = ["payee": .payee]
    /// The item's id, 1 to 100 characters without `:` or spaces.
    public var recurringId: String
    /// Who is paid, or who pays.
    public var payee: String
    /// The category its occurrences are recorded in.
    public var category: BudgetCategory
    /// Signed: positive income, negative expense.
    public var amount: Money
    /// How often it falls due, counted from the start month.
    public var frequency: RecurringFrequency
    /// 1 to 31; in shorter months the last day.
    public var dayOfMonth: Int
    /// The first month it falls due in.
    public var startMonth: Month
    /// The last month it falls due in; nil for no end.
    public var endMonth: Month?

    /// A recurring income (positive amount) or expense (negative), monthly by default.
    ///
    /// - Parameters:
    ///   - recurringId: the item's id.
    ///   - payee: who is paid, or who pays.
    ///   - category: the category of its occurrences.
    ///   - amount: signed, in the budget currency.
    ///   - frequency: monthly (the default), quarterly or yearly.
    ///   - dayOfMonth: 1 to 31.
    ///   - startMonth: the first month it falls due in.
    ///   - endMonth: the last month it falls due in; nil for no end.
    public init(
        recurringId: String, payee: String, category: BudgetCategory, amount: Money,
        frequency: RecurringFrequency = .monthly, dayOfMonth: Int, startMonth: Month, endMonth: Month? = nil
    ) {
        self.recurringId = recurringId
        self.payee = payee
        self.category = category
        self.amount = amount
        self.frequency = frequency
        self.dayOfMonth = dayOfMonth
        self.startMonth = startMonth
        self.endMonth = endMonth
    }

    public var entity: String { "recurring:\(recurringId)" }
}

extension RecurringDefined: ExampleProviding {
    public static var example: RecurringDefined {
        get throws {
            try RecurringDefined(
                recurringId: "rent", payee: "Foxtons Lettings", category: .bills,
                amount: Money(parsing: "-1450.00", commodity: .gbp), frequency: .monthly, dayOfMonth: 28,
                startMonth: Month(parsing: "2026-01"), endMonth: Month(parsing: "2027-12")
            )
        }
    }
}

/// A recurring definition was removed; occurrences already generated stay.
public struct RecurringRemoved: EventPayload {
    public static let eventType = EventType("recurring_removed", code: 54)
    /// The item removed.
    public var recurringId: String

    /// The removal of the recurring item `recurringId`.
    public init(recurringId: String) { self.recurringId = recurringId }

    public var entity: String { "recurring:\(recurringId)" }
}

extension RecurringRemoved: ExampleProviding {
    public static var example: RecurringRemoved {
        RecurringRemoved(recurringId: "gym")
    }
}

/// A recurring item's transaction for one month was generated. Its idempotency key is
/// `recurring:<id>:<month>`, so asking twice generates nothing the second time.
public struct RecurringOccurrenceGenerated: SealsPersonalText {
    public static let eventType = EventType("recurring_occurrence_generated", code: 55, version: 2)
    /// Version 1 stored personal text as plain strings.
    public static var legacyVersions: [any LegacyEventPayload.Type] { [PlainTextVersion<RecurringOccurrenceGenerated>.self] }
    /// The fields sealed per subject in the log.
    public static let personalTextFields: [String: PersonalTextSealing] = ["payee": .payee]
    /// The recurring item that generated the transaction.
    public var recurringId: String
    /// The month generated; the event is effective at the start of the item's due day in it.
    public var month: Month
    /// The transaction's id, `recurring:<id>:<month>`: also the event's idempotency key.
    public var transactionId: String
    /// The item's payee.
    public var payee: String
    /// The item's category.
    public var category: BudgetCategory
    /// The item's amount, signed: positive income, negative expense.
    public var amount: Money

    /// The transaction of the recurring item `recurringId` for `month`, a manual one
    /// marked recurring.
    public init(
        recurringId: String, month: Month, transactionId: String, payee: String,
        category: BudgetCategory, amount: Money
    ) {
        self.recurringId = recurringId
        self.month = month
        self.transactionId = transactionId
        self.payee = payee
        self.category = category
        self.amount = amount
    }

    public var entity: String { "transaction:\(transactionId)" }
}

extension RecurringOccurrenceGenerated: ExampleProviding {
    public static var example: RecurringOccurrenceGenerated {
        get throws {
            try RecurringOccurrenceGenerated(
                recurringId: "rent", month: Month(parsing: "2026-04"), transactionId: "txn_rent_2026_04",
                payee: "Foxtons Lettings", category: .bills,
                amount: Money(parsing: "-1450.00", commodity: .gbp)
            )
        }
    }
}
