// swift-tools-version:6.1
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

// Tally's benchmarks, their own package so that the root's `swift test` never builds
// package-benchmark. Run from this folder: `swift package benchmark`.
let package = Package(
    name: "TallyBenchmarks",
    products: [
        .executable(name: "household-journal", targets: ["household-journal"]),
    ],
    dependencies: [
        .package(name: "Tally", path: "../"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .target(
            name: "HouseholdJournal",
            dependencies: [.product(name: "Tally", package: "Tally"), .product(name: "TallyLog", package: "Tally")],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "household-journal",
            dependencies: ["HouseholdJournal", .product(name: "Tally", package: "Tally")],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "TallyBenchmarks",
            dependencies: [
                "HouseholdJournal",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Tally", package: "Tally"),
                .product(name: "TallyLog", package: "Tally"),
            ],
            path: "Benchmarks/TallyBenchmarks",
            swiftSettings: strictSettings,
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
    ]
)
