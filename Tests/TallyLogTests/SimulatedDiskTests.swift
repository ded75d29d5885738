import Testing
@testable import TallyLog
import TallyLogTesting

/// The simulated disk's own rules, which the simulators rely on: what survives a crash, what a failed
/// sync does, and when a directory entry is durable.
struct SimulatedDiskTests {
    private func file(_ disk: SimulatedDisk, _ path: String, _ mode: LogFileMode = .readWriteCreate) throws -> any LogFile {
        try disk.open(path, mode: mode)
    }

    @Test func syncedBytesSurviveEveryCrash() throws {
        for seed in 0..<64 as Range<UInt64> {
            let disk = SimulatedDisk(seed: seed, roots: ["/d"])
            let handle = try file(disk, "/d/f")
            try handle.write([1, 2, 3, 4], at: 0)
            try handle.dataSync()
            try disk.syncDirectory("/d")
            try handle.write([5, 6, 7, 8], at: 4)
            disk.crash()
            let bytes = try #require(disk.contents(of: "/d/f"), "seed \(seed)")
            #expect(Array(bytes.prefix(4)) == [1, 2, 3, 4], "seed \(seed)")
            // The unsynced write is kept, dropped or torn: a prefix of it at most.
            #expect(bytes.count <= 8 && Array(bytes.dropFirst(4)) == Array([5, 6, 7, 8].prefix(bytes.count - 4)), "seed \(seed)")
        }
    }

    @Test func aCrashKeepsDropsOrTearsUnsyncedWrites() throws {
        var lengths: Set<Int> = []
        for seed in 0..<200 as Range<UInt64> {
            let disk = SimulatedDisk(seed: seed, roots: ["/d"])
            let handle = try file(disk, "/d/f")
            try handle.fullSync()
            try disk.syncDirectory("/d")
            try handle.write(Array(repeating: 9, count: 10), at: 0)
            disk.crash()
            lengths.insert(try #require(disk.contents(of: "/d/f")).count)
        }
        #expect(lengths.contains(0) && lengths.contains(10) && lengths.count > 5, "kept, dropped and torn at various bytes: \(lengths.sorted())")
    }

    @Test func aFailedSyncLosesThePagesButTheCacheStillShowsThem() throws {
        let disk = SimulatedDisk(seed: 1, faults: .init(syncIOErrorPerMillion: 1_000_000), roots: ["/d"])
        disk.install("/d/f", bytes: [1])
        let handle = try file(disk, "/d/f", .readWrite)
        try handle.write([2], at: 1)
        #expect(throws: LogError.self) { try handle.dataSync() }
        #expect(try handle.read(count: 2, at: 0) == [1, 2], "the page cache still shows the write")
        disk.faults = .none
        try handle.dataSync()  // succeeds, and writes nothing: the pages were marked clean
        disk.crash()
        #expect(disk.contents(of: "/d/f") == [1])
    }

    @Test func aNewFileIsDurableOnlyOnceItsDirectoryIsSynced() throws {
        var survived = 0
        for seed in 0..<64 as Range<UInt64> {
            let disk = SimulatedDisk(seed: seed, roots: ["/d"])
            let handle = try file(disk, "/d/f", .createNew)
            try handle.write([1], at: 0)
            try handle.fullSync()
            disk.crash()
            if disk.exists("/d/f") { survived += 1 }
        }
        #expect(survived > 0 && survived < 64, "without a directory sync the entry may go: \(survived) of 64 kept it")
        let disk = SimulatedDisk(seed: 7, roots: ["/d"])
        let handle = try file(disk, "/d/f", .createNew)
        try handle.fullSync()
        try disk.syncDirectory("/d")
        disk.crash()
        #expect(disk.exists("/d/f"))
    }

    @Test func aCrashDropsLocksAndKillsOpenFiles() throws {
        let disk = SimulatedDisk(seed: 3, roots: ["/d"])
        let lock = try disk.lockForWriting(directory: "/d")
        #expect(throws: LogError.self) { _ = try disk.lockForWriting(directory: "/d") }
        let handle = try file(disk, "/d/f")
        disk.crash()
        #expect(!disk.isLockedForWriting(directory: "/d"))
        #expect(throws: LogError.self) { try handle.write([1], at: 0) }
        let second = try disk.lockForWriting(directory: "/d")
        lock.release()  // the old lock's release must not drop the new one
        #expect(disk.isLockedForWriting(directory: "/d"))
        second.release()
    }

    @Test func theSameSeedMakesTheSameFaults() throws {
        func run(_ seed: UInt64) throws -> [UInt8]? {
            let disk = SimulatedDisk(seed: seed, faults: .init(writeIOErrorPerMillion: 300_000), roots: ["/d"])
            let handle = try file(disk, "/d/f")
            for index in 0..<20 { try? handle.write(Array(repeating: UInt8(index), count: 7), at: Int64(index * 7)) }
            disk.crash()
            return disk.contents(of: "/d/f")
        }
        for seed in 0..<16 as Range<UInt64> { #expect(try run(seed) == run(seed), "seed \(seed)") }
    }
}
