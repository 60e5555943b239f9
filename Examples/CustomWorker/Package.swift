// swift-tools-version:6.1
import PackageDescription

// A package of your own that builds on ActionBus: a worker executable serving its own feature,
// and that feature as a library, so a client program (Examples/ClientApp) performs it with the
// same types the worker runs.
let package = Package(
    name: "CustomWorker",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "custom-worker", targets: ["CustomWorker"]),
        .library(name: "GreetingFeatures", targets: ["GreetingFeatures"]),
    ],
    dependencies: [
        // In your own package: .package(url: "https://github.com/<owner>/ActionBus", from: "<version>").
        .package(name: "ActionBus", path: "../.."),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // The feature: its actions' types and what they do (ActionCore alone).
        .target(
            name: "GreetingFeatures",
            dependencies: [.product(name: "ActionCore", package: "ActionBus")]
        ),
        // The worker executable that serves it.
        .executableTarget(
            name: "CustomWorker",
            dependencies: [
                "GreetingFeatures",
                .product(name: "ActionCore", package: "ActionBus"),
                .product(name: "ActionWorker", package: "ActionBus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
