import Foundation
import Testing

/// `tally --store DIR <command>`: the store named before the command, as `git -C` and
/// `hledger -f` take theirs.
@Suite struct GlobalStoreCommandTests {
    @Test func aStoreNamedBeforeTheCommandIsTheStoreItWorksOn() throws {
        let home = try BudgetStore()
        try home.run(["reference", "set", "2500.00"])
        let after = try TallyProcess.run(["balances", "--store", home.path])
        #expect(after.status == 0 && after.standardOutput.contains("2,500.00"), "\(after.standardError)")
        for arguments in [["--store", home.path, "balances"], ["--store=\(home.path)", "balances"], ["--store", home.path, "balances", "--store", home.path]] {
            let before = try TallyProcess.run(arguments)
            #expect(before.status == 0, "\(arguments): \(before.standardError)")
            #expect(before.standardOutput == after.standardOutput, "\(arguments)")
        }
        // A group's default subcommand, and a subcommand two words deep, take it too.
        #expect(try TallyProcess.run(["--store", home.path, "networth", "--json"]).status == 0)
        let pot = try TallyProcess.run(["--store", home.path, "pot", "create", "holiday", "--target", "100.00"])
        #expect(pot.status == 0, "\(pot.standardError)")
        #expect(try home.run(["pot", "list"]).contains("holiday"))
    }

    @Test func twoDifferentStoresAreRefusedNamingBothAndNeitherIsTouched() throws {
        let directory = try TemporaryDirectory()
        let first = directory.path + "/first"
        let second = directory.path + "/second"
        for arguments in [["--store", first, "init", "--store", second], ["--store", first, "--store=\(second)", "init"]] {
            let run = try TallyProcess.run(arguments)
            #expect(run.status != 0, "\(arguments)")
            #expect(run.standardError.contains("'\(first)'") && run.standardError.contains("'\(second)'"), "\(run.standardError)")
        }
        #expect(!FileManager.default.fileExists(atPath: first) && !FileManager.default.fileExists(atPath: second))
    }

    @Test func theEnvironmentStoreGivesWayToAStoreNamedBeforeTheCommand() throws {
        let home = try BudgetStore()
        let other = try BudgetStore()
        try home.run(["reference", "set", "2500.00"])
        let fromEnvironment = try TallyProcess.run(["balances"], environment: ["TALLY_STORE": home.path])
        #expect(fromEnvironment.standardOutput.contains("2,500.00"), "\(fromEnvironment.standardError)")
        let named = try TallyProcess.run(["--store", other.path, "balances"], environment: ["TALLY_STORE": home.path])
        #expect(named.status == 0 && !named.standardOutput.contains("2,500.00"), "\(named.standardOutput)")
    }

    @Test func aCommandThatWorksOnNoStoreRefusesOneByName() throws {
        let run = try TallyProcess.run(["--store", "/tmp/nowhere", "challenge", "templates"])
        #expect(run.status != 0)
        #expect(run.standardError.contains("`tally challenge templates` works on no store"), "\(run.standardError)")
    }

    @Test func helpSaysTheStoreMayComeFirst() throws {
        let help = try TallyProcess.run(["--help"]).standardOutput.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(help.contains("`tally --store DIR balances` is `tally balances --store DIR`"), "\(help)")
    }
}
