import ActionCore
import ActionWorker
import Logging
import ServiceLifecycle

// A worker executable hosting your own features: build it with `swift build --product custom-worker`
// and start as many as you like: `custom-worker tcp://coordinator-host:5556`.
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
