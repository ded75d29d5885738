public import Testing
public import TallyEngine

extension Ledger {
    /// Fails the test unless the books balance and a full rebuild reproduces every read
    /// model exactly: the check every scenario ends with.
    public func expectConsistent(sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try trialBalance().isEmpty, "trial balance", sourceLocation: sourceLocation)
        let incremental = try readModels.dump()
        try rebuild()
        let rebuilt = try readModels.dump()
        for table in Set(incremental.keys).union(rebuilt.keys).sorted() {
            #expect(incremental[table] == rebuilt[table], "table \(table) differs after rebuild", sourceLocation: sourceLocation)
        }
    }
}
