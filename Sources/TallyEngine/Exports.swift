// What `import TallyEngine` (and so `import Tally`) brings besides the engine's own API.
//
// The log's types that the engine's public API shows, and no more: `Ledger.head` is a
// `LogDigest`, `Ledger.Options.syncMode` a `LogOptions.SyncMode`, `NewEvent.cause` a
// `CauseReference`, a verification report holds a `LogVerification`, a lower layer's
// failure is a `LogError`. The log's machinery (writer, readers, repair, segment files,
// the PostgreSQL backend) is not re-exported: code that works on the log itself imports
// `TallyLog` (the CLI, the tests, a tool), and test aids such as `SimulatedDisk` are in
// `TallyLogTesting`.
@_exported public import struct TallyLog.AppendResult
@_exported public import enum TallyLog.CauseReference
@_exported public import struct TallyLog.LogDigest
@_exported public import struct TallyLog.LogError
@_exported public import protocol TallyLog.LogFileSystem
@_exported public import struct TallyLog.LogKeys
@_exported public import struct TallyLog.LogOptions
@_exported public import struct TallyLog.LogRecord
@_exported public import struct TallyLog.LogRepairPlan
@_exported public import struct TallyLog.LogRepairReport
@_exported public import struct TallyLog.LogStatistics
@_exported public import struct TallyLog.LogVerification
@_exported public import struct TallyLog.LoggedEvent
@_exported public import struct TallyLog.PostgresLogLocation

// GRDB's types that the engine's API shows (`Projector.createTables(_:)` and `apply(_:_:)`
// take a `Database`, `ReadModelStore.database` is a `DatabasePool`), and the two a read model
// written in SQL needs beside them (`Row`, `StatementArguments`), so that an embedder writes a
// projector and its queries with no dependency on GRDB of its own. GRDB's query interface
// (records, `Column`, its operators) is not re-exported: its many operator overloads would
// slow the type-checking of every expression in every module that imports Tally; an embedder
// who wants it depends on GRDB (as `Examples/MerchantTags` does).
@_exported public import class GRDB.Database
@_exported public import class GRDB.DatabasePool
@_exported public import class GRDB.Row
@_exported public import struct GRDB.StatementArguments
