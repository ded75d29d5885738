// swift-tools-version:6.1
// swift-openapi-generator, pinned, apart from Tally's own package: scripts/generate-api-client.sh
// builds and runs it when Schemas/openapi.yaml or the client's configuration changes. Tally's
// build compiles none of it (Tests/TallyAPIClientTests/Generated/ holds what it generated).
import PackageDescription

let package = Package(
    name: "TallyOpenAPIGenerator",
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", exact: "1.14.3"),
    ],
    targets: []
)
