import ActionClient
import ArgumentParser
import Logging

/// What `stacks` and `stats` share: where the coordinator is, how long to wait, CURVE keys.
struct QueryClientOptions: ParsableArguments {
    @Option(help: "The coordinator's clients endpoint.")
    var coordinator = "tcp://127.0.0.1:5555"
    @Option(help: "Seconds to wait for the answer.")
    var timeout: Double = 10
    @OptionGroup var curve: CurveClientOptions

    /// A client for one query.
    func makeClient(logger: Logger) throws -> ActionClient {
        var configuration = ActionClientConfiguration()
        configuration.coordinatorEndpoint = coordinator
        configuration.defaultTimeout = .milliseconds(Int64(timeout * 1000))
        configuration.curve = try curve.keys()
        return try ActionClient(configuration: configuration, logger: logger)
    }
}
