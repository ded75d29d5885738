import Foundation
import TallyEngine

/// `merchant-tags [STORE]`: a tour of an embedder's feature on Tally's engine alone. It
/// creates a store (in a temporary directory removed at the end, or at STORE, which must not
/// exist, kept), records journal entries and tags, and checks every answer on the way. A
/// failed check prints what failed and exits 1. `merchant-tags init|tag|load|check|dump-tags`
/// run one command each instead (``Commands``).
@main
struct MerchantTagsExample {
    static func main() async {
        if let status = await Commands.run(Array(CommandLine.arguments.dropFirst())) { exit(status) }
        let given = CommandLine.arguments.dropFirst().first
        let temporary = given == nil ? FileManager.default.temporaryDirectory.appendingPathComponent("merchant-tags-\(UUID().uuidString)").path : nil
        var failure: (any Error)?
        do {
            if let temporary { try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true) }
            try await tour(store: given ?? temporary! + "/store")
        } catch {
            failure = error
        }
        if let temporary { try? FileManager.default.removeItem(atPath: temporary) }
        if let failure {
            print("merchant-tags example: FAILED: \(failure)")
            exit(1)
        }
        print("merchant-tags example: ok")
    }

    /// Where each account's merchant is: the tags the example records.
    static let shop: [(account: String, merchant: String)] = [
        ("Assets:Till", "Corner Grocer"), ("Assets:Bank", "First Bank"),
        ("Expenses:Supplies", "Paper Co"), ("Income:Sales", "Market Stall"),
    ]

    static func tour(store: String) async throws {
        let clock = try ManualClock("2026-05-01T09:00:00Z")
        let options = Ledger.Options(clock: { clock.now }, features: [MerchantTags()])
        let ledger = try Ledger.create(at: store, name: "Corner Shop", baseCurrency: .usd, timeZone: "UTC", options: options)
        print("store: \(store)")

        // Every committed event, from the first, observed in a task of its own until the ledger closes.
        let stream = ledger.committedEvents(after: 0)
        let observer = Task {
            var seen: [Event] = []
            for try await event in stream { seen.append(event) }
            return seen
        }

        // 1. Journal entries, each recorded on its own day; the third is backdated.
        let entries: [(recorded: String, effective: String, account: String, from: String, amount: String)] = [
            ("2026-05-01T09:00:00Z", "2026-05-01T09:00:00Z", "Assets:Till", "Income:Sales", "120.00"),
            ("2026-05-10T09:00:00Z", "2026-05-09T12:00:00Z", "Assets:Bank", "Income:Sales", "500.00"),
            ("2026-05-20T09:00:00Z", "2026-05-03T12:00:00Z", "Expenses:Supplies", "Assets:Till", "35.50"),
        ]
        for entry in entries {
            try clock.set(entry.recorded)
            let posted = JournalEntryPosted(account: entry.account, counterAccount: entry.from, amount: try usd(entry.amount))
            try ledger.appendEvents([NewEvent(effectiveAt: try Instant(parsing: entry.effective), body: EventBody(posted))])
        }
        print("journal: \(entries.count) entries recorded on 2026-05-01, 05-10 and 05-20 (the last backdated to 05-03)")

        // 2. Sixteen tag commands at once through the async API: they meet in the write
        // pipeline's queue and share commits. Fourteen tag the shop's accounts; one names an
        // account the engine has never seen, one has no merchant: those two are refused alone.
        try clock.set("2026-05-21T09:00:00Z")
        let requests: [(account: String, merchant: String)] = (0..<14).map { shop[$0 % shop.count] } + [("Assets:Nowhere", "Ghost Ltd"), ("Assets:Till", "")]
        let headBefore = ledger.head.sequence
        let outcomes = try await withThrowingTaskGroup(of: (Int, Result<Ledger.CommandResult, LedgerError>).self) { group in
            for (index, request) in requests.enumerated() {
                group.addTask {
                    let command = LedgerCommand.tag(request.account, as: request.merchant, key: "tag-\(index)", at: clock.now)
                    do {
                        // The result is bound before the tuple is made: with Swift 6.3.1 and -O,
                        // `return (index, .success(try await …))` here returned a wrong index.
                        let result = try await ledger.run(command)
                        return (index, .success(result))
                    } catch let refusal as LedgerError {
                        return (index, .failure(refusal))
                    }
                }
            }
            var outcomes: [Result<Ledger.CommandResult, LedgerError>?] = Array(repeating: nil, count: requests.count)
            for try await (index, outcome) in group { outcomes[index] = outcome }
            return outcomes.map { $0! }
        }
        var recorded: [Event] = []
        for (index, outcome) in outcomes.enumerated().prefix(14) {
            let result = try outcome.get()
            try check(result.events.map(\.type.name) == ["merchant_tagged"] && !result.wasAlreadyApplied, "tag-\(index) recorded \(result.events.map(\.type.name))")
            recorded += result.events
        }
        for (index, code) in [(14, LedgerError.Code.notFound), (15, .invalidArgument)] {
            guard case .failure(let refusal) = outcomes[index] else { throw CheckFailed(description: "tag-\(index) was not refused") }
            try check(refusal.code == code, "tag-\(index) refused as '\(refusal.code)', expected '\(code)'")
        }
        try check(ledger.head.sequence == headBefore + 14, "16 commands, 2 refused: \(ledger.head.sequence - headBefore) events appended, expected 14")
        print("tags: 16 concurrent commands, 14 recorded, 2 refused (not found, invalid argument)")

        // 3. A repeated idempotency key returns the first result and appends nothing; so does
        // a refused command, and a refused append (the admission check).
        let first = try outcomes[0].get()
        try clock.set("2026-05-22T09:00:00Z")
        let repeated = try await ledger.run(.tag("Assets:Till", as: "Corner Grocer", key: "tag-0", at: clock.now))
        try check(repeated.wasAlreadyApplied && repeated.events == first.events, "repeating key tag-0 gave \(repeated)")
        let head = ledger.head.sequence
        let viewBefore = try ledger.read(MerchantTagQueries.view)
        _ = try await expectRefusal(.notFound, "tagging an unknown account") {
            try await ledger.run(.tag("Assets:Nowhere", as: "Ghost Ltd", key: "tag-ghost", at: clock.now))
        }
        let empty = NewEvent(effectiveAt: clock.now, body: EventBody(MerchantTagged(account: "Assets:Till", merchant: "")))
        let admission = try await expectRefusal(.invalidArgument, "appending a tag without a merchant") {
            try ledger.appendEvents([empty])
        }
        try check(admission.message.contains("'merchant' is empty"), "the admission check's message: \(admission.message)")
        try check(ledger.head.sequence == head, "refusals appended \(ledger.head.sequence - head) events")
        let viewAfter = try ledger.read(MerchantTagQueries.view)
        try check(viewAfter == viewBefore, "refusals changed the read model: \(viewAfter)")
        print("repeat of key tag-0: already applied; refused command and refused append: nothing appended")

        // 4. Balances at an earlier date, and as the ledger knew them at an earlier time.
        let may5 = ledger.calendar.endOfDay(try LocalDate(parsing: "2026-05-05"))
        let may15 = try Instant(parsing: "2026-05-15T00:00:00Z")
        let expectations: [(String, Instant?, Instant?, [String: String])] = [
            ("now", nil, nil, ["Assets:Bank": "500.00", "Assets:Till": "84.50", "Expenses:Supplies": "35.50", "Income:Sales": "-620.00"]),
            ("as of 2026-05-05", may5, nil, ["Assets:Till": "84.50", "Expenses:Supplies": "35.50", "Income:Sales": "-120.00"]),
            ("known at 2026-05-15", nil, may15, ["Assets:Bank": "500.00", "Assets:Till": "120.00", "Income:Sales": "-620.00"]),
            ("as of 2026-05-05, known at 2026-05-15", may5, may15, ["Assets:Till": "120.00", "Income:Sales": "-120.00"]),
        ]
        for (label, asOf, knownAt, expected) in expectations {
            // The async read: the calling task suspends while SQLite is read on the engine's pool.
            let balances = amounts(try await ledger.async.balances(asOf: asOf, knownAt: knownAt))
            try check(balances == (try expected.mapValues(usd)), "balances \(label): \(describe(balances))")
            print("balances \(label): \(describe(balances))")
        }

        // 5. The read model, the same after a rebuild from the log.
        let expected = MerchantTagsView(
            merchants: Dictionary(uniqueKeysWithValues: shop.map { ($0.account, $0.merchant) }),
            tagCounts: ["Corner Grocer": 4, "First Bank": 4, "Paper Co": 3, "Market Stall": 3])
        let view = try ledger.read(MerchantTagQueries.view)
        try check(view == expected, "read model: \(view), expected \(expected)")
        try ledger.rebuild()
        let rebuilt = try ledger.read(MerchantTagQueries.view)
        try check(rebuilt == view, "read model after rebuild: \(rebuilt)")
        for (account, merchant) in expected.merchants {
            let read = try ledger.read(MerchantTagQueries.merchant(of: account))
            try check(read == merchant, "merchant of \(account): \(read ?? "none"), expected \(merchant)")
        }
        print("read model (tags per merchant): \(view); the same after rebuild")

        // 6. The embedder's own overdraft rule (`LedgerCommand.pay`): a payment backdated to
        // 2026-05-02 that the till held then, but that would leave it below zero from 05-03 on,
        // where the supplies purchase is already recorded, is refused; the refusal is told apart
        // by its code, not its text. A smaller one is paid, and its repeat appends nothing.
        try clock.set("2026-05-23T09:00:00Z")
        let payments: [(amount: String, on: String, key: String)] = [("100.00", "2026-05-02T12:00:00Z", "pay-1"), ("80.00", "2026-05-23T09:00:00Z", "pay-2")]
        for payment in payments {
            let command = LedgerCommand.pay(try usd(payment.amount), from: "Assets:Till", to: "Expenses:Supplies", key: payment.key,
                                            at: try Instant(parsing: payment.on), calendar: ledger.calendar)
            do {
                let paid = try await ledger.run(command)
                try check(payment.key == "pay-2" && paid.events.count == 1, "\(payment.key) was recorded")
                let again = try await ledger.run(command)
                try check(again.wasAlreadyApplied, "repeating \(payment.key) appended \(again.events.count) events")
            } catch let refusal as LedgerError {
                switch refusal.code {
                case .insufficientFunds:
                    try check(payment.key == "pay-1" && refusal.message.contains("below zero on 2026-05-03"), "\(payment.key) refused: \(refusal.message)")
                    print("payment \(payment.key): refused (\(refusal.code.name)): \(refusal.message)")
                case .notFound, .invalidArgument, .idempotencyConflict:
                    throw CheckFailed(description: "\(payment.key) refused as \(refusal.code.name): \(refusal.message)")
                default:
                    throw refusal
                }
            }
        }
        let till = try await ledger.wallet.balance(of: "Assets:Till", in: .usd)
        try check(till == (try usd("4.50")), "the till after paying 80.00: \(till)")
        print("payments: 100.00 backdated refused (overdraft on 2026-05-03), 80.00 paid, till 4.50 USD")

        // 7. The engine's plain wallet: deposits, a purchase, a transfer; no product to configure.
        let float = "Assets:Float"
        try await ledger.wallet.deposit(try usd("40.00"), into: float, payee: "Owner", idempotencyKey: "float-1")
        try await ledger.wallet.purchase(try usd("15.25"), from: float, merchant: "Corner Grocer", idempotencyKey: "float-2")
        try await ledger.wallet.transfer(try usd("20.00"), from: float, to: "Assets:Till", idempotencyKey: "float-3")
        _ = try await expectRefusal(.insufficientFunds, "a purchase beyond the float") {
            try await ledger.wallet.purchase(try usd("5.00"), from: float, merchant: "Paper Co", idempotencyKey: "float-4")
        }
        let floatLeft = try await ledger.wallet.balance(of: float, in: .usd)
        try check(floatLeft == (try usd("4.75")), "the float: \(floatLeft)")
        print("wallet: float 40.00 in, 15.25 spent, 20.00 to the till, a 5.00 purchase refused; 4.75 USD left")

        // 8. Close; the observer saw every committed event once, in order.
        let last = ledger.head.sequence
        try ledger.close()
        let seen = try await observer.value
        try check(seen.map(\.sequence) == Array(1...last), "the observer saw \(seen.map(\.sequence)), expected 1...\(last)")
        let seenTags = seen.filter { $0.type == MerchantTagged.eventType }
        try check(seenTags == recorded.sorted { $0.sequence < $1.sequence }, "the observer's tags differ from those the commands recorded")
        print("observer: events 1...\(last), each once, in order")

        // 9. Verify the store with the same feature, and reopen it.
        let verification = try StoreVerifier.verify(at: store, options: options)
        try check(verification.isIntact, "verify: \(verification.outcome): \(verification.problems)")
        let reopened = try Ledger.open(at: store, options: options)
        let reread = try reopened.read(MerchantTagQueries.view)
        try reopened.close()
        try check(reread == expected, "read model after reopening: \(reread)")
        print("verify: intact; reopened: read model intact")
    }
}
