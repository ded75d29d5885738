public import Foundation

/// The package's own Swift sources, for the suites that check what the code says (the layout,
/// function lengths, every `tally …` a message mentions): read once per process, whichever
/// suite asks first.
public enum SourceFiles {
    /// One Swift file under `Sources/`.
    public struct File: Sendable {
        /// Its module: the folder under `Sources/`.
        public let module: String
        /// Its path from the repository's root, `Sources/<module>/…`.
        public let path: String
        /// Its lines, without their line ends.
        public let lines: [Substring]
    }

    /// The repository's root: three folders above this file.
    public static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every Swift file under `Sources/`, by path.
    public static func all() throws -> [File] { try read.get() }

    private static let read = Result { () throws -> [File] in
        let sources = repository.appendingPathComponent("Sources")
        guard let enumerator = FileManager.default.enumerator(atPath: sources.path) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: sources.path])
        }
        let paths = enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted()
        return try paths.map { relative in
            let text = try String(contentsOf: sources.appendingPathComponent(relative), encoding: .utf8)
            let module = String(relative.prefix { $0 != "/" })
            return File(module: module, path: "Sources/\(relative)", lines: text.split(separator: "\n", omittingEmptySubsequences: false))
        }
    }
}
