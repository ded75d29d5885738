import Crypto
import Foundation
import Testing

/// The client in Generated/ is generated ahead of time (scripts/generate-api-client.sh), so
/// the build compiles no generator; each file's header names the digests of the inputs it
/// was generated from. A change of the OpenAPI document or of the generator's configuration
/// without a regeneration fails here, naming the command that brings the client up to date.
@Suite struct GeneratedClientTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let generated = root.appendingPathComponent("Tests/TallyAPIClientTests/Generated")
    static let inputs = ["Schemas/openapi.yaml", "Tests/TallyAPIClientTests/openapi-generator-config.yaml"]

    @Test func everyGeneratedFileWasGeneratedFromTheCommittedDocumentAndConfiguration() throws {
        let digests = try Dictionary(uniqueKeysWithValues: Self.inputs.map { path in
            let data = try Data(contentsOf: Self.root.appendingPathComponent(path))
            return (path, SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined())
        })
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.generated.path)
            .filter { $0.hasSuffix(".swift") }.sorted()
        #expect(files.contains("Client.swift") && files.contains("Types.swift"), "Generated/ holds \(files)")
        for file in files {
            let text = try String(contentsOf: Self.generated.appendingPathComponent(file), encoding: .utf8)
            var recorded: [String: String] = [:]
            for line in text.split(separator: "\n").prefix(10) where line.hasPrefix("// input: ") {
                let words = line.dropFirst("// input: ".count).split(separator: " ")
                if words.count == 3, words[1] == "sha256" { recorded[String(words[0])] = String(words[2]) }
            }
            for path in Self.inputs {
                #expect(
                    recorded[path] == digests[path],
                    "Generated/\(file) was generated from another \(path) (sha256 \(recorded[path] ?? "none") in its header, \(digests[path] ?? "") now): run scripts/generate-api-client.sh and commit Tests/TallyAPIClientTests/Generated/"
                )
            }
        }
    }
}
