import ArgumentParser
import Foundation
import Tally

/// `tally erase --everything --yes`: "Erase all data".
struct EraseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "erase",
        abstract: "Erase all data: delete the store, its keys and its read models.",
        discussion: """
            --everything --yes deletes the store's keys first (after that nothing sealed under them \
            opens again, copies of an encrypted log included), then its read models and its directory, \
            and lists what it deleted. It refuses a directory that is not a Tally store and a store a \
            writer has open. A key file given with --key-file is not deleted (it may open other stores): \
            destroy it too to make backups of an encrypted store unreadable. Erasing one person \
            (per-subject keys) is not built yet.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Delete the whole store and its keys.")
    var everything = false

    @Flag(help: "Confirm: without it nothing is deleted.")
    var yes = false

    func run() throws {
        guard everything else {
            throw ValidationError("name what to erase: --everything --yes deletes the store and its keys (erasing one person's data is not built yet)")
        }
        let layout = StoreLayout(root: storeOptions.path)
        guard yes else {
            throw ValidationError("--everything deletes the store at '\(storeOptions.path)'\(layout.isEncrypted ? ", its keys" : "") and its read models for good: add --yes to do it")
        }
        let deleted = try StoreErasure.eraseEverything(at: storeOptions.path)
        for path in deleted { print("deleted \(path)") }
        if layout.isEncrypted || deleted.contains(layout.keyFilePath) {
            print("The store's keys are gone: its log no longer opens, copies included.")
        }
    }
}
