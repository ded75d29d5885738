public import TallyEngine
// Events of the monthly budget and savings pots product (DOMAIN.md §2), also used by the
// envelope product's transactions (§3).

/// The fixed set of budget categories.
public enum BudgetCategory: String, EventEnumeration {
    case entertainment, bills, groceries
    case diningOut = "dining_out"
    case transportation
    case personalCare = "personal_care"
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
    case manual, bank
}

/// How often a recurring item falls due.
public enum RecurringFrequency: String, EventEnumeration {
    case weekly, monthly, quarterly, yearly
}

/// A transaction happened on the effective date. Manual ones can be amended and deleted;
/// bank ones only re-categorised.
public struct TransactionRecorded: EventPayload {
    public static let eventType = EventType("transaction_recorded", code: 40)
    public var transactionId: String
    public var payee: String
    public var category: BudgetCategory
    /// Signed: positive income, negative expense.
    public var amount: Money
    public var recurring: Bool
    public var source: TransactionSource
    /// The bank's transaction id (bank source); importing it again records nothing.
    public var externalId: String?
    public var bankId: String?
    /// The account it moved, for ledgers that keep several (envelope budgeting).
    public var account: String?
    public var envelope: String?
    /// 1 unit of `amount`'s currency in the base currency, when they differ.
    public var rateToBase: ExactDecimal?

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
    public func encode(to writer: inout BinaryWriter) {
        writer.write(transactionId); writer.write(payee); writer.write(category); writer.write(amount)
        writer.write(recurring); writer.write(source); writer.write(externalId); writer.write(bankId)
        writer.write(account); writer.write(envelope); writer.write(rateToBase)
    }
    public init(from reader: inout BinaryReader) throws {
        transactionId = try reader.read(); payee = try reader.read(); category = try reader.read()
        amount = try reader.read(); recurring = try reader.read(); source = try reader.read()
        externalId = try reader.read(); bankId = try reader.read(); account = try reader.read()
        envelope = try reader.read(); rateToBase = try reader.read()
    }
}

/// A manual transaction was amended: this is its new version, dated by the event's
/// effective time. The audit trail keeps both versions.
public struct TransactionAmended: EventPayload {
    public static let eventType = EventType("transaction_amended", code: 41)
    public var transactionId: String
    public var payee: String
    public var category: BudgetCategory
    public var amount: Money
    public var recurring: Bool

    public init(transactionId: String, payee: String, category: BudgetCategory, amount: Money, recurring: Bool) {
        self.transactionId = transactionId
        self.payee = payee
        self.category = category
        self.amount = amount
        self.recurring = recurring
    }

    public var entity: String { "transaction:\(transactionId)" }
    public func encode(to writer: inout BinaryWriter) {
        writer.write(transactionId); writer.write(payee); writer.write(category); writer.write(amount)
        writer.write(recurring)
    }
    public init(from reader: inout BinaryReader) throws {
        transactionId = try reader.read(); payee = try reader.read(); category = try reader.read()
        amount = try reader.read(); recurring = try reader.read()
    }
}

/// A manual transaction was deleted (it stays in the log and the audit).
public struct TransactionDeleted: EventPayload {
    public static let eventType = EventType("transaction_deleted", code: 42)
    public var transactionId: String

    public init(transactionId: String) { self.transactionId = transactionId }

    public var entity: String { "transaction:\(transactionId)" }
    public func encode(to writer: inout BinaryWriter) { writer.write(transactionId) }
    public init(from reader: inout BinaryReader) throws { transactionId = try reader.read() }
}

/// A transaction, bank-imported or manual, moved to another category; survives re-imports.
public struct TransactionRecategorised: EventPayload {
    public static let eventType = EventType("transaction_recategorised", code: 43)
    public var transactionId: String
    public var category: BudgetCategory

    public init(transactionId: String, category: BudgetCategory) {
        self.transactionId = transactionId
        self.category = category
    }

    public var entity: String { "transaction:\(transactionId)" }
    public func encode(to writer: inout BinaryWriter) { writer.write(transactionId); writer.write(category) }
    public init(from reader: inout BinaryReader) throws {
        transactionId = try reader.read(); category = try reader.read()
    }
}

/// A bank connection was made.
public struct BankConnected: EventPayload {
    public static let eventType = EventType("bank_connected", code: 44)
    public var bankId: String
    public var name: String

    public init(bankId: String, name: String) {
        self.bankId = bankId
        self.name = name
    }

    public var entity: String { "bank:\(bankId)" }
    public func encode(to writer: inout BinaryWriter) { writer.write(bankId); writer.write(name) }
    public init(from reader: inout BinaryReader) throws { bankId = try reader.read(); name = try reader.read() }
}

/// A bank was disconnected; every transaction it imported stays.
public struct BankDisconnected: EventPayload {
    public static let eventType = EventType("bank_disconnected", code: 45)
    public var bankId: String

    public init(bankId: String) { self.bankId = bankId }

    public var entity: String { "bank:\(bankId)" }
    public func encode(to writer: inout BinaryWriter) { writer.write(bankId) }
    public init(from reader: inout BinaryReader) throws { bankId = try reader.read() }
}

/// The reference balance was set or reset (an untracked transfer): current balance =
/// reference balance − money held in pots, plus transactions after it.
///
/// Version 2 added ``adjustment``; version 1 events read with none.
public struct ReferenceBalanceSet: EventPayload {
    public static let eventType = EventType("reference_balance_set", code: 46, version: 2)
    public static var legacyVersions: [any LegacyEventPayload.Type] { [ReferenceBalanceSetV1.self] }
    public var amount: Money
    /// The untracked transfer into the current balance (negative: out of it) that makes
    /// the current balance plus pots, as of the event's effective time, equal the amount.
    /// Absent in version 1 events, whose transfer is measured against every posting
    /// recorded before them.
    public var adjustment: Money?

    public init(amount: Money, adjustment: Money? = nil) {
        self.amount = amount
        self.adjustment = adjustment
    }

    public var entity: String { "balance:reference" }
    public func encode(to writer: inout BinaryWriter) { writer.write(amount); writer.write(adjustment) }
    public init(from reader: inout BinaryReader) throws { amount = try reader.read(); adjustment = try reader.read() }
}

/// `reference_balance_set` version 1, before resets recorded their adjustment.
public struct ReferenceBalanceSetV1: LegacyEventPayload, Hashable {
    public static let version: UInt16 = 1
    public var amount: Money

    public init(amount: Money) { self.amount = amount }

    /// Version 1 recorded no adjustment: replay measures it as version 1 did.
    public func upcastBody() -> EventBody { EventBody(ReferenceBalanceSet(amount: amount)) }
    public func encode(to writer: inout BinaryWriter) { writer.write(amount) }
    public init(from reader: inout BinaryReader) throws { amount = try reader.read() }
}

/// A budget for one category and month was set (or its maximum changed).
public struct BudgetSet: EventPayload {
    public static let eventType = EventType("budget_set", code: 47)
    public var category: BudgetCategory
    public var month: Month
    /// Positive.
    public var maximum: Money

    public init(category: BudgetCategory, month: Month, maximum: Money) {
        self.category = category
        self.month = month
        self.maximum = maximum
    }

    public var entity: String { "budget:\(category.rawValue):\(month)" }
    public func encode(to writer: inout BinaryWriter) {
        writer.write(category); writer.write(month); writer.write(maximum)
    }
    public init(from reader: inout BinaryReader) throws {
        category = try reader.read(); month = try reader.read(); maximum = try reader.read()
    }
}

/// A budget was deleted; no transaction changes.
public struct BudgetDeleted: EventPayload {
    public static let eventType = EventType("budget_deleted", code: 48)
    public var category: BudgetCategory
    public var month: Month

    public init(category: BudgetCategory, month: Month) {
        self.category = category
        self.month = month
    }

    public var entity: String { "budget:\(category.rawValue):\(month)" }
    public func encode(to writer: inout BinaryWriter) { writer.write(category); writer.write(month) }
    public init(from reader: inout BinaryReader) throws { category = try reader.read(); month = try reader.read() }
}

/// A savings pot (a goal) was created.
public struct PotCreated: EventPayload {
    public static let eventType = EventType("pot_created", code: 49)
    public var potId: String
    public var name: String
    /// Positive; progress is total ÷ target.
    public var target: Money

    public init(potId: String, name: String, target: Money) {
        self.potId = potId
        self.name = name
        self.target = target
    }

    public var entity: String { "pot:\(potId)" }
    public func encode(to writer: inout BinaryWriter) { writer.write(potId); writer.write(name); writer.write(target) }
    public init(from reader: inout BinaryReader) throws {
        potId = try reader.read(); name = try reader.read(); target = try reader.read()
    }
}

/// Money moved from the current balance into a pot.
public struct PotFunded: EventPayload {
    public static let eventType = EventType("pot_funded", code: 50)
    public var potId: String
    /// Positive.
    public var amount: Money

    public init(potId: String, amount: Money) {
        self.potId = potId
        self.amount = amount
    }

    public var entity: String { "pot:\(potId)" }
    public func encode(to writer: inout BinaryWriter) { writer.write(potId); writer.write(amount) }
    public init(from reader: inout BinaryReader) throws { potId = try reader.read(); amount = try reader.read() }
}

/// Money moved out of a pot back into the current balance.
public struct PotWithdrawn: EventPayload {
    public static let eventType = EventType("pot_withdrawn", code: 51)
    public var potId: String
    /// Positive.
    public var amount: Money

    public init(potId: String, amount: Money) {
        self.potId = potId
        self.amount = amount
    }

    public var entity: String { "pot:\(potId)" }
    public func encode(to writer: inout BinaryWriter) { writer.write(potId); writer.write(amount) }
    public init(from reader: inout BinaryReader) throws { potId = try reader.read(); amount = try reader.read() }
}

/// A pot was deleted; its total went back to the current balance.
public struct PotDeleted: EventPayload {
    public static let eventType = EventType("pot_deleted", code: 52)
    public var potId: String
    /// The total returned, zero or positive.
    public var returned: Money

    public init(potId: String, returned: Money) {
        self.potId = potId
        self.returned = returned
    }

    public var entity: String { "pot:\(potId)" }
    public func encode(to writer: inout BinaryWriter) { writer.write(potId); writer.write(returned) }
    public init(from reader: inout BinaryReader) throws { potId = try reader.read(); returned = try reader.read() }
}

/// A recurring income or expense was defined (monthly by default).
public struct RecurringDefined: EventPayload {
    public static let eventType = EventType("recurring_defined", code: 53)
    public var recurringId: String
    public var payee: String
    public var category: BudgetCategory
    /// Signed: positive income, negative expense.
    public var amount: Money
    public var frequency: RecurringFrequency
    /// 1 to 31; in shorter months the last day.
    public var dayOfMonth: Int
    public var startMonth: Month
    public var endMonth: Month?

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
    public func encode(to writer: inout BinaryWriter) {
        writer.write(recurringId); writer.write(payee); writer.write(category); writer.write(amount)
        writer.write(frequency); writer.write(dayOfMonth); writer.write(startMonth); writer.write(endMonth)
    }
    public init(from reader: inout BinaryReader) throws {
        recurringId = try reader.read(); payee = try reader.read(); category = try reader.read()
        amount = try reader.read(); frequency = try reader.read(); dayOfMonth = try reader.read()
        startMonth = try reader.read(); endMonth = try reader.read()
    }
}

/// A recurring definition was removed; occurrences already generated stay.
public struct RecurringRemoved: EventPayload {
    public static let eventType = EventType("recurring_removed", code: 54)
    public var recurringId: String

    public init(recurringId: String) { self.recurringId = recurringId }

    public var entity: String { "recurring:\(recurringId)" }
    public func encode(to writer: inout BinaryWriter) { writer.write(recurringId) }
    public init(from reader: inout BinaryReader) throws { recurringId = try reader.read() }
}

/// A recurring item's transaction for one month was generated. Its idempotency key is
/// `recurring:<id>:<month>`, so asking twice generates nothing the second time.
public struct RecurringOccurrenceGenerated: EventPayload {
    public static let eventType = EventType("recurring_occurrence_generated", code: 55)
    public var recurringId: String
    public var month: Month
    public var transactionId: String
    public var payee: String
    public var category: BudgetCategory
    public var amount: Money

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
    public func encode(to writer: inout BinaryWriter) {
        writer.write(recurringId); writer.write(month); writer.write(transactionId); writer.write(payee)
        writer.write(category); writer.write(amount)
    }
    public init(from reader: inout BinaryReader) throws {
        recurringId = try reader.read(); month = try reader.read(); transactionId = try reader.read()
        payee = try reader.read(); category = try reader.read(); amount = try reader.read()
    }
}
