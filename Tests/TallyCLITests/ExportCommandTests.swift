import Foundation
import Testing
@testable import Tally
import TallyLog
@testable import TallyEngine
import TallyTestSupport
import TallyProductTestSupport

/// The demo household moves its ledger with the real `tally`: `tally export --dir` writes its
/// events and a CSV per product, `tally restore` makes a new store from the events, and the
/// new store gives every product's answers, at every date and as known at every time, with
/// the same head digest (`tally verify --expect`). Each CSV, parsed back, is the library's answer.
@Suite struct ExportCommandTests {
    /// One demo household (four months, and a payee a CSV must quote), exported with `--dir`:
    /// the CSV tests only read it.
    final class Exported: @unchecked Sendable {
        let directory: TemporaryDirectory
        var store: String { directory.path + "/store" }
        var exportDirectory: String { directory.path + "/export" }
        let head: String

        init() throws {
            directory = try TemporaryDirectory()
            let store = directory.path + "/store"
            let demo = try TallyProcess.run(["demo", "--store", store, "--months", "4", "--seed", "42"])
            guard demo.status == 0 else { throw TestFailure("tally demo failed: \(demo.standardError)") }
            let ledger = try Ledger.open(at: store, options: .standard)
            try ledger.recordTransaction(payee: "Joe's \"Diner\", NYC", category: .diningOut, amount: usd("-31.40"), date: ledger.calendar.date(of: ledger.now))
            try ledger.close()
            let export = try TallyProcess.run(["export", "--store", store, "--dir", directory.path + "/export"])
            guard export.status == 0, let head = export.standardOutput.split(separator: "\n").first(where: { $0.hasPrefix("head ") }) else {
                throw TestFailure("tally export --dir failed: \(export.standardError)")
            }
            self.head = String(head.dropFirst("head ".count))
        }

        /// The rows of one exported CSV, its header checked.
        func rows(_ name: String, header: String) throws -> [[String]] {
            let reader = try CSVReader(path: exportDirectory + "/" + name)
            guard let first = try reader.next() else { throw TestFailure("\(name) is empty") }
            #expect(first.fields.joined(separator: ",") == header)
            var rows: [[String]] = []
            while let record = try reader.next() { rows.append(record.fields) }
            return rows
        }

        func ledger() throws -> Ledger { try Ledger.openForReading(at: store, options: .standard) }
    }

    struct TestFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static let shared: Result<Exported, any Error> = Result { try Exported() }
    private var exported: Exported { get throws { try Self.shared.get() } }

    @Test func theDemoHouseholdRestoredFromItsExportGivesEveryAnswerAtFiftyRandomPoints() throws {
        let exported = try exported
        let restored = exported.directory.path + "/restored-\(UUID().uuidString)"
        let restore = try TallyProcess.run(["restore", exported.exportDirectory + "/ledger.ndjson", "--store", restored, "--expect", exported.head])
        #expect(restore.status == 0, "\(restore.standardError)")
        #expect(restore.standardOutput.contains("head \(exported.head)"))
        let verify = try TallyProcess.run(["verify", "--store", restored, "--expect", exported.head])
        #expect(verify.status == 0, "\(verify.standardOutput)\(verify.standardError)")

        let source = try exported.ledger()
        defer { try? source.close() }
        let copy = try Ledger.openForReading(at: restored, options: .standard)
        defer { try? copy.close() }
        #expect(copy.head == source.head)
        var recorded: [Instant] = []
        var effective: [Instant] = []
        try EventStoreReader.open(at: exported.store, catalog: .standard).forEach { event in
            recorded.append(event.recordedAt)
            effective.append(event.effectiveAt)
        }
        let seed = TestSeed.value(default: 0xDE_E4)
        var random = SplitMix64(seed: seed)
        let (accounts, wealthAccounts) = try ProductAnswers.subjects(of: source)
        #expect(!wealthAccounts.isEmpty && accounts.count > 10)
        for (position, knownAt) in TestSeed.knownAts(50, recorded: recorded, random: &random).enumerated() {
            let asOf = position % 4 == 0
                ? source.calendar.endOfDay(source.calendar.date(of: effective.randomElement(using: &random)!))
                : Instant(microsecondsSinceEpoch: effective.randomElement(using: &random)!.microsecondsSinceEpoch + [-1, 0, 1].randomElement(using: &random)!)
            let audited = (0..<3).map { accounts[(position * 3 + $0) % accounts.count] }
            let original = ProductAnswers(source, asOf: asOf, knownAt: knownAt, accounts: audited, wealthAccounts: wealthAccounts)
            let again = ProductAnswers(copy, asOf: asOf, knownAt: knownAt, accounts: audited, wealthAccounts: wealthAccounts)
            #expect(again.differences(from: original).isEmpty, "\(again.differences(from: original)) differ as of \(asOf) known at \(knownAt.map { "\($0)" } ?? "now"), seed \(seed) (TALLY_TEST_SEED)")
        }
    }

    @Test func anExportToStandardOutputIsTheEventsFileAndRestoresIntoAnEmptyDirectory() throws {
        let exported = try exported
        let streamed = try TallyProcess.run(["export", "--store", exported.store])
        #expect(streamed.status == 0)
        #expect(streamed.standardError.contains("head \(exported.head)"))
        let file = try String(contentsOfFile: exported.exportDirectory + "/ledger.ndjson", encoding: .utf8)
        #expect(streamed.standardOutput == file)
        let target = exported.directory.path + "/empty-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
        let restore = try TallyProcess.run(["restore", exported.exportDirectory + "/ledger.ndjson", "--store", target, "--progress", "none"])
        #expect(restore.status == 0, "\(restore.standardError)")
        // Restoring again onto the store it made is refused, and changes nothing.
        let before = try exported.directory.snapshot(URL(fileURLWithPath: target).lastPathComponent)
        let again = try TallyProcess.run(["restore", exported.exportDirectory + "/ledger.ndjson", "--store", target])
        #expect(again.status != 0)
        #expect(again.standardError.contains("a store already exists"))
        #expect(try exported.directory.snapshot(URL(fileURLWithPath: target).lastPathComponent) == before)
    }

    @Test func aBrokenExportIsRefusedNamingTheLineAndNothingIsCreated() throws {
        let exported = try exported
        let lines = try String(contentsOfFile: exported.exportDirectory + "/ledger.ndjson", encoding: .utf8).split(separator: "\n")
        try #require(lines.count > 6)
        let broken = try exported.directory.file("broken-\(UUID().uuidString).ndjson", (lines[..<5] + lines[6...]).joined(separator: "\n") + "\n")
        let target = exported.directory.path + "/never-\(UUID().uuidString)"
        let restore = try TallyProcess.run(["restore", broken, "--store", target])
        #expect(restore.status != 0)
        #expect(restore.standardError.contains("\(broken):6: field 'seq'"), "\(restore.standardError)")
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    // MARK: One test per CSV: parsed back, it is the library's answer.

    @Test func budgetTransactionsCSVIsEveryTransactionWithCategoryAndPayee() throws {
        let exported = try exported
        let rows = try exported.rows("budget-transactions.csv", header: "date,payee,category,amount,currency,recurring,source,bank,external_id,recurring_item,id,bank_category")
        let ledger = try exported.ledger()
        defer { try? ledger.close() }
        var query = TransactionQuery()
        query.pageSize = 1
        let total = try ledger.transactions(query).totalCount
        let transactions = try ledger.allBudgetTransactions()
        #expect(rows.count == total && total == transactions.count && total > 20)
        #expect(rows.contains { $0[1] == "Joe's \"Diner\", NYC" && $0[2] == "Dining Out" && $0[3] == "-31.40" })
        for (row, transaction) in zip(rows, transactions) {
            let amount = try Money(parsing: row[3], commodity: try Commodity.named(row[4]))
            let parsed = [row[0], row[1], row[2], row[5], row[6], row[10]]
            #expect(parsed == [transaction.date.description, transaction.payee, transaction.category.displayName,
                               String(transaction.recurring), transaction.source.rawValue, transaction.id])
            #expect(amount == transaction.amount)
            #expect(row[8] == (transaction.externalId ?? ""))
            #expect(row[11] == (transaction.bankCategory?.displayName ?? ""))
        }
        #expect(zip(rows, rows.dropFirst()).allSatisfy { $0[0] <= $1[0] }, "oldest first")
    }

    @Test func envelopeActivityCSVEndsEachEnvelopeAtWhatItHasLeft() throws {
        let exported = try exported
        let rows = try exported.rows("envelope-activity.csv", header: "envelope,name,seq,recorded_at,effective_date,event,amount,currency,balance")
        let ledger = try exported.ledger()
        defer { try? ledger.close() }
        let statuses = try ledger.envelopeStatuses()
        #expect(!statuses.isEmpty)
        for status in statuses {
            let own = rows.filter { $0[0] == status.envelopeId }
            let audit = try ledger.envelopeAudit(status.envelopeId)
            #expect(own.count == audit.count && !own.isEmpty, "envelope \(status.envelopeId)")
            for (row, entry) in zip(own, audit) {
                #expect(row[2] == String(entry.sequence) && row[5] == entry.eventType && row[4] == entry.effectiveDate.description)
                #expect(try Money(parsing: row[6], commodity: try Commodity.named(row[7])) == entry.amount)
            }
            let last = try #require(own.last)
            #expect(try Money(parsing: last[8], commodity: try Commodity.named(last[7])) == status.remaining, "envelope \(status.envelopeId)")
        }
    }

    @Test func netWorthItemsCSVAddsUpToTheNetWorth() throws {
        let exported = try exported
        let rows = try exported.rows("net-worth-items.csv", header: "kind,id,name,category,value,currency,source,valued_at,value_in_base,base_currency,counted,note,origin")
        let ledger = try exported.ledger()
        defer { try? ledger.close() }
        let report = try ledger.netWorth()
        #expect(rows.count == report.lines.count + report.excluded.count && !report.lines.isEmpty)
        var sum = Money.zero(report.baseCurrency)
        for row in rows where row[10] == "true" {
            let converted = try Money(parsing: row[8], commodity: try Commodity.named(row[9]))
            sum = try row[0] == "asset" ? sum.adding(converted) : sum.subtracting(converted)
            let line = try #require(report.lines.first { $0.kind.rawValue == row[0] && $0.itemId == row[1] && $0.value.value.commodity.code == row[5] })
            #expect(row[12] == line.origin.rawValue)
            #expect(try Money(parsing: row[4], commodity: try Commodity.named(row[5])) == line.value.value)
            #expect(row[6] == line.value.source.rawValue && row[2] == line.name && row[3] == line.category)
        }
        #expect(sum == report.netWorth)
    }

    @Test func netWorthValuationsCSVEndsEachHeldItemAtItsValue() throws {
        let exported = try exported
        let rows = try exported.rows("net-worth-valuations.csv", header: "kind,id,name,seq,recorded_at,effective_date,event,change,currency,value")
        let ledger = try exported.ledger()
        defer { try? ledger.close() }
        let report = try ledger.netWorth()
        var checked = 0
        // The household's accounts have no valuations: their history is the journal's.
        for line in report.lines where line.origin == .item {
            let own = rows.filter { $0[0] == line.kind.rawValue && $0[1] == line.itemId }
            let audit = try ledger.auditValue(of: line.kind, line.itemId)
            #expect(own.map { $0[3] } == audit.map { String($0.sequence) }, "\(line.itemId)")
            guard let last = own.last, last[8] == line.value.value.commodity.code else { continue }
            #expect(try Money(parsing: last[9], commodity: try Commodity.named(last[8])) == line.value.value, "\(line.itemId)")
            // The changes add up to the value.
            let changes = try own.map { try Money(parsing: $0[7], commodity: try Commodity.named($0[8])) }
            #expect(try changes.reduce(Money.zero(line.value.value.commodity)) { try $0.adding($1) } == line.value.value)
            checked += 1
        }
        #expect(checked > 0)
    }

    @Test func wealthHistoryCSVSumsToTheSpendAndInvestBalances() throws {
        let exported = try exported
        let rows = try exported.rows("wealth-history.csv", header: "account,seq,effective_at,recorded_at,kind,amount,currency,spend_change,invest_change,cause,detail")
        let ledger = try exported.ledger()
        defer { try? ledger.close() }
        let accounts = Set(rows.map { $0[0] })
        #expect(!accounts.isEmpty)
        for account in accounts.sorted() {
            let own = rows.filter { $0[0] == account }
            let history = try ledger.wealthHistory(account: account, pageSize: Ledger.wealthHistoryPageSizeLimit)
            #expect(own.count == history.totalCount)
            #expect(own.map { $0[1] } == history.entries.reversed().map { String($0.sequence) })
            let summary = try ledger.wealthSummary(account: account)
            for balance in summary.balances {
                let mine = own.filter { $0[6] == balance.commodity.code }
                let spend = try mine.reduce(Money.zero(balance.commodity)) { try $0.adding(try Money(parsing: $1[7], commodity: balance.commodity)) }
                let invest = try mine.reduce(Money.zero(balance.commodity)) { try $0.adding(try Money(parsing: $1[8], commodity: balance.commodity)) }
                #expect(spend == balance.spend && invest == balance.invest, "\(account) \(balance.commodity.code)")
            }
        }
    }
}
