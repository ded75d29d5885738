import GRDB

extension Database {
    /// ``Database/inSavepoint(_:)`` inside the pipeline's open transaction, with its
    /// statements compiled once per connection instead of once per command (GRDB's compiles
    /// `SAVEPOINT` and `RELEASE` each time: a few per cent of a small command).
    func inCommandSavepoint(_ body: () throws -> TransactionCompletion) throws {
        precondition(isInsideTransaction, "a command's savepoint lies inside the pipeline's transaction")
        try cachedStatement(sql: "SAVEPOINT tally_command").execute()
        let completion: TransactionCompletion
        do {
            completion = try body()
        } catch {
            try? rollBackCommandSavepoint()
            throw error
        }
        switch completion {
        case .commit: try cachedStatement(sql: "RELEASE SAVEPOINT tally_command").execute()
        case .rollback: try rollBackCommandSavepoint()
        }
    }

    private func rollBackCommandSavepoint() throws {
        try cachedStatement(sql: "ROLLBACK TRANSACTION TO SAVEPOINT tally_command").execute()
        try cachedStatement(sql: "RELEASE SAVEPOINT tally_command").execute()
    }
}
