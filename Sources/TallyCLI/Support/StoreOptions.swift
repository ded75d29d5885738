import ArgumentParser
import Foundation
import Tally
import TallyLog

/// The store every command works on, and the key of an encrypted one.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The store directory, or a ledger on PostgreSQL: postgresql://USER@HOST:PORT/DATABASE?ledger=NAME (default: $TALLY_STORE, else ./.tally).",
        valueName: "dir|url"))
    var store: String?

    @Option(name: .customLong("read-models"), help: ArgumentHelp(
        "For a store on PostgreSQL: the directory under which this machine keeps its read models (default: $TALLY_READ_MODELS, else the user's cache directory).",
        valueName: "dir"))
    var readModels: String?

    @Option(name: .customLong("key-file"), help: ArgumentHelp(
        "An encrypted store's key file: a key made by `tally key new`, or a passphrase (default: $TALLY_KEY_FILE).",
        valueName: "file"))
    var keyFile: String?

    @Option(name: .customLong("wait"), help: ArgumentHelp(
        "How long a command that writes waits for another process writing the same store, in seconds (default: $TALLY_WAIT, else 5; 0 fails at once).",
        valueName: "seconds"))
    var wait: String?

    /// The default wait for the writer lock: 5 s.
    static let writerLockWaitDefaultMicroseconds: Int64 = 5_000_000

    /// How long a writer waits for another process's lock, from `--wait`, else `TALLY_WAIT`, else 5 s:
    /// whole or decimal seconds (`2`, `0.5`), at most a day, read exactly (no floating point).
    func writerLockWaitMicroseconds() throws -> Int64 {
        let environment = Console.current.variable("TALLY_WAIT")
        guard let text = wait ?? environment else { return Self.writerLockWaitDefaultMicroseconds }
        let source = wait != nil ? "--wait" : "TALLY_WAIT"
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = parts.first, !whole.isEmpty, whole.count <= 5, whole.allSatisfy(\.isASCII), whole.allSatisfy(\.isNumber),
              parts.count == 1 || (parts[1].count >= 1 && parts[1].count <= 6 && parts[1].allSatisfy { $0.isASCII && $0.isNumber }),
              let seconds = Int64(whole)
        else {
            throw ValidationError("\(source) '\(text)' is not a number of seconds (like 5 or 0.5; 0 does not wait)")
        }
        let fraction = parts.count == 2 ? Int64(parts[1] + String(repeating: "0", count: 6 - parts[1].count))! : 0
        let microseconds = seconds * 1_000_000 + fraction
        guard microseconds <= 86_400_000_000 else {
            throw ValidationError("\(source) '\(text)' is longer than a day (86400 seconds)")
        }
        return microseconds
    }

    /// The store as given by flag, environment or default: a directory or a PostgreSQL location.
    var given: String {
        if let store, !store.isEmpty { return store }
        return Console.current.variable("TALLY_STORE") ?? ".tally"
    }

    /// The ledger on PostgreSQL the store names, or nil for a store directory.
    func postgres() throws -> PostgresLogLocation? {
        guard PostgresLogLocation.isLocation(given) else { return nil }
        do {
            return try PostgresLogLocation(given)
        } catch let error as LogError {
            throw ValidationError("--store: \(error.message)")
        }
    }

    /// The store's directory: the one given, or for a ledger on PostgreSQL this machine's
    /// directory for it (``PostgresStore``) under `--read-models`, `TALLY_READ_MODELS` or the
    /// user's cache directory.
    var path: String {
        guard let location = try? postgres() else { return given }
        return PostgresStore.defaultDirectory(for: location, under: readModels)
    }

    /// For a ledger on PostgreSQL that the database holds, makes or refreshes this machine's
    /// directory for it before any command runs (a new machine's first use builds its read
    /// models from the database); `init` finds the ledger absent and creates it.
    mutating func validate() throws {
        guard let location = try postgres() else {
            if let readModels, !readModels.isEmpty {
                throw ValidationError("--read-models is for a store on PostgreSQL (--store postgresql://…); a store directory keeps its own read models")
            }
            return
        }
        do {
            try PostgresStore.attach(location, at: path)
        } catch let error as LogError where error.code == .notFound {
            // Nothing to attach to yet: `init` creates the ledger; any other command says there is no store.
        }
    }

    /// The key given by `--key-file`, else by `TALLY_KEY_FILE`. One from the environment is left
    /// out for a store that keeps no key file (not encrypted), so a key set for a shell does not
    /// make every plain store refuse it; one given by flag never is.
    func key() throws -> LedgerKey? {
        if let keyFile, !keyFile.isEmpty { return try LedgerKey.file(keyFile) }
        guard let file = Console.current.variable("TALLY_KEY_FILE"),
              FileManager.default.fileExists(atPath: StoreLayout(root: path).keyFilePath)
        else { return nil }
        return try LedgerKey.file(file)
    }

    /// Options for making a new store (`init`, `restore`): with `encrypt`, the key from `--key-file`
    /// or `TALLY_KEY_FILE`, a new key file made when that file does not exist (its path returned,
    /// so that a failed creation can remove it); without, a `--key-file` is refused.
    func creationOptions(encrypt: Bool, _ base: Ledger.Options = .standard) throws -> (options: Ledger.Options, madeKeyFile: String?) {
        var options = base
        options.postgres = try postgres()
        try setWriterLockWait(&options)
        guard encrypt else {
            if let keyFile, !keyFile.isEmpty {
                throw ValidationError("--key-file is for an encrypted store: add --encrypt, or drop --key-file")
            }
            return (options, nil)
        }
        let given = keyFile.flatMap { $0.isEmpty ? nil : $0 }
            ?? Console.current.variable("TALLY_KEY_FILE")
        guard let file = given else {
            throw ValidationError("--encrypt needs a key: give --key-file FILE or TALLY_KEY_FILE=FILE (a FILE that does not exist gets a new key)")
        }
        var made: String?
        if FileManager.default.fileExists(atPath: file) {
            options.key = try LedgerKey.file(file)
        } else {
            options.key = try LedgerKey.makeKeyFile(at: file)
            made = file
        }
        options.encrypt = true
        return (options, made)
    }

    /// `base` with the store's key (``key()``).
    func ledgerOptions(_ base: Ledger.Options = .standard) throws -> Ledger.Options {
        var options = base
        options.key = try key()
        try setWriterLockWait(&options)
        return options
    }

    /// A writer waits for another process's lock (``writerLockWaitMicroseconds()``) and says why
    /// on standard error once it has waited a second.
    func setWriterLockWait(_ options: inout Ledger.Options) throws {
        let wait = try writerLockWaitMicroseconds()
        options.writerLockWaitMicroseconds = wait
        let store = given
        options.writerLockWaitNotice = { waited in
            Output.error("waiting for another process that is writing to \(store) to finish (waited \(waited / 1_000_000) s so far, up to \(wait / 1_000_000) s; --wait or TALLY_WAIT sets how long, 0 not at all)")
        }
    }
}
