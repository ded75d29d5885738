import Foundation
import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// Every command method of `Ledger` with an idempotency key (issue 10, item 5): the first run
/// appends; a repeat with the same input returns the same events and appends nothing; a
/// repeat with other input is refused as a conflict naming the key, and appends nothing.
@Suite struct IdempotencyTests {
    @Test(arguments: KeyedCommand.all)
    func aRepeatReturnsTheFirstResultAndOtherInputConflicts(_ command: KeyedCommand) throws {
        try withBudgetLedger { ledger, clock in
            try command.prepare(ledger)
            let key = "key:\(command.name)"
            let before = ledger.head
            let first = try command.run(ledger, key)
            #expect(!first.wasAlreadyApplied)
            #expect(!first.events.isEmpty, "the command must record something in the prepared state")
            #expect(first.events.first?.idempotencyKey == key)
            #expect(ledger.head.sequence == before.sequence + UInt64(first.events.count))
            let appended = ledger.head

            clock.advance(seconds: 26 * 3_600)   // a retry the next day: "now" and "today" have moved
            let repeated = try command.run(ledger, key)
            #expect(repeated.wasAlreadyApplied)
            #expect(repeated.events == first.events)
            #expect(ledger.head == appended)

            #expect(!command.variants.isEmpty)
            for variant in command.variants {
                try expectConflict(naming: key, ledger, variant.change) { try variant.run(ledger, key) }
            }
            try ledger.expectConsistent()
        }
    }

    @Test(arguments: KeyedCommand.all)
    func aKeyAnotherCommandUsedConflicts(_ command: KeyedCommand) throws {
        try withBudgetLedger { ledger, _ in
            try command.prepare(ledger)
            let key = "used-before"
            if command.name == "setPriceStaleness" {
                try ledger.quotePrice(symbol: .gbp, price: usd("1.27"), source: .manual, idempotencyKey: key)
            } else {
                try ledger.setPriceStaleness(seconds: 86_400, idempotencyKey: key)
            }
            try expectConflict(naming: key, ledger, "another command") { try command.run(ledger, key) }
        }
    }

    /// The table covers every public method of the products that returns a command result.
    @Test func theTableHoldsEveryCommandMethod() throws {
        let methods = try CommandSources.commandMethods()
        #expect(methods.count >= 50)
        for (name, signature) in methods {
            #expect(signature.contains("idempotencyKey: String? = nil"), "\(name) takes no idempotency key")
        }
        #expect(Set(methods.map(\.name)) == Set(KeyedCommand.all.map(\.method)))
    }

    // MARK: Repeats that planning again would refuse

    @Test func repeatsAreNotPlannedAgainSoSpentBalancesDoNotRefuseThem() throws {
        try withBudgetLedger { ledger, _ in
            try ledger.deposit(account: "main", amount: usd("100.00"))                         // Spend 70.00
            let withdrawal = try ledger.withdraw(account: "main", amount: usd("60.00"), idempotencyKey: "w")
            let purchase = try ledger.purchase(account: "main", amount: usd("10.00"), merchant: "Shop", idempotencyKey: "p")
            #expect(try ledger.wealthSummary(account: "main").balance(in: .usd).spend.isZero)
            try expectRepeat(of: withdrawal, ledger) { try ledger.withdraw(account: "main", amount: usd("60.00"), idempotencyKey: "w") }
            try expectRepeat(of: purchase, ledger) { try ledger.purchase(account: "main", amount: usd("10.00"), merchant: "Shop", idempotencyKey: "p") }

            try ledger.setReferenceBalance(amount: usd("100.00"))
            try ledger.createPot(id: "car", target: usd("500.00"))
            let added = try ledger.addToPot(id: "car", amount: usd("100.00"), idempotencyKey: "a")     // current balance 0.00
            try expectRepeat(of: added, ledger) { try ledger.addToPot(id: "car", amount: usd("100.00"), idempotencyKey: "a") }
            let taken = try ledger.withdrawFromPot(id: "car", amount: usd("100.00"), idempotencyKey: "t")  // pot 0.00
            try expectRepeat(of: taken, ledger) { try ledger.withdrawFromPot(id: "car", amount: usd("100.00"), idempotencyKey: "t") }

            let deleted = try ledger.deletePot(id: "car", idempotencyKey: "d")
            try expectRepeat(of: deleted, ledger) { try ledger.deletePot(id: "car", idempotencyKey: "d") }
            try ledger.expectConsistent()
        }
    }

    @Test func aRepeatedReferenceBalanceKeepsTheFirstAdjustment() throws {
        try withBudgetLedger { ledger, _ in
            let first = try ledger.setReferenceBalance(amount: usd("2500.00"), idempotencyKey: "r")
            try ledger.recordTransaction(payee: "Shop", category: .groceries, amount: usd("-40.00"), date: day("2026-05-19"))
            try expectRepeat(of: first, ledger) { try ledger.setReferenceBalance(amount: usd("2500.00"), idempotencyKey: "r") }
            try expectConflict(naming: "r", ledger, "amount") { try ledger.setReferenceBalance(amount: usd("2540.00"), idempotencyKey: "r") }
        }
    }

    @Test func aChallengeStepRepeatedAfterItsSourceWasSpentReturnsTheFirstStep() throws {
        try withBudgetLedger { ledger, _ in
            try KeyedCommand.twoChallenges(ledger)
            let step = try ledger.completeChallengeStep("save", from: "Assets:Bank", idempotencyKey: "s")
            try ledger.transferBetweenAccounts("empty", from: "Assets:Bank", to: "Assets:Cash", amount: usd("1999.00"))
            try expectRepeat(of: step, ledger) { try ledger.completeChallengeStep("save", from: "Assets:Bank", idempotencyKey: "s") }
        }
    }

    // MARK: Natural keys

    @Test func aBankReImportComparesWhatTheBankSentNotTheUsersLaterCategory() throws {
        try withBudgetLedger { ledger, _ in
            try ledger.connectBank(id: "chase")
            func reImport(payee: String = "Netflix", amount: String = "-15.49", date: String = "2026-05-02") throws -> Ledger.CommandResult {
                try ledger.importBankTransaction(bankId: "chase", externalId: "T-1", payee: payee, category: .entertainment,
                                                 amount: usd(amount), date: day(date))
            }
            let first = try reImport()
            #expect(first.events.first?.idempotencyKey == "bank:chase:T-1")
            try ledger.recategorise(id: "bank:chase:T-1", category: .bills)
            try expectRepeat(of: first, ledger) { try reImport() }
            #expect(try ledger.transaction(id: "bank:chase:T-1")?.category == .bills)
            try expectConflict(naming: "bank:chase:T-1", ledger, "amount") { try reImport(amount: "-16.49") }
            try expectConflict(naming: "bank:chase:T-1", ledger, "payee") { try reImport(payee: "Hulu") }
            try expectConflict(naming: "bank:chase:T-1", ledger, "date") { try reImport(date: "2026-05-03") }
            #expect(try ledger.transaction(id: "bank:chase:T-1")?.amount == usd("-15.49"))
        }
    }

    @Test func aBankTransactionImportedUnderTheCallersKeyIsNotImportedAgainUnderAnother() throws {
        try withBudgetLedger { ledger, _ in
            try ledger.connectBank(id: "chase")
            let first = try ledger.importBankTransaction(bankId: "chase", externalId: "T-1", payee: "Netflix", category: .entertainment,
                                                         amount: usd("-15.49"), date: day("2026-05-02"), idempotencyKey: "request-1")
            #expect(first.events.first?.idempotencyKey == "request-1")
            try expectRefusal(.alreadyExists, by: ledger) {
                try ledger.importBankTransaction(bankId: "chase", externalId: "T-1", payee: "Netflix", category: .entertainment,
                                                 amount: usd("-15.49"), date: day("2026-05-02"))
            }
        }
    }

    @Test func occurrencesGeneratedUnderACallersKeyAreNeverGeneratedTwice() throws {
        try withBudgetLedger { ledger, _ in
            try KeyedCommand.rentDefined(ledger)
            try ledger.defineRecurring(id: "salary", payee: "Employer", category: .general, amount: usd("3000.00"),
                                       dayOfMonth: 25, startMonth: month("2026-01"))
            let may = try ledger.generateRecurring(month: month("2026-05"), idempotencyKey: "generate-may")
            // Two occurrences, neither caused by the other, so the keyed command records its end.
            #expect(may.events.map(\.type.name) == ["recurring_occurrence_generated", "recurring_occurrence_generated", "command_completed"])
            #expect(try ledger.generateRecurring(month: month("2026-05")).events.isEmpty)
            try expectConflict(naming: "generate-may", ledger, "month") {
                try ledger.generateRecurring(month: month("2026-06"), idempotencyKey: "generate-may")
            }
            try ledger.expectConsistent()
        }
    }

    // MARK: Inputs that read differently and are the same

    @Test func aTransactionWithoutAnIdKeepsTheIdItsFirstRunWasGiven() throws {
        try withBudgetLedger { ledger, _ in
            func record() throws -> Ledger.CommandResult {
                try ledger.recordTransaction(payee: "Shop", category: .groceries, amount: usd("-12.40"), date: day("2026-05-03"), idempotencyKey: "t")
            }
            let first = try record()
            try ledger.recordTransaction(payee: "Other", category: .groceries, amount: usd("-1.00"), date: day("2026-05-03"))
            let repeated = try record()
            #expect(repeated.wasAlreadyApplied && repeated.transactionId == first.transactionId)
            #expect(first.transactionId == "manual:\(first.events[0].sequence)")
        }
    }

    @Test func inTheBaseCurrencyARateOfOneIsTheSameInputAsNone() throws {
        try withBudgetLedger { ledger, _ in
            try KeyedCommand.envelopeAccounts(ledger)
            func record(rate: ExactDecimal?) throws -> Ledger.CommandResult {
                try ledger.recordEnvelopeTransaction("t1", account: "Assets:Bank", amount: usd("-12.50"), rateToBase: rate,
                                                     envelope: "groceries", effectiveAt: ledger.calendar.startOfDay(day("2026-05-10")), idempotencyKey: "t1")
            }
            let first = try record(rate: nil)
            try expectRepeat(of: first, ledger) { try record(rate: .one) }
            try expectConflict(naming: "t1", ledger, "rate") { try record(rate: try ExactDecimal(parsing: "2")) }
        }
    }

    @Test func aCommandThatRecordsNothingDoesNotUseUpItsKey() throws {
        try withBudgetLedger { ledger, _ in
            #expect(try ledger.setSplitRule(account: "main", spendWeight: 70, investWeight: 30, idempotencyKey: "k").events.isEmpty)
            let set = try ledger.setSplitRule(account: "main", spendWeight: 50, investWeight: 50, idempotencyKey: "k")
            #expect(!set.wasAlreadyApplied && set.events.count == 1)
        }
    }

    // MARK: A key's range is its command's (issue 34, item 6; more in KeyedCommandRangeTests)

    @Test func aRepeatedResumeReturnsEverySplitItMade() throws {
        try withBudgetLedger { ledger, _ in
            try ledger.pauseAutomation(account: "main")
            try ledger.deposit(account: "main", amount: usd("10.00"))
            try ledger.deposit(account: "main", amount: usd("20.00"))
            let first = try ledger.resumeAutomation(account: "main", idempotencyKey: "resume")
            #expect(first.events.count == 4, "the resume, two splits and the command's end")
            let repeated = try ledger.resumeAutomation(account: "main", idempotencyKey: "resume")
            #expect(repeated.wasAlreadyApplied)
            #expect(repeated.events == first.events)
        }
    }

    @Test func aRepeatedDepositReturnsOnlyItsOwnEventsWhenItsSplitCameLater() throws {
        try withBudgetLedger { ledger, _ in
            try ledger.pauseAutomation(account: "main")
            let deposit = try ledger.deposit(account: "main", amount: usd("10.00"), idempotencyKey: "d")
            try ledger.setPriceStaleness(seconds: 60)
            try ledger.resumeAutomation(account: "main")
            let repeated = try ledger.deposit(account: "main", amount: usd("10.00"), idempotencyKey: "d")
            #expect(repeated.wasAlreadyApplied)
            #expect(repeated.events == deposit.events)
        }
    }
}

// MARK: Helpers

/// Runs `body`, expecting `idempotencyConflict` with a message naming `key`, and nothing appended.
private func expectConflict(
    naming key: String, _ ledger: Ledger, _ change: String, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Ledger.CommandResult
) throws {
    let before = ledger.head
    do {
        _ = try body()
        Issue.record("a repeat with another \(change) was not refused", sourceLocation: sourceLocation)
    } catch let error as LedgerError {
        #expect(error.code == .idempotencyConflict, "another \(change): \(error)", sourceLocation: sourceLocation)
        #expect(error.message.contains("'\(key)'"), "the message names the key: \(error.message)", sourceLocation: sourceLocation)
    }
    #expect(ledger.head == before, "a refused repeat appended events", sourceLocation: sourceLocation)
}

/// Runs `body`, expecting the result `first` again, already applied, and nothing appended.
private func expectRepeat(
    of first: Ledger.CommandResult, _ ledger: Ledger, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Ledger.CommandResult
) throws {
    let before = ledger.head
    let repeated = try body()
    #expect(repeated.wasAlreadyApplied, sourceLocation: sourceLocation)
    #expect(repeated.events == first.events, sourceLocation: sourceLocation)
    #expect(ledger.head == before, sourceLocation: sourceLocation)
}

/// The public command methods of the products and the engine, read from the sources: every
/// public method outside the engine's pipeline (`Ledger/`) and imports (`Import/`) that
/// returns a `CommandResult`.
enum CommandSources {
    static func commandMethods() throws -> [(name: String, signature: String)] {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources")
        // The products' module whole; of the engine, what lies outside its pipeline and imports.
        let files = try ["TallyProducts", "TallyEngine"].flatMap { module in
            try #require(FileManager.default.enumerator(atPath: sources.appendingPathComponent(module).path)).compactMap { $0 as? String }
                .filter { $0.hasSuffix(".swift") && !(module == "TallyEngine" && ($0.hasPrefix("Ledger/") || $0.hasPrefix("Import/"))) }
                .map { module + "/" + $0 }
        }
        var methods: [(name: String, signature: String)] = []
        let root = sources
        for file in files.sorted() {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            for chunk in text.components(separatedBy: "public func ").dropFirst() {
                let signature = String(chunk.prefix { $0 != "{" })
                guard signature.contains("-> CommandResult") else { continue }
                methods.append((String(signature.prefix { $0 != "(" }), signature))
            }
        }
        return methods
    }
}
