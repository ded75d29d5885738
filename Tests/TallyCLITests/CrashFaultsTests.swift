import Foundation
import Testing

/// The crash harness's fault modes (issue 34), a short run of each: a byte flipped in the middle
/// of the log, bytes cut off its end with no read models, a damaged or deleted key file, a disk
/// too full for a deposit. Each round checks that the damage is found (verify exits non-zero, a
/// writer on a log cut short refuses, export writes no erased text), that a repair keeps every
/// acknowledged event but those of the damaged frame (which verify names), and that a deposit
/// that exited 0 on a full disk is in the log exactly once. The long run is the same script with
/// `--kills 1000` (docs/testing.md, "Crash and fuzz harnesses").
@Suite struct CrashFaultsTests {
    @Test(arguments: ["bitflip", "truncate", "keyfile", "fulldisk"])
    func aFewFaultsLoseNoAcknowledgedEventOutsideTheDamage(mode: String) throws {
        let seed: UInt64 = 20_261_128
        let faults = 2
        let directory = try TemporaryDirectory()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", CrashHarnessTests.script.path, "--tally", TallyProcess.executable.path, "--kills", String(faults), "--modes", mode,
            "--seed", String(seed), "--workdir", directory.path,
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let summaryLine = printed.split(separator: "\n").last { $0.hasPrefix("{") }
        let summary = try summaryLine.flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] } ?? [:]
        let context = "mode \(mode), seed \(seed):\n\(printed)"
        #expect(process.terminationStatus == 0, "crash harness failed, \(context)")
        #expect(summary["faults_\(mode)"] as? Int == faults, "\(context)")
        for counter in ["lost_acknowledged_events", "damage_not_detected", "writes_on_damaged_log", "store_changed_by_refusal",
                        "reopen_failures", "verify_failures_after_catch_up", "duplicates_after_rerun", "failures"] {
            #expect(summary[counter] as? Int == 0, "\(counter), \(context)")
        }
    }
}
