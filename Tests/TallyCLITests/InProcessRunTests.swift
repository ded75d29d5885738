import Foundation
import Testing

/// The suite runs most command lines in its own process (`TallyProcess.run`); a household's
/// story told both ways, once through the executable and once in process, answers the same:
/// the same status, the same standard output and the same standard error, line for line,
/// for writes, reads, refusals, help, input on standard input and environment variables.
@Suite struct InProcessRunTests {
    /// A command line of the story; `STORE` stands for the story's store directory.
    struct Step {
        let arguments: [String]
        var input: String?
        var environment: [String: String] = [:]
    }

    static let story: [Step] = [
        Step(arguments: ["init", "--store", "STORE", "--name", "Home", "--time-zone", "UTC"]),
        Step(arguments: ["--version"]),
        Step(arguments: ["balances", "--help"]),
        Step(arguments: ["no-such-command"]),
        Step(arguments: ["tx", "add", "--payee", "Employer", "--category", "General", "--amount", "3200.00", "--date", "2026-03-01", "--store", "STORE"]),
        Step(arguments: ["--store", "STORE", "tx", "add", "--payee", "Grocer", "--category", "Groceries", "--amount", "-45.55", "--date", "2026-03-02"]),
        Step(arguments: ["tx", "add", "--payee", "Diner", "--category", "Dining Out", "--amount", "-12.30", "--date", "2026-03-03"],
             environment: ["TALLY_STORE": "STORE"]),
        Step(arguments: ["tx", "add", "--payee", "Diner", "--category", "Dining Out", "--amount", "-12.x", "--date", "2026-03-03", "--store", "STORE"]),
        Step(arguments: ["budget", "set", "--category", "Groceries", "--month", "2026-03", "--maximum", "400.00", "--store", "STORE"]),
        Step(arguments: ["pot", "create", "car", "--name", "Car", "--target", "500.00", "--store", "STORE"]),
        Step(arguments: ["tx", "list", "--json", "--store", "STORE"]),
        Step(arguments: ["tx", "list", "--format", "csv", "--sort", "name", "--ascending", "--store", "STORE"]),
        Step(arguments: ["balances", "--as-of", "2026-03-02", "--store", "STORE"]),
        Step(arguments: ["balances", "--as-of", "March", "--store", "STORE"]),
        Step(arguments: ["budget", "show", "--month", "2026-03", "--json", "--store", "STORE"]),
        Step(arguments: ["append", "-", "--store", "STORE"], input: "{\"not\": \"an event\"}\n"),
        Step(arguments: ["log", "--store", "STORE", "--json"]),
        Step(arguments: ["verify", "--store", "STORE"]),
        Step(arguments: ["balances", "--store", "STORE", "--store", "/elsewhere"]),
    ]

    @Test func aHouseholdsStoryAnswersInProcessAsTheExecutableAnswersIt() throws {
        let viaExecutable = try TemporaryDirectory()
        let inProcess = try TemporaryDirectory()
        for step in Self.story {
            func resolved(_ text: String, _ directory: TemporaryDirectory) -> String {
                text.replacingOccurrences(of: "STORE", with: directory.path + "/home")
            }
            let executable = try TallyProcess.runProcess(
                step.arguments.map { resolved($0, viaExecutable) }, input: step.input,
                environment: step.environment.mapValues { resolved($0, viaExecutable) })
            let here = TallyProcess.runInProcess(
                step.arguments.map { resolved($0, inProcess) }, input: step.input,
                environment: step.environment.mapValues { resolved($0, inProcess) })
            // The two stores differ in their directory's name, and in the instants their
            // events were recorded at (and so in their chain's hashes).
            func comparable(_ text: String, _ directory: TemporaryDirectory) -> String {
                text.replacingOccurrences(of: directory.path, with: "DIR")
                    .replacing(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/, with: "INSTANT")
                    .replacing(/head (\d+):[0-9a-f]{64}/) { "head \($0.1):HASH" }
            }
            let line = step.arguments.joined(separator: " ")
            #expect(here.status == executable.status, "status of `tally \(line)`")
            #expect(comparable(here.standardOutput, inProcess) == comparable(executable.standardOutput, viaExecutable),
                    "standard output of `tally \(line)`")
            #expect(comparable(here.standardError, inProcess) == comparable(executable.standardError, viaExecutable),
                    "standard error of `tally \(line)`")
        }
    }
}
