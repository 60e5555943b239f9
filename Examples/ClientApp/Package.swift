// swift-tools-version:6.1
import PackageDescription

// A program of your own that uses an ActionBus from Swift: it performs the actions of the
// Greeting feature (served by Examples/CustomWorker's `custom-worker`), awaits their outcomes and
// follows them on the outcome stream.
let package = Package(
    name: "ClientApp",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "client-app", targets: ["ClientApp"]),
    ],
    dependencies: [
        // In your own package: .package(url: "https://github.com/<owner>/ActionBus", from: "<version>").
        .package(name: "ActionBus", path: "../.."),
        // The feature's definition, shared with the worker that serves it.
        .package(path: "../CustomWorker"),
    ],
    targets: [
        .executableTarget(
            name: "ClientApp",
            dependencies: [
                .product(name: "ActionClient", package: "ActionBus"),
                .product(name: "ActionCore", package: "ActionBus"),
                .product(name: "GreetingFeatures", package: "CustomWorker"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
