import ArgumentParser
import Foundation
import Tally

/// `tally key`: make a key file, and rotate an encrypted store's key-encryption key.
struct KeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key",
        abstract: "Make key files and rotate an encrypted store's key.",
        subcommands: [New.self, Rotate.self, NewDataKey.self]
    )

    struct New: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "new",
            abstract: "Write a new random key to FILE (owner-only), for `tally init --encrypt --key-file FILE`.",
            discussion: "FILE must not exist: a key file is never overwritten. Keep a copy apart from the store."
        )

        @Argument(help: ArgumentHelp("Where to write the key.", valueName: "file"))
        var file: String

        func run() throws {
            _ = try LedgerKey.makeKeyFile(at: file)
            print("Wrote a new key to \(file): keep a copy apart from the store")
        }
    }

    struct Rotate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate",
            abstract: "Wrap the store's data keys with a new key; the log is not rewritten.",
            discussion: """
                The old key (--key-file, or TALLY_KEY_FILE) must open the store; the store's KEYS file is \
                then replaced, in one rename, by the same data keys wrapped with the key in --new-key-file \
                (a FILE that does not exist gets a new random key). From then on only the new key opens the \
                store. A wrong old key changes nothing.
                """
        )

        @OptionGroup var storeOptions: StoreOptions

        @Option(name: .customLong("new-key-file"), help: ArgumentHelp("The new key file (made when missing).", valueName: "file"))
        var newKeyFile: String

        func run() throws {
            guard let oldKey = try storeOptions.key() ?? storeOptions.requiredKey() else {
                throw ValidationError("give the store's current key with --key-file FILE or TALLY_KEY_FILE=FILE")
            }
            var made = false
            let newKey: LedgerKey
            if FileManager.default.fileExists(atPath: newKeyFile) {
                newKey = try LedgerKey.file(newKeyFile)
            } else {
                newKey = try LedgerKey.makeKeyFile(at: newKeyFile)
                made = true
            }
            do {
                try LedgerKeys.rotate(at: storeOptions.path, from: oldKey, to: newKey)
            } catch {
                if made { unlink(newKeyFile) }
                throw error
            }
            print("Rotated the key of \(storeOptions.path): it now opens with \(newKeyFile) only\(made ? " (a new key: keep a copy apart from the store)" : "")")
        }
    }
}

extension KeyCommand {
    struct NewDataKey: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "new-data-key",
            abstract: "Seal every frame written from now on under a new data key; older frames keep theirs.",
            discussion: "The key set keeps every data key (frames name theirs in their header); the log is not rewritten."
        )

        @OptionGroup var storeOptions: StoreOptions

        func run() throws {
            guard let key = try storeOptions.key() else {
                throw ValidationError("give the store's key with --key-file FILE or TALLY_KEY_FILE=FILE")
            }
            let id = try LedgerKeys.addDataKey(at: storeOptions.path, key: key)
            print("New frames of \(storeOptions.path) are sealed under data key \(id)")
        }
    }
}

extension StoreOptions {
    /// The key from `TALLY_KEY_FILE` even for a store without a key file (for messages that must name it).
    func requiredKey() throws -> LedgerKey? {
        guard let file = Console.current.variable("TALLY_KEY_FILE") else { return nil }
        return try LedgerKey.file(file)
    }
}
