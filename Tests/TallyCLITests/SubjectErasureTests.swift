import Foundation
import Testing
@testable import TallyCLI
@testable import Tally
@testable import TallyEngine
import TallyProductTestSupport
import TallyTestSupport
import TallyLog

/// Erasing a person, keeping the chain (issue 16, item 3), on the demo household, in a plain
/// and in an encrypted store: a payee subject and the owner are erased; every product's answer
/// at 20 random dates is the same but for the erased names; the erased strings are in no file
/// of the store and no output; `verify --expect` with a digest from before passes; a backup
/// taken before the erasure, with the keys file replaced by the later one, reveals nothing.
@Suite struct SubjectErasureTests {
    /// Strings only the erased subjects hold: a payee, the ledger's name, pots, envelopes,
    /// assets and a reminder's note (each a control too: the store holds them before).
    static let erasedControls = ["Acme Corp", "Demo household", "Emergency fund", "Summer holiday", "Have the painting appraised"]

    struct Household {
        let root: String
        let options: Ledger.Options
        /// Where the store's read models live (outside it for an encrypted one).
        var readModelPath: String { StoreLayout(root: root).readModelPath }

        /// Every file of the store and of its read models, with its bytes.
        func files() -> [(path: String, bytes: [UInt8])] {
            var files = EncryptedHouseholdTests.files(under: root)
            let layout = StoreLayout(root: root)
            if layout.isEncrypted {
                for suffix in ["", "-wal", "-shm"] {
                    if let data = FileManager.default.contents(atPath: layout.runtimeReadModelPath + suffix) {
                        files.append((layout.runtimeReadModelPath + suffix, Array(data)))
                    }
                }
            }
            return files
        }
    }

    static func live(at root: String, encrypted: Bool) throws -> (Household, DemoActivity) {
        let household = DemoHousehold(seed: 16, firstMonth: try Month(parsing: "2024-01"), monthCount: 4)
        let clock = DemoClock(household.createdAt(try LedgerCalendar(timeZoneIdentifier: DemoHousehold.timeZone)))
        var options = Ledger.Options(clock: clock.function, syncMode: .none, features: standardFeatures)
        if encrypted {
            options.key = try LedgerKey.makeKeyFile(at: root + ".key")
            options.encrypt = true
        }
        let ledger = try Ledger.create(
            at: root, name: DemoHousehold.ledgerName, baseCurrency: DemoHousehold.baseCurrency, timeZone: DemoHousehold.timeZone,
            options: options)
        let activity: DemoActivity
        do {
            activity = try household.live(in: ledger, clock: clock)
            try ledger.sync()
            try ledger.close()
        } catch {
            try? ledger.close()
            throw error
        }
        var readOptions = Ledger.Options.standard
        readOptions.key = options.key
        return (Household(root: root, options: readOptions), activity)
    }

    /// Every event's JSON line, through `head` (the events before the erasures).
    static func eventLines(_ household: Household, through head: UInt64) throws -> [String] {
        var lines: [String] = []
        try EventStoreReader.open(at: household.root, options: household.options).forEach(through: head) { lines.append(try EventJSON.encode($0)) }
        return lines
    }

    /// What each erased text reads as: every string of the events' data that differs after the
    /// erasure, mapped to its marker; every other value (amounts, dates, ids) must be unchanged.
    static func erasures(before: [String], after: [String]) throws -> [String: String] {
        #expect(before.count == after.count)
        var mapping: [String: String] = [:]
        func walk(_ old: Any, _ new: Any, _ path: String) {
            switch (old, new) {
            case let (old as [String: Any], new as [String: Any]):
                #expect(Set(old.keys) == Set(new.keys), "\(path)")
                for (key, value) in old { if let other = new[key] { walk(value, other, path + "." + key) } }
            case let (old as [Any], new as [Any]):
                #expect(old.count == new.count, "\(path)")
                for (index, pair) in zip(old, new).enumerated() { walk(pair.0, pair.1, "\(path)[\(index)]") }
            case let (old as String, new as String):
                guard old != new else { return }
                #expect(new.hasPrefix("[erased ") && new.count == "[erased 12345678]".count, "\(path): '\(new)' is not the erased marker")
                #expect(mapping[old] == nil || mapping[old] == new, "\(path): one text, two markers")
                mapping[old] = new
            default:
                #expect("\(old)" == "\(new)", "\(path) changed")
            }
        }
        for (old, new) in zip(before, after) {
            let oldObject = try JSONSerialization.jsonObject(with: Data(old.utf8))
            let newObject = try JSONSerialization.jsonObject(with: Data(new.utf8))
            walk(oldObject, newObject, "event")
        }
        return mapping
    }

    /// `text` with every erasable string and every marker replaced by one placeholder, so that
    /// two answers compare by their amounts, dates and ids alone; as the sorted list of its
    /// elements (each starts with its module's name), since a list sorted by name may come in
    /// another order once the names are markers. On the answer's UTF-8 bytes (`ByteSearch`):
    /// Foundation's replacements, through UTF-16, took half of this test's time.
    static func normalized(_ text: String, erasing names: [String]) -> [Substring] {
        let placeholder = Array("⟨erased⟩".utf8)
        // Every marker, `[erased ` then 8 lowercase hex digits and `]`.
        let prefix = Array("[erased ".utf8)
        var bytes = ByteSearch.replacing(in: Array(text.utf8), with: placeholder) { bytes, start in
            var from = start
            while let found = ByteSearch.firstOffset(of: prefix, in: bytes, from: from) {
                let digits = found + prefix.count
                if digits + 9 <= bytes.count, bytes[digits + 8] == UInt8(ascii: "]"),
                   bytes[digits..<(digits + 8)].allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) {
                    return found..<(digits + 9)
                }
                from = found + 1
            }
            return nil
        }
        for name in names { bytes = ByteSearch.replacing(name, with: "⟨erased⟩", in: bytes) }
        bytes = ByteSearch.replacing("]", with: "", in: ByteSearch.replacing("[Tally", with: ", Tally", in: bytes))
        return ByteSearch.split(bytes, separator: ", Tally").map { Substring(String(decoding: $0, as: UTF8.self)) }.sorted()
    }

    @Test(arguments: [false, true])
    func erasingAPayeeAndTheOwnerKeepsEveryAmountAndTheChainAndLeavesNoTrace(encrypted: Bool) throws {
        try withTemporaryStore { root in
            try FileManager.default.createDirectory(atPath: (root as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            defer { if encrypted { EncryptedStoreSupport.forgetReadModels(of: root) } }
            let (household, activity) = try Self.live(at: root, encrypted: encrypted)
            #expect(activity.eventCount > 300)

            // Before: answers at 20 random dates (seeded), the head digest, the events, a backup.
            let seed: UInt64 = 1616
            var random = SplitMixRandom(seed: seed)
            let start = try Instant(parsing: "2024-01-01T00:00:00Z").microsecondsSinceEpoch
            let end = try Instant(parsing: "2024-05-01T00:00:00Z").microsecondsSinceEpoch
            let dates = (0..<20).map { _ in Instant(microsecondsSinceEpoch: start + Int64(random.next() % UInt64(end - start))) }
            let (beforeAnswers, head) = try {
                let ledger = try Ledger.openForReading(at: root, options: household.options)
                defer { try? ledger.close() }
                let (accounts, wealthAccounts) = try ProductAnswers.subjects(of: ledger)
                return (dates.map { ProductAnswers(ledger, asOf: $0, knownAt: nil, accounts: accounts, wealthAccounts: wealthAccounts) }, ledger.head)
            }()
            let beforeLines = try Self.eventLines(household, through: head.sequence)
            for text in Self.erasedControls {
                #expect(beforeLines.contains { $0.contains(text) }, "the control lost '\(text)'")
            }
            let backup = root + "-backup"
            try FileManager.default.copyItem(atPath: root, toPath: backup)

            // The erasures.
            let subjects = try SubjectErasure.subjects(at: root, options: household.options).map(\.name)
            #expect(subjects.contains("owner") && subjects.contains("payee:Acme Corp"), "\(subjects)")
            let payee = try SubjectErasure.erase("payee:Acme Corp", at: root, options: household.options)
            let owner = try SubjectErasure.erase("owner", at: root, options: household.options)
            #expect(payee.sequence == head.sequence + 1 && owner.sequence == head.sequence + 2)
            let remaining = try SubjectErasure.subjects(at: root, options: household.options).map(\.name)
            #expect(remaining == subjects.filter { $0 != "owner" && $0 != "payee:Acme Corp" })

            // The events: only personal text changed, to the erased marker.
            let afterLines = try Self.eventLines(household, through: head.sequence)
            let mapping = try Self.erasures(before: beforeLines, after: afterLines)
            for text in Self.erasedControls { #expect(mapping[text] != nil, "'\(text)' was not erased") }
            let names = mapping.keys.sorted { $0.count > $1.count }

            // Every answer at the 20 dates: the same amounts, dates and ids.
            let ledger = try Ledger.openForReading(at: root, options: household.options)
            let (accounts, wealthAccounts) = try ProductAnswers.subjects(of: ledger)
            var outputs: [String] = []
            for (date, before) in zip(dates, beforeAnswers) {
                let after = ProductAnswers(ledger, asOf: date, knownAt: nil, accounts: accounts, wealthAccounts: wealthAccounts)
                #expect(Set(after.answers.keys) == Set(before.answers.keys))
                for (name, answer) in after.answers {
                    outputs.append(answer)
                    let normalized = Self.normalized(answer, erasing: names)
                    let expected = Self.normalized(before.answers[name] ?? "", erasing: names)
                    #expect(normalized == expected, "\(name) at \(date) differs beyond the erased names, seed \(seed): \(Set(normalized).symmetricDifference(expected).sorted().prefix(4))")
                }
            }
            let exportPath = (root as NSString).deletingLastPathComponent + "/after.ndjson"
            try ledger.export(to: exportPath)
            try ledger.close()
            let export = try String(contentsOfFile: exportPath, encoding: .utf8)
            #expect(export.contains("[erased "), "the export carries the erased marker")
            outputs.append(export)

            // The erased strings: in no file of the store and in no output (the controls always;
            // every other erased text too, unless the store also holds it as an id, e.g. an
            // envelope named like an account).
            let outputBytes = outputs.map { Array($0.utf8) }
            let traced = Set(Self.erasedControls).union(names.filter { name in !outputBytes.contains { ByteSearch.contains($0, name) } })
            for text in Self.erasedControls {
                #expect(!outputBytes.contains { ByteSearch.contains($0, text) }, "'\(text)' is still in an answer or the export")
            }
            for file in household.files() {
                for text in traced where ByteSearch.contains(file.bytes, text) {
                    Issue.record("'\(text)' is in \(file.path) after the erasure")
                }
            }

            // The chain: the digest kept before still checks, and the whole log verifies.
            let verification = try StoreVerifier.verify(at: root, options: household.options, expect: head)
            #expect(verification.isIntact, "\(verification.outcome)")

            // The backup taken before, with the keys file replaced by the one after, reveals nothing:
            // its log's sealed fields open no more (its read models are derived: folded again).
            try FileManager.default.removeItem(atPath: backup + "/SUBJECTS")
            try FileManager.default.copyItem(atPath: root + "/SUBJECTS", toPath: backup + "/SUBJECTS")
            try SubjectErasure.deleteReadModels(of: backup)
            let restored = try Ledger.openForReading(at: backup, options: household.options)
            let backupExport = (root as NSString).deletingLastPathComponent + "/backup.ndjson"
            // Its log records no erasure, so to it the keys are lost, not erased (issue 34, item
            // 8): an export refuses to write the text as erased and writes nothing.
            #expect { try restored.export(to: backupExport) } throws: { error in
                "\(error)".contains("keys are missing from the subject key file (SUBJECTS)")
            }
            #expect(!FileManager.default.fileExists(atPath: backupExport))
            var backupText = ""
            _ = try? restored.export { backupText += $0 }  // what a stream wrote before the refusal
            try restored.close()
            for text in traced { #expect(!backupText.contains(text), "the backup reveals '\(text)'") }
            let backupHousehold = Household(root: backup, options: household.options)
            for file in backupHousehold.files() {
                for text in traced where ByteSearch.contains(file.bytes, text) {
                    Issue.record("'\(text)' is in the backup's \(file.path)")
                }
            }
            if encrypted { EncryptedStoreSupport.forgetReadModels(of: backup) }
        }
    }
}
