// swift-tools-version:6.0
import PackageDescription

/// How release executables link: the Swift runtime and libraries inside the binary, so it runs
/// where no Swift is installed. No target of ours imports Foundation, but ArgumentParser imports
/// FoundationEssentials (a LocalizedError cast, JSONEncoder for --experimental-dump-help), and
/// linked statically it needs these three libraries, which -static-stdlib does not add: without
/// them the link fails (supervise imports Synchronization itself; floor-parser does not). Its
/// cost in size and start-up: docs/performance.md, "Lean".
let releaseLinking: [LinkerSetting] = [
    .unsafeFlags(["-static-stdlib", "-Xlinker", "-l_FoundationCollections", "-Xlinker", "-l_FoundationCShims",
                  "-Xlinker", "-lswiftSynchronization"],
                 .when(configuration: .release)),
]

let package = Package(
    // Linux only: epoll, signalfd, timerfd, cgroups, /proc, clone3 and Glibc throughout; no
    // other platform is declared or built.
    name: "supervise",
    products: [
        .executable(name: "supervise", targets: ["supervise"]),
        .library(name: "SuperviseClient", targets: ["SuperviseClient"]),
        .library(name: "SuperviseProtocol", targets: ["SuperviseProtocol"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // 1.8.1: FileDescriptor.pipe(options:), pipe2 with O_CLOEXEC.
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    ],
    targets: [
        // C for what Swift can't do: the steps between fork and exec, and what glibc keeps from
        // Swift (GNU extensions, packed structs, main's arguments without /proc).
        .target(name: "_SuperviseCShims"),

        // libcap, found by pkg-config: capability names and the kernel's capability count,
        // worked out in the supervisor before a child is forked (docs/security.md).
        .systemLibrary(name: "CLibcap", pkgConfig: "libcap", providers: [.apt(["libcap-dev"])]),

        // The wire codec shared by the supervisor and the client library: pure, no I/O.
        .target(name: "SuperviseProtocol"),

        // The one way to make a system call (EINTR retry, errno text), shared by the supervisor's
        // system layer and the client library.
        .target(name: "SuperviseSystemCall", dependencies: [.product(name: "SystemPackage", package: "swift-system")]),

        // The layers, lowest first; each imports only targets above it in this list
        // (scripts/check-layers.sh enforces it). docs/architecture.md draws them.

        // Every rule of the lifecycle, pure: no Glibc, no Foundation, no C; time is a value.
        .target(name: "SuperviseLifecycle", dependencies: ["SuperviseProtocol"]),

        // The one syscall layer: the loop, spawning, freezers, /proc and cgroup files, the
        // children's pipes.
        .target(
            name: "SuperviseSystem",
            dependencies: [
                "SuperviseLifecycle",
                "SuperviseProtocol",
                "SuperviseSystemCall",
                "_SuperviseCShims",
                "CLibcap",
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),

        // What the user says: config files (TOML), durations, stdin commands, the signal table.
        .target(name: "SuperviseConfig", dependencies: ["SuperviseLifecycle", "SuperviseProtocol", "SuperviseSystem"]),

        // The shell: wires the layers together and keeps the records; no rules of its own.
        .target(
            name: "SuperviseShell",
            dependencies: [
                "SuperviseConfig",
                "SuperviseLifecycle",
                "SuperviseProtocol",
                "SuperviseSystem",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // The report's readers and drawers: JSON read back, the HTML picture. Used by
        // `supervise report`, which a run with --html starts as a process of its own: the run
        // path (SuperviseShell) never imports it.
        .target(name: "SuperviseReport", dependencies: ["SuperviseLifecycle", "SuperviseShell"]),

        // The command line: argument parsing and nothing else.
        .executableTarget(
            name: "supervise",
            dependencies: [
                "SuperviseConfig",
                "SuperviseLifecycle",
                "SuperviseProtocol",
                "SuperviseReport",
                "SuperviseShell",
                "SuperviseSystem",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: releaseLinking
        ),

        // The child side: a UIKit-shaped API for Swift workers.
        .target(name: "SuperviseClient", dependencies: ["SuperviseProtocol", "SuperviseSystemCall",
                                                       .product(name: "SystemPackage", package: "swift-system")]),

        // The Swift worker example (examples/swift), run under supervise by the integration tests.
        .executableTarget(
            name: "swift-worker-example",
            dependencies: ["SuperviseClient", "SuperviseProtocol"],
            path: "examples/swift"
        ),

        // The benchmark harness (docs/performance.md); its C probes are compiled at run time.
        .executableTarget(name: "supervise-bench", dependencies: ["supervise", "floor-swift", "floor-parser"],
                          path: "Benchmarks/supervise-bench"),
        // The floors under supervise's start-up, idle and size figures: a Swift program that only
        // starts a command and waits, without and with ArgumentParser, linked as supervise is.
        .target(name: "FloorRun", path: "Benchmarks/floor-run"),
        .executableTarget(name: "floor-swift", dependencies: ["FloorRun"], path: "Benchmarks/floor-swift",
                          linkerSettings: releaseLinking),
        .executableTarget(name: "floor-parser", dependencies: ["FloorRun", .product(name: "ArgumentParser", package: "swift-argument-parser")],
                          path: "Benchmarks/floor-parser", linkerSettings: releaseLinking),

        // C for the test helpers: a PATH for the processes tests start, set as the test bundle
        // loads (PythonPath.c), and glibc's GNU-only spawn action (SpawnActions.c).
        .target(name: "CSuperviseTestSupport", path: "Tests/CSuperviseTestSupport"),
        // What every test target shares: waiting on a condition, temporary directories, the seeded
        // generator and skip reasons. It depends on no target of the project, so it never has to
        // follow how Sources is split.
        .target(name: "SuperviseTestSupport", dependencies: ["CSuperviseTestSupport"], path: "Tests/SuperviseTestSupport"),

        .testTarget(name: "SuperviseProtocolTests", dependencies: ["SuperviseProtocol", "SuperviseTestSupport"]),
        // One test target per layer, each depending on that layer and those below it.
        .testTarget(name: "SuperviseLifecycleTests", dependencies: ["SuperviseLifecycle", "SuperviseProtocol", "SuperviseTestSupport"]),
        .testTarget(name: "SuperviseSystemTests", dependencies: ["SuperviseSystem", "SuperviseLifecycle", "SuperviseTestSupport",
                                                                .product(name: "SystemPackage", package: "swift-system")]),
        .testTarget(name: "SuperviseConfigTests", dependencies: ["SuperviseConfig", "SuperviseSystem", "SuperviseLifecycle",
                                                                "SuperviseTestSupport"]),
        .testTarget(name: "SuperviseShellTests", dependencies: ["SuperviseShell", "SuperviseConfig", "SuperviseSystem",
                                                               "SuperviseLifecycle", "SuperviseProtocol", "SuperviseTestSupport",
                                                               .product(name: "Logging", package: "swift-log"),
                                                               .product(name: "SystemPackage", package: "swift-system")]),
        .testTarget(name: "SuperviseReportTests", dependencies: ["SuperviseReport", "SuperviseShell", "SuperviseTestSupport"]),
        .testTarget(name: "SuperviseClientTests", dependencies: ["SuperviseClient", "SuperviseTestSupport"]),
        // Seeded property-based fuzzing of every parser (docs/testing.md).
        .testTarget(name: "FuzzTests", dependencies: ["SuperviseProtocol", "SuperviseLifecycle", "SuperviseSystem", "SuperviseConfig", "SuperviseShell", "SuperviseReport",
                                                    "supervise", "SuperviseTestSupport"],
                    exclude: ["Corpus"]),
        .testTarget(name: "IntegrationTests", dependencies: ["supervise", "swift-worker-example", "SuperviseTestSupport"],
                    exclude: ["Workers"]),
    ]
)
