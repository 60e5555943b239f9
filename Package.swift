// swift-tools-version:6.3
import PackageDescription

let package = Package(
    name: "ActionBus",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Locking", targets: ["Locking"]),
        .library(name: "ZeroMQ", targets: ["ZeroMQ"]),
        .library(name: "ActionCore", targets: ["ActionCore"]),
        .library(name: "ActionWire", targets: ["ActionWire"]),
        .library(name: "ExampleFeatures", targets: ["ExampleFeatures"]),
        .executable(name: "actionbus", targets: ["actionbus"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
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
            dependencies: ["Locking", .product(name: "Logging", package: "swift-log")]
        ),
        .target(name: "ActionWire"),
        .target(
            name: "ActionTransport",
            dependencies: ["ActionWire", "ZeroMQ"]
        ),
        .target(
            name: "ExampleFeatures",
            dependencies: ["ActionCore"]
        ),
        .executableTarget(
            name: "actionbus",
            dependencies: [
                "ActionCore",
                "ExampleFeatures",
                "ZeroMQ",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "ZeroMQTests", dependencies: ["ZeroMQ", "Locking"]),
        .testTarget(name: "ActionWireTests", dependencies: ["ActionWire", "ActionTransport", "ZeroMQ"]),
        .testTarget(name: "ActionCoreTests", dependencies: ["ActionCore", "ExampleFeatures"]),
    ],
    swiftLanguageModes: [.v6]
)
