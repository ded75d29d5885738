import ArgumentParser
import Foundation
import Tally

struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create a store and record the ledger's first event.",
        discussion: """
            The store is built complete (its log, and `ledger_created` as event 1, synced) in a \
            hidden directory beside --store and renamed into place in one step: init creates a \
            whole store or nothing. It refuses a directory that already holds a store or any \
            other file, and never removes what it did not create; of two inits racing for one \
            directory, one wins and the other says the store already exists. A hidden \
            .NAME.tally-init.* directory left by a killed init is ignored, and removed by a later \
            init of the same store once it is a minute old.

            With --encrypt, every frame of the log is sealed (AES-256-GCM) under a data key kept, \
            wrapped by the key from --key-file FILE (or TALLY_KEY_FILE), in the store's KEYS file; \
            a FILE that does not exist yet gets a new random key (keep a copy apart from the store: \
            without it the store cannot be opened). Every later command on the store needs the same key.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "The ledger's display name.")
    var name = "My ledger"

    @Option(name: .customLong("base-currency"), help: "The base currency answers are given in (ISO 4217 code).")
    var baseCurrency = "USD"

    @Option(name: .customLong("time-zone"), help: "The IANA time zone whose days 'as of DATE' means, e.g. Europe/London.")
    var timeZone = "UTC"

    @Flag(help: "Encrypt the store at rest: needs --key-file FILE or TALLY_KEY_FILE (a missing FILE gets a new key).")
    var encrypt = false

    func run() throws {
        let currency = try Commodity.named(baseCurrency)
        guard currency.isISOCurrency else {
            throw ValidationError("--base-currency '\(baseCurrency)' is not an ISO 4217 currency")
        }
        guard TimeZone(identifier: timeZone) != nil else {
            throw ValidationError("--time-zone '\(timeZone)' is not an IANA time zone (e.g. Europe/London, America/New_York, UTC)")
        }
        // The log is made atomically; the read models, derived from it, are folded right after
        // (a store whose read models are missing folds them on its first open anyway).
        let (options, madeKeyFile) = try storeOptions.creationOptions(encrypt: encrypt)
        let ledger: Ledger
        do {
            ledger = try Ledger.create(at: storeOptions.path, name: name, baseCurrency: currency, timeZone: timeZone, options: options)
        } catch {
            // A key made for a store that was never created protects nothing.
            if let madeKeyFile { unlink(madeKeyFile) }
            throw error
        }
        let head = ledger.head
        try ledger.close()
        print("Created store \(storeOptions.path): ledger '\(name)', base currency \(currency.code), time zone \(timeZone)")
        if let madeKeyFile {
            print("Encrypted at rest; wrote a new key to \(madeKeyFile): keep a copy apart from the store, without it the store cannot be opened")
        } else if encrypt {
            print("Encrypted at rest with the key in \(storeOptions.keyFile ?? Console.current.environment["TALLY_KEY_FILE"] ?? "")")
        }
        print("head \(head)")
    }
}
