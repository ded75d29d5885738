import Foundation
import Testing

@Suite struct AuditCommandTests {
    @Test func csvHasTheExactHeaderAndEndsAtTheBalance() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/s"
        #expect(try TallyProcess.run(["init", "--store", store, "--time-zone", "Europe/London"]).status == 0)
        let journal = try directory.file("j.csv", #"""
            date,account,counter_account,amount,currency,payee,category,external_id
            2026-03-01,Assets:Bank,Income:Salary,2500.00,GBP,"Acme, Ltd",Salary,t1
            2026-03-02,Expenses:Food,Assets:Bank,42.10,GBP,Grocer,Food,t2
            2026-03-31,Expenses:Rent,Assets:Bank,1200.00,GBP,"The ""Landlord""",Rent,t3

            """#)
        let imported = try TallyProcess.run(["import", journal, "--store", store, "--progress", "none"])
        try #require(imported.status == 0, "\(imported.standardError)")
        let audit = try TallyProcess.run(["audit", "Assets:Bank", "--format", "csv", "--store", store])
        #expect(audit.status == 0, "\(audit.standardError)")
        let lines = audit.standardOutput.split(separator: "\n")
        #expect(lines.first == "seq,recorded_at,effective_date,event,amount,currency,balance")
        #expect(lines.count == 4)
        #expect(lines.last?.hasSuffix(",2026-03-31,journal_entry_posted,-1200.00,GBP,1257.90") == true, "\(audit.standardOutput)")
        let balances = try TallyProcess.run(["balances", "--format", "csv", "--store", store])
        #expect(balances.standardOutput.contains("Assets:Bank,GBP,1257.90"))
        let missing = try TallyProcess.run(["audit", "Assets:Nowhere", "--store", store])
        #expect(missing.status != 0)
        #expect(missing.standardError.contains("Assets:Nowhere"))
    }

    @Test func anEnvelopesAuditEndsAtWhatItsStatusSaysIsLeft() throws {
        let directory = try TemporaryDirectory()
        let store = ["--store", directory.path + "/store"]
        for arguments in [
            ["init", "--time-zone", "America/New_York"],
            ["envelope", "account-open", "Assets:Bank", "--opening", "2000.00", "--date", "2026-05-01"],
            ["envelope", "create", "groceries", "--name", "Groceries", "--budget", "400.00", "--start", "2026-05-01"],
            ["envelope", "record", "t1", "--account", "Assets:Bank", "--amount=-450.00", "--envelope", "groceries", "--date", "2026-05-03"],
            ["envelope", "fund", "groceries", "--amount", "25.00", "--date", "2026-06-02"],
        ] {
            let run = try TallyProcess.run(arguments + store)
            try #require(run.status == 0, "\(arguments): \(run.standardError)")
        }
        let audit = try TallyProcess.run(["audit", "envelope:groceries", "--to", "2026-06-30", "--format", "csv"] + store)
        #expect(audit.status == 0, "\(audit.standardError)")
        let rows = audit.standardOutput.split(separator: "\n").map { $0.split(separator: ",").dropFirst(2).map(String.init) }
        #expect(rows.first == ["effective_date", "event", "amount", "currency", "balance"])
        #expect(Array(rows.dropFirst()) == [
            ["2026-05-01", "envelope_created", "400.00", "USD", "400.00"],
            ["2026-05-03", "transaction_recorded", "-450.00", "USD", "-50.00"],
            ["2026-06-01", "envelope_created", "400.00", "USD", "350.00"],
            ["2026-06-02", "envelope_funded", "25.00", "USD", "375.00"],
        ], "May's overspending is carried into June by default")
        let status = try TallyProcess.run(["envelope", "status", "groceries", "--as-of", "2026-06-30", "--json"] + store)
        #expect(status.standardOutput.contains(#""remaining":{"amount":"375.00","currency":"USD"}"#), "\(status.standardOutput)")
        let missing = try TallyProcess.run(["audit", "envelope:holidays"] + store)
        #expect(missing.status != 0 && missing.standardError.contains("holidays"))
    }

    /// A London store with March's salary and rent; `record` imports one more journal row.
    private func march(_ directory: TemporaryDirectory) throws -> String {
        let store = directory.path + "/s"
        try #require(try TallyProcess.run(["init", "--store", store, "--time-zone", "Europe/London"]).status == 0)
        try importRows(["2026-03-01,Assets:Bank,Income:Salary,2500.00,GBP,Acme,Salary,t1",
                        "2026-03-31,Expenses:Rent,Assets:Bank,1200.00,GBP,Landlord,Rent,t3"], directory, store, file: "march.csv")
        return store
    }

    private func importRows(_ rows: [String], _ directory: TemporaryDirectory, _ store: String, file: String) throws {
        let journal = try directory.file(file, (["date,account,counter_account,amount,currency,payee,category,external_id"] + rows).joined(separator: "\n") + "\n")
        let imported = try TallyProcess.run(["import", journal, "--store", store, "--progress", "none"])
        try #require(imported.status == 0, "\(imported.standardError)")
    }

    @Test func theAuditAsKnownAtAnEarlierInstantIgnoresALaterBackdatedEntry() throws {
        let directory = try TemporaryDirectory()
        let store = try march(directory)
        let reads = [
            ["audit", "Assets:Bank", "--to", "2026-03-31", "--format", "csv"],
            ["audit", "Assets:Bank", "--as-of", "2026-03-31", "--format", "json"],
            ["audit", "Assets:Bank", "--from", "2026-03-10"],
        ]
        try TimeTravelCLI.expectKnownAtKeepsEachFirstAnswer(reads, store: store) {
            try importRows(["2026-03-15,Expenses:Food,Assets:Bank,42.10,GBP,Grocer,Food,t2"], directory, store, file: "late.csv")
        }
        // --as-of is --to: the same lines either way.
        #expect(try TimeTravelCLI.answer(["audit", "Assets:Bank", "--as-of", "2026-03-20", "--format", "csv"], store: store)
                == TimeTravelCLI.answer(["audit", "Assets:Bank", "--to", "2026-03-20", "--format", "csv"], store: store))
    }

    @Test func aBadAsOfOrKnownAtIsRefusedByName() throws {
        let directory = try TemporaryDirectory()
        let store = try march(directory)
        try TimeTravelCLI.expectBadTimesRefused(["audit", "Assets:Bank"], store: store, directory: directory, storeFolder: "s", legacy: "--to")
    }
}
