import ArgumentParser
import Foundation
import Tally

/// `tally erase SUBJECT`: erase one person's data; `tally erase --list`: the subjects a store
/// has; `tally erase --everything --yes`: "Erase all data".
struct EraseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "erase",
        abstract: "Erase one person's data (owner, payee:NAME), or all data.",
        discussion: """
            SUBJECT (owner, or payee:NAME) records an erasure_recorded event, destroys that subject's \
            key and folds the read models again: from then on every name, payee or note sealed under \
            it reads as "[erased …]" everywhere (log, answers, exports, audit), while amounts, dates, \
            the hash chain and `verify --expect` with a digest kept before stay as they were. \
            --list shows the subjects the store has. An unknown or already erased subject is \
            refused and nothing changes. If an erasure is interrupted, run it again.

            --everything --yes deletes the store's keys first (after that nothing sealed under them \
            opens again, copies of an encrypted log included), then its read models and its directory, \
            and lists what it deleted. It refuses a directory that is not a Tally store and a store a \
            writer has open. A key file given with --key-file is not deleted (it may open other stores): \
            destroy it too to make backups of an encrypted store unreadable.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("The subject to erase: owner, or payee:NAME.", valueName: "subject"))
    var subject: String?

    @Flag(help: "List the store's subjects (those that have a key).")
    var list = false

    @Flag(help: "Delete the whole store and its keys.")
    var everything = false

    @Flag(help: "Confirm --everything: without it nothing is deleted.")
    var yes = false

    func run() throws {
        if list {
            guard subject == nil, !everything else { throw ValidationError("--list takes no subject and no --everything") }
            for subject in try SubjectErasure.subjects(at: storeOptions.path, options: try storeOptions.ledgerOptions()) {
                print(subject.name)
            }
            return
        }
        if let subject {
            guard !everything else { throw ValidationError("give a subject or --everything, not both") }
            let outcome = try SubjectErasure.erase(subject, at: storeOptions.path, options: try storeOptions.ledgerOptions())
            print("erased \(outcome.subject): erasure_recorded at event \(outcome.sequence) (subject \(outcome.identifier)); its key is destroyed and the read models were folded again")
            return
        }
        guard everything else {
            throw ValidationError("name what to erase: a subject (owner, payee:NAME; --list shows them), or --everything --yes to delete the store and its keys")
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
