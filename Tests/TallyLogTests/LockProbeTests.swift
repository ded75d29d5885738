import Foundation
import Glibc
import Synchronization
import Testing
@testable import TallyLog

/// The writer's lock and what readers infer from it. In one process, tests (and apps) spawn processes
/// while writers open and close: between `fork`/`clone` and `exec` a child holds a copy of every descriptor,
/// `O_CLOEXEC` or not, and so a reference to the lock's open file description.
struct LockProbeTests {
    /// Starts `/bin/sleep` holding a duplicate of `raw` (as a child does between clone and exec), runs `body`,
    /// then kills and reaps the child.
    func withChildHolding<T>(_ raw: Int32, _ body: () throws -> T) throws -> T {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, raw, raw == 9 ? 10 : 9)
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sleep"), strdup("30"), nil]
        defer { argv.forEach { free($0) } }
        let spawned = posix_spawn(&pid, "/bin/sleep", &actions, nil, argv, environ)
        try #require(spawned == 0, "posix_spawn failed: \(spawned)")
        defer {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        return try body()
    }

    @Test func releaseDropsTheLockEvenWhileAnotherProcessSharesTheDescription() throws {
        try withTemporaryDirectory { directory in
            let lock = try DirectoryLock.acquire(directory: directory)
            #expect(DirectoryLock.isHeld(directory: directory))
            try withChildHolding(lock.file.raw) {
                lock.release()
                #expect(!DirectoryLock.isHeld(directory: directory), "the lock outlived release()")
                let writer = try LogWriter.create(directory: directory, options: testOptions())
                try writer.close()
                #expect(!DirectoryLock.isHeld(directory: directory))
            }
        }
    }
}

extension LockProbeTests {
    /// Flips one bit of the last frame's last byte in place (the writer's descriptor keeps the same file).
    func damageLastFrame(_ directory: String) throws -> (path: String, frame: (start: Int, end: Int, kind: String)) {
        let path = try segmentPaths(directory).last!
        let frame = try layout(of: path).structures.last!
        let file = try FileDescriptor.open(path, flags: O_RDWR)
        defer { file.close() }
        let byte = try file.read(count: 1, at: Int64(frame.end - 1))
        try file.write([byte[0] ^ 0x10], at: Int64(frame.end - 1))
        return (path, frame)
    }

    /// A writer that is open but idle is not writing its last frame: for `verifyLog`, damage there is damage.
    @Test func damagedLastFrameIsReportedWhileAnIdleWriterHoldsTheLog() throws {
        try withTemporaryDirectory { directory in
            let writer = try LogWriter.create(directory: directory, options: testOptions())
            var rng = SplitMix64(seed: 7)
            for _ in 0..<3 { _ = try writer.append([randomRecord(&rng)]) }
            let (path, frame) = try damageLastFrame(directory)

            let verification = try verifyLog(directory: directory)
            #expect(verification.writerActive)
            #expect(verification.tornTail == nil)
            #expect(verification.problems.map(\.path) == [path])
            #expect(verification.problems.first?.offset == Int64(frame.start))
            // A reader takes the lock's word (its view ends before the frame, which it never returns)…
            #expect(try LogReader.open(directory: directory).head.sequence == 2)
            try writer.close()
            // …until the writer is gone.
            #expect { _ = try LogReader.open(directory: directory) } throws: { error in
                let error = error as! LogError
                return error.code == .corrupt && error.path == path && error.offset == Int64(frame.start)
            }
        }
    }

    /// The last frame counts as in flight only while a writer holds the lock and the frame is seen changing.
    @Test func aLastFrameIsInFlightOnlyWhileItChanges() throws {
        try withTemporaryDirectory { directory in
            let writer = try LogWriter.create(directory: directory, options: testOptions())
            var rng = SplitMix64(seed: 8)
            for _ in 0..<2 { _ = try writer.append([randomRecord(&rng)]) }
            let path = try segmentPaths(directory).last!
            let frame = try layout(of: path).structures.last!
            let file = try FileDescriptor.open(path, flags: O_RDONLY)
            defer { file.close() }
            let current = try file.read(count: frame.end - frame.start, at: Int64(frame.start))
            var earlier = current
            earlier[earlier.count - 1] ^= 0x10
            func inFlight(_ checked: [UInt8], frameEnd: Int) throws -> Bool {
                try Verifier.lastFrameIsInFlight(checked: checked, at: Int64(frame.start), frameEnd: Int64(frameEnd), in: file, directory: directory)
            }
            #expect(try inFlight(earlier, frameEnd: frame.end), "bytes changed since they were checked")
            #expect(try inFlight(Array(current.prefix(40)), frameEnd: frame.end + 10), "the file no longer reaches the frame's end")
            let started = ContinuousClock.now
            #expect(try !inFlight(current, frameEnd: frame.end), "unchanged bytes are damage, even with a writer")
            #expect(ContinuousClock.now - started >= .microseconds(Verifier.inFlightGraceMicroseconds))
            try writer.close()
            #expect(try !inFlight(earlier, frameEnd: frame.end), "no writer, nothing in flight")
        }
    }

    /// Processes spawned by another thread (as the CLI tests do) while writers open, fail and close
    /// must not make a damaged last frame look like a write in flight.
    @Test func spawningProcessesDoesNotHideDamage() throws {
        try withTemporaryDirectory { directory in
            try buildLog(at: directory, frames: 9, segmentBytesLimit: 450, payloadBytesMax: 24)
            let (path, _) = try damageLastFrame(directory)
            let stop = Mutex(false)
            let spawner = Thread {
                while !stop.withLock({ $0 }) {
                    let process = Process()
                    process.executableURL = URL(fileURLWithPath: "/bin/true")
                    guard (try? process.run()) != nil else { return }
                    process.waitUntilExit()
                }
            }
            spawner.start()
            defer { stop.withLock { $0 = true } }
            for round in 0..<400 {
                #expect(throws: LogError.self) { try LogWriter.open(directory: directory, options: testOptions()).close() }
                let verification = try verifyLog(directory: directory)
                #expect(
                    verification.problems.map(\.path) == [path],
                    "round \(round): tornTail \(verification.tornTail.map { "\($0)" } ?? "none"), writerActive \(verification.writerActive)")
                #expect(throws: LogError.self, "round \(round)") { try LogReader.open(directory: directory) }
            }
        }
    }
}
