import Foundation
import Testing
@testable import TallyCLI

/// Findings 3 and 7 through the real `tally` command: a bad row or event is refused with
/// `FILE:LINE: field 'NAME'` and a non-zero exit, before the store changes; a control
/// character is never printed raw, in an error or in a table.
@Suite struct ControlCharacterCommandTests {
    static let header = "date,account,counter_account,amount,currency,payee,category,external_id"

    private func newStore(_ directory: TemporaryDirectory) throws -> String {
        let store = directory.path + "/store"
        let created = try TallyProcess.run(["init", "--store", store, "--time-zone", "UTC"])
        try #require(created.status == 0, "\(created.standardError)")
        // A first import creates the read models, so the snapshots cover them too.
        let seed = try directory.file("seed.csv", Self.header + "\n2026-04-01,Assets:Cash,Equity:Opening,10.00,USD,,,seed\n")
        try #require(try TallyProcess.run(["import", seed, "--store", store]).status == 0)
        return store
    }

    private static func hasControlCharacter(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0 != "\n" && ($0.value < 0x20 || (0x7F...0x9F).contains($0.value) || (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value)) }
    }

    @Test func anImportWithAPayeePastTheLimitOnRow2500IsRefusedWholeThenTheFixedFileImportsOnce() throws {
        let directory = try TemporaryDirectory()
        let store = try newStore(directory)
        var rows = (0..<3_000).map { "2026-05-\(10 + $0 % 19),Expenses:Food,Assets:Cash,\($0 % 97).25,USD,Shop \($0 % 31),Food," }
        let fixed = rows
        rows[2_499] = "2026-05-01,Expenses:Food,Assets:Cash,1.00,USD,\(String(repeating: "p", count: 1_025)),Food,"
        let file = try directory.file("big.csv", ([Self.header] + rows).joined(separator: "\n") + "\n")
        let before = try directory.snapshot("store")
        let refused = try TallyProcess.run(["import", file, "--store", store, "--batch-size", "1000"])
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("big.csv:2501: field 'payee': holds 1025 bytes; the limit is 1024"), "\(refused.standardError)")
        #expect(try directory.snapshot("store") == before, "a refused import changed the store")

        _ = try directory.file("big.csv", ([Self.header] + fixed).joined(separator: "\n") + "\n")
        let imported = try TallyProcess.run(["import", file, "--store", store, "--batch-size", "1000"])
        #expect(imported.status == 0, "\(imported.standardError)")
        #expect(imported.standardOutput.contains("rows imported: 3000\nskipped as duplicates: 0\nevents appended: 3000 in 3 commits\n"), "\(imported.standardOutput)")
        let again = try TallyProcess.run(["import", file, "--store", store])
        #expect(again.standardOutput.contains("rows imported: 0\nskipped as duplicates: 3000\n"), "\(again.standardOutput)")
    }

    @Test(arguments: [("\u{0}", "account"), ("\u{1B}[2J", "account"), ("\n", "account"), ("\u{202E}", "account"), ("\u{2067}", "account")])
    func anImportWithAControlCharacterInAnAccountIsRefusedNamingLineAndField(control: String, field: String) throws {
        let directory = try TemporaryDirectory()
        let store = try newStore(directory)
        let file = try directory.file("bad.csv", Self.header + "\n2026-05-01,Assets:Cash,Income:Gift,1.00,USD,,,ok\n2026-05-01,\"Assets:Ca\(control)sh\",Income:Gift,1.00,USD,,,\n")
        let before = try directory.snapshot("store")
        let result = try TallyProcess.run(["import", file, "--store", store])
        #expect(result.status != 0)
        #expect(result.standardError.contains("bad.csv:3: field '\(field)': holds a control character"), "\(result.standardError)")
        #expect(!Self.hasControlCharacter(result.standardError))
        #expect(try directory.snapshot("store") == before)
    }

    @Test(arguments: ["\\u0000", "\\u001b[2J", "\\n"])
    func appendOfAnEventWithAControlCharacterIsRefusedNamingLineAndField(_ escaped: String) throws {
        let directory = try TemporaryDirectory()
        let store = try newStore(directory)
        let good = #"{"type":"pot_created","version":1,"effective_at":"2026-05-01T09:00:00Z","data":{"pot_id":"a","name":"A","target":{"amount":"1.00","currency":"USD"}}}"#
        let bad = good.replacingOccurrences(of: #""pot_id":"a","name":"A""#, with: #""pot_id":"b","name":"B"# + escaped + #"""#)
        let file = try directory.file("events.ndjson", good + "\n" + bad + "\n")
        let before = try directory.snapshot("store")
        for command in ["append", "import"] {
            let result = try TallyProcess.run([command, file, "--store", store])
            #expect(result.status != 0, "\(command)")
            #expect(result.standardError.contains("events.ndjson:2: field 'data.name': invalid value: holds a control character"), "\(command): \(result.standardError)")
            #expect(try directory.snapshot("store") == before, "\(command)")
        }
    }

    /// A command's own error message echoes the name it refused: shown with `\e`, never raw.
    @Test func aRefusedNameIsEchoedWithItsControlCharactersVisible() throws {
        let directory = try TemporaryDirectory()
        let store = try newStore(directory)
        let before = try directory.snapshot("store")
        for name in ["Expenses:X\u{1B}[31mY", "Assets:X\u{1B}[31mY", "Assets:pay\u{202E}gpj.exe"] {
            let result = try TallyProcess.run(["envelope", "account-open", name, "--currency", "USD", "--store", store])
            #expect(result.status != 0)
            #expect(!Self.hasControlCharacter(result.standardError), "\(result.standardError.debugDescription)")
        }
        let kind = try TallyProcess.run(["envelope", "account-open", "Expenses:X\u{1B}[31mY", "--store", store])
        #expect(kind.standardError.contains("'Expenses:X\\e[31mY'"), "\(kind.standardError)")
        let text = try TallyProcess.run(["envelope", "account-open", "Assets:X\u{1B}[31mY", "--store", store])
        #expect(text.standardError.contains("field 'data.account' holds a control character (U+001B ESC)"), "\(text.standardError)")
        // Issue 34, item 14: a right-to-left override is refused too, named, never echoed raw.
        let bidi = try TallyProcess.run(["envelope", "account-open", "Assets:pay\u{202E}gpj.exe", "--store", store])
        #expect(bidi.standardError.contains("holds a control character (U+202E bidirectional formatting control)"), "\(bidi.standardError)")
        // A command opens the ledger before it is refused, and SQLite rewrites its WAL index
        // (`-shm`, shared memory, rebuilt on every open) when it does: every other byte stays.
        func durable(_ files: [String: Data]) -> [String: Data] { files.filter { !$0.key.hasSuffix("-shm") } }
        #expect(durable(try directory.snapshot("store")) == durable(before))
    }

    /// No name with a control character can be recorded any more; a store written before the
    /// rule may still hold one, so the table printer makes every control character visible.
    @Test func tablesShowControlCharactersVisibly() {
        let table = Output.table(
            ["ACCOUNT", "BALANCE"],
            [["Assets:\u{1B}[2JCash", "1.00"], ["Assets:Ca\u{0}sh\nX\tY\r\u{7F}\u{9B}", "2.00"]],
            rightAligned: [1])
        #expect(!Self.hasControlCharacter(table), "\(table.debugDescription)")
        let lines = table.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3, "a newline in a cell does not break the table: \(table.debugDescription)")
        #expect(lines[1].hasPrefix("Assets:\\e[2JCash ") && lines[1].hasSuffix(" 1.00"), "\(lines[1])")
        #expect(lines[2].hasPrefix("Assets:Ca\\0sh\\nX\\tY\\r\\u{7F}\\u{9B}  ") && lines[2].hasSuffix(" 2.00"), "\(lines[2])")
        #expect(lines[1].count == lines[2].count, "the columns stay aligned")
        #expect(Output.visibleLines("line\u{1B}one\nline two") == "line\\eone\nline two")
    }
}
