import ActionCore
import ActionWorker
import GreetingFeatures
import Logging
import ServiceLifecycle

// A worker executable hosting your own features, in a package of its own that depends on
// ActionBus (Examples/CustomWorker/Package.swift). Build and start it (as many as you like):
//
//     swift build --package-path Examples/CustomWorker
//     Examples/CustomWorker/.build/debug/custom-worker tcp://coordinator-host:5556 greeter-1
//
// Arguments: the coordinator's workers endpoint (default tcp://127.0.0.1:5556), then the
// worker's name (default host-pid).
var configuration = WorkerConfiguration()
if CommandLine.arguments.count > 1 {
    configuration.coordinatorEndpoint = CommandLine.arguments[1]
}
if CommandLine.arguments.count > 2 {
    configuration.name = CommandLine.arguments[2]
}

let logger = Logger(label: "custom-worker")
let worker = try Worker(catalog: ActionCatalog(features: [GreetingFeature.self]), configuration: configuration, logger: logger)

// A swift-service-lifecycle service: SIGTERM or SIGINT begins a graceful shutdown, in which the
// worker drains (takes nothing new, finishes what it runs) and tells the coordinator it leaves.
let group = ServiceGroup(services: [worker], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
try await group.run()
