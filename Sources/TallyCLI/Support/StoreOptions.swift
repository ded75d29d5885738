import ArgumentParser
import Foundation

/// The store every command works on.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The store directory (default: $TALLY_STORE, else ./.tally).", valueName: "dir"))
    var store: String?

    /// The directory chosen by flag, environment or default.
    var path: String {
        if let store, !store.isEmpty { return store }
        if let environment = ProcessInfo.processInfo.environment["TALLY_STORE"], !environment.isEmpty {
            return environment
        }
        return ".tally"
    }
}
