// The log's types appear in the engine's public API (`Ledger.head` is a `LogDigest`,
// `Ledger.Options.syncMode` a `LogOptions.SyncMode`), so `import TallyEngine` brings them.
@_exported public import TallyLog
