import Foundation
import PostgresTestSupport
import Testing
import TallyLog

/// `tally follow`: a second machine's read models of a store on PostgreSQL follow the writer.
@Suite struct FollowCommandTests {
    @Test func aSecondMachineFollowsUntilItHasTheWritersCommitsAndGivesUpByName() throws {
        let directory = try TemporaryDirectory()
        let location = try #require(try LogBackend.postgresql.newLocation("follow"))
        let nodeA = ["--store", location, "--read-models", directory.path + "/a"]
        let nodeB = ["--store", location, "--read-models", directory.path + "/b"]
        #expect(try TallyProcess.run(["init", "--time-zone", "UTC"] + nodeA).status == 0)
        for amount in ["100.00", "25.00"] {
            let deposited = try TallyProcess.run(["wealth", "deposit", amount] + nodeA)
            #expect(deposited.status == 0, "\(deposited.standardError)")
        }
        let head = try TallyProcess.run(["verify"] + nodeA)
        #expect(head.status == 0, "\(head.standardError)")
        let followed = try TallyProcess.run(["follow", "--until-sequence", "5", "--timeout", "20"] + nodeB)
        #expect(followed.status == 0, "\(followed.standardError)")
        #expect(followed.standardOutput.contains("folded through 5"), "\(followed.standardOutput)")
        #expect(try TallyProcess.run(["balances"] + nodeB).standardOutput == TallyProcess.run(["balances"] + nodeA).standardOutput)

        let unreachable = try TallyProcess.run(["follow", "--until-sequence", "99", "--timeout", "1", "--poll", "100"] + nodeB)
        #expect(unreachable.status == 1)
        #expect(unreachable.standardError.contains("the read models reached 5, not 99, in 1 s"), "\(unreachable.standardError)")
        let badPoll = try TallyProcess.run(["follow", "--poll", "0"] + nodeB)
        #expect(badPoll.status != 0 && badPoll.standardError.contains("poll interval of 0 ms is out of range"), "\(badPoll.standardError)")
    }
}
