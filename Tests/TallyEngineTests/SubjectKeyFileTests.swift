import Foundation
import Testing
@testable import TallyEngine
import TallyLog
import TallyTestSupport

/// The `SUBJECTS` file is appended to (issue 31): a save writes the records of what is new,
/// synced before the append that names them, so an import of many distinct payees costs what
/// it adds. A crash mid-append tears only records no event names yet: the next open cuts them,
/// keeps every record before, and appends cleanly after; a damaged complete record is still
/// damage; a file of the earlier form still reads, and the next save writes the current one.
@Suite struct SubjectKeyFileTests {
    static func options(encrypted: Bool) throws -> Ledger.Options {
        var options = Ledger.Options(clock: ManualClock("2026-05-01T09:00:00Z").function, syncMode: .none)
        if encrypted {
            options.key = try LedgerKey(text: LedgerKey.newKeyText(), origin: "k")
            options.encrypt = true
        }
        return options
    }

    /// The fixture every test starts from: a store at `root` created with `options`, one
    /// entry to Bea's Bakery appended (so `SUBJECTS` holds one subject and its text), closed.
    /// Returns the path of its `SUBJECTS` file.
    static func storeWithOnePayee(at root: String, options: Ledger.Options) throws -> String {
        let ledger = try Ledger.create(at: root, name: "Marsh household", baseCurrency: .usd, timeZone: "UTC", options: options)
        try ledger.appendEvents([SealedTextReferenceTests.entry(payee: "Bea's Bakery")])
        try ledger.close()
        return StoreLayout(root: root).subjectKeyFilePath
    }

    static func bytes(_ path: String) throws -> [UInt8] {
        Array(try #require(FileManager.default.contents(atPath: path)))
    }

    static func payees(at root: String, options: Ledger.Options) throws -> [String?] {
        var payees: [String?] = []
        try EventStoreReader.open(at: root, options: options.unlocked(at: root)).forEach { event in
            if let entry = event.body.as(JournalEntryPosted.self) { payees.append(entry.payee) }
        }
        return payees
    }

    /// Where each of the file's lines ends (just past its line end).
    static func lineEnds(_ bytes: [UInt8]) -> [Int] {
        bytes.indices.filter { bytes[$0] == 0x0A }.map { $0 + 1 }
    }

    /// A save that reached the file but not the log (a crash between the two), cut at every
    /// line end and at seeded bytes between: each open cuts the torn record, keeps each whole
    /// one, and the store takes a new payee after it, every acknowledged payee reading back.
    @Test(arguments: [false, true]) func aCrashMidAppendLeavesATornRecordTheNextOpenCuts(encrypted: Bool) throws {
        let seed = TestSeed.value(default: 31)
        var random = SplitMix64(seed: seed)
        let options = try Self.options(encrypted: encrypted)
        var opening = options
        opening.encrypt = false
        try withTemporaryStore { template in
            let path = try Self.storeWithOnePayee(at: template, options: options)
            let acknowledged = try Self.bytes(path)
            let keys = try #require(try opening.unlocked(at: template).subjectKeys)
            _ = keys.reference("Al's Garage", subject: .payee("Al's Garage"))
            _ = keys.reference("Cy's Cafe", subject: .payee("Cy's Cafe"))
            #expect(try keys.save())
            let saved = try Self.bytes(path)
            #expect(saved.count > acknowledged.count && saved.starts(with: acknowledged), "the save appends (seed \(seed))")
            let ends = Self.lineEnds(saved).filter { $0 > acknowledged.count }
            #expect(ends.count == 4, "two subjects and two texts, one record each (seed \(seed))")
            let cuts = Set(ends + ends.map { $0 - 1 } + (0..<6).map { _ in Int.random(in: acknowledged.count..<saved.count, using: &random) })
            for (index, cut) in cuts.sorted().enumerated() {
                // A sibling of the template, inside the directory the helper removes.
                let root = template + "-crash\(index)"
                try FileManager.default.copyItem(atPath: template, toPath: root)
                let file = StoreLayout(root: root).subjectKeyFilePath
                try Data(saved.prefix(cut)).write(to: URL(fileURLWithPath: file))
                let reopened = try Ledger.open(at: root, options: opening)
                let kept = try Self.bytes(file)
                let expected = ([acknowledged.count] + ends).last { $0 <= cut }
                #expect(kept.count == expected && saved.starts(with: kept), "cut at \(cut): \(kept.count) bytes kept (seed \(seed))")
                try reopened.appendEvents([SealedTextReferenceTests.entry(payee: "Di's Deli")])
                try reopened.close()
                #expect(try Self.payees(at: root, options: opening) == ["Bea's Bakery", "Di's Deli"], "cut at \(cut) (seed \(seed))")
                #expect(try StoreVerifier.verify(at: root, options: opening).isIntact, "cut at \(cut) (seed \(seed))")
            }
        }
    }

    /// A reader never cuts: a torn record a writer may still be finishing is skipped.
    @Test func aReaderSkipsATornRecordAndLeavesItInPlace() throws {
        try withTemporaryStore { root in
            let options = try Self.options(encrypted: false)
            let path = try Self.storeWithOnePayee(at: root, options: options)
            let torn = try Self.bytes(path) + Array(#"{"check":"0011","te"#.utf8)
            try Data(torn).write(to: URL(fileURLWithPath: path))
            #expect(try Self.payees(at: root, options: options) == ["Bea's Bakery"])
            try Ledger.openForReading(at: root, options: options).close()
            #expect(try Self.bytes(path) == torn)
        }
    }

    /// One changed character in a complete record (here a text's, the last line) is damage,
    /// refused by name, never taken for a torn record.
    @Test func aDamagedLastRecordIsRefusedNotCut() throws {
        try withTemporaryStore { root in
            let options = try Self.options(encrypted: false)
            let path = try Self.storeWithOnePayee(at: root, options: options)
            var text = try String(contentsOfFile: path, encoding: .utf8)
            let last = try #require(text.range(of: #""text":""#, options: .backwards))
            let at = text.index(last.upperBound, offsetBy: 3)
            text.replaceSubrange(at...at, with: text[at] == "A" ? "B" : "A")
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let refused = #expect(throws: LedgerError.self) { try Ledger.open(at: root, options: options) }
            #expect(refused?.message.contains("sealed texts") == true, "\(String(describing: refused))")
            #expect(try String(contentsOfFile: path, encoding: .utf8) == text, "nothing was cut")
        }
    }

    /// A store whose `SUBJECTS` is in the second form (one JSON object, written whole) reads as
    /// before; its next new subject writes the file anew in the current form, which it keeps.
    @Test func aFileOfTheSecondFormStillReadsAndTheNextSaveWritesTheCurrentOne() throws {
        try withTemporaryStore { root in
            let options = try Self.options(encrypted: false)
            let path = try Self.storeWithOnePayee(at: root, options: options)
            try Data(try Self.secondForm(of: try Self.bytes(path))).write(to: URL(fileURLWithPath: path))
            #expect(SubjectKeyFile.format(of: try Self.bytes(path)) == "tally-subjects-2")
            #expect(try Self.payees(at: root, options: options) == ["Bea's Bakery"])

            let reopened = try Ledger.open(at: root, options: options)
            try reopened.appendEvents([SealedTextReferenceTests.entry(payee: "Al's Garage")])
            try reopened.appendEvents([SealedTextReferenceTests.entry(payee: "Cy's Cafe")])
            try reopened.close()
            #expect(SubjectKeyFile.format(of: try Self.bytes(path)) == SubjectKeyFile.formatName)
            #expect(try Self.payees(at: root, options: options) == ["Bea's Bakery", "Al's Garage", "Cy's Cafe"])
            #expect(try StoreVerifier.verify(at: root, options: options).isIntact)
        }
    }

    /// The second form of a plain file of the current form: its subjects and texts, each
    /// with that form's checksums, in one JSON object.
    static func secondForm(of current: [UInt8]) throws -> [UInt8] {
        var subjects: [[String: String]] = []
        var texts: [[UInt8]] = []
        for line in current.split(separator: 0x0A).dropFirst() {
            let record = try JSONDecoder().decode(SubjectKeyFile.Line.self, from: Data(line))
            if let text = record.text {
                texts.append(Array(try #require(Data(base64Encoded: text))))
            } else {
                let id = try #require(record.id), key = try #require(record.key)
                let check = SubjectKeys.check(identifier: try #require(SubjectKeys.unhex(id)), key: Array(try #require(Data(base64Encoded: key))))
                subjects.append(["id": id, "name": try #require(record.name), "key": key, "check": check])
            }
        }
        let header = try JSONDecoder().decode(SubjectKeyFile.Line.self, from: Data(current.prefix { $0 != 0x0A }))
        let form: [String: Any] = [
            "format": "tally-subjects-2", "created": (header.created ?? 0) + UInt64(subjects.count), "subjects": subjects,
            "texts": texts.map { Data($0).base64EncodedString() }, "textsCheck": SubjectKeys.check(texts: texts),
        ]
        return Array(try JSONSerialization.data(withJSONObject: form, options: [.sortedKeys])) + [0x0A]
    }
}
