import ActionCoordinator
import ActionTransport
import ArgumentParser
import ZeroMQ

/// `actionbus standby`: a warm standby keeping a copy of a leader coordinator's journal.
struct StandbyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "standby",
        abstract: "Keep a synced copy of a coordinator's journal (its --standby) until SIGINT or SIGTERM.",
        discussion: """
            To fail over by hand: stop the standby, then start 'actionbus coordinator --data-dir' on its directory \
            with the old leader's client and worker endpoints.
            """
    )

    @Option(help: "Endpoint the leader connects to (its --standby).")
    var listen = "tcp://127.0.0.1:5560"
    @Option(help: "Directory of the copy of the journal (created if missing; one process per directory).")
    var dataDir = "./actionbus-standby"
    @Option(help: ArgumentHelp(
        "The coordinator's secret key file, when it uses CURVE: the journal then travels encrypted.",
        discussion: "Only a peer holding that key (the coordinator) may connect."
    ))
    var curveSecretKey: String?
    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let logger = logging.bootstrap(label: "actionbus.standby", defaultLevel: .info)
        let curve: CurveServerKeys?
        do {
            curve = try curveSecretKey.map {
                CurveServerKeys(keyPair: try CurveKeyPair(secretKey: try CurveKeyFile.readKey($0)), allowedClients: [], allowedWorkers: [])
            }
        } catch {
            throw ValidationError("\(error)")
        }
        let standby = try Standby(listen: listen, dataDirectory: dataDir, logger: logger, curve: curve)
        try await runServices([standby], logger: logger)
        logger.info("standby stopped")
    }
}
