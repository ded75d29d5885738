// swift-tools-version:6.1
import PackageDescription

// The load run of `tally serve` (issue 13): its own package, so the root's `swift test`
// never builds it. Run it with scripts/load/serve_load.sh.
let package = Package(
    name: "ServeLoad",
    dependencies: [
        .package(name: "Tally", path: "../../../"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        .executableTarget(
            name: "serve-load",
            dependencies: [
                .product(name: "Tally", package: "Tally"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
