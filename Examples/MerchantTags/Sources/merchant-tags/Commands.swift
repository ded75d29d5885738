import Foundation
import TallyEngine

/// `merchant-tags init|tag|load|check|dump-tags STORE …`: the feature driven one command per
/// process, as an application drives it, and as the crash harness kills it
/// (`scripts/crash/crash_harness.py --modes embedder`). Every command opens the store with
/// the same feature list (``options``); each prints JSON on standard output, a refusal or a
/// failed check on standard error, and exits 0 when all went well.
enum Commands {
    /// The options every command opens the store with: the feature, and the defaults of a
    /// production store (the real clock, a sync on every commit, so an answer is durable).
    static let options = Ledger.Options(features: [MerchantTags()])

    static let usage = """
        usage: merchant-tags [STORE]                       the tour (a temporary store, or STORE, kept)
               merchant-tags init STORE                    a new store whose postings open the shop's accounts
               merchant-tags tag STORE ACCOUNT MERCHANT --key KEY
               merchant-tags load STORE --count N --seed S [--concurrency C]
               merchant-tags check STORE                   catch up, compare with a rebuild, verify
               merchant-tags dump-tags STORE               every merchant_tagged event in the log
        """

    /// Runs the subcommand `arguments[0]`; nil when it names none (the tour then runs).
    static func run(_ arguments: [String]) async -> Int32? {
        guard let name = arguments.first, ["init", "tag", "load", "check", "dump-tags"].contains(name) else { return nil }
        do {
            var given = Array(arguments.dropFirst())
            switch name {
            case "init": try initialize(store: try take(&given, exactly: 1)[0])
            case "tag":
                let key = try option("--key", &given)
                let words = try take(&given, exactly: 3)
                return try await tag(store: words[0], account: words[1], merchant: words[2], key: key)
            case "load":
                let count = try number("--count", &given), seed = try number("--seed", &given)
                let concurrency = try given.contains("--concurrency") ? number("--concurrency", &given) : 8
                try await load(store: try take(&given, exactly: 1)[0], count: count, seed: seed, concurrency: max(1, concurrency))
            case "check": try checkStore(try take(&given, exactly: 1)[0])
            default: try dumpTags(store: try take(&given, exactly: 1)[0])
            }
            return 0
        } catch let usage as UsageError {
            FileHandle.standardError.write(Data("merchant-tags \(name): \(usage.description)\n\(Self.usage)\n".utf8))
            return 2
        } catch {
            FileHandle.standardError.write(Data("merchant-tags \(name): FAILED: \(error)\n".utf8))
            return 1
        }
    }

    // MARK: The commands

    /// `init STORE`: creates the store and posts three journal entries; every posting opens
    /// its accounts, and those four (``MerchantTagsExample/shop``) are the ones a tag may name.
    static func initialize(store: String) throws {
        let ledger = try Ledger.create(at: store, name: "Corner Shop", baseCurrency: .usd, timeZone: "UTC", options: options)
        let entries = [("Assets:Till", "Income:Sales", "120.00"), ("Assets:Bank", "Income:Sales", "500.00"), ("Expenses:Supplies", "Assets:Till", "35.50")]
        let result = try ledger.appendEvents(try entries.map { account, counter, amount in
            NewEvent(effectiveAt: ledger.now, body: EventBody(JournalEntryPosted(account: account, counterAccount: counter, amount: try usd(amount))))
        })
        try ledger.close()
        emit(["store": store, "seq": sequences(result.events)])
    }

    /// `tag STORE ACCOUNT MERCHANT --key KEY`: one durable command through the async API.
    /// Prints `{"key":…,"seq":[…],"already_applied":false}` once the commit is durable; a
    /// repeat of the key prints the first run's sequence numbers with `"already_applied":true`
    /// and appends nothing. A refusal (unknown account, no merchant, the key used for another
    /// tag) appends nothing, says why and exits 1.
    static func tag(store: String, account: String, merchant: String, key: String) async throws -> Int32 {
        try await withLedger(store) { ledger in
            do {
                let result = try await ledger.run(.tag(account, as: merchant, key: key, at: ledger.now))
                emit(["key": key, "seq": sequences(result.events), "already_applied": result.wasAlreadyApplied])
                return 0
            } catch let refusal as LedgerError {
                FileHandle.standardError.write(Data("merchant-tags tag: refused (\(refusal.code)): \(refusal.message); nothing appended\n".utf8))
                return 1
            }
        }
    }

    /// `load STORE --count N --seed S [--concurrency C]`: N tag commands with the keys
    /// `load-S-0` … `load-S-(N-1)`, C at a time (default 8, so that they share commits). Each
    /// acknowledged command prints `{"ack":KEY,"seq":[…],"account":…,"merchant":…,
    /// "already_applied":…}` the moment its commit is durable; each refused one (every tenth
    /// names an account that does not exist) prints `{"refused":KEY,"code":…}`. Running it
    /// again with the same seed re-sends the same commands: those already in the log say so.
    static func load(store: String, count: Int, seed: Int, concurrency: Int) async throws {
        try await withLedger(store) { ledger in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<count {
                    if index >= concurrency { try await group.next() }
                    group.addTask {
                        let (account, merchant) = loadTag(seed: seed, index: index)
                        let key = "load-\(seed)-\(index)"
                        do {
                            let result = try await ledger.run(.tag(account, as: merchant, key: key, at: ledger.now))
                            emit(["ack": key, "seq": sequences(result.events), "account": account, "merchant": merchant,
                                  "already_applied": result.wasAlreadyApplied])
                        } catch let refusal as LedgerError {
                            emit(["refused": key, "code": "\(refusal.code)"])
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    /// The tag `load` sends as its command `index`: the shop's accounts in turn, a merchant
    /// that depends on the seed, and for every tenth an account the engine has never seen.
    static func loadTag(seed: Int, index: Int) -> (account: String, merchant: String) {
        if index % 10 == 9 { return ("Assets:Nowhere", "Ghost Ltd") }
        let merchants = ["Corner Grocer", "First Bank", "Paper Co", "Market Stall", "Night Owl Cafe"]
        let shop = MerchantTagsExample.shop
        return (shop[index % shop.count].account, merchants[(seed % 97 + index * 3) % merchants.count])
    }

    /// `check STORE`: what a program does after a crash. Verifies the log as the last process
    /// left it (read models may be behind it: a note, not a failure), opens the store, which
    /// folds into the read models what they had not seen, reads the read model and the
    /// balances, rebuilds both from the log and compares, then verifies again: intact, the
    /// read models at the head. Prints `{"head":…,"merchants":{…},"tag_counts":{…},
    /// "balances":{…},"read_models_were_behind":…}`; a difference fails (exit 1).
    static func checkStore(_ store: String) throws {
        let before = try StoreVerifier.verify(at: store, options: options)
        try check(before.isIntact, "verify before opening: \(before.outcome): \(before.problems)")
        let wasBehind = before.readModelFileMissing || before.readModels.map { $0.needsRecovery || !$0.laggingProjectors.isEmpty } ?? false

        let ledger = try Ledger.open(at: store, options: options)
        let head = ledger.head.sequence
        let caughtUp = (try ledger.read(MerchantTagQueries.view), amounts(try ledger.balances()))
        try ledger.rebuild()
        let rebuilt = (try ledger.read(MerchantTagQueries.view), amounts(try ledger.balances()))
        try ledger.close()
        try check(rebuilt.0 == caughtUp.0, "read model caught up: \(caughtUp.0); after rebuild: \(rebuilt.0)")
        try check(rebuilt.1 == caughtUp.1, "balances caught up: \(describe(caughtUp.1)); after rebuild: \(describe(rebuilt.1))")

        let after = try StoreVerifier.verify(at: store, options: options)
        try check(after.isIntact, "verify after the rebuild: \(after.outcome): \(after.problems)")
        try check(after.readModels.map { !$0.needsRecovery && $0.laggingProjectors.isEmpty } ?? false, "read models not at the head: \(after.notes)")
        emit(["head": Int(head), "merchants": caughtUp.0.merchants, "tag_counts": caughtUp.0.tagCounts,
              "balances": caughtUp.1.mapValues(\.description), "read_models_were_behind": wasBehind])
    }

    /// `dump-tags STORE`: the log's tags, read with the feature's catalog without opening the
    /// ledger (no lock, no catch-up): `{"head":…,"tags":[{"seq":…,"key":…,"account":…,"merchant":…}, …]}`.
    static func dumpTags(store: String) throws {
        let reader = try EventStoreReader.open(at: store, catalog: try options.catalog())
        var tags: [[String: Any]] = []
        try reader.forEach { event in
            guard let tagged = event.body.as(MerchantTagged.self) else { return }
            tags.append(["seq": Int(event.sequence), "key": event.idempotencyKey ?? NSNull(), "account": tagged.account, "merchant": tagged.merchant])
        }
        emit(["head": Int(reader.head.sequence), "tags": tags])
    }

    // MARK: Support

    /// Opens the store, runs `body` and closes the store, whatever `body` did.
    static func withLedger<T: Sendable>(_ store: String, _ body: (Ledger) async throws -> T) async throws -> T {
        let ledger = try Ledger.open(at: store, options: options)
        do {
            let value = try await body(ledger)
            try ledger.close()
            return value
        } catch {
            try? ledger.close()
            throw error
        }
    }

    /// Prints one JSON line with a single `write`, so that it is out before the next command's
    /// answer and whole even if the process is killed right after.
    static func emit(_ fields: [String: Any]) {
        let line = try! JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes]) + Data("\n".utf8)
        FileHandle.standardOutput.write(line)
    }

    /// The sequence numbers of a command's events.
    static func sequences(_ events: [Event]) -> [Int] { events.map { Int($0.sequence) } }
}

/// A command line the commands do not understand: printed with the usage, exit 2.
struct UsageError: Error, CustomStringConvertible {
    let description: String
}

extension Commands {
    /// Removes `name VALUE` from `arguments` and returns VALUE.
    static func option(_ name: String, _ arguments: inout [String]) throws -> String {
        guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { throw UsageError(description: "\(name) is required") }
        let value = arguments[index + 1]
        arguments.removeSubrange(index...index + 1)
        return value
    }

    /// Removes `name N` from `arguments` and returns N, a whole number from 0.
    static func number(_ name: String, _ arguments: inout [String]) throws -> Int {
        let text = try option(name, &arguments)
        guard let value = Int(text), value >= 0 else { throw UsageError(description: "\(name) takes a whole number, not '\(text)'") }
        return value
    }

    /// The positional arguments left, which must be `count` and not options.
    static func take(_ arguments: inout [String], exactly count: Int) throws -> [String] {
        if let unknown = arguments.first(where: { $0.hasPrefix("--") }) { throw UsageError(description: "unknown option \(unknown)") }
        guard arguments.count == count else { throw UsageError(description: "expected \(count) argument\(count == 1 ? "" : "s"), got \(arguments.count)") }
        return arguments
    }
}
