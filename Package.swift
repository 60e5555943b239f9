// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "ActionBus",
    platforms: [.macOS(.v15)],
    products: [
        // What a user builds on: features and sessions, a client, a worker, an embedded
        // coordinator and its HTTP side, and the example features.
        .library(name: "ActionCore", targets: ["ActionCore"]),
        .library(name: "ActionClient", targets: ["ActionClient"]),
        .library(name: "ActionWorker", targets: ["ActionWorker"]),
        .library(name: "ActionCoordinator", targets: ["ActionCoordinator"]),
        .library(name: "ActionOperations", targets: ["ActionOperations"]),
        .library(name: "ExampleFeatures", targets: ["ExampleFeatures"]),
        .executable(name: "actionbus", targets: ["actionbus"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        // Operations: metrics (exported for Prometheus) and a small HTTP server without SwiftNIO.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.1"),
        // Coordinators, workers and the HTTP side run as services with graceful shutdown.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CZeroMQ",
            pkgConfig: "libzmq",
            providers: [.apt(["libzmq3-dev"])]
        ),
        .target(name: "Locking"),
        .target(
            name: "ZeroMQ",
            dependencies: ["CZeroMQ", "Locking"]
        ),
        .target(
            name: "ActionCore",
            dependencies: [
                "Locking",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(name: "ActionWire"),
        .target(name: "ActionJournal", dependencies: ["ActionWire"]),
        .target(
            name: "ActionTransport",
            dependencies: ["ActionWire", "ZeroMQ"]
        ),
        // Who leads a coordinator group: an etcd v3 client (its JSON gateway) and the leader
        // election on top of it, the campaign itself a socket-free state machine.
        .target(
            name: "GroupLeadership",
            dependencies: ["Locking", .product(name: "Logging", package: "swift-log")]
        ),
        .target(
            name: "ActionCoordinator",
            dependencies: [
                "ActionCore", "ActionJournal", "ActionWire", "ActionTransport", "GroupLeadership", "ZeroMQ",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "ActionOperations",
            dependencies: [
                "ActionCoordinator", "ActionCore", "ActionWire", "ActionWorker", "Locking",
                .product(name: "FlyingFox", package: "FlyingFox"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "ActionWorker",
            dependencies: [
                "ActionCore", "ActionWire", "ActionTransport", "ZeroMQ",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "ActionClient",
            dependencies: [
                "ActionCore", "ActionWire", "ActionTransport", "Locking", "ZeroMQ",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "ExampleFeatures",
            dependencies: ["ActionCore"]
        ),
        .executableTarget(
            name: "actionbus",
            dependencies: [
                "ActionClient",
                "ActionCoordinator",
                "ActionOperations",
                "ActionTransport",
                "ActionCore",
                "ActionWire",
                "ActionWorker",
                "ExampleFeatures",
                "GroupLeadership",
                "Locking",
                "ZeroMQ",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // What the test targets share: the bus fixture (processes killed by PID), bounded waits,
        // the coordinator's reports as the tests read them, and seeded random inputs.
        .target(name: "ActionBusTestSupport", dependencies: ["ActionJournal", "Locking"], path: "Tests/ActionBusTestSupport"),
        .testTarget(name: "ZeroMQTests", dependencies: ["ZeroMQ", "Locking"]),
        .testTarget(name: "ActionJournalTests", dependencies: ["ActionJournal", "ActionBusTestSupport", "ActionWire"]),
        .testTarget(name: "ActionWireTests", dependencies: ["ActionWire", "ActionTransport", "ActionBusTestSupport", "ZeroMQ"]),
        .testTarget(
            name: "ActionCoordinatorTests",
            dependencies: ["ActionCoordinator", "ActionBusTestSupport", "ActionCore", "ActionJournal", "ActionWire", "Locking"]
        ),
        .testTarget(
            name: "ActionWorkerTests",
            dependencies: ["ActionWorker", "ActionBusTestSupport", "ActionWire", "ActionTransport", "ExampleFeatures", "ZeroMQ"]
        ),
        .testTarget(name: "ActionClientTests", dependencies: ["ActionClient", "ActionBusTestSupport", "ActionTransport", "ActionWire", "ZeroMQ"]),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "actionbus", "ActionBusTestSupport", "ActionClient", "ActionCore", "ActionJournal", "ActionTransport", "ActionWire",
                "ExampleFeatures", "GroupLeadership",
                "ZeroMQ", "Locking",
            ],
            // The zguide's Majordomo examples (unmodified) and the browser driver, run with Python.
            exclude: ["Support/zguide", "Support/browser"]
        ),
        .testTarget(name: "ActionCoreTests", dependencies: ["ActionCore", "ActionBusTestSupport", "ExampleFeatures"]),
        .testTarget(name: "ActionOperationsTests", dependencies: ["ActionOperations", "ActionCoordinator"]),
        .testTarget(
            name: "GroupLeadershipTests",
            dependencies: ["GroupLeadership", "ActionBusTestSupport", "Locking", .product(name: "Logging", package: "swift-log")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
