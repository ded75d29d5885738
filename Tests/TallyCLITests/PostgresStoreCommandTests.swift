import Foundation
import PostgresTestSupport
import Testing

/// `--store postgresql://…?ledger=NAME`, through the real `tally` against a real (throwaway)
/// PostgreSQL server: a user's commands on two machines' read-model directories, one ledger.
@Suite("tally on PostgreSQL")
struct PostgresStoreCommandTests {
    @Test func aHouseholdKeptInPostgreSQLIsReadAndWrittenFromTwoMachines() throws {
        let cluster = try PostgresTestCluster.shared()
        let directory = try TemporaryDirectory()
        let store = cluster.ledgerLocation("cli")
        let laptop = ["TALLY_READ_MODELS": directory.path + "/laptop"]
        let server = ["TALLY_READ_MODELS": directory.path + "/server"]

        let created = try TallyProcess.run(["init", "--store", store, "--name", "Home"], environment: laptop)
        #expect(created.status == 0, "\(created.standardError)")
        #expect(created.standardOutput.contains("head 1:"))
        let again = try TallyProcess.run(["init", "--store", store], environment: server)
        #expect(again.status != 0)
        #expect(again.standardError.contains("already"), "\(again.standardError)")

        let deposit = try TallyProcess.run(["wealth", "deposit", "100.00", "--store", store, "--idempotency-key", "bank:1"], environment: laptop)
        #expect(deposit.status == 0, "\(deposit.standardError)")
        // The second machine folds the database's log into read models of its own.
        let balances = try TallyProcess.run(["balances", "--store", store], environment: server)
        #expect(balances.status == 0, "\(balances.standardError)")
        #expect(balances.standardOutput.contains("Wealth:main:Spend") && balances.standardOutput.contains("70.00"))
        // It writes too, once the laptop's command has given the ledger up; a retry with the
        // same key on either machine appends nothing.
        let retry = try TallyProcess.run(["wealth", "deposit", "100.00", "--store", store, "--idempotency-key", "bank:1"], environment: server)
        #expect(retry.status == 0 && retry.standardOutput.contains("already applied"), "\(retry.standardOutput)\(retry.standardError)")
        let more = try TallyProcess.run(["wealth", "deposit", "10.00", "--store", store], environment: server)
        #expect(more.status == 0, "\(more.standardError)")
        let verified = try TallyProcess.run(["verify", "--store", store], environment: laptop)
        #expect(verified.status == 0, "\(verified.standardOutput)\(verified.standardError)")
        #expect(verified.standardOutput.contains("head 5:"), "\(verified.standardOutput)")

        // Export from the database, restore into files: the same head digest.
        let exported = try TallyProcess.run(["export", "--store", store, directory.path + "/home.ndjson"], environment: laptop)
        #expect(exported.status == 0, "\(exported.standardError)")
        let restored = try TallyProcess.run(["restore", "--store", directory.path + "/files", directory.path + "/home.ndjson"])
        #expect(restored.status == 0, "\(restored.standardError)")
        let head = verified.standardOutput.split(separator: "\n").first { $0.hasPrefix("head ") }
        let filesVerified = try TallyProcess.run(["verify", "--store", directory.path + "/files"])
        #expect(head != nil && filesVerified.standardOutput.contains(String(head!)), "\(filesVerified.standardOutput)")
    }

    @Test func aBadLocationIsRefusedNamingWhatIsWrongWithoutThePassword() throws {
        for (location, expected) in [
            ("postgresql://tally:hunter2@127.0.0.1:1/books", "ledger=NAME"),
            ("postgresql://tally:hunter2@127.0.0.1:1/books?ledger=two%20words", "not a ledger name"),
        ] {
            let run = try TallyProcess.run(["balances", "--store", location])
            #expect(run.status != 0)
            #expect(run.standardError.contains(expected), "\(run.standardError)")
            #expect(!run.standardError.contains("hunter2"), "\(run.standardError)")
        }
        // A server that does not answer: a clear error, no hang.
        let directory = try TemporaryDirectory()
        let unreachable = try TallyProcess.run(
            ["balances", "--store", "postgresql://tally:hunter2@127.0.0.1:1/books?ledger=home&connect_timeout=2"],
            environment: ["TALLY_READ_MODELS": directory.path])
        #expect(unreachable.status != 0)
        #expect(unreachable.standardError.contains("cannot connect to PostgreSQL"), "\(unreachable.standardError)")
        #expect(!unreachable.standardError.contains("hunter2"), "\(unreachable.standardError)")
    }
}
