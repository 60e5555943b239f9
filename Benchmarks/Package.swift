// swift-tools-version:6.1
import Foundation
import PackageDescription

// ActionBus's micro-benchmarks (ordo-one/benchmark): time and allocations per request for the
// codec, the coordinator's routing step, a journal append and in-process performs. A package of
// its own, so that the benchmark dependency stays out of ActionBus's manifest. Run them with
// scripts/perf/microbench.sh, or:
//
//   swift package --package-path Benchmarks benchmark
//
// The benchmarks measure internals (the codec, CoordinatorCore, RequestJournal) that ActionBus
// declares with `package` access, visible only to modules compiled with ActionBus's package
// name. SwiftPM derives that name from the identity of the package at `..`: its directory's
// name, lowercased, without a ".git" suffix, made a C99 identifier (`main` for a clone in
// `main/`, `action_bus` for one in `Action-Bus/`). The benchmark target is compiled with that
// name: `packageAccess: false` stops SwiftPM from passing this package's own name (which it
// would put last on the command line, where the compiler takes it), and the unsafe flag passes
// ActionBus's. Unsafe flags are allowed here because this package is built as a root package,
// never as a dependency.
let actionBusDirectory = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().lastPathComponent

/// The `-package-name` SwiftPM gives the package in DIRECTORY (its identity, made a C99
/// identifier as SwiftPM's `spm_mangledToC99ExtendedIdentifier` does).
func swiftPackageName(ofDirectory directory: String) -> String {
    var identity = directory.lowercased()
    if identity.hasSuffix(".git") { identity.removeLast(4) }
    var name = ""
    for (index, character) in identity.enumerated() {
        let digit = character.isASCII && character.isNumber
        name.append(character == "_" || character.isLetter || (digit && index > 0) ? character : "_")
    }
    return name
}

let package = Package(
    name: "ActionBusBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "ActionBus", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // ordo-one/benchmark's plugin runs the executable targets in this package's Benchmarks/.
        .executableTarget(
            name: "ActionBusMicroBenchmarks",
            dependencies: [
                // ActionCoordinator brings the modules the benchmarks import beside it (ActionWire,
                // ActionJournal, ActionTransport, ZeroMQ), which ActionBus vends in no product.
                .product(name: "ActionCoordinator", package: "ActionBus"),
                .product(name: "ActionCore", package: "ActionBus"),
                .product(name: "ExampleFeatures", package: "ActionBus"),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/ActionBusMicroBenchmarks",
            packageAccess: false,
            swiftSettings: [.unsafeFlags(["-package-name", swiftPackageName(ofDirectory: actionBusDirectory)])],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
