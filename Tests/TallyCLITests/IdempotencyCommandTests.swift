import Foundation
import Testing
import PostgresTestSupport

/// `--idempotency-key` on every write command, through the real `tally`: the first run
/// records; a repeat exits 0, says it was already applied, prints what the first run
/// recorded and leaves the store byte for byte as it was; a repeat with other input exits
/// non-zero with a message naming the key, and leaves the store as it was.
@Suite struct IdempotencyCommandTests {
    /// A write command: the commands that bring a new store to a state where it records
    /// something, its arguments, and the same command with one input changed.
    struct WriteCommand: Sendable, CustomTestStringConvertible {
        let setUp: [[String]]
        let arguments: [String]
        let changed: [String]
        var testDescription: String { arguments.prefix(2).joined(separator: " ") }

        init(_ arguments: [String], changed: [String], after setUp: [[String]] = []) {
            self.arguments = arguments
            self.changed = changed
            self.setUp = setUp
        }
    }

    /// Every write command on files; on PostgreSQL every fourth (13 of 51, from each product).
    /// The key's check and the refusal are the engine's, the same above either log; what the
    /// backend adds is that a refused command leaves the database's rows as they were, and
    /// that path (the log's append, never reached) is one for every command.
    static var cases: [(WriteCommand, LogBackend)] {
        WriteCommand.all.map { ($0, .files) }
            + WriteCommand.all.enumerated().filter { $0.offset % 4 == 0 }.map { ($0.element, .postgresql) }
    }

    @Test(arguments: cases)
    func aRepeatPrintsTheFirstResultAndOtherInputIsAConflictNamingTheKey(_ command: WriteCommand, on backend: LogBackend) throws {
        let store = try BudgetStore(on: backend)
        for arguments in command.setUp { try store.run(arguments) }
        let key = ["--idempotency-key", "retry-1"]
        let first = try store.run(command.arguments + key)
        #expect(!first.contains("already applied"))
        let recorded = try store.contents()

        let repeated = try store.run(command.arguments + key)
        #expect(repeated.contains("already applied with this idempotency key"), "\(repeated)")
        #expect(repeated.contains("seq "), "the repeat names what the first run recorded: \(repeated)")
        #expect(try store.contents() == recorded, "a repeat changed the store")

        try store.expectRefused(command.changed + key, "idempotency key 'retry-1'")
    }

    @Test(arguments: LogBackend.allCases) func aBankReImportWithTheSameIdAndAnotherAmountIsAConflictNotAlreadyRecorded(on backend: LogBackend) throws {
        let store = try BudgetStore(on: backend)
        try store.run(["bank", "connect", "chase"])
        func importing(_ amount: String) -> [String] {
            ["tx", "import-bank", "--bank", "chase", "--external-id", "T-1", "--payee", "Netflix", "--category", "entertainment",
             "--amount", amount, "--date", "2026-05-04"]
        }
        try store.run(importing("-15.49"))
        try store.run(["tx", "recategorise", "bank:chase:T-1", "--category", "bills"])
        #expect(try store.run(importing("-15.49")).contains("already applied with this idempotency key"))
        try store.expectRefused(importing("-16.49"), "idempotency key 'bank:chase:T-1'")
        #expect(try store.run(["tx", "show", "bank:chase:T-1", "--json"]).contains("\"category\":\"bills\""))
    }

    @Test(arguments: LogBackend.allCases) func aKeyTheLogCannotHoldIsRefusedBeforeTheStoreIsOpened(on backend: LogBackend) throws {
        let store = try BudgetStore(on: backend)
        try store.expectRefused(["reference", "set", "100.00", "--idempotency-key", ""], "--idempotency-key must hold 1 to 255 bytes")
        try store.expectRefused(["reference", "set", "100.00", "--idempotency-key", String(repeating: "k", count: 256)], "1 to 255 bytes")
        try store.expectRefused(["reference", "set", "100.00", "--idempotency-key", "a\nb"], "control characters")
    }
}

extension IdempotencyCommandTests.WriteCommand {
    typealias C = IdempotencyCommandTests.WriteCommand

    static var all: [C] { wealth + budget + netWorth + envelopes }

    static let wealth: [C] = [
        C(["wealth", "deposit", "100.00"], changed: ["wealth", "deposit", "101.00"]),
        C(["wealth", "purchase", "3.40", "--merchant", "Coffee"], changed: ["wealth", "purchase", "3.40", "--merchant", "Tea"],
          after: [["wealth", "deposit", "100.00"]]),
        C(["wealth", "withdraw", "20.00"], changed: ["wealth", "withdraw", "21.00"], after: [["wealth", "deposit", "100.00"]]),
        C(["wealth", "split-rule", "50", "50"], changed: ["wealth", "split-rule", "60", "40"]),
        C(["wealth", "round-ups", "on"], changed: ["wealth", "round-ups", "off"]),
        C(["wealth", "pause"], changed: ["wealth", "pause", "--account", "other"]),
        C(["wealth", "resume"], changed: ["wealth", "resume", "--account", "other"], after: [["wealth", "pause"]]),
        C(["wealth", "freeze"], changed: ["wealth", "freeze", "--account", "other"]),
        C(["wealth", "unfreeze"], changed: ["wealth", "unfreeze", "--account", "other"], after: [["wealth", "freeze"]]),
    ]

    static let transactions: [[String]] = [
        ["tx", "add", "--payee", "Shop", "--category", "groceries", "--amount", "-12.40", "--date", "2026-05-03", "--id", "shop-1"],
        ["tx", "add", "--payee", "Deli", "--category", "groceries", "--amount", "-2.40", "--date", "2026-05-03", "--id", "shop-2"],
    ]
    static let pots: [[String]] = [
        ["reference", "set", "1000.00"], ["pot", "create", "holiday", "--target", "500.00"], ["pot", "create", "car", "--target", "500.00"],
        ["pot", "add", "holiday", "100.00"],
    ]

    static let budget: [C] = [
        C(["tx", "add", "--payee", "Shop", "--category", "groceries", "--amount", "-12.40", "--date", "2026-05-03"],
          changed: ["tx", "add", "--payee", "Shop", "--category", "groceries", "--amount", "-13.40", "--date", "2026-05-03"]),
        C(["tx", "import-bank", "--bank", "chase", "--external-id", "T-1", "--payee", "Netflix", "--category", "entertainment", "--amount", "-15.49", "--date", "2026-05-04"],
          changed: ["tx", "import-bank", "--bank", "chase", "--external-id", "T-1", "--payee", "Hulu", "--category", "entertainment", "--amount", "-15.49", "--date", "2026-05-04"],
          after: [["bank", "connect", "chase"]]),
        C(["tx", "amend", "shop-1", "--amount", "-14.40"], changed: ["tx", "amend", "shop-1", "--amount", "-15.40"], after: transactions),
        C(["tx", "delete", "shop-1"], changed: ["tx", "delete", "shop-2"], after: transactions),
        C(["tx", "recategorise", "shop-1", "--category", "bills"], changed: ["tx", "recategorise", "shop-1", "--category", "shopping"], after: transactions),
        C(["bank", "connect", "chase"], changed: ["bank", "connect", "boa"]),
        C(["bank", "disconnect", "chase"], changed: ["bank", "disconnect", "boa"], after: [["bank", "connect", "chase"], ["bank", "connect", "boa"]]),
        C(["reference", "set", "2500.00"], changed: ["reference", "set", "2600.00"]),
        C(["pot", "create", "trip", "--target", "500.00"], changed: ["pot", "create", "trip", "--target", "600.00"]),
        C(["pot", "add", "car", "50.00"], changed: ["pot", "add", "car", "60.00"], after: pots),
        C(["pot", "withdraw", "holiday", "20.00"], changed: ["pot", "withdraw", "holiday", "30.00"], after: pots),
        C(["pot", "delete", "holiday"], changed: ["pot", "delete", "car"], after: pots),
        C(["budget", "set", "--category", "groceries", "--month", "2026-05", "--maximum", "400.00"],
          changed: ["budget", "set", "--category", "groceries", "--month", "2026-05", "--maximum", "450.00"]),
        C(["budget", "delete", "--category", "groceries", "--month", "2026-05"], changed: ["budget", "delete", "--category", "bills", "--month", "2026-05"],
          after: [["budget", "set", "--category", "groceries", "--month", "2026-05", "--maximum", "400.00"],
                  ["budget", "set", "--category", "bills", "--month", "2026-05", "--maximum", "400.00"]]),
        C(["recurring", "define", "rent", "--payee", "Landlord", "--category", "bills", "--amount", "-1200.00", "--day", "1", "--start", "2026-01"],
          changed: ["recurring", "define", "rent", "--payee", "Landlord", "--category", "bills", "--amount", "-1300.00", "--day", "1", "--start", "2026-01"]),
        C(["recurring", "remove", "rent"], changed: ["recurring", "remove", "gym"], after: [
            ["recurring", "define", "rent", "--payee", "Landlord", "--category", "bills", "--amount", "-1200.00", "--day", "1", "--start", "2026-01"],
            ["recurring", "define", "gym", "--payee", "Gym", "--category", "personal_care", "--amount", "-40.00", "--day", "3", "--start", "2026-01"],
        ]),
        C(["recurring", "generate", "--month", "2026-05"], changed: ["recurring", "generate", "--month", "2026-06"], after: [
            ["recurring", "define", "rent", "--payee", "Landlord", "--category", "bills", "--amount", "-1200.00", "--day", "1", "--start", "2026-01"],
        ]),
    ]

    static let house: [[String]] = [
        ["asset", "add", "house", "--name", "House", "--category", "property", "--type", "real_estate", "--currency", "USD"],
        ["asset", "add", "flat", "--name", "Flat", "--category", "property", "--type", "real_estate", "--currency", "USD"],
        ["liability", "add", "mortgage", "--name", "Mortgage", "--category", "mortgage", "--currency", "USD"],
        ["liability", "add", "loan", "--name", "Loan", "--category", "loan", "--currency", "USD"],
        ["reminder", "set", "r1", "--asset", "house", "--due", "2026-12-01"], ["reminder", "set", "r2", "--asset", "house", "--due", "2026-12-01"],
        ["asset", "value", "house", "310000.00", "--source", "override"],   // so that clear-override has an override to clear
    ]

    static let netWorth: [C] = [
        C(["asset", "add", "cabin", "--name", "Cabin", "--category", "property", "--type", "real_estate", "--currency", "USD"],
          changed: ["asset", "add", "cabin", "--name", "Hut", "--category", "property", "--type", "real_estate", "--currency", "USD"]),
        C(["asset", "value", "house", "300000.00"], changed: ["asset", "value", "house", "300000.01"], after: house),
        C(["asset", "position", "house", "10.5", "--symbol", "VEA"], changed: ["asset", "position", "house", "10.25", "--symbol", "VEA"], after: house),
        C(["asset", "tag", "house", "--country", "US"], changed: ["asset", "tag", "house", "--country", "GB"], after: house),
        C(["asset", "clear-override", "house"], changed: ["asset", "clear-override", "flat"], after: house),
        C(["asset", "remove", "house"], changed: ["asset", "remove", "flat"], after: house),
        C(["liability", "add", "card", "--name", "Card", "--category", "credit_card", "--currency", "USD"],
          changed: ["liability", "add", "card", "--name", "Card", "--category", "loan", "--currency", "USD"]),
        C(["liability", "value", "mortgage", "250000.00"], changed: ["liability", "value", "mortgage", "250001.00"], after: house),
        C(["liability", "remove", "mortgage"], changed: ["liability", "remove", "loan"], after: house),
        C(["price", "VEA", "50.00"], changed: ["price", "VEA", "50.01"]),
        C(["fx", "GBP", "USD", "1.27"], changed: ["fx", "GBP", "USD", "1.28"]),
        C(["base-currency", "GBP"], changed: ["base-currency", "EUR"]),
        C(["reminder", "set", "r9", "--asset", "house", "--due", "2026-12-01"], changed: ["reminder", "set", "r9", "--asset", "house", "--due", "2026-12-02"], after: house),
        C(["reminder", "done", "r1"], changed: ["reminder", "done", "r2"], after: house),
        C(["assert", "Assets:Bank", "1000.00", "--currency", "USD", "--date", "2026-05-01"],
          changed: ["assert", "Assets:Bank", "1000.01", "--currency", "USD", "--date", "2026-05-01"]),
    ]

    static let accounts: [[String]] = [
        ["envelope", "account-open", "Assets:Bank", "--opening", "1000.00", "--date", "2026-01-01"],
        ["envelope", "account-open", "Assets:Cash", "--date", "2026-01-01"],
        ["envelope", "create", "groceries", "--budget", "400.00", "--start", "2026-05-01"],
        ["envelope", "create", "dining", "--budget", "200.00", "--start", "2026-05-01"],
        ["challenge", "start", "save", "--unit", "1.00", "--date", "2026-01-01"],
        ["challenge", "start", "save2", "--unit", "1.00", "--date", "2026-01-01"],
    ]

    static let envelopes: [C] = [
        C(["envelope", "account-open", "Assets:Savings", "--opening", "1500.00", "--date", "2026-05-01"],
          changed: ["envelope", "account-open", "Assets:Savings", "--opening", "1600.00", "--date", "2026-05-01"]),
        C(["envelope", "create", "rent", "--budget", "1200.00"], changed: ["envelope", "create", "rent", "--budget", "1300.00"]),
        C(["envelope", "budget", "groceries", "--budget", "450.00"], changed: ["envelope", "budget", "groceries", "--budget", "460.00"], after: accounts),
        C(["envelope", "fund", "groceries", "--amount", "50.00"], changed: ["envelope", "fund", "groceries", "--amount", "60.00"], after: accounts),
        C(["envelope", "rollover", "groceries", "--policy", "reset"], changed: ["envelope", "rollover", "groceries", "--policy", "take_from_to_assign"], after: accounts),
        C(["envelope", "delete", "groceries"], changed: ["envelope", "delete", "dining"], after: accounts),
        C(["envelope", "record", "t1", "--account", "Assets:Bank", "--amount=-12.50", "--envelope", "groceries"],
          changed: ["envelope", "record", "t1", "--account", "Assets:Bank", "--amount=-13.50", "--envelope", "groceries"], after: accounts),
        C(["envelope", "transfer", "x1", "--from", "Assets:Bank", "--to", "Assets:Cash", "--amount", "100.00"],
          changed: ["envelope", "transfer", "x1", "--from", "Assets:Bank", "--to", "Assets:Cash", "--amount", "110.00"], after: accounts),
        C(["challenge", "start", "year", "--unit", "1.00"], changed: ["challenge", "start", "year", "--unit", "2.00"]),
        C(["challenge", "step", "save"], changed: ["challenge", "step", "save2"], after: accounts),
    ]
}
