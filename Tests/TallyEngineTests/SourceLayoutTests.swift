import Foundation
import TallyTestSupport
import Testing

/// The layout docs/conventions.md promises, checked on the sources themselves: SQL lives only in the
/// read-model layer (a `ReadModel/` folder beside the feature it serves, or the engine's
/// `Projection/` machinery) and in the log's PostgreSQL storage (`TallyLog/Postgres/`), and
/// the modules import one way.
@Suite struct SourceLayoutTests {
    static let repository = SourceFiles.repository

    /// Every Swift file under `Sources/<module>`, as (path from the repository, lines), read
    /// once per process (``SourceFiles``) for every check of the layout.
    static func sources(_ module: String) throws -> [(path: String, lines: [Substring])] {
        try SourceFiles.all().filter { $0.module == module }.map { ($0.path, $0.lines) }
    }

    /// Whether `line` holds one of `words`: each check below asks it before its regular
    /// expression, which a debug build runs slowly, and only on lines that could match (every
    /// match holds one of the words), so the checks find what they found before in a
    /// fraction of the time. The words are found by ``ByteSearch`` in the line's bytes: the
    /// collection algorithms of a debug build took most of the layout suites' time.
    static func mayHold(_ line: Substring, _ words: [String]) -> Bool {
        words.contains { ByteSearch.contains(line, $0) }
    }

    /// The statements' first words `sqlLines` looks for.
    static let statementWords = ["SELECT", "INSERT", "UPDATE", "DELETE", "CREATE", "DROP", "ALTER", "WITH", "PRAGMA", "REPLACE"]

    static let modules = ["TallyLog", "TallyEngine", "TallyProducts", "Tally", "TallyService", "TallyCLI", "TallyServe", "TallyLogTesting"]

    /// A statement's first word at the start of a string literal or a line, or GRDB's `sql:`
    /// argument: what SQL looks like in Swift source.
    /// The lines of `lines` that hold SQL (comments aside).
    static func sqlLines(_ lines: [Substring]) -> [Int] {
        lines.indices.filter { index in
            let line = lines[index]
            guard mayHold(line, ["sql:"] + statementWords), !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") else { return false }
            return line.contains(/\bsql:/) || line.contains(/(^|")\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|WITH|PRAGMA|REPLACE)\s/)
        }
    }

    static func isReadModelLayer(_ path: String) -> Bool {
        // The log on PostgreSQL keeps its own tables (head rows, frames): its statements live
        // with it, in the log module's storage folder, and nowhere else in the log.
        path.contains("/ReadModel/") || path.hasPrefix("Sources/TallyEngine/Projection/") || path.hasPrefix("Sources/TallyLog/Postgres/")
    }

    /// The checks below read what ``SourceFiles`` found: every module's files, not none.
    @Test func everyModuleIsRead() throws {
        for module in Self.modules {
            #expect(try !Self.sources(module).isEmpty, "no Swift file read under Sources/\(module) (from \(Self.repository.path))")
        }
        #expect(try SourceFiles.all().count > 300)
    }

    @Test func sqlLivesOnlyInTheReadModelLayer() throws {
        var offenders: [String] = []
        for module in Self.modules {
            for (path, lines) in try Self.sources(module) where !Self.isReadModelLayer(path) {
                offenders += Self.sqlLines(lines).map { "\(path):\($0 + 1): \(lines[$0].trimmingCharacters(in: .whitespaces))" }
            }
        }
        #expect(offenders.isEmpty, "SQL outside a ReadModel/ folder (move the statement into the read model's typed lookups):\n\(offenders.joined(separator: "\n"))")
    }

    /// The lines of `lines` that read a row's column by a string key (`row["amount"]`)
    /// instead of the read model's column enum (`row[BalancesColumns.amount]`).
    static func stringKeyedRowLines(_ lines: [Substring]) -> [Int] {
        lines.indices.filter { index in
            let line = lines[index]
            guard mayHold(line, [#"[""#]), !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") else { return false }
            return line.contains(/(row\??|\$\d|\])\["[a-z_0-9]+"\]/)
        }
    }

    @Test func rowsAreReadThroughColumnEnums() throws {
        var offenders: [String] = []
        for module in Self.modules {
            for (path, lines) in try Self.sources(module) {
                offenders += Self.stringKeyedRowLines(lines).map { "\(path):\($0 + 1): \(lines[$0].trimmingCharacters(in: .whitespaces))" }
            }
        }
        #expect(offenders.isEmpty, "a row read by a string key (use the read model's column enum):\n\(offenders.joined(separator: "\n"))")
        let samples: [(Substring, Bool)] = [
            (#"amount: row["amount"],"#, true),
            (#"let first = marks[1]["first_sequence"]"#, true),
            (#".map { ($0["code"], $0["scale"]) }"#, true),
            (#"amount: try row.money(BalancesColumns.amount, BalancesColumns.commodity),"#, false),
            (#"let tables = ["accounts", "postings"]"#, false),
        ]
        for (line, found) in samples {
            #expect(Self.stringKeyedRowLines([line]).isEmpty != found, "\(line)")
        }
    }

    @Test func theCheckSeesSQLWhereItIs() {
        // The check itself: statements in the forms the sources write them are found, prose is not.
        let samples: [(Substring, Bool)] = [
            (#"try Row.fetchOne(db, sql: "SELECT 1 FROM accounts WHERE name = ?")"#, true),
            (#"            SELECT currency FROM nw_items"#, true),
            (#"try db.execute(sql: query)"#, true),
            (#"let text = "INSERT OR REPLACE INTO t VALUES (?)""#, true),
            (#"/// Select the accounts to insert (a comment)"#, false),
            (#"// SELECT in a comment"#, false),
            (#"let selected = try ledger.balances()"#, false),
        ]
        for (line, isSQL) in samples {
            #expect(Self.sqlLines([line]).isEmpty != isSQL, "\(line)")
        }
    }

    @Test func importsPointOneWay() throws {
        // Each module may import only the modules below it.
        let below: [String: Set<String>] = [
            "TallyLog": [],
            "TallyLogTesting": ["TallyLog"],
            "TallyEngine": ["TallyLog"],
            "TallyProducts": ["TallyLog", "TallyEngine"],
            "Tally": ["TallyLog", "TallyEngine", "TallyProducts"],
            "TallyService": ["TallyLog", "TallyEngine", "TallyProducts", "Tally"],
            // `tally` links nothing of the HTTP service; `tally serve` runs tally-serve.
            "TallyCLI": ["TallyLog", "TallyEngine", "TallyProducts", "Tally"],
            "TallyServe": ["TallyService"],
        ]
        let ours = Set(Self.modules)
        var offenders: [String] = []
        for (module, allowed) in below {
            for (path, lines) in try Self.sources(module) {
                for line in lines where Self.mayHold(line, ["import"]) {
                    guard let match = line.firstMatch(of: /^\s*(?:@_exported\s+)?(?:public\s+|package\s+|internal\s+)?import\s+(\w+)/) else { continue }
                    let imported = String(match.1)
                    if ours.contains(imported), !allowed.contains(imported) { offenders.append("\(path): imports \(imported)") }
                }
            }
        }
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
    }
}
