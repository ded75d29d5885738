import Foundation
import Testing
import Tally
@testable import TallyService

/// A bank's CSV uploaded as a file, all or nothing as `tally tx import-bank FILE`, and the
/// products' CSVs downloaded as `tally export --csv NAME` prints them.
@Suite struct FileRoutesTests {
    @Test func aBankCSVIsImportedWholeOnceAndABadFileAppendsNothing() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("bank")
        #expect(try await service.command("/ledgers/bank/banks", #"{"id":"monzo","name":"Monzo"}"#).status == 201)
        let csv = """
            \(BankCSV.header)
            2026-01-03,-12.50,Corner Shop,tx-1,groceries
            2026-01-04,2000.00,Employer,tx-2,general
            2026-01-05,-4.20,"Cafe, Main St",tx-3,Dining Out

            """
        let imported = try await service.send(.POST, "/ledgers/bank/banks/monzo/imports", body: csv)
        #expect(imported.status == 201, "\(imported.text)")
        #expect(imported.json["rows"] as? Int == 3)
        #expect(imported.json["imported"] as? Int == 3)
        let listed = try await service.send(.GET, "/ledgers/bank/transactions?month=2026-01&sort=date&order=asc")
        #expect(listed.json.objects("transactions").map { $0["payee"] as? String } == ["Corner Shop", "Employer", "Cafe, Main St"], "\(listed.text)")
        #expect(listed.json.objects("transactions").map { $0["category"] as? String } == ["groceries", "general", "dining_out"])

        // The same file again: every row is there already, nothing appended.
        let again = try await service.send(.POST, "/ledgers/bank/banks/monzo/imports", body: csv)
        #expect(again.status == 200, "\(again.text)")
        #expect(again.json["already_present"] as? Int == 3)
        #expect(again.json["events_appended"] as? Int == 0)

        // A file with one bad row among good ones: refused whole, naming the line.
        let head = try await service.send(.GET, "/ledgers/bank").json["head"] as? [String: Any]
        let bad = "\(BankCSV.header)\n2026-01-06,-1.00,Bakery,tx-4,groceries\n2026-01-07,12;00,Bakery,tx-5,groceries\n"
        let refused = try await service.send(.POST, "/ledgers/bank/banks/monzo/imports", body: bad)
        #expect(refused.status == 422, "\(refused.text)")
        #expect(refused.headers.first(name: "Tally-Import-Line") == "3", "\(refused.text)")
        #expect(!refused.text.contains("/tmp/"), "the file is the body, not a server path: \(refused.text)")
        let after = try await service.send(.GET, "/ledgers/bank").json["head"] as? [String: Any]
        #expect(after?["sequence"] as? Int == head?["sequence"] as? Int, "nothing appended")
        let unknown = try await service.send(.POST, "/ledgers/bank/banks/nobank/imports", body: csv)
        #expect(unknown.status == 404 || unknown.status == 422, "a bank never connected: \(unknown.text)")
        try await service.stopAndRemove()
    }

    @Test func eachProductsCSVIsDownloadedAsTheCLIPrintsIt() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("sheets")
        #expect(try await service.command("/ledgers/sheets/transactions", #"{"payee":"Market","category":"groceries","amount":"-20.00","date":"2026-02-01","id":"m-1"}"#).status == 201)
        #expect(try await service.command("/ledgers/sheets/wealth/main/deposits", #"{"amount":"100.00"}"#).status == 201)
        for name in ProductCSVName.allCases {
            let csv = try await service.send(.GET, "/ledgers/sheets/exports/\(name.rawValue)")
            #expect(csv.status == 200, "\(name.rawValue): \(csv.text)")
            #expect(csv.headers.first(name: "Content-Type")?.hasPrefix("text/csv") == true)
            #expect(!csv.text.isEmpty && csv.text.hasSuffix("\n"), "\(name.rawValue): a header at least")
        }
        let transactions = try await service.send(.GET, "/ledgers/sheets/exports/budget-transactions.csv")
        let lines = transactions.text.split(separator: "\n").map(String.init)
        #expect(lines.first == BudgetTransactionsCSV.header)
        #expect(lines.count == 2 && lines[1].contains("Market") && lines[1].contains("-20.00"), "\(transactions.text)")
        let unknown = try await service.send(.GET, "/ledgers/sheets/exports/everything")
        #expect(unknown.status == 404)
        #expect(unknown.json["field"] as? String == "name")
        try await service.stopAndRemove()
    }
}
