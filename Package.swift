// swift-tools-version:6.1
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

// The test targets' compile, a third of a clean `make test` build (each test target rebuilt
// from scratch, 2 cores: 128.6 s, 237 s of CPU; with these flags 107.0 s, 209 s):
// - line tables only, no variable information: a failure still names its file and line
//   (`#expect` records its source location) and a crash's backtrace its lines;
// - one batch of files per job rather than one per 25 files: the driver otherwise starts
//   five compiler processes for a test target of 109 files, each importing every module
//   again and loading the test macros' plugin again.
// Only the test targets: a package that depends on Tally builds none of them, and the
// library's own targets keep SwiftPM's defaults.
let testSettings: [SwiftSetting] = strictSettings + [
    .unsafeFlags(["-gline-tables-only", "-driver-batch-size-limit", "1000"]),
]
// The test bundle, the build's last and largest link, by the toolchain's lld rather than gold:
// 1.4 s against 3.9 s (1.6 s of CPU against 3.1 s).
let testLinkerSettings: [LinkerSetting] = [
    .unsafeFlags(["-use-ld=lld"], .when(platforms: [.linux])),
]

let package = Package(
    name: "Tally",
    products: [
        .library(name: "TallyLog", targets: ["TallyLog"]),
        .library(name: "TallyEngine", targets: ["TallyEngine"]),
        // For tests of code on the log: the seeded, fault-injecting in-memory disk.
        .library(name: "TallyLogTesting", targets: ["TallyLogTesting"]),
        .library(name: "TallyProducts", targets: ["TallyProducts"]),
        .library(name: "Tally", targets: ["Tally"]),
        .library(name: "TallyService", targets: ["TallyService"]),
        .executable(name: "tally", targets: ["TallyCLI"]),
        .executable(name: "tally-serve", targets: ["TallyServe"]),
    ],
    // The `tally` command and its HTTP service need packages a library user does not: the
    // argument parser, Hummingbird, swift-nio, service lifecycle, swift-log, metrics and
    // Prometheus. They sit behind one trait, on by default; an application that embeds the
    // engine or the products depends on Tally with `traits: []`, and SwiftPM then neither
    // resolves nor builds them (Examples/MerchantTags does; docs/embedding.md).
    traits: [
        .trait(name: "Tools", description: "The tally and tally-serve commands and the HTTP service (TallyCLI, TallyServe, TallyService) and their dependencies."),
        .default(enabledTraits: ["Tools"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // Without its default traits: Tally reads none of its settings through swift-configuration
        // (`ConfigurationSupport`) and uses no `DateFormatter` strategy of its URL-encoded forms
        // (`FullFoundation`), so swift-configuration is neither resolved into the build nor compiled.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // The generated client's tests (TallyAPIClientTests): the client's runtime. The client is
        // generated ahead of time (scripts/generate-api-client.sh; the generator is pinned in
        // scripts/openapi-generator). No HTTP client package: webhooks and the tests speak HTTP
        // through Foundation's `URLSession` (libcurl, the system's TLS), so the build compiles no
        // second copy of BoringSSL (swift-nio-ssl's, beside swift-crypto's) and none of
        // swift-nio-http2 (docs/testing.md, "Where the time goes").
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLZ4",
            pkgConfig: "liblz4",
            providers: [.apt(["liblz4-dev"]), .brew(["lz4"])]
        ),
        // libpq, for the log on PostgreSQL: its connection strings, `PGPASSWORD`, `~/.pgpass` and TLS
        // settings are the ones every PostgreSQL tool reads.
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        .target(
            name: "TallyLog",
            dependencies: [
                "CLZ4",
                "CLibPQ",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        // Test aids for code on the log, apart from what ships: `SimulatedDisk`.
        .target(
            name: "TallyLogTesting",
            dependencies: ["TallyLog"],
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
        .target(
            name: "TallyService",
            dependencies: [
                "Tally",
                "TallyEngine",
                "TallyLog",
                "TallyProducts",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Tools"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["Tools"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Tools"])),
                .product(name: "UnixSignals", package: "swift-service-lifecycle", condition: .when(traits: ["Tools"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Tools"])),
                .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Tools"])),
                .product(name: "Prometheus", package: "swift-prometheus", condition: .when(traits: ["Tools"])),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "TallyCLI",
            dependencies: [
                "Tally",
                "TallyLog",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Tools"])),
            ],
            swiftSettings: strictSettings
        ),
        // `tally serve`, an executable of its own so that `tally` links nothing of the service.
        .executableTarget(
            name: "TallyServe",
            dependencies: [
                "TallyService",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Tools"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Tools"])),
            ],
            swiftSettings: strictSettings
        ),
        // The example embedder, Examples/MerchantTags: a package of its own for an embedder to
        // read and build, and this target of the same sources so that `make test` builds and runs
        // it in its one build instead of compiling the engine, GRDB and swift-crypto a second
        // time (scripts/examples.sh). It sees the engine's public API only (`packageAccess:
        // false`: none of its `package` symbols), and scripts/check_engine_alone.py checks that it
        // depends on and imports nothing of the products, the CLI or the service.
        .executableTarget(
            name: "MerchantTagsExample",
            dependencies: [
                "TallyEngine",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Examples/MerchantTags/Sources/merchant-tags",
            packageAccess: false,
            swiftSettings: strictSettings
        ),
        // A throwaway PostgreSQL cluster for the tests of the log on PostgreSQL (the real server).
        .target(
            name: "PostgresTestSupport",
            dependencies: ["CLibPQ"],
            path: "Tests/PostgresTestSupport",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "TallyLogTests",
            dependencies: [
                "TallyLog",
                "TallyLogTesting",
                "PostgresTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: testSettings,
            linkerSettings: testLinkerSettings
        ),
        // Helpers of the engine's tests: the engine alone, so that `TallyEngineTests` builds
        // and passes with no product module present.
        .target(
            name: "TallyTestSupport",
            dependencies: ["TallyEngine", "TallyLog", "PostgresTestSupport"],
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
            dependencies: ["TallyEngine", "TallyLog", "TallyTestSupport", "PostgresTestSupport", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: testSettings,
            linkerSettings: testLinkerSettings
        ),
        .testTarget(
            name: "TallyTests",
            dependencies: [
                "Tally", "TallyLog", "TallyLogTesting", "TallyTestSupport", "TallyProductTestSupport", "PostgresTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: testSettings,
            linkerSettings: testLinkerSettings
        ),
        .testTarget(
            name: "TallyServiceTests",
            dependencies: [
                "TallyService",
                "Tally",
                "TallyLog",
                "TallyTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Tools"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["Tools"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Tools"])),
            ],
            swiftSettings: testSettings,
            linkerSettings: testLinkerSettings
        ),
        // What an app team does with Schemas/openapi.yaml in Swift: swift-openapi-generator
        // generates the types and a client from the document, ahead of time
        // (scripts/generate-api-client.sh writes Generated/; GeneratedClientTests fails when the
        // document or the configuration changed since), and the suites run every app flow of
        // the service through that client against a real server.
        .testTarget(
            name: "TallyAPIClientTests",
            dependencies: [
                "TallyService",
                "Tally",
                "TallyLog",
                "TallyTestSupport",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: .when(traits: ["Tools"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Tools"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Tools"])),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            exclude: ["openapi-generator-config.yaml"],
            // The generated client is three files of 13,000 lines beside a few small ones: the
            // driver's two batches split them unevenly (one job 45 s, the other a few), while one
            // whole-module job on two threads takes 32 s (45 s of CPU against 49 s). Batch mode,
            // which SwiftPM asks for, is turned off first: the driver would warn that it ignores it.
            swiftSettings: testSettings + [.unsafeFlags(["-disable-batch-mode", "-wmo", "-num-threads", "2"])],
            linkerSettings: testLinkerSettings
        ),
        .testTarget(
            name: "TallyCLITests",
            // TallyServe: the suites of `tally serve` run the tally-serve executable.
            dependencies: ["TallyCLI", "TallyServe", "Tally", "TallyLog", "TallyTestSupport", "TallyProductTestSupport", "PostgresTestSupport"],
            swiftSettings: testSettings,
            linkerSettings: testLinkerSettings
        ),
    ]
)
