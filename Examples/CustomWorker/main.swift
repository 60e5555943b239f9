import ActionCore
import ActionWorker
import Foundation

// A worker executable hosting your own features: build it with `swift build --product custom-worker`
// and start as many as you like: `custom-worker tcp://coordinator-host:5556`.
var configuration = WorkerConfiguration()
if CommandLine.arguments.count > 1 {
    configuration.coordinatorEndpoint = CommandLine.arguments[1]
}
if CommandLine.arguments.count > 2 {
    configuration.name = CommandLine.arguments[2]
}

let worker = try Worker(catalog: ActionCatalog(features: [GreetingFeature.self]), configuration: configuration)

// Leave cleanly on SIGINT/SIGTERM: the worker tells the coordinator, which moves its sessions.
let stopped = DispatchSemaphore(value: 0)
var signalSources: [any DispatchSourceSignal] = []
for signalNumber in [SIGINT, SIGTERM] {
    signal(signalNumber, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
    source.setEventHandler { stopped.signal() }
    source.resume()
    signalSources.append(source)
}
stopped.wait()
await worker.stop()
