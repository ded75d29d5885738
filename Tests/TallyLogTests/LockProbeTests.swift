import Foundation
import Glibc
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

