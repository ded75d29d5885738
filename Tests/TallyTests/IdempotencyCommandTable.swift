import Foundation
import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// One command method run with an idempotency key, for ``IdempotencyTests``: `prepare` brings
/// a fresh budget ledger (USD, New York, 2026-05-20 noon) to a state where the command records
/// something, `run` is the first input, and each variant the same command with one input
/// changed, which a repeat of the key must refuse.
struct KeyedCommand: Sendable, CustomTestStringConvertible {
    typealias Run = @Sendable (Ledger, String) throws -> Ledger.CommandResult

    struct Variant: Sendable {
        let change: String
        let run: Run
    }

    /// A name for the case, unique in the table.
    let name: String
    /// The `Ledger` method it runs.
    let method: String
    let prepare: @Sendable (Ledger) throws -> Void
    let run: Run
    let variants: [Variant]

    init(_ name: String, method: String? = nil, prepare: @escaping @Sendable (Ledger) throws -> Void = { _ in }, run: @escaping Run, _ variants: [Variant]) {
        self.name = name
        self.method = method ?? name
        self.prepare = prepare
        self.run = run
        self.variants = variants
    }

    var testDescription: String { name }

    static var all: [KeyedCommand] { wealth + transactions + budget + netWorth + envelopes + challenges }
}

/// A variant: `change` names the input that differs.
private func changed(_ change: String, _ run: @escaping KeyedCommand.Run) -> KeyedCommand.Variant {
    KeyedCommand.Variant(change: change, run: run)
}

private func at(_ text: String) -> Instant { try! Instant(parsing: text) }
private let vea = try! Commodity.named("VEA")

// MARK: Wealth

extension KeyedCommand {
    static let wealth: [KeyedCommand] = [
        KeyedCommand("deposit", run: { l, k in
            try l.deposit(account: "main", amount: usd("100.00"), externalId: "tx-1", effectiveAt: at("2026-05-19T12:00:00Z"), idempotencyKey: k)
        }, [
            changed("amount") { l, k in try l.deposit(account: "main", amount: usd("101.00"), externalId: "tx-1", effectiveAt: at("2026-05-19T12:00:00Z"), idempotencyKey: k) },
            changed("external id") { l, k in try l.deposit(account: "main", amount: usd("100.00"), externalId: "tx-2", effectiveAt: at("2026-05-19T12:00:00Z"), idempotencyKey: k) },
            changed("source") { l, k in try l.deposit(account: "main", amount: usd("100.00"), source: .chain, externalId: "tx-1", effectiveAt: at("2026-05-19T12:00:00Z"), idempotencyKey: k) },
            changed("effective time") { l, k in try l.deposit(account: "main", amount: usd("100.00"), externalId: "tx-1", effectiveAt: at("2026-05-18T12:00:00Z"), idempotencyKey: k) },
        ]),
        KeyedCommand("setSplitRule", run: { l, k in try l.setSplitRule(account: "main", spendWeight: 50, investWeight: 50, idempotencyKey: k) }, [
            changed("weights") { l, k in try l.setSplitRule(account: "main", spendWeight: 60, investWeight: 40, idempotencyKey: k) },
            changed("account") { l, k in try l.setSplitRule(account: "other", spendWeight: 50, investWeight: 50, idempotencyKey: k) },
        ]),
        KeyedCommand("setRoundUps", run: { l, k in try l.setRoundUps(account: "main", enabled: true, idempotencyKey: k) }, [
            changed("switch") { l, k in try l.setRoundUps(account: "main", enabled: false, idempotencyKey: k) },
        ]),
        KeyedCommand("setRoundUpIncrement", run: { l, k in try l.setRoundUpIncrement(currency: .usd, increment: usd("5.00"), idempotencyKey: k) }, [
            changed("increment") { l, k in try l.setRoundUpIncrement(currency: .usd, increment: nil, idempotencyKey: k) },
            changed("currency") { l, k in try l.setRoundUpIncrement(currency: .gbp, increment: gbp("5.00"), idempotencyKey: k) },
        ]),
        KeyedCommand("pauseAutomation", run: { l, k in try l.pauseAutomation(account: "main", idempotencyKey: k) }, [
            changed("account") { l, k in try l.pauseAutomation(account: "other", idempotencyKey: k) },
            changed("effective time") { l, k in try l.pauseAutomation(account: "main", effectiveAt: at("2026-05-19T12:00:00Z"), idempotencyKey: k) },
        ]),
        KeyedCommand("resumeAutomation", prepare: { l in try l.pauseAutomation(account: "main") },
                     run: { l, k in try l.resumeAutomation(account: "main", idempotencyKey: k) }, [
            changed("account") { l, k in try l.resumeAutomation(account: "other", idempotencyKey: k) },
            changed("effective time") { l, k in try l.resumeAutomation(account: "main", effectiveAt: at("2026-05-19T12:00:00Z"), idempotencyKey: k) },
        ]),
        KeyedCommand("freezeCard", run: { l, k in try l.freezeCard(account: "main", idempotencyKey: k) }, [
            changed("account") { l, k in try l.freezeCard(account: "other", idempotencyKey: k) },
        ]),
        KeyedCommand("unfreezeCard", prepare: { l in try l.freezeCard(account: "main") },
                     run: { l, k in try l.unfreezeCard(account: "main", idempotencyKey: k) }, [
            changed("account") { l, k in try l.unfreezeCard(account: "other", idempotencyKey: k) },
        ]),
        KeyedCommand("purchase", prepare: { l in try l.deposit(account: "main", amount: usd("100.00")) },
                     run: { l, k in try l.purchase(account: "main", amount: usd("3.40"), merchant: "Coffee", idempotencyKey: k) }, [
            changed("amount") { l, k in try l.purchase(account: "main", amount: usd("3.50"), merchant: "Coffee", idempotencyKey: k) },
            changed("merchant") { l, k in try l.purchase(account: "main", amount: usd("3.40"), merchant: "Tea", idempotencyKey: k) },
            changed("external id") { l, k in try l.purchase(account: "main", amount: usd("3.40"), merchant: "Coffee", externalId: "c-2", idempotencyKey: k) },
        ]),
        KeyedCommand("withdraw", prepare: { l in try l.deposit(account: "main", amount: usd("100.00")) },
                     run: { l, k in try l.withdraw(account: "main", amount: usd("20.00"), destination: "checking", idempotencyKey: k) }, [
            changed("amount") { l, k in try l.withdraw(account: "main", amount: usd("21.00"), destination: "checking", idempotencyKey: k) },
            changed("destination") { l, k in try l.withdraw(account: "main", amount: usd("20.00"), destination: "savings", idempotencyKey: k) },
            changed("effective time") { l, k in try l.withdraw(account: "main", amount: usd("20.00"), destination: "checking", effectiveAt: at("2026-05-20T15:00:00Z"), idempotencyKey: k) },
        ]),
        KeyedCommand("amendWealthEntry", prepare: twoPurchases,
                     run: { l, k in try l.amendWealthEntry(account: "main", entry: try firstPurchase(l, "Coffee"), amount: usd("4.40"), idempotencyKey: k) }, [
            changed("amount") { l, k in try l.amendWealthEntry(account: "main", entry: try firstPurchase(l, "Coffee"), amount: usd("4.50"), idempotencyKey: k) },
            changed("entry") { l, k in try l.amendWealthEntry(account: "main", entry: try firstPurchase(l, "Tea"), amount: usd("4.40"), idempotencyKey: k) },
            changed("merchant") { l, k in try l.amendWealthEntry(account: "main", entry: try firstPurchase(l, "Coffee"), amount: usd("4.40"), merchant: "Cafe", idempotencyKey: k) },
            changed("effective time") { l, k in try l.amendWealthEntry(account: "main", entry: try firstPurchase(l, "Coffee"), amount: usd("4.40"), effectiveAt: at("2026-05-20T15:00:00Z"), idempotencyKey: k) },
        ]),
        KeyedCommand("reverseWealthEntry", prepare: twoPurchases,
                     run: { l, k in try l.reverseWealthEntry(account: "main", entry: try firstPurchase(l, "Coffee"), idempotencyKey: k) }, [
            changed("entry") { l, k in try l.reverseWealthEntry(account: "main", entry: try firstPurchase(l, "Tea"), idempotencyKey: k) },
            changed("an amendment") { l, k in try l.amendWealthEntry(account: "main", entry: try firstPurchase(l, "Coffee"), amount: usd("1.00"), idempotencyKey: k) },
        ]),
    ]
}

/// A deposit and two purchases, at Coffee and at Tea, to correct.
private func twoPurchases(_ ledger: Ledger) throws {
    try ledger.deposit(account: "main", amount: usd("100.00"))
    try ledger.purchase(account: "main", amount: usd("3.40"), merchant: "Coffee")
    try ledger.purchase(account: "main", amount: usd("2.00"), merchant: "Tea")
}

/// The first purchase recorded at `merchant` (an amendment's new version comes later).
private func firstPurchase(_ ledger: Ledger, _ merchant: String) throws -> UInt64 {
    let purchases = try ledger.wealthHistory(account: "main", pageSize: 100).entries.filter { $0.kind == .purchase && $0.detail == merchant }
    return try #require(purchases.map(\.sequence).min())
}

// MARK: Budget transactions and banks

extension KeyedCommand {
    static func twoTransactions(_ ledger: Ledger) throws {
        try ledger.recordTransaction(payee: "Corner shop", category: .groceries, amount: usd("-12.40"), date: day("2026-05-03"), id: "shop-1")
        try ledger.recordTransaction(payee: "Bakery", category: .diningOut, amount: usd("-4.00"), date: day("2026-05-04"), id: "shop-2")
    }

    static func twoBanks(_ ledger: Ledger) throws {
        try ledger.connectBank(id: "chase")
        try ledger.connectBank(id: "boa")
    }

    static func record(_ ledger: Ledger, _ key: String, payee: String = "Corner shop", amount: String = "-12.40", date: String = "2026-05-03",
                       category: BudgetCategory = .groceries, recurring: Bool = false, id: String? = nil) throws -> Ledger.CommandResult {
        try ledger.recordTransaction(payee: payee, category: category, amount: usd(amount), date: day(date), recurring: recurring, id: id, idempotencyKey: key)
    }

    static func importBank(_ ledger: Ledger, _ key: String, externalId: String = "T-1", payee: String = "Netflix", amount: String = "-15.49",
                           date: String = "2026-05-02", category: BudgetCategory = .entertainment) throws -> Ledger.CommandResult {
        try ledger.importBankTransaction(bankId: "chase", externalId: externalId, payee: payee, category: category, amount: usd(amount),
                                         date: day(date), idempotencyKey: key)
    }

    static let transactions: [KeyedCommand] = [
        KeyedCommand("recordTransaction with an id", method: "recordTransaction", run: { l, k in try record(l, k, id: "shop-9") }, [
            changed("amount") { l, k in try record(l, k, amount: "-13.40", id: "shop-9") },
            changed("payee") { l, k in try record(l, k, payee: "Deli", id: "shop-9") },
            changed("date") { l, k in try record(l, k, date: "2026-05-04", id: "shop-9") },
            changed("category") { l, k in try record(l, k, category: .bills, id: "shop-9") },
            changed("recurring flag") { l, k in try record(l, k, recurring: true, id: "shop-9") },
            changed("id") { l, k in try record(l, k, id: "shop-10") },
            changed("id left out") { l, k in try record(l, k) },
        ]),
        KeyedCommand("recordTransaction without an id", method: "recordTransaction", run: { l, k in try record(l, k) }, [
            changed("amount") { l, k in try record(l, k, amount: "-13.40") },
            changed("payee") { l, k in try record(l, k, payee: "Deli") },
            changed("date") { l, k in try record(l, k, date: "2026-05-04") },
            changed("id given") { l, k in try record(l, k, id: "shop-9") },
        ]),
        KeyedCommand("importBankTransaction", prepare: twoBanks, run: { l, k in try importBank(l, k) }, [
            changed("amount") { l, k in try importBank(l, k, amount: "-16.49") },
            changed("payee") { l, k in try importBank(l, k, payee: "Hulu") },
            changed("date") { l, k in try importBank(l, k, date: "2026-05-03") },
            changed("category") { l, k in try importBank(l, k, category: .bills) },
            changed("external id") { l, k in try importBank(l, k, externalId: "T-2") },
        ]),
        KeyedCommand("amendTransaction", prepare: twoTransactions,
                     run: { l, k in try l.amendTransaction(id: "shop-1", amount: usd("-14.40"), idempotencyKey: k) }, [
            changed("amount") { l, k in try l.amendTransaction(id: "shop-1", amount: usd("-15.40"), idempotencyKey: k) },
            changed("payee") { l, k in try l.amendTransaction(id: "shop-1", payee: "Deli", amount: usd("-14.40"), idempotencyKey: k) },
            changed("date") { l, k in try l.amendTransaction(id: "shop-1", amount: usd("-14.40"), date: day("2026-05-09"), idempotencyKey: k) },
            changed("id") { l, k in try l.amendTransaction(id: "shop-2", amount: usd("-14.40"), idempotencyKey: k) },
        ]),
        KeyedCommand("deleteTransaction", prepare: twoTransactions, run: { l, k in try l.deleteTransaction(id: "shop-1", idempotencyKey: k) }, [
            changed("id") { l, k in try l.deleteTransaction(id: "shop-2", idempotencyKey: k) },
        ]),
        KeyedCommand("recategorise", prepare: twoTransactions, run: { l, k in try l.recategorise(id: "shop-1", category: .bills, idempotencyKey: k) }, [
            changed("category") { l, k in try l.recategorise(id: "shop-1", category: .shopping, idempotencyKey: k) },
            changed("id") { l, k in try l.recategorise(id: "shop-2", category: .bills, idempotencyKey: k) },
        ]),
        KeyedCommand("connectBank", run: { l, k in try l.connectBank(id: "chase", name: "Chase", idempotencyKey: k) }, [
            changed("name") { l, k in try l.connectBank(id: "chase", name: "Chase Checking", idempotencyKey: k) },
            changed("id") { l, k in try l.connectBank(id: "boa", name: "Chase", idempotencyKey: k) },
        ]),
        KeyedCommand("disconnectBank", prepare: twoBanks, run: { l, k in try l.disconnectBank(id: "chase", idempotencyKey: k) }, [
            changed("id") { l, k in try l.disconnectBank(id: "boa", idempotencyKey: k) },
        ]),
        KeyedCommand("renewBankConsent", prepare: twoBanks, run: { l, k in try l.renewBankConsent(id: "chase", expiresOn: day("2099-12-31"), idempotencyKey: k) }, [
            changed("expiresOn") { l, k in try l.renewBankConsent(id: "chase", expiresOn: day("2099-11-30"), idempotencyKey: k) },
            changed("id") { l, k in try l.renewBankConsent(id: "boa", expiresOn: day("2099-12-31"), idempotencyKey: k) },
        ]),
    ]
}

// MARK: Pots, budgets, reference balance, recurring items

extension KeyedCommand {
    static func twoPots(_ ledger: Ledger) throws {
        try ledger.setReferenceBalance(amount: usd("1000.00"))
        for id in ["holiday", "car"] {
            try ledger.createPot(id: id, target: usd("500.00"))
            try ledger.addToPot(id: id, amount: usd("100.00"))
        }
    }

    static func rentDefined(_ ledger: Ledger) throws {
        try ledger.defineRecurring(id: "rent", payee: "Landlord", category: .bills, amount: usd("-1200.00"), dayOfMonth: 1, startMonth: month("2026-01"))
    }

    static func define(_ ledger: Ledger, _ key: String, id: String = "gym", payee: String = "Gym", amount: String = "-40.00", dayOfMonth: Int = 3) throws -> Ledger.CommandResult {
        try ledger.defineRecurring(id: id, payee: payee, category: .personalCare, amount: usd(amount), dayOfMonth: dayOfMonth,
                                   startMonth: month("2026-05"), idempotencyKey: key)
    }

    static let budget: [KeyedCommand] = [
        KeyedCommand("createPot", run: { l, k in try l.createPot(id: "holiday", name: "Holiday", target: usd("500.00"), idempotencyKey: k) }, [
            changed("target") { l, k in try l.createPot(id: "holiday", name: "Holiday", target: usd("600.00"), idempotencyKey: k) },
            changed("name") { l, k in try l.createPot(id: "holiday", name: "Trip", target: usd("500.00"), idempotencyKey: k) },
            changed("id") { l, k in try l.createPot(id: "car", name: "Holiday", target: usd("500.00"), idempotencyKey: k) },
        ]),
        KeyedCommand("addToPot", prepare: twoPots, run: { l, k in try l.addToPot(id: "holiday", amount: usd("50.00"), idempotencyKey: k) }, [
            changed("amount") { l, k in try l.addToPot(id: "holiday", amount: usd("60.00"), idempotencyKey: k) },
            changed("pot") { l, k in try l.addToPot(id: "car", amount: usd("50.00"), idempotencyKey: k) },
        ]),
        KeyedCommand("withdrawFromPot", prepare: twoPots, run: { l, k in try l.withdrawFromPot(id: "holiday", amount: usd("20.00"), idempotencyKey: k) }, [
            changed("amount") { l, k in try l.withdrawFromPot(id: "holiday", amount: usd("30.00"), idempotencyKey: k) },
            changed("pot") { l, k in try l.withdrawFromPot(id: "car", amount: usd("20.00"), idempotencyKey: k) },
        ]),
        KeyedCommand("deletePot", prepare: twoPots, run: { l, k in try l.deletePot(id: "holiday", idempotencyKey: k) }, [
            changed("pot") { l, k in try l.deletePot(id: "car", idempotencyKey: k) },
        ]),
        KeyedCommand("setBudget", run: { l, k in try l.setBudget(category: .groceries, month: month("2026-05"), maximum: usd("400.00"), idempotencyKey: k) }, [
            changed("maximum") { l, k in try l.setBudget(category: .groceries, month: month("2026-05"), maximum: usd("450.00"), idempotencyKey: k) },
            changed("category") { l, k in try l.setBudget(category: .bills, month: month("2026-05"), maximum: usd("400.00"), idempotencyKey: k) },
            changed("month") { l, k in try l.setBudget(category: .groceries, month: month("2026-06"), maximum: usd("400.00"), idempotencyKey: k) },
        ]),
        KeyedCommand("deleteBudget", prepare: { l in
            try l.setBudget(category: .groceries, month: month("2026-05"), maximum: usd("400.00"))
            try l.setBudget(category: .bills, month: month("2026-05"), maximum: usd("400.00"))
        }, run: { l, k in try l.deleteBudget(category: .groceries, month: month("2026-05"), idempotencyKey: k) }, [
            changed("category") { l, k in try l.deleteBudget(category: .bills, month: month("2026-05"), idempotencyKey: k) },
        ]),
        KeyedCommand("setReferenceBalance", run: { l, k in try l.setReferenceBalance(amount: usd("2500.00"), idempotencyKey: k) }, [
            changed("amount") { l, k in try l.setReferenceBalance(amount: usd("2600.00"), idempotencyKey: k) },
        ]),
        KeyedCommand("defineRecurring", run: { l, k in try define(l, k) }, [
            changed("amount") { l, k in try define(l, k, amount: "-45.00") },
            changed("payee") { l, k in try define(l, k, payee: "Pool") },
            changed("day") { l, k in try define(l, k, dayOfMonth: 4) },
            changed("id") { l, k in try define(l, k, id: "pool") },
        ]),
        KeyedCommand("removeRecurring", prepare: { l in
            try rentDefined(l)
            try l.defineRecurring(id: "gym", payee: "Gym", category: .personalCare, amount: usd("-40.00"), dayOfMonth: 3, startMonth: month("2026-01"))
        }, run: { l, k in try l.removeRecurring(id: "rent", idempotencyKey: k) }, [
            changed("id") { l, k in try l.removeRecurring(id: "gym", idempotencyKey: k) },
        ]),
        KeyedCommand("generateRecurring", prepare: rentDefined, run: { l, k in try l.generateRecurring(month: month("2026-05"), idempotencyKey: k) }, [
            changed("month") { l, k in try l.generateRecurring(month: month("2026-06"), idempotencyKey: k) },
        ]),
    ]
}

// MARK: Net worth and the X-ray

extension KeyedCommand {
    static func propertyItems(_ ledger: Ledger) throws {
        // Added well before the days the commands are dated: nothing happens before it exists.
        let added = ledger.calendar.startOfDay(day("2026-01-01"))
        for id in ["house", "flat"] {
            try ledger.addAsset(assetId: id, name: id, category: .property, type: .realEstate, currency: .usd, effectiveAt: added)
        }
        try ledger.addLiability(liabilityId: "mortgage", name: "Mortgage", category: .mortgage, currency: .usd, effectiveAt: added)
        try ledger.addLiability(liabilityId: "loan", name: "Loan", category: .loan, currency: .usd, effectiveAt: added)
        for id in ["r1", "r2"] { try ledger.setReminder(reminderId: id, assetId: "house", dueDate: day("2026-06-01")) }
        // An override in force, so that clearing it records an event (clearing none records nothing).
        try ledger.recordValuation(itemKind: .asset, itemId: "house", value: usd("310000.00"), source: .override)
    }

    static func addHouse(_ l: Ledger, _ name: String = "House", id: String = "home", effectiveAt: Instant? = nil, key: String?) throws -> Ledger.CommandResult {
        try l.addAsset(assetId: id, name: name, category: .property, type: .realEstate, currency: .usd, country: "US",
                       effectiveAt: effectiveAt, idempotencyKey: key)
    }

    static func value(_ l: Ledger, _ value: String, source: ValuationSource = .manual, effectiveAt: Instant, key: String?) throws -> Ledger.CommandResult {
        try l.recordValuation(itemKind: .asset, itemId: "house", value: usd(value), source: source, effectiveAt: effectiveAt, idempotencyKey: key)
    }

    static func position(_ l: Ledger, _ quantity: String, key: String?) throws -> Ledger.CommandResult {
        try l.setPosition(assetId: "house", quantity: try Money(parsing: quantity, commodity: vea), costBasis: usd("500.00"), idempotencyKey: key)
    }

    static func rate(_ l: Ledger, _ text: String, effectiveAt: Instant? = nil, key: String?) throws -> Ledger.CommandResult {
        try l.setFXRate(base: .gbp, quote: .usd, rate: try ExactDecimal(parsing: text), effectiveAt: effectiveAt, idempotencyKey: key)
    }

    static let netWorth: [KeyedCommand] = [
        KeyedCommand("addAsset", run: { l, k in try addHouse(l, key: k) }, [
            changed("name") { l, k in try addHouse(l, "Home", key: k) },
            changed("id") { l, k in try addHouse(l, id: "cabin", key: k) },
            changed("effective time") { l, k in try addHouse(l, effectiveAt: at("2026-05-01T12:00:00Z"), key: k) },
        ]),
        KeyedCommand("tagAsset", prepare: propertyItems, run: { l, k in try l.tagAsset(assetId: "house", country: "US", idempotencyKey: k) }, [
            changed("country") { l, k in try l.tagAsset(assetId: "house", country: "GB", idempotencyKey: k) },
        ]),
        KeyedCommand("renameAsset", prepare: propertyItems, run: { l, k in try l.renameAsset(assetId: "house", name: "Home", idempotencyKey: k) }, [
            changed("name") { l, k in try l.renameAsset(assetId: "house", name: "Villa", idempotencyKey: k) },
            changed("category") { l, k in try l.renameAsset(assetId: "house", name: "Home", category: .investments, idempotencyKey: k) },
        ]),
        KeyedCommand("removeAsset", prepare: propertyItems, run: { l, k in try l.removeAsset("house", idempotencyKey: k) }, [
            changed("asset") { l, k in try l.removeAsset("flat", idempotencyKey: k) },
        ]),
        KeyedCommand("addLiability", run: { l, k in
            try l.addLiability(liabilityId: "card", name: "Card", category: .creditCard, currency: .usd, idempotencyKey: k)
        }, [
            changed("category") { l, k in try l.addLiability(liabilityId: "card", name: "Card", category: .loan, currency: .usd, idempotencyKey: k) },
            changed("currency") { l, k in try l.addLiability(liabilityId: "card", name: "Card", category: .creditCard, currency: .gbp, idempotencyKey: k) },
        ]),
        KeyedCommand("removeLiability", prepare: propertyItems, run: { l, k in try l.removeLiability("mortgage", idempotencyKey: k) }, [
            changed("liability") { l, k in try l.removeLiability("loan", idempotencyKey: k) },
        ]),
        KeyedCommand("recordValuation", prepare: propertyItems,
                     run: { l, k in try value(l, "300000.00", effectiveAt: at("2026-05-01T12:00:00Z"), key: k) }, [
            changed("value") { l, k in try value(l, "300000.01", effectiveAt: at("2026-05-01T12:00:00Z"), key: k) },
            changed("source") { l, k in try value(l, "300000.00", source: .override, effectiveAt: at("2026-05-01T12:00:00Z"), key: k) },
            changed("effective time") { l, k in try value(l, "300000.00", effectiveAt: at("2026-05-02T12:00:00Z"), key: k) },
        ]),
        KeyedCommand("clearValuationOverride", prepare: propertyItems, run: { l, k in try l.clearValuationOverride("house", idempotencyKey: k) }, [
            changed("asset") { l, k in try l.clearValuationOverride("flat", idempotencyKey: k) },
        ]),
        KeyedCommand("setPosition", prepare: propertyItems, run: { l, k in try position(l, "10.5", key: k) }, [
            changed("quantity") { l, k in try position(l, "10.25", key: k) },
        ]),
        KeyedCommand("quotePrice", run: { l, k in
            try l.quotePrice(symbol: vea, price: usd("50.00"), source: .live, effectiveAt: at("2026-05-19T20:00:00Z"), idempotencyKey: k)
        }, [
            changed("price") { l, k in try l.quotePrice(symbol: vea, price: usd("50.01"), source: .live, effectiveAt: at("2026-05-19T20:00:00Z"), idempotencyKey: k) },
            changed("price's decimals") { l, k in
                try l.quotePrice(symbol: vea, price: try ExactDecimal(parsing: "50.001"), currency: .usd, source: .live, effectiveAt: at("2026-05-19T20:00:00Z"), idempotencyKey: k)
            },
            changed("effective time") { l, k in try l.quotePrice(symbol: vea, price: usd("50.00"), source: .live, effectiveAt: at("2026-05-19T21:00:00Z"), idempotencyKey: k) },
        ]),
        KeyedCommand("setFXRate", run: { l, k in try rate(l, "1.27", key: k) }, [
            changed("rate") { l, k in try rate(l, "1.2701", key: k) },
            changed("effective time") { l, k in try rate(l, "1.27", effectiveAt: at("2026-05-01T00:00:00Z"), key: k) },
        ]),
        KeyedCommand("setBaseCurrency", run: { l, k in try l.setBaseCurrency(.gbp, idempotencyKey: k) }, [
            changed("currency") { l, k in try l.setBaseCurrency(.eur, idempotencyKey: k) },
        ]),
        KeyedCommand("setPriceStaleness", run: { l, k in try l.setPriceStaleness(seconds: 3_600, idempotencyKey: k) }, [
            changed("threshold") { l, k in try l.setPriceStaleness(seconds: 7_200, idempotencyKey: k) },
        ]),
        KeyedCommand("setReminder", prepare: propertyItems, run: { l, k in
            try l.setReminder(reminderId: "r9", assetId: "house", dueDate: day("2026-07-01"), note: "appraisal", idempotencyKey: k)
        }, [
            changed("due date") { l, k in try l.setReminder(reminderId: "r9", assetId: "house", dueDate: day("2026-07-02"), note: "appraisal", idempotencyKey: k) },
            changed("note") { l, k in try l.setReminder(reminderId: "r9", assetId: "house", dueDate: day("2026-07-01"), idempotencyKey: k) },
        ]),
        KeyedCommand("completeReminder", prepare: propertyItems, run: { l, k in try l.completeReminder("r1", idempotencyKey: k) }, [
            changed("reminder") { l, k in try l.completeReminder("r2", idempotencyKey: k) },
        ]),
    ]
}

// MARK: Envelopes and challenges

extension KeyedCommand {
    static func envelopeAccounts(_ ledger: Ledger) throws {
        try ledger.openEnvelopeAccount("Assets:Bank", commodity: .usd, openingBalance: usd("2000.00"), effectiveAt: ledger.calendar.startOfDay(day("2026-01-01")))
        try ledger.openEnvelopeAccount("Assets:Cash", commodity: .usd, effectiveAt: ledger.calendar.startOfDay(day("2026-01-01")))
        try ledger.openEnvelopeAccount("Assets:Travel", commodity: .jpy, effectiveAt: ledger.calendar.startOfDay(day("2026-01-01")))
        for id in ["groceries", "dining"] {
            try ledger.createEnvelope(id, name: id, interval: .monthly, budgeted: usd("400.00"), startDate: day("2026-05-01"))
        }
    }

    static func envelopeReceipts(_ ledger: Ledger) throws {
        try envelopeAccounts(ledger)
        for id in ["r1", "r2"] {
            try ledger.recordEnvelopeTransaction(id, account: "Assets:Bank", amount: usd("-12.50"), envelope: "groceries", payee: "Grocer",
                                                 effectiveAt: ledger.calendar.startOfDay(day("2026-05-10")))
        }
    }

    static func twoChallenges(_ ledger: Ledger) throws {
        try envelopeAccounts(ledger)
        for id in ["save", "save2"] {
            try ledger.startChallenge(id, template: "52_week", unit: usd("1.00"), account: "Assets:Cash", effectiveAt: ledger.calendar.startOfDay(day("2026-01-01")))
        }
    }

    static func spend(_ ledger: Ledger, _ key: String, amount: String = "-12.50", payee: String = "Shop", envelope: String? = "groceries",
                      date: String = "2026-05-10") throws -> Ledger.CommandResult {
        try ledger.recordEnvelopeTransaction("t1", account: "Assets:Bank", amount: usd(amount), envelope: envelope, payee: payee,
                                             effectiveAt: ledger.calendar.startOfDay(day(date)), idempotencyKey: key)
    }

    static func spendYen(_ ledger: Ledger, _ key: String, rate: String = "0.0067") throws -> Ledger.CommandResult {
        try ledger.recordEnvelopeTransaction("t2", account: "Assets:Travel", amount: try Money(parsing: "-3000", commodity: .jpy),
                                             rateToBase: try ExactDecimal(parsing: rate), envelope: "dining", effectiveAt: ledger.calendar.startOfDay(day("2026-05-10")), idempotencyKey: key)
    }

    static let envelopes: [KeyedCommand] = [
        KeyedCommand("openEnvelopeAccount", run: { l, k in
            try l.openEnvelopeAccount("Assets:Bank", commodity: .usd, openingBalance: usd("1500.00"), effectiveAt: l.calendar.startOfDay(day("2026-05-01")), idempotencyKey: k)
        }, [
            changed("opening balance") { l, k in try l.openEnvelopeAccount("Assets:Bank", commodity: .usd, openingBalance: usd("1600.00"), effectiveAt: l.calendar.startOfDay(day("2026-05-01")), idempotencyKey: k) },
            changed("date") { l, k in try l.openEnvelopeAccount("Assets:Bank", commodity: .usd, openingBalance: usd("1500.00"), effectiveAt: l.calendar.startOfDay(day("2026-05-02")), idempotencyKey: k) },
            changed("account") { l, k in try l.openEnvelopeAccount("Assets:Cash", commodity: .usd, openingBalance: usd("1500.00"), effectiveAt: l.calendar.startOfDay(day("2026-05-01")), idempotencyKey: k) },
        ]),
        KeyedCommand("closeEnvelopeAccount", prepare: envelopeAccounts, run: { l, k in
            try l.closeEnvelopeAccount("Assets:Cash", effectiveAt: l.calendar.startOfDay(day("2026-05-01")), idempotencyKey: k)
        }, [
            changed("account") { l, k in try l.closeEnvelopeAccount("Assets:Bank", effectiveAt: l.calendar.startOfDay(day("2026-05-01")), idempotencyKey: k) },
            changed("date") { l, k in try l.closeEnvelopeAccount("Assets:Cash", effectiveAt: l.calendar.startOfDay(day("2026-05-02")), idempotencyKey: k) },
        ]),
        KeyedCommand("createEnvelope with a start date", method: "createEnvelope", run: { l, k in
            try l.createEnvelope("rent", name: "Rent", interval: .monthly, budgeted: usd("1200.00"), startDate: day("2026-05-01"), idempotencyKey: k)
        }, [
            changed("budget") { l, k in try l.createEnvelope("rent", name: "Rent", interval: .monthly, budgeted: usd("1300.00"), startDate: day("2026-05-01"), idempotencyKey: k) },
            changed("interval") { l, k in try l.createEnvelope("rent", name: "Rent", interval: .weekly, budgeted: usd("1200.00"), startDate: day("2026-05-01"), idempotencyKey: k) },
            changed("start date") { l, k in try l.createEnvelope("rent", name: "Rent", interval: .monthly, budgeted: usd("1200.00"), startDate: day("2026-05-02"), idempotencyKey: k) },
        ]),
        KeyedCommand("createEnvelope starting today", method: "createEnvelope", run: { l, k in
            try l.createEnvelope("rent", name: "Rent", interval: .monthly, budgeted: usd("1200.00"), idempotencyKey: k)
        }, [
            changed("name") { l, k in try l.createEnvelope("rent", name: "Housing", interval: .monthly, budgeted: usd("1200.00"), idempotencyKey: k) },
            changed("start date") { l, k in try l.createEnvelope("rent", name: "Rent", interval: .monthly, budgeted: usd("1200.00"), startDate: day("2026-05-01"), idempotencyKey: k) },
        ]),
        KeyedCommand("changeEnvelopeBudget with an interval", method: "changeEnvelopeBudget", prepare: envelopeAccounts, run: { l, k in
            try l.changeEnvelopeBudget("groceries", budgeted: usd("100.00"), interval: .weekly, effectiveAt: l.calendar.startOfDay(day("2026-05-11")), idempotencyKey: k)
        }, [
            changed("budget") { l, k in try l.changeEnvelopeBudget("groceries", budgeted: usd("110.00"), interval: .weekly, effectiveAt: l.calendar.startOfDay(day("2026-05-11")), idempotencyKey: k) },
            changed("interval") { l, k in try l.changeEnvelopeBudget("groceries", budgeted: usd("100.00"), interval: .biweekly, effectiveAt: l.calendar.startOfDay(day("2026-05-11")), idempotencyKey: k) },
            changed("date") { l, k in try l.changeEnvelopeBudget("groceries", budgeted: usd("100.00"), interval: .weekly, effectiveAt: l.calendar.startOfDay(day("2026-05-12")), idempotencyKey: k) },
        ]),
        KeyedCommand("changeEnvelopeBudget keeping its interval", method: "changeEnvelopeBudget", prepare: envelopeAccounts, run: { l, k in
            try l.changeEnvelopeBudget("groceries", budgeted: usd("450.00"), idempotencyKey: k)
        }, [
            changed("budget") { l, k in try l.changeEnvelopeBudget("groceries", budgeted: usd("460.00"), idempotencyKey: k) },
            changed("interval") { l, k in try l.changeEnvelopeBudget("groceries", budgeted: usd("450.00"), interval: .weekly, idempotencyKey: k) },
            changed("envelope") { l, k in try l.changeEnvelopeBudget("dining", budgeted: usd("450.00"), idempotencyKey: k) },
        ]),
        KeyedCommand("fundEnvelope", prepare: envelopeAccounts, run: { l, k in try l.fundEnvelope("groceries", amount: usd("50.00"), effectiveAt: l.calendar.startOfDay(day("2026-05-10")), idempotencyKey: k) }, [
            changed("amount") { l, k in try l.fundEnvelope("groceries", amount: usd("60.00"), effectiveAt: l.calendar.startOfDay(day("2026-05-10")), idempotencyKey: k) },
            changed("date") { l, k in try l.fundEnvelope("groceries", amount: usd("50.00"), effectiveAt: l.calendar.startOfDay(day("2026-05-11")), idempotencyKey: k) },
        ]),
        KeyedCommand("setEnvelopeRollover", prepare: envelopeAccounts, run: { l, k in try l.setEnvelopeRollover("groceries", policy: .reset, idempotencyKey: k) }, [
            changed("policy") { l, k in try l.setEnvelopeRollover("groceries", policy: .takeFromToAssign, idempotencyKey: k) },
            changed("date") { l, k in try l.setEnvelopeRollover("groceries", policy: .reset, effectiveAt: l.calendar.startOfDay(day("2026-06-01")), idempotencyKey: k) },
        ]),
        KeyedCommand("deleteEnvelope", prepare: envelopeAccounts, run: { l, k in try l.deleteEnvelope("groceries", idempotencyKey: k) }, [
            changed("envelope") { l, k in try l.deleteEnvelope("dining", idempotencyKey: k) },
        ]),
        KeyedCommand("recordEnvelopeTransaction", prepare: envelopeAccounts, run: { l, k in try spend(l, k) }, [
            changed("amount") { l, k in try spend(l, k, amount: "-13.50") },
            changed("payee") { l, k in try spend(l, k, payee: "Deli") },
            changed("envelope") { l, k in try spend(l, k, envelope: nil) },
            changed("date") { l, k in try spend(l, k, date: "2026-05-11") },
        ]),
        KeyedCommand("recordEnvelopeTransaction in another currency", method: "recordEnvelopeTransaction", prepare: envelopeAccounts,
                     run: { l, k in try spendYen(l, k) }, [
            changed("rate") { l, k in try spendYen(l, k, rate: "0.0068") },
            changed("rate of one") { l, k in try spendYen(l, k, rate: "1") },
        ]),
        KeyedCommand("amendEnvelopeTransaction", prepare: envelopeReceipts, run: { l, k in try l.amendEnvelopeTransaction("r1", amount: usd("-15.00"), idempotencyKey: k) }, [
            changed("amount") { l, k in try l.amendEnvelopeTransaction("r1", amount: usd("-16.00"), idempotencyKey: k) },
            changed("payee") { l, k in try l.amendEnvelopeTransaction("r1", amount: usd("-15.00"), payee: "Deli", idempotencyKey: k) },
        ]),
        KeyedCommand("reverseEnvelopeTransaction", prepare: envelopeReceipts, run: { l, k in try l.reverseEnvelopeTransaction("r1", idempotencyKey: k) }, [
            changed("transaction") { l, k in try l.reverseEnvelopeTransaction("r2", idempotencyKey: k) },
        ]),
        KeyedCommand("transferBetweenAccounts", prepare: envelopeAccounts, run: { l, k in
            try l.transferBetweenAccounts("x1", from: "Assets:Bank", to: "Assets:Cash", amount: usd("100.00"), idempotencyKey: k)
        }, [
            changed("amount") { l, k in try l.transferBetweenAccounts("x1", from: "Assets:Bank", to: "Assets:Cash", amount: usd("110.00"), idempotencyKey: k) },
            changed("envelope") { l, k in try l.transferBetweenAccounts("x1", from: "Assets:Bank", to: "Assets:Cash", amount: usd("100.00"), envelope: "dining", idempotencyKey: k) },
            changed("date") { l, k in try l.transferBetweenAccounts("x1", from: "Assets:Bank", to: "Assets:Cash", amount: usd("100.00"), effectiveAt: l.calendar.startOfDay(day("2026-05-01")), idempotencyKey: k) },
        ]),
    ]

    static let challenges: [KeyedCommand] = [
        KeyedCommand("startChallenge", prepare: envelopeAccounts, run: { l, k in
            try l.startChallenge("save", template: "52_week", unit: usd("1.00"), account: "Assets:Cash", idempotencyKey: k)
        }, [
            changed("unit") { l, k in try l.startChallenge("save", template: "52_week", unit: usd("2.00"), account: "Assets:Cash", idempotencyKey: k) },
            changed("template") { l, k in try l.startChallenge("save", template: "fixed_weekly", unit: usd("1.00"), account: "Assets:Cash", idempotencyKey: k) },
            changed("name") { l, k in try l.startChallenge("save", template: "52_week", name: "Mine", unit: usd("1.00"), account: "Assets:Cash", idempotencyKey: k) },
        ]),
        KeyedCommand("completeChallengeStep", prepare: twoChallenges, run: { l, k in try l.completeChallengeStep("save", from: "Assets:Bank", idempotencyKey: k) }, [
            changed("step") { l, k in try l.completeChallengeStep("save", step: 2, from: "Assets:Bank", idempotencyKey: k) },
            changed("challenge") { l, k in try l.completeChallengeStep("save2", from: "Assets:Bank", idempotencyKey: k) },
            changed("date") { l, k in try l.completeChallengeStep("save", from: "Assets:Bank", effectiveAt: l.calendar.startOfDay(day("2026-05-01")), idempotencyKey: k) },
        ]),
        KeyedCommand("assertBalance", run: { l, k in try l.assertBalance(account: "Assets:Bank", amount: usd("1000.00"), on: day("2026-05-01"), idempotencyKey: k) }, [
            changed("amount") { l, k in try l.assertBalance(account: "Assets:Bank", amount: usd("1000.01"), on: day("2026-05-01"), idempotencyKey: k) },
            changed("date") { l, k in try l.assertBalance(account: "Assets:Bank", amount: usd("1000.00"), on: day("2026-05-02"), idempotencyKey: k) },
            changed("account") { l, k in try l.assertBalance(account: "Assets:Cash", amount: usd("1000.00"), on: day("2026-05-01"), idempotencyKey: k) },
        ]),
    ]
}
