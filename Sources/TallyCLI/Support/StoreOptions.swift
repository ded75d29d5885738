import ArgumentParser
import Foundation
import Tally

/// The store every command works on, and the key of an encrypted one.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The store directory (default: $TALLY_STORE, else ./.tally).", valueName: "dir"))
    var store: String?

    @Option(name: .customLong("key-file"), help: ArgumentHelp(
        "An encrypted store's key file: a key made by `tally key new`, or a passphrase (default: $TALLY_KEY_FILE).",
        valueName: "file"))
    var keyFile: String?

    /// The directory chosen by flag, environment or default.
    var path: String {
        if let store, !store.isEmpty { return store }
        if let environment = ProcessInfo.processInfo.environment["TALLY_STORE"], !environment.isEmpty {
            return environment
        }
        return ".tally"
    }

    /// The key given by `--key-file`, else by `TALLY_KEY_FILE`. One from the environment is left
    /// out for a store that keeps no key file (not encrypted), so a key set for a shell does not
    /// make every plain store refuse it; one given by flag never is.
    func key() throws -> LedgerKey? {
        if let keyFile, !keyFile.isEmpty { return try LedgerKey.file(keyFile) }
        guard let file = ProcessInfo.processInfo.environment["TALLY_KEY_FILE"], !file.isEmpty,
              FileManager.default.fileExists(atPath: StoreLayout(root: path).keyFilePath)
        else { return nil }
        return try LedgerKey.file(file)
    }

    /// Options for making a new store (`init`, `restore`): with `encrypt`, the key from `--key-file`
    /// or `TALLY_KEY_FILE`, a new key file made when that file does not exist (its path returned,
    /// so that a failed creation can remove it); without, a `--key-file` is refused.
    func creationOptions(encrypt: Bool, _ base: Ledger.Options = .standard) throws -> (options: Ledger.Options, madeKeyFile: String?) {
        var options = base
        guard encrypt else {
            if let keyFile, !keyFile.isEmpty {
                throw ValidationError("--key-file is for an encrypted store: add --encrypt, or drop --key-file")
            }
            return (options, nil)
        }
        let given = keyFile.flatMap { $0.isEmpty ? nil : $0 }
            ?? ProcessInfo.processInfo.environment["TALLY_KEY_FILE"].flatMap { $0.isEmpty ? nil : $0 }
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
        return options
    }
}
