import GRDB

extension Database {
    /// ``Database/inSavepoint(_:)`` inside the pipeline's open transaction, with its
    /// statements compiled once per connection instead of once per command (GRDB's compiles
    /// `SAVEPOINT` and `RELEASE` each time: a few per cent of a small command).
    ///
    /// `held`: the group's held postings (nil: none), which follow the savepoint: kept when it
    /// is released, taken back when it rolls back.
    func inCommandSavepoint(holding held: HeldPostings?, _ body: () throws -> TransactionCompletion) throws {
        precondition(isInsideTransaction, "a command's savepoint lies inside the pipeline's transaction")
        try cachedStatement(sql: "SAVEPOINT tally_command").execute()
        held?.commandBegins()
        let completion: TransactionCompletion
        do {
            completion = try body()
        } catch {
            try? rollBackCommandSavepoint()
            held?.commandRolledBack()
            throw error
        }
        switch completion {
        case .commit:
            do {
                try cachedStatement(sql: "RELEASE SAVEPOINT tally_command").execute()
            } catch {
                held?.commandRolledBack()
                throw error
            }
            held?.commandReleased()
        case .rollback:
            held?.commandRolledBack()
            try rollBackCommandSavepoint()
        }
    }

    private func rollBackCommandSavepoint() throws {
        try cachedStatement(sql: "ROLLBACK TRANSACTION TO SAVEPOINT tally_command").execute()
        try cachedStatement(sql: "RELEASE SAVEPOINT tally_command").execute()
    }
}
