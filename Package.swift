// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "supervise",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "supervise", targets: ["supervise"]),
        .library(name: "SuperviseClient", targets: ["SuperviseClient"]),
        .library(name: "SuperviseProtocol", targets: ["SuperviseProtocol"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
    ],
    targets: [
        // C for what Swift can't do safely between fork and exec.
        .target(name: "_SuperviseCShims"),

        // The wire codec shared by the supervisor and the client library: pure, no I/O.
        .target(name: "SuperviseProtocol"),

        // Everything the executable does, as a library the tests can drive.
        .target(
            name: "SuperviseCore",
            dependencies: [
                "SuperviseProtocol",
                "_SuperviseCShims",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),

        // The command line: argument parsing and nothing else.
        .executableTarget(
            name: "supervise",
            dependencies: [
                "SuperviseCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: [.unsafeFlags(["-static-stdlib", "-Xlinker", "-l_FoundationCollections", "-Xlinker", "-l_FoundationCShims"], .when(configuration: .release))]
        ),

        // The child side: a UIKit-shaped API for Swift workers.
        .target(name: "SuperviseClient", dependencies: ["SuperviseProtocol"]),

        // The Swift worker example (examples/swift), run under supervise by the integration tests.
        .executableTarget(
            name: "swift-worker-example",
            dependencies: ["SuperviseClient", "SuperviseProtocol"],
            path: "examples/swift"
        ),

        // The benchmark harness (docs/performance.md); its C probes are compiled at run time.
        .executableTarget(name: "supervise-bench", dependencies: ["supervise"], path: "Benchmarks/supervise-bench"),

        // What every test target shares: waiting on a condition, temporary directories, the seeded
        // generator and skip reasons. It depends on no target of the project, so it never has to
        // follow how Sources is split.
        .target(name: "SuperviseTestSupport", path: "Tests/SuperviseTestSupport"),

        .testTarget(name: "SuperviseProtocolTests", dependencies: ["SuperviseProtocol", "SuperviseTestSupport"]),
        .testTarget(name: "SuperviseCoreTests", dependencies: ["SuperviseCore", "SuperviseTestSupport"]),
        .testTarget(name: "SuperviseClientTests", dependencies: ["SuperviseClient", "SuperviseTestSupport"]),
        // Seeded property-based fuzzing of every parser (docs/testing.md).
        .testTarget(name: "FuzzTests", dependencies: ["SuperviseProtocol", "SuperviseCore", "supervise", "SuperviseTestSupport"],
                    exclude: ["Corpus"]),
        .testTarget(name: "IntegrationTests", dependencies: ["supervise", "swift-worker-example", "SuperviseTestSupport"],
                    exclude: ["Workers"]),
    ]
)
