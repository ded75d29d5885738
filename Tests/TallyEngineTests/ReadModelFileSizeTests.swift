import Foundation
import GRDB
import Testing
import TallyTestSupport
@testable import TallyEngine

/// The read models' file after a bulk write (an import, a rebuild) is as small as what it
/// holds: the pages the write freed go back to the file system.
@Suite struct ReadModelFileSizeTests {
    private static func fileBytes(_ path: String) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
    }

    /// A write that frees pages (an import empties the idempotency keys' loose table each time
    /// it packs them) leaves them on the file's free list; the shrink after the bulk write
    /// hands them back.
    @Test func theShrinkAfterABulkWriteHandsTheFreedPagesBack() throws {
        try withTemporaryStore { root in
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            let path = root + "/readmodels.sqlite"
            let store = try ReadModelStore(path: path, projectors: [])
            try store.database.write { db in
                try db.execute(sql: "CREATE TABLE scratch (id INTEGER PRIMARY KEY, bytes BLOB NOT NULL)")
                for id in 0..<4_000 { try db.execute(sql: "INSERT INTO scratch (id, bytes) VALUES (?, zeroblob(300))", arguments: [id]) }
            }
            try store.database.write { db in try db.execute(sql: "DELETE FROM scratch WHERE id >= 400") }
            let (mode, freeBefore) = try store.database.read { db in
                (try Int.fetchOne(db, sql: "PRAGMA auto_vacuum"), try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0)
            }
            #expect(mode == 2, "a new read-model file is made with auto_vacuum = INCREMENTAL")
            #expect(freeBefore > 200, "the story needs pages freed")
            try store.shrinkAfterBulkWrite()
            let bytes = try Self.fileBytes(path)
            let (freeAfter, pages, pageSize, rows) = try store.database.read { db in
                (try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? -1, try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0,
                 try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0, try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM scratch") ?? 0)
            }
            #expect(freeAfter == 0)
            #expect(rows == 400)
            #expect(bytes == pages * pageSize, "the file holds its pages and no more")
            try store.database.close()
        }
    }

    /// A read-model file made before the setting keeps its free pages (SQLite sets it only in a
    /// file with no table yet) and is used as it was: the shrink copies its WAL back and
    /// nothing more.
    @Test func aFileMadeWithoutTheSettingIsUsedAsItWas() throws {
        try withTemporaryStore { root in
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            let path = root + "/readmodels.sqlite"
            do {
                let older = try DatabaseQueue(path: path)
                try older.write { db in
                    try db.execute(sql: "CREATE TABLE scratch (id INTEGER PRIMARY KEY, bytes BLOB NOT NULL)")
                    for id in 0..<2_000 { try db.execute(sql: "INSERT INTO scratch (id, bytes) VALUES (?, zeroblob(300))", arguments: [id]) }
                    try db.execute(sql: "DELETE FROM scratch")
                }
                try older.close()
            }
            let store = try ReadModelStore(path: path, projectors: [])
            try store.shrinkAfterBulkWrite()
            let (mode, free) = try store.database.read { db in
                (try Int.fetchOne(db, sql: "PRAGMA auto_vacuum"), try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0)
            }
            #expect(mode == 0)
            #expect(free > 0)
            try store.database.close()
        }
    }
}
