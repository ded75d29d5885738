// swift-tools-version:6.1
import PackageDescription

// An embedder of Tally's engine, as its own package: an event type, a read model and a
// command of its own, registered as a `LedgerFeature`. `make test` runs the same sources, the
// target MerchantTagsExample of Tally's package (scripts/examples.sh); by hand, from the
// repository's root:
//   swift run --package-path Examples/MerchantTags merchant-tags
let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "MerchantTags",
    dependencies: [
        // `traits: []`: without the `Tools` trait SwiftPM neither resolves nor builds what only
        // the `tally` command and its HTTP service use.
        .package(name: "Tally", path: "../..", traits: []),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "merchant-tags",
            dependencies: [
                .product(name: "TallyEngine", package: "Tally"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
    ]
)
