// swift-tools-version:6.1
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Tally",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "TallyLog", targets: ["TallyLog"]),
        .library(name: "TallyEngine", targets: ["TallyEngine"]),
        .library(name: "TallyProducts", targets: ["TallyProducts"]),
        .library(name: "Tally", targets: ["Tally"]),
        .executable(name: "tally", targets: ["TallyCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLZ4",
            pkgConfig: "liblz4",
            providers: [.apt(["liblz4-dev"]), .brew(["lz4"])]
        ),
        .target(
            name: "TallyLog",
            dependencies: [
                "CLZ4",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "TallyEngine",
            dependencies: [
                "TallyLog",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "TallyProducts",
            dependencies: [
                "TallyEngine",
                "TallyLog",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "Tally",
            dependencies: ["TallyEngine", "TallyProducts"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "TallyCLI",
            dependencies: [
                "Tally",
                "TallyLog",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "TallyLogTests",
            dependencies: [
                "TallyLog",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
        // Helpers of the engine's tests: the engine alone, so that `TallyEngineTests` builds
        // and passes with no product module present.
        .target(
            name: "TallyTestSupport",
            dependencies: ["TallyEngine", "TallyLog"],
            path: "Tests/TallyTestSupport",
            swiftSettings: strictSettings
        ),
        // Helpers that ask the products' answers (export round trips).
        .target(
            name: "TallyProductTestSupport",
            dependencies: ["TallyEngine", "TallyProducts", "TallyTestSupport"],
            path: "Tests/TallyProductTestSupport",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "TallyEngineTests",
            dependencies: ["TallyEngine", "TallyLog", "TallyTestSupport", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "TallyTests",
            dependencies: ["Tally", "TallyLog", "TallyTestSupport", "TallyProductTestSupport"],
            resources: [.copy("Fixtures")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "TallyCLITests",
            dependencies: ["TallyCLI", "Tally", "TallyLog", "TallyTestSupport", "TallyProductTestSupport"],
            swiftSettings: strictSettings
        ),
    ]
)
